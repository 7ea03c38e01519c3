"""enforce_command_limits end to end: forward controllers over DDS command beyond the joint
limits (URDF: position -3..3, velocity 2, effort 10); the hardware's write() sees the
limited values."""

import pytest
import yaml
from safety_rig import robot
from std_msgs.msg import Float64MultiArray, String

from py_controllers.controller_manager.node import ControllerManagerRuntime
from py_controllers.testing import RosHarness, SteppedManager

FWD = 'forward_command_controller/ForwardCommandController'
DT = 0.01  # the stepped manager's period


def rig(tmp_path, urdf=None, **manager_params):
    """A stepped manager over one FaultInjectionSystem (j1, j2) with a forward controller
    per interface: `position`, `velocity`, `effort`."""
    params = {
        'controller_manager': {
            'ros__parameters': {
                **{kind: {'type': FWD} for kind in ('position', 'velocity', 'effort')},
                **manager_params,
            }
        },
        **{
            kind: {'ros__parameters': {'joints': ['j1', 'j2'], 'interface_name': kind}}
            for kind in ('position', 'velocity', 'effort')
        },
    }
    path = tmp_path / 'controllers.yaml'
    path.write_text(yaml.safe_dump(params))
    harness = RosHarness('limits', args=['--ros-args', '--params-file', str(path)])
    sm = SteppedManager(harness, urdf or robot({'Arm': ({}, ['j1', 'j2'])}))
    return sm


def written(sm):
    return sm.manager.rm.components['Arm'].component.last_write


def command(sm, kind, values, cycles=1):
    """Start the `kind` controller, deliver `values`, run `cycles`; the last write()."""
    if kind not in sm.manager.controllers:
        sm.start(kind)
    handle = sm.manager.controllers[kind].controller._box
    msg = Float64MultiArray(data=[float(v) for v in values])
    sm.send(f'/{kind}/commands', Float64MultiArray, msg, lambda: handle.get() == tuple(msg.data))
    sm.step(cycles)
    return written(sm)


@pytest.fixture
def sm(tmp_path):
    stepped = rig(tmp_path)
    yield stepped
    stepped.shutdown()
    stepped.harness.close()


def test_velocity_is_clamped_to_the_limit(sm):
    out = command(sm, 'velocity', [5.0, -1.0])
    assert out['j1/velocity'] == 2.0  # |5| > 2: the limit
    assert out['j2/velocity'] == -1.0  # within: untouched


def test_effort_is_clamped_to_the_limit(sm):
    out = command(sm, 'effort', [50.0, -50.0])
    assert (out['j1/effort'], out['j2/effort']) == (10.0, -10.0)


def test_position_moves_at_most_max_velocity_per_cycle_and_stops_at_the_limit(sm):
    out = command(sm, 'position', [10.0, 0.01])
    assert out['j1/position'] == pytest.approx(0.02)  # 0 + 2 rad/s * 0.01 s
    assert out['j2/position'] == pytest.approx(0.01)  # reachable: untouched
    sm.step(9)
    assert written(sm)['j1/position'] == pytest.approx(0.2)  # ten cycles: 10 * 0.02
    sm.step(200)
    assert written(sm)['j1/position'] == pytest.approx(3.0)  # the upper limit, never 10


def test_nan_commands_reach_the_hardware_as_hold_values(sm):
    sm.start('velocity', 'position')
    sm.step(2)
    out = written(sm)  # nothing commanded yet: velocity 0, position where it is measured
    assert (out['j1/velocity'], out['j2/velocity']) == (0.0, 0.0)
    assert (out['j1/position'], out['j2/position']) == (0.0, 0.0)


def test_joint_limits_parameters_count(tmp_path):
    sm = rig(
        tmp_path,
        joint_limits={'j1': {'has_velocity_limits': True, 'max_velocity': 0.5}},
    )
    try:
        assert command(sm, 'velocity', [5.0, 5.0])['j1/velocity'] == 0.5
        assert written(sm)['j2/velocity'] == 2.0  # the URDF's
    finally:
        sm.shutdown()
        sm.harness.close()


def test_disabled_limits_pass_commands_through(tmp_path):
    sm = rig(tmp_path, enforce_command_limits=False)
    try:
        assert command(sm, 'velocity', [5.0, -7.0])['j1/velocity'] == 5.0
        assert written(sm)['j2/velocity'] == -7.0
    finally:
        sm.shutdown()
        sm.harness.close()


def test_soft_limits_slow_the_joint_before_the_soft_bound(tmp_path):
    urdf = robot(
        {'Arm': ({}, ['j1', 'j2'])},
        safety={'j1': 'soft_lower_limit="-1" soft_upper_limit="1" k_position="10" k_velocity="5"'},
    )
    sm = rig(tmp_path, urdf=urdf)
    try:
        # at p = 0 the allowed velocity is -10 * (0 - 1) = 10, capped by the limit 2
        assert command(sm, 'velocity', [5.0, 0.0])['j1/velocity'] == 2.0
        pos = sm.manager.rm.state_interfaces['j1/position']
        pos.value = 0.95  # measured close to the soft upper bound
        sm.step(1)
        # the velocity limit is around the previous position command (none: the measured
        # 0.95): -10 * (0.95 - 1) = 0.5
        assert written(sm)['j1/velocity'] == pytest.approx(0.5)
    finally:
        sm.shutdown()
        sm.harness.close()


def test_joint_limits_for_an_unknown_joint_refuse_the_description(tmp_path, capfd):
    harness = RosHarness('limits_bad')
    from rclpy.parameter import Parameter

    node = ControllerManagerRuntime(
        harness.executor,
        context=harness.context,
        start_loop=False,
        parameter_overrides=[
            Parameter('joint_limits.elbow.has_velocity_limits', value=True),
            Parameter('joint_limits.elbow.max_velocity', value=1.0),
        ],
    )
    try:
        node.on_description(String(data=robot({'Arm': ({}, ['j1'])})))
        assert node.services is None  # still waiting for a description
        assert node.manager.rm.components == {}
        assert "joint_limits parameters name joints no hardware has: ['elbow']" in (
            capfd.readouterr().err
        )
    finally:
        node.shutdown()
        harness.close()
