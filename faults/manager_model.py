"""A model-based search for holes in the safety contract (Hypothesis stateful testing).

`ManagerModel` drives a stepped controller manager (py_controllers.testing.SteppedManager:
the real manager, its real services' logic, a real rclpy context) through generated
sequences of the manager's operations (load, configure, switch at both strictness levels,
unload, cleanup, set_hardware_component_state, chained pairs, fallbacks) and faults
(controller hooks returning OK, FAILURE, ERROR, raising or returning nonsense; update()
writing inf, NaN, huge ints, None or numpy values; read() or write() failing; a mode
switch refused), one cycle after each, and checks the invariants of
`py_controllers.controller_manager.invariants` after every step, with a few rules the
model knows beyond them (a controller a switch took out no longer runs; one that wrote a
non-number is out).

The robot has one component of each hardware kind the contract is kept on:
SimulatedSystem (two joints, position/velocity/effort), MujocoSystem (the two-link arm:
position, and effort or position through a servo), DiffBotSystem (two wheels, velocity)
and mock_components/GenericSystem (position, velocity, effort, torque, current, force).

`make test` runs a bounded, seeded search (test/ros/test_manager_model.py); `make faults`
a long one (`run_search`). Each counterexample found becomes a named regression test in
test/ros/test_manager_model_cases.py.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule
from rclpy.parameter import Parameter

from py_controllers import plugins
from py_controllers.controller_interface.chainable_controller import ChainableControllerInterface
from py_controllers.controller_interface.controller_interface import (
    CallbackReturn,
    ControllerInterface,
    InterfaceConfiguration,
    ReturnType,
)
from py_controllers.controller_manager.invariants import InvariantRecorder, check_invariants
from py_controllers.hardware_interface.handle import CommandInterface
from py_controllers.hardware_interface.types import LifecycleStateId
from py_controllers.testing import CONFIG, RosHarness, SteppedManager

S = LifecycleStateId
MUJOCO_MODEL = CONFIG / 'mujoco' / 'two_link_arm.xml'

# --- the robot -----------------------------------------------------------------------


def _joint(name: str, commands: list[str], states: list[str], *, initial: float = 0.0) -> str:
    cmd = ''.join(f'<command_interface name="{c}"/>' for c in commands)
    st_ = ''.join(
        f'<state_interface name="{s}"><param name="initial_value">{initial}</param>'
        '</state_interface>'
        for s in states
    )
    return f'<joint name="{name}">{cmd}{st_}</joint>'


def model_urdf() -> str:
    """The model's robot: one component of each hardware kind, revolute joints with limits."""
    joints = ['a1', 'a2', 'joint1', 'joint2', 'w_left', 'w_right', 'g1']
    links = ''.join(f'<link name="l_{j}"/>' for j in joints)
    urdf_joints = ''.join(
        f'<joint name="{j}" type="{"continuous" if j.startswith("w_") else "revolute"}">'
        f'<parent link="base"/><child link="l_{j}"/><axis xyz="0 0 1"/>'
        '<limit lower="-3" upper="3" velocity="5" effort="50"/></joint>'
        for j in joints
    )
    pve = ['position', 'velocity', 'effort']
    arm = (
        '<ros2_control name="Arm" type="system"><hardware>'
        '<plugin>py_controllers/SimulatedSystem</plugin>'
        '<param name="inertia">0.1</param><param name="damping">0.1</param>'
        '<param name="sim_dt">0.001</param><param name="holding_brake">true</param>'
        '</hardware>'
        + _joint('a1', pve, ['position', 'velocity'], initial=0.3)
        + _joint('a2', pve, ['position', 'velocity'], initial=-0.2)
        + '</ros2_control>'
    )
    mujoco = (
        '<ros2_control name="Mj" type="system"><hardware>'
        '<plugin>py_controllers/MujocoSystem</plugin>'
        f'<param name="mujoco_model">{MUJOCO_MODEL}</param>'
        '<param name="sim_mode">step_with_loop</param><param name="viewer">false</param>'
        '</hardware>'
        + _joint('joint1', ['position'], ['position', 'velocity', 'effort'])
        + '<joint name="joint2"><param name="p">8.0</param><param name="d">0.6</param>'
        '<command_interface name="effort"/><command_interface name="position"/>'
        '<state_interface name="position"><param name="initial_value">0.0</param>'
        '</state_interface><state_interface name="velocity"/>'
        '<state_interface name="effort"/></joint>'
        '</ros2_control>'
    )
    base = (
        '<ros2_control name="Base" type="system"><hardware>'
        '<plugin>py_controllers/DiffBotSystem</plugin></hardware>'
        + _joint('w_left', ['velocity'], ['position', 'velocity'])
        + _joint('w_right', ['velocity'], ['position', 'velocity'])
        + '</ros2_control>'
    )
    generic = (
        '<ros2_control name="Gen" type="system"><hardware>'
        '<plugin>mock_components/GenericSystem</plugin></hardware>'
        + _joint(
            'g1',
            ['position', 'velocity', 'effort', 'torque', 'current', 'force'],
            ['position', 'velocity'],
            initial=0.5,
        )
        + '</ros2_control>'
    )
    return (
        f'<robot name="model"><link name="base"/>{links}{urdf_joints}'
        f'{arm}{mujoco}{base}{generic}</robot>'
    )


COMPONENTS = ['Arm', 'Mj', 'Base', 'Gen']

# what a controller slot may claim: groups that overlap on purpose (conflicts, two modes of
# one joint, interfaces of several components)
GROUPS = [
    ['a1/position'],
    ['a1/velocity'],
    ['a1/effort', 'a2/effort'],
    ['a1/position', 'a2/position'],
    ['joint1/position', 'joint2/effort'],
    ['joint2/position'],
    ['w_left/velocity', 'w_right/velocity'],
    ['g1/torque'],
    ['g1/current', 'g1/force'],
    ['g1/position', 'g1/effort'],
    ['g1/velocity', 'a2/velocity'],
    ['follower/x/velocity'],
]
SLOTS = ['c0', 'c1', 'c2', 'c3']
FOLLOWER = 'follower'  # chainable: reference follower/x/velocity, commands g1/velocity
HOOKS = ['on_configure', 'on_activate', 'on_deactivate', 'on_cleanup']
NEXT_HOOKS = {
    S.UNCONFIGURED: ['on_configure'],
    S.INACTIVE: ['on_activate', 'on_cleanup'],
    S.ACTIVE: ['on_deactivate'],
}
HOOK_RESULTS = {
    'ok': CallbackReturn.SUCCESS,
    'failure': CallbackReturn.FAILURE,
    'false': False,
    'error': CallbackReturn.ERROR,
    'int': 1,
    'returntype_error': ReturnType.ERROR,
    'nonsense': 'done',
}
UPDATE_WRITES: dict[str, Any] = {
    'finite': 0.25,
    'nan': math.nan,
    'inf': math.inf,
    '-inf': -math.inf,
    'huge': 10**400,
    'none': None,
    'np_float': np.float64(0.5),
    'np_array': np.array([1.0]),
    'int': 2,
    'str': 'fast',
}
BAD_WRITES = {'inf', '-inf', 'huge', 'none', 'np_array', 'str'}
UPDATE_RESULTS: dict[str, Any] = {
    'ok': ReturnType.OK,
    'error': ReturnType.ERROR,
    'none': None,
    'nonsense': 'fine',
    'deactivate': ReturnType.DEACTIVATE,
}


# --- the controllers -------------------------------------------------------------------


class _Planned:
    """What the model tells a controller to do: hook results, what update() writes."""

    hooks: dict[str, str]
    write: str
    result: str

    def _plan_reset(self) -> None:
        self.hooks = {}
        self.write = 'finite'
        self.result = 'ok'

    def _hook(self, name: str) -> Any:
        outcome = self.hooks.pop(name, 'ok')
        if outcome == 'raise':
            raise RuntimeError(f'{name} fails on purpose')
        return HOOK_RESULTS[outcome]

    def _write_all(self, handles: list[Any]) -> Any:
        value = UPDATE_WRITES[self.write]
        for handle in handles:
            handle.value = value
        if self.result == 'raise':
            raise RuntimeError('update() fails on purpose')
        return UPDATE_RESULTS[self.result]


class ModelCommander(_Planned, ControllerInterface):
    """Claims the interfaces of its `interfaces` parameter and writes what it is told."""

    def on_init(self) -> CallbackReturn:
        self._plan_reset()
        self.get_node().declare_parameter('interfaces', ['a1/position'])
        self.names: list[str] = []
        return CallbackReturn.SUCCESS

    def on_configure(self, previous_state: Any) -> Any:
        self.names = list(self.get_node().get_parameter('interfaces').value)
        return self._hook('on_configure')

    def command_interface_configuration(self) -> InterfaceConfiguration:
        return InterfaceConfiguration.individual(self.names)

    def on_activate(self, previous_state: Any) -> Any:
        return self._hook('on_activate')

    def on_deactivate(self, previous_state: Any) -> Any:
        return self._hook('on_deactivate')

    def on_cleanup(self, previous_state: Any) -> Any:
        return self._hook('on_cleanup')

    def update(self, time: Any, period: Any) -> Any:
        return self._write_all(self.command_interfaces)


class ModelFollower(_Planned, ChainableControllerInterface):
    """A chainable controller: reference `<name>/x/velocity`, commands g1/velocity with it
    (or, not chained, with what its box holds); refuses chained mode when told to."""

    def on_init(self) -> CallbackReturn:
        self._plan_reset()
        self.refuse_chained = False
        self.box = self.topic_reference_box()
        return CallbackReturn.SUCCESS

    def on_configure(self, previous_state: Any) -> Any:
        return self._hook('on_configure')

    def on_activate(self, previous_state: Any) -> Any:
        return self._hook('on_activate')

    def on_deactivate(self, previous_state: Any) -> Any:
        return self._hook('on_deactivate')

    def on_cleanup(self, previous_state: Any) -> Any:
        return self._hook('on_cleanup')

    def command_interface_configuration(self) -> InterfaceConfiguration:
        return InterfaceConfiguration.individual(['g1/velocity'])

    def on_export_reference_interfaces(self) -> list[CommandInterface]:
        return [CommandInterface(f'{self.name}/x', 'velocity')]

    def on_set_chained_mode(self, chained: bool) -> bool:
        return not (chained and self.refuse_chained)

    def update_reference_from_subscribers(self, time: Any, period: Any) -> ReturnType:
        value = self.box.get()
        self.reference_interfaces[0].value = 0.0 if value is None else value
        return ReturnType.OK

    def update_and_write_commands(self, time: Any, period: Any) -> Any:
        if self.write != 'finite':
            return self._write_all(self.command_interfaces)
        reference = self.reference_interfaces[0].value
        self.command_interfaces[0].value = reference if reference == reference else 0.0
        return UPDATE_RESULTS[self.result] if self.result != 'raise' else self._write_all([])


plugins.register(plugins.CONTROLLERS_GROUP, 'model/Commander', ModelCommander)
plugins.register(plugins.CONTROLLERS_GROUP, 'model/Follower', ModelFollower)

# --- the machine -------------------------------------------------------------------------

_HARNESS: RosHarness | None = None


def harness() -> RosHarness:
    """One rclpy context for every example of the process (a new manager per example)."""
    global _HARNESS
    if _HARNESS is None:
        _HARNESS = RosHarness('manager_model')
    return _HARNESS


class ManagerModel(RuleBasedStateMachine):
    """The manager under generated operations and faults; invariants after every step."""

    def __init__(self) -> None:
        super().__init__()
        self.stepped = SteppedManager(harness(), model_urdf(), period_ns=10_000_000)
        self.cm = self.stepped.manager
        self.recorder = InvariantRecorder(self.cm)
        self.steps = 0
        self.hardware_faults: list[str] = []
        self.step()

    def teardown(self) -> None:
        self.stepped.shutdown()

    # --- helpers --------------------------------------------------------------------
    def step(self, cycles: int = 1) -> None:
        """Run cycles; wait for hardware transitions they started (on_error)."""
        for _ in range(cycles):
            self.stepped.step()
            self.steps += 1
            assert self.cm.supervisor.transitions.wait_idle(10.0), 'a transition hangs'
        self.cm.deferred.run_pending()

    def _spec(self, name: str) -> Any:
        return self.cm.controllers.get(name)

    def _pick(self, data: Any, names: list[str], label: str) -> str | None:
        return data.draw(st.sampled_from(sorted(names)), label=label) if names else None

    def _loaded(self) -> list[str]:
        return list(self.cm.controllers)

    # --- operations -----------------------------------------------------------------
    @rule(
        slot=st.sampled_from(SLOTS),
        group=st.sampled_from(GROUPS),
        fallback=st.one_of(st.none(), st.none(), st.sampled_from([*SLOTS, FOLLOWER])),
        configure=st.booleans(),
    )
    def load(self, slot: str, group: list[str], fallback: str | None, configure: bool) -> None:
        if slot not in self.cm.controllers:
            fallbacks = [fallback] if fallback and fallback != slot else []
            self._load(slot, group, fallbacks, configure=configure)
        self.step()

    @rule(configure=st.booleans())
    def load_follower(self, configure: bool) -> None:
        if FOLLOWER not in self.cm.controllers:
            ok, msg = self.cm.load_controller(FOLLOWER, 'model/Follower')
            assert ok, msg
            if configure:
                self.cm.configure_controller(FOLLOWER)
        self.step()

    @rule(data=st.data())
    def configure(self, data: Any) -> None:
        name = self._pick(data, self._loaded(), 'configure')
        if name is not None:
            self.cm.configure_controller(name)
        self.step()

    @rule(data=st.data())
    def cleanup(self, data: Any) -> None:
        name = self._pick(data, self._loaded(), 'cleanup')
        if name is not None:
            self.cm.cleanup_controller(name)
        self.step()

    @rule(data=st.data())
    def unload(self, data: Any) -> None:
        name = self._pick(data, self._loaded(), 'unload')
        if name is not None:
            self.cm.unload_controller(name)
        self.step()

    @initialize(
        groups=st.lists(st.sampled_from(GROUPS), min_size=2, max_size=3),
        follower=st.booleans(),
        fallback=st.booleans(),
    )
    def some_controllers(self, groups: list[list[str]], follower: bool, fallback: bool) -> None:
        """Start each example with controllers loaded and configured (and one fallback)."""
        for slot, group in zip(SLOTS, groups, strict=False):
            backup = [SLOTS[len(groups) - 1]] if fallback and slot == SLOTS[0] else []
            self._load(slot, group, backup, configure=True)
        if follower:
            self.load_follower(True)

    def _load(self, slot: str, group: list[str], fallbacks: list[str], *, configure: bool) -> None:
        self.cm.node.set_parameters(
            [Parameter(f'{slot}.fallback_controllers', Parameter.Type.STRING_ARRAY, fallbacks)]
        )
        ok, msg = self.cm.load_controller(slot, 'model/Commander')
        assert ok, msg
        ctrl = self.cm.controllers[slot].controller
        ctrl.get_node().set_parameters([Parameter('interfaces', value=group)])
        if configure:
            self.cm.configure_controller(slot)

    @rule(data=st.data(), strictness=st.sampled_from([1, 2]))
    def switch_again(self, data: Any, strictness: int) -> None:
        """Switches are most of what happens to a manager: twice the weight."""
        self.switch(data, strictness)

    @rule(data=st.data(), strictness=st.sampled_from([1, 2]))
    def switch(self, data: Any, strictness: int) -> None:
        loaded = sorted(self.cm.controllers)
        if not loaded:
            self.step()
            return
        inactive = [n for n in loaded if self.cm.state_of(n) == S.INACTIVE]
        running = [n for n in loaded if self.cm.is_running(n)]
        activate = data.draw(
            st.lists(st.sampled_from(inactive or loaded), min_size=1, max_size=3, unique=True),
            'activate',
        )
        deactivate = (
            data.draw(st.lists(st.sampled_from(running), max_size=2, unique=True), 'deactivate')
            if running
            else []
        )
        ok, _ = self.cm.switch_controller(activate, deactivate, strictness)
        if ok and strictness == 2:
            for name in deactivate:
                # a switch that took it out: it no longer runs (whatever its hooks said)
                if name not in activate:
                    assert not self.cm.is_running(name), f'{name} still runs'
        self.step()

    @rule(data=st.data(), strictness=st.sampled_from([1, 2]))
    def restart(self, data: Any, strictness: int) -> None:
        """One switch that deactivates and activates the same controller."""
        name = self._pick(data, [s.name for s in self.cm.active], 'restart')
        if name is not None:
            self.cm.switch_controller([name], [name], strictness)
        self.step()

    @rule(data=st.data())
    def deactivate(self, data: Any) -> None:
        name = self._pick(data, [s.name for s in self.cm.active], 'deactivate')
        if name is not None:
            ok, _msg = self.cm.switch_controller([], [name], 2)
            if ok:  # taken out, whatever its hooks said
                assert not self.cm.is_running(name), f'{name} still runs'
        self.step()

    @rule(component=st.sampled_from(COMPONENTS), goal=st.sampled_from(['u', 'i', 'a', 'a']))
    def hardware_state(self, component: str, goal: str) -> None:
        state = {'u': S.UNCONFIGURED, 'i': S.INACTIVE, 'a': S.ACTIVE}[goal]
        self.cm.set_hardware_component_state(component, state, timeout_s=10.0)
        self.step()

    @rule(cycles=st.integers(1, 5))
    def run(self, cycles: int) -> None:
        self.step(cycles)

    # --- faults ---------------------------------------------------------------------
    @rule(data=st.data(), outcome=st.sampled_from([*HOOK_RESULTS, 'raise']))
    def hook_fault(self, data: Any, outcome: str) -> None:
        """A hook's next result; the hooks the controller's state leads to next are drawn
        twice as often as the others (a fault that lands there is met at once)."""
        name = self._pick(data, self._loaded(), 'hook_fault')
        if name is not None:
            hooks = [*NEXT_HOOKS.get(self.cm.state_of(name), []), *HOOKS]
            hook = data.draw(st.sampled_from(hooks), label='hook')
            self.cm.controllers[name].controller.hooks[hook] = outcome
        self.step()

    @rule(
        data=st.data(),
        write=st.sampled_from(list(UPDATE_WRITES)),
        result=st.sampled_from([*UPDATE_RESULTS, 'raise']),
    )
    def update_fault(self, data: Any, write: str, result: str) -> None:
        name = self._pick(data, [s.name for s in self.cm.active], 'update_fault')
        if name is None:
            self.step()
            return
        spec = self.cm.controllers[name]
        spec.controller.write, spec.controller.result = write, result
        hardware = any(self.cm.rm.component_of(i) for i in spec.claimed)
        self.step()
        if hardware and write in BAD_WRITES:
            assert not self.cm.is_running(name), f'{name} wrote {write} and still runs'
        spec.controller.write, spec.controller.result = 'finite', 'ok'

    @rule(refuse=st.booleans())
    def follower_refuses_chained_mode(self, refuse: bool) -> None:
        spec = self._spec(FOLLOWER)
        if spec is not None:
            spec.controller.refuse_chained = refuse
        self.step()

    @rule(
        component=st.sampled_from(COMPONENTS),
        where=st.sampled_from(['read', 'write', 'prepare', 'perform']),
        how=st.sampled_from(['error', 'raise']),
    )
    def hardware_fault(self, component: str, where: str, how: str) -> None:
        managed = self.cm.rm.components[component]
        method = {
            'read': 'read',
            'write': 'write',
            'prepare': 'prepare_command_mode_switch',
            'perform': 'perform_command_mode_switch',
        }[where]
        _fail_once(managed.component, method, how)
        self.step()

    # --- the invariants -------------------------------------------------------------
    @invariant()
    def contract_holds(self) -> None:
        broken = check_invariants(self.cm, self.recorder)
        assert not broken, '\n'.join(map(str, broken))


def _fail_once(component: Any, method: str, how: str) -> None:
    """The component's next `method` call fails (ERROR, or raises); then it is itself."""
    original = getattr(type(component), method).__get__(component)

    def failing(*args: Any) -> Any:
        setattr(component, method, original)
        if how == 'raise':
            raise RuntimeError(f'{method} fails on purpose')
        return ReturnType.ERROR

    setattr(component, method, failing)
