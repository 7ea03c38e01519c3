"""Robots and controllers the release-transaction tests share: GenericSystem joints with
any command interfaces, and controllers whose hooks fail in a named way."""

from __future__ import annotations

from rclpy.parameter import Parameter
from safety_rig import Commanding

from py_controllers import plugins
from py_controllers.controller_interface.chainable_controller import ChainableControllerInterface
from py_controllers.controller_interface.controller_interface import CallbackReturn, ReturnType
from py_controllers.hardware_interface.handle import CommandInterface

STRICT = 2


def generic_robot(joints: dict[str, list[str]], *, states: tuple[str, ...] = ('position',)) -> str:
    """One mock_components/GenericSystem `Gen`: each joint with the command interfaces given
    and `states` (initial value 0.5), a revolute joint with limits in the URDF."""
    links = ''.join(f'<link name="l_{j}"/>' for j in joints)
    urdf_joints = ''.join(
        f'<joint name="{j}" type="revolute"><parent link="base"/><child link="l_{j}"/>'
        '<axis xyz="0 0 1"/><limit lower="-3" upper="3" velocity="2" effort="10"/></joint>'
        for j in joints
    )
    tags = ''.join(
        f'<joint name="{j}">'
        + ''.join(f'<command_interface name="{c}"/>' for c in commands)
        + ''.join(
            f'<state_interface name="{s}"><param name="initial_value">0.5</param></state_interface>'
            for s in states
        )
        + '</joint>'
        for j, commands in joints.items()
    )
    return (
        f'<robot name="generic"><link name="base"/>{links}{urdf_joints}'
        '<ros2_control name="Gen" type="system"><hardware>'
        f'<plugin>mock_components/GenericSystem</plugin></hardware>{tags}</ros2_control></robot>'
    )


def load(manager, name, type_name='Commanding', *, fallbacks=None, **params):
    """Load and configure controller `name` of `release/<type_name>` with `params`."""
    if fallbacks is not None:
        manager.node.set_parameters(
            [Parameter(f'{name}.fallback_controllers', Parameter.Type.STRING_ARRAY, fallbacks)]
        )
    ok, msg = manager.load_controller(name, f'release/{type_name}')
    assert ok, msg
    ctrl = manager.controllers[name].controller
    ctrl.get_node().set_parameters([Parameter(k, value=v) for k, v in params.items()])
    ok, msg = manager.configure_controller(name)
    assert ok, msg
    return ctrl


def start(manager, name, type_name='Commanding', **params):
    """load(), then activate alone (STRICT)."""
    ctrl = load(manager, name, type_name, **params)
    ok, msg = manager.switch_controller([name], [], STRICT)
    assert ok, msg
    return ctrl


class Scripted(Commanding):
    """Commanding whose hooks return what `results[hook]` says (SUCCESS otherwise), and
    whose update() writes `value` (any object) and may run `during_update`."""

    def on_init(self):
        super().on_init()
        self.results = {}
        self.during_update = None
        self.on_activate_writes = None

    def on_activate(self, previous_state):
        if self.on_activate_writes is not None:
            for handle in self.command_interfaces:
                handle.value = self.on_activate_writes
        return self.results.get('on_activate', CallbackReturn.SUCCESS)

    def on_deactivate(self, previous_state):
        return self.results.get('on_deactivate', CallbackReturn.SUCCESS)

    def on_cleanup(self, previous_state):
        hook = self.results.get('during_cleanup')
        if hook is not None:
            hook()
        return CallbackReturn.SUCCESS

    def update(self, time, period):
        self.updates += 1
        for handle in self.command_interfaces:
            handle.value = self.value
        if self.during_update is not None:
            self.during_update()
        return self.results.get('update', ReturnType.OK)


class AnyValue(Scripted):
    """Scripted whose `value` parameter is ignored: the test sets `value` to any object."""

    def on_configure(self, previous_state):
        super().on_configure(previous_state)
        self.value = 1.0


for _cls in (Commanding, Scripted, AnyValue):
    plugins.register(plugins.CONTROLLERS_GROUP, f'release/{_cls.__name__}', _cls)


class Refusing(ChainableControllerInterface):
    """A chainable controller that refuses chained mode (reference `<name>/x/velocity`)."""

    def on_export_reference_interfaces(self):
        return [CommandInterface(f'{self.name}/x', 'velocity')]

    def on_set_chained_mode(self, chained):
        return not chained


plugins.register(plugins.CONTROLLERS_GROUP, 'release/Refusing', Refusing)
