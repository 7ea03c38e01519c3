"""SimulatedSystem and DiffBotSystem driven through their lifecycle like the resource manager."""

import math
from types import SimpleNamespace

import pytest
from rclpy.duration import Duration
from rclpy.time import Time

from py_controllers.hardware.diffbot_system import DiffBotSystem
from py_controllers.hardware.simulated_system import SimulatedSystem
from py_controllers.hardware_interface.types import CallbackReturn, LifecycleStateId, ReturnType

MS = 1_000_000  # ns
NOW = Time(nanoseconds=0)


# --- stand-in description objects (the fields the components read) -------------------
def itf(name, *, min=None, max=None, initial_value=None):
    return SimpleNamespace(
        name=name,
        min=None if min is None else str(min),
        max=None if max is None else str(max),
        initial_value=None if initial_value is None else str(initial_value),
        data_type='double',
        parameters={},
    )


def joint(name, commands, states, **params):
    return SimpleNamespace(
        name=name,
        command_interfaces=[c if isinstance(c, SimpleNamespace) else itf(c) for c in commands],
        state_interfaces=[s if isinstance(s, SimpleNamespace) else itf(s) for s in states],
        parameters={k: str(v) for k, v in params.items()},
    )


def hardware(joints, *, limits=None, **params):
    info = SimpleNamespace(
        name='sim',
        hardware_parameters={k: str(v) for k, v in params.items()},
        joints=joints,
        sensors=[],
        gpios=[],
    )
    if limits is not None:
        info.limits = limits
    return info


def limits(**values):
    """A JointLimits stand-in: a `has_*` flag for every bound given."""
    out = SimpleNamespace(
        lower=-math.inf,
        upper=math.inf,
        velocity=math.inf,
        effort=math.inf,
        acceleration=math.inf,
        has_position_limits=False,
        has_velocity_limits=False,
        has_effort_limits=False,
        has_acceleration_limits=False,
    )
    for key, value in values.items():
        setattr(out, key, value)
        flag = 'position' if key in ('lower', 'upper') else key
        setattr(out, f'has_{flag}_limits', True)
    return out


ARM_STATES = ('position', 'velocity', 'effort', 'acceleration')


def start(component_type, info, *, activate=True):
    """on_init, export handles into the component's dicts, configure (and activate)."""
    component = component_type()
    assert component.on_init(info) == CallbackReturn.SUCCESS
    component.state_interfaces = {h.name: h for h in component.export_state_interfaces()}
    component.command_interfaces = {h.name: h for h in component.export_command_interfaces()}
    assert component.on_configure(LifecycleStateId.UNCONFIGURED) == CallbackReturn.SUCCESS
    if activate:
        assert component.on_activate(LifecycleStateId.INACTIVE) == CallbackReturn.SUCCESS
    return component


def claim(component, *names):
    assert component.prepare_command_mode_switch(list(names), []) == ReturnType.OK
    assert component.perform_command_mode_switch(list(names), []) == ReturnType.OK


def run(component, cycles, period_ns=MS):
    period = Duration(nanoseconds=period_ns)
    for _ in range(cycles):
        assert component.read(NOW, period) == ReturnType.OK
        assert component.write(NOW, period) == ReturnType.OK


def state(component, name):
    return component.state_interfaces[name].value


def arm(**params):
    """j1 with its own inertia 2, j2 on the hardware defaults; no damping."""
    params.setdefault('damping', 0.0)
    return hardware(
        [
            joint('j1', ['position', 'velocity', 'effort'], ARM_STATES, inertia=2.0),
            joint('j2', ['position', 'velocity', 'effort'], ARM_STATES),
        ],
        **params,
    )


# --- SimulatedSystem -------------------------------------------------------------------
def test_configure_publishes_initial_states():
    info = hardware(
        [
            joint(
                'j1',
                ['effort'],
                [itf('position', initial_value=0.25), itf('velocity'), itf('effort')],
            ),
            joint('j2', [itf('position', initial_value=-0.5)], ['position']),
        ]
    )
    sim = start(SimulatedSystem, info)
    assert state(sim, 'j1/position') == 0.25
    assert state(sim, 'j1/velocity') == 0.0
    assert state(sim, 'j1/effort') == 0.0
    assert state(sim, 'j2/position') == -0.5  # from the command's initial_value


def test_effort_mode_integrates_with_per_joint_inertia():
    # j1: I = 2 (its own param), tau = 1 -> a = 0.5; j2: I = 0.5 (hardware default), tau = 1
    # -> a = 2. 100 reads of 5 ms = 500 fixed steps:
    # v = 500 a dt, x = a dt^2 500 * 501 / 2 -> j1: 0.25, 0.062625; j2: 1.0, 0.2505.
    sim = start(SimulatedSystem, arm(inertia=0.5))
    claim(sim, 'j1/effort', 'j2/effort')
    sim.set_command('j1/effort', 1.0)
    sim.set_command('j2/effort', 1.0)
    run(sim, 100, 5 * MS)
    assert state(sim, 'j1/velocity') == pytest.approx(0.25, rel=1e-12)
    assert state(sim, 'j1/position') == pytest.approx(0.062625, rel=1e-12)
    assert state(sim, 'j1/acceleration') == pytest.approx(0.5, rel=1e-9)
    assert state(sim, 'j1/effort') == 1.0
    assert state(sim, 'j2/velocity') == pytest.approx(1.0, rel=1e-12)
    assert state(sim, 'j2/position') == pytest.approx(0.2505, rel=1e-12)


def test_damping_steady_state_through_the_component():
    # I = 2 (j1), b = 4: v_ss = tau / b = 0.25 for tau = 1.
    sim = start(SimulatedSystem, arm(damping=4.0))
    claim(sim, 'j1/effort')
    sim.set_command('j1/effort', 1.0)
    run(sim, 200, 50 * MS)  # 10 s = 20 time constants (I / b = 0.5 s)
    assert state(sim, 'j1/velocity') == pytest.approx(0.25, rel=1e-8)


def test_velocity_mode_first_order_and_position_mode():
    # velocity_time_constant 0.05: v(50 ms) = 2 (1 - e^-1) = 1.26424...
    sim = start(SimulatedSystem, arm(velocity_time_constant=0.05))
    claim(sim, 'j1/velocity', 'j2/position')
    sim.set_command('j1/velocity', 2.0)
    sim.set_command('j2/position', 0.3)
    run(sim, 10, 5 * MS)
    assert state(sim, 'j1/velocity') == pytest.approx(1.2642411176571153, rel=1e-12)
    assert state(sim, 'j2/position') == pytest.approx(0.3, rel=1e-12)  # position_time_constant 0
    assert state(sim, 'j2/velocity') == pytest.approx(0.0, abs=1e-9)  # at rest since step 1


def test_unclaimed_joints_are_passive_and_ignore_commands():
    sim = start(SimulatedSystem, arm(gravity=1.0, inertia=1.0))
    sim.set_command('j2/effort', 5.0)  # written, but nobody claimed it
    run(sim, 1)
    # Passive: only gravity, -1 * cos(0) on I = 1 for one step.
    assert state(sim, 'j2/velocity') == pytest.approx(-0.001, rel=1e-12)
    assert state(sim, 'j2/effort') == 0.0


def test_holding_brake_keeps_a_passive_joint_still_until_claimed():
    # j1 overrides the hardware's brake: it sags; j2 is held against gravity.
    info = arm(gravity=1.0, inertia=1.0, holding_brake='true')
    info.joints[0].parameters['holding_brake'] = 'false'
    sim = start(SimulatedSystem, info)
    run(sim, 500)
    assert state(sim, 'j1/position') == pytest.approx(-0.0625, rel=0.01)  # g t^2 / (2 I)
    assert (state(sim, 'j2/position'), state(sim, 'j2/velocity')) == (0.0, 0.0)
    assert state(sim, 'j2/effort') == 0.0
    claim(sim, 'j2/effort')  # the drive takes over: brake released
    sim.set_command('j2/effort', 0.0)
    run(sim, 1)
    assert state(sim, 'j2/velocity') == pytest.approx(-0.001, rel=1e-12)  # gravity only
    run(sim, 99)
    fallen = state(sim, 'j2/position')
    assert fallen < -0.004
    assert sim.perform_command_mode_switch([], ['j2/effort']) == ReturnType.OK
    run(sim, 100)  # released by its controller: held where it was
    assert state(sim, 'j2/position') == fallen
    assert state(sim, 'j2/velocity') == 0.0


def test_holding_brake_must_be_a_bool():
    info = hardware([joint('j1', ['effort'], ['position'])], holding_brake='sometimes')
    assert SimulatedSystem().on_init(info) == CallbackReturn.ERROR


def test_nan_command_holds_then_keeps_the_last_command():
    sim = start(SimulatedSystem, arm())
    sim.set_state('j1/position', 99.0)  # the handle is output only; the sim keeps its own state
    claim(sim, 'j1/position', 'j2/velocity')
    assert math.isnan(sim.get_command('j1/position'))
    run(sim, 10)
    assert state(sim, 'j1/position') == 0.0  # hold where it was
    assert state(sim, 'j2/velocity') == 0.0  # hold = stand still
    sim.set_command('j1/position', 0.2)
    sim.set_command('j2/velocity', 1.0)
    run(sim, 1)
    sim.set_command('j1/position', math.nan)
    sim.set_command('j2/velocity', math.nan)
    run(sim, 200)
    assert state(sim, 'j1/position') == pytest.approx(0.2, rel=1e-12)
    assert state(sim, 'j2/velocity') == pytest.approx(1.0, rel=1e-6)  # tau 0.01 s, 200 ms


def test_infinite_command_is_an_error():
    sim = start(SimulatedSystem, arm())
    claim(sim, 'j1/effort')
    sim.set_command('j1/effort', math.inf)
    assert sim.read(NOW, Duration(nanoseconds=MS)) == ReturnType.ERROR


def test_two_modes_on_one_joint_are_refused():
    sim = start(SimulatedSystem, arm())
    both = ['j1/position', 'j1/velocity']
    assert sim.prepare_command_mode_switch(both, []) == ReturnType.ERROR
    claim(sim, 'j1/velocity')
    # Starting position while velocity is still claimed would be two modes...
    assert sim.prepare_command_mode_switch(['j1/position'], []) == ReturnType.ERROR
    # ...but swapping them in one switch is fine, and so is another joint.
    assert sim.prepare_command_mode_switch(['j1/position'], ['j1/velocity']) == ReturnType.OK
    assert sim.prepare_command_mode_switch(['j2/position'], []) == ReturnType.OK


def test_stopping_a_claim_makes_the_joint_passive():
    sim = start(SimulatedSystem, arm(velocity_time_constant=0.0, damping=0.5, inertia=1.0))
    claim(sim, 'j2/velocity')
    sim.set_command('j2/velocity', 1.0)
    run(sim, 1)
    assert state(sim, 'j2/velocity') == 1.0
    assert sim.perform_command_mode_switch([], ['j2/velocity']) == ReturnType.OK
    run(sim, 1)
    # Coasting against damping: v' = I v / (I + dt b) = 1 / 1.0005.
    assert state(sim, 'j2/velocity') == pytest.approx(1.0 / 1.0005, rel=1e-12)
    assert state(sim, 'j2/effort') == 0.0


def test_inactive_component_ignores_commands():
    sim = start(SimulatedSystem, arm())
    claim(sim, 'j1/effort')
    sim.set_command('j1/effort', 1.0)
    assert sim.on_deactivate(LifecycleStateId.ACTIVE) == CallbackReturn.SUCCESS
    run(sim, 10)
    assert state(sim, 'j1/position') == 0.0
    assert sim.on_activate(LifecycleStateId.INACTIVE) == CallbackReturn.SUCCESS
    run(sim, 10)
    assert state(sim, 'j1/velocity') == pytest.approx(0.005, rel=1e-12)  # 10 steps of a = 0.5


def test_limits_from_info_limits():
    info = arm(inertia=1.0)
    info.limits = {'j1': limits(lower=-0.5, upper=0.1, effort=0.5), 'j2': limits(velocity=0.2)}
    sim = start(SimulatedSystem, info)
    claim(sim, 'j1/effort', 'j2/effort')
    sim.set_command('j1/effort', 10.0)
    sim.set_command('j2/effort', 10.0)
    run(sim, 1)
    assert state(sim, 'j1/effort') == 0.5  # saturated
    run(sim, 1000)
    assert state(sim, 'j1/position') == 0.1  # hard stop
    assert state(sim, 'j1/velocity') == 0.0
    assert state(sim, 'j2/velocity') == 0.2  # velocity limit


def test_limits_from_interface_min_max_without_info_limits():
    info = hardware(
        [
            joint(
                'j1',
                [itf('position', min=-0.3, max=0.3), itf('effort', min=-2, max=1.5)],
                ['position', 'velocity', 'effort'],
            )
        ],
        inertia=1.0,
    )
    sim = start(SimulatedSystem, info)
    claim(sim, 'j1/effort')
    sim.set_command('j1/effort', -10.0)
    run(sim, 1)
    assert state(sim, 'j1/effort') == -1.5  # symmetric: the tighter of |min| and max
    run(sim, 2000)
    assert state(sim, 'j1/position') == -0.3


def test_same_total_time_same_result_however_it_is_split():
    def simulate(periods_ns):
        sim = start(SimulatedSystem, arm(gravity=1.5, friction=0.1, damping=0.2))
        claim(sim, 'j1/effort', 'j2/velocity')
        sim.set_command('j1/effort', 0.4)
        sim.set_command('j2/velocity', -0.7)
        for period in periods_ns:
            run(sim, 1, period)
        return [h.value for h in sim.state_interfaces.values()]

    reference = simulate([MS] * 600)
    assert simulate([MS] * 600) == reference
    assert simulate([10 * MS] * 60) == reference
    assert simulate([3 * MS, 7 * MS] * 60) == reference


def test_bad_description_fails_on_init():
    def init(info):
        return SimulatedSystem().on_init(info)

    assert init(hardware([joint('j1', ['current'], ['position'])])) == CallbackReturn.ERROR
    assert init(hardware([joint('j1', ['effort'], ['position'], inertia=0)])) == (
        CallbackReturn.ERROR
    )
    assert init(hardware([joint('j1', ['effort'], ['position'])], damping='x')) == (
        CallbackReturn.ERROR
    )
    assert init(hardware([joint('j1', ['effort'], ['position'])], sim_dt=0)) == (
        CallbackReturn.ERROR
    )


def test_sim_dt_parameter_sets_the_internal_step():
    # sim_dt 0.01: a 5 ms period is half a step -> nothing; the next completes one step.
    sim = start(SimulatedSystem, arm(sim_dt=0.01, inertia=1.0))
    claim(sim, 'j2/effort')
    sim.set_command('j2/effort', 1.0)
    run(sim, 1, 5 * MS)
    assert state(sim, 'j2/velocity') == 0.0
    run(sim, 1, 5 * MS)
    assert state(sim, 'j2/velocity') == pytest.approx(0.01, rel=1e-12)


# --- DiffBotSystem ---------------------------------------------------------------------
def diffbot(**params):
    return hardware(
        [
            joint('left_wheel_joint', ['velocity'], ['position', 'velocity']),
            joint('right_wheel_joint', ['velocity'], ['position', 'velocity']),
        ],
        **params,
    )


WHEELS = ('left_wheel_joint/velocity', 'right_wheel_joint/velocity')


def test_diffbot_first_order_response():
    # motor_time_constant 0.1: v(0.1 s) = 4 (1 - e^-1) = 2.52848...
    bot = start(DiffBotSystem, diffbot(motor_time_constant=0.1))
    claim(bot, *WHEELS)
    bot.set_command('left_wheel_joint/velocity', 4.0)
    bot.set_command('right_wheel_joint/velocity', -4.0)
    run(bot, 10, 10 * MS)
    assert state(bot, 'left_wheel_joint/velocity') == pytest.approx(2.5284822353142307, rel=1e-12)
    assert state(bot, 'right_wheel_joint/velocity') == pytest.approx(-2.5284822353142307, rel=1e-12)
    assert state(bot, 'left_wheel_joint/position') > 0.0


def test_diffbot_limits_from_params_and_urdf():
    # Hardware max 3 rad/s; the right wheel's URDF says 2 rad/s; acceleration 10 rad/s^2.
    info = diffbot(motor_time_constant=0, max_wheel_velocity=3.0, max_wheel_acceleration=10.0)
    info.limits = {'right_wheel_joint': limits(velocity=2.0)}
    bot = start(DiffBotSystem, info)
    claim(bot, *WHEELS)
    bot.set_command('left_wheel_joint/velocity', 5.0)
    bot.set_command('right_wheel_joint/velocity', 5.0)
    run(bot, 1, 100 * MS)
    assert state(bot, 'left_wheel_joint/velocity') == pytest.approx(1.0, rel=1e-12)  # 10 * 0.1
    run(bot, 3, 100 * MS)
    assert state(bot, 'left_wheel_joint/velocity') == 3.0
    assert state(bot, 'right_wheel_joint/velocity') == 2.0


def test_diffbot_per_wheel_parameter_override():
    info = diffbot(motor_time_constant=0)
    info.joints[1].parameters['max_wheel_velocity'] = '0.5'
    bot = start(DiffBotSystem, info)
    claim(bot, *WHEELS)
    bot.set_command('left_wheel_joint/velocity', 1.0)
    bot.set_command('right_wheel_joint/velocity', 1.0)
    run(bot, 1)
    assert state(bot, 'left_wheel_joint/velocity') == 1.0
    assert state(bot, 'right_wheel_joint/velocity') == 0.5


def test_diffbot_encoder_quantisation():
    # 1 rad/s for 0.1 s (no lag) = 0.1 rad -> floor(0.1 * 100 / 2 pi) = 1 tick = 0.0628318...
    bot = start(DiffBotSystem, diffbot(motor_time_constant=0, encoder_ticks_per_revolution=100))
    claim(bot, *WHEELS)
    bot.set_command('left_wheel_joint/velocity', 1.0)
    bot.set_command('right_wheel_joint/velocity', -1.0)
    run(bot, 10, 10 * MS)
    assert state(bot, 'left_wheel_joint/position') == pytest.approx(0.06283185307179587, rel=1e-15)
    assert state(bot, 'right_wheel_joint/position') == pytest.approx(
        -0.12566370614359174, rel=1e-15
    )
    assert state(bot, 'left_wheel_joint/velocity') == 1.0  # velocity is not quantised


def test_diffbot_noise_reproducible_per_seed():
    def velocities(seed):
        bot = start(DiffBotSystem, diffbot(velocity_noise_stddev=0.05, noise_seed=seed))
        claim(bot, *WHEELS)
        bot.set_command('left_wheel_joint/velocity', 1.0)
        out = []
        for _ in range(50):
            run(bot, 1, 10 * MS)
            out.append(state(bot, 'left_wheel_joint/velocity'))
        return out

    assert velocities(3) == velocities(3)
    assert velocities(3) != velocities(4)


def test_diffbot_unclaimed_wheels_brake_and_nan_keeps_the_command():
    bot = start(DiffBotSystem, diffbot(motor_time_constant=0))
    claim(bot, *WHEELS)
    bot.set_command('left_wheel_joint/velocity', 2.0)
    run(bot, 1)
    bot.set_command('left_wheel_joint/velocity', math.nan)
    run(bot, 5)
    assert state(bot, 'left_wheel_joint/velocity') == 2.0
    assert bot.perform_command_mode_switch([], list(WHEELS)) == ReturnType.OK
    run(bot, 1)
    assert state(bot, 'left_wheel_joint/velocity') == 0.0


def test_diffbot_needs_velocity_command_and_position_velocity_states():
    bad = [
        joint('w', ['position'], ['position', 'velocity']),
        joint('w', ['velocity'], ['velocity']),
        joint('w', ['velocity', 'effort'], ['position', 'velocity']),
    ]
    for wheel in bad:
        assert DiffBotSystem().on_init(hardware([wheel])) == CallbackReturn.ERROR
    info = diffbot(encoder_ticks_per_revolution=10.5)
    assert DiffBotSystem().on_init(info) == CallbackReturn.ERROR
    assert DiffBotSystem().on_init(diffbot(noise_seed=-1)) == CallbackReturn.ERROR
