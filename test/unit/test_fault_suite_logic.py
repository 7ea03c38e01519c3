"""The fault suite's own arithmetic (make faults): how far a released joint moved, how a
wheel braked, which writes carried non-finite commands, what counts as a refusal."""

import math
from types import SimpleNamespace

import pytest
from sensor_msgs.msg import JointState

from faults.base_inputs import bad_twists, base_unchanged, within_limits
from faults.common import Row
from faults.exits import refusals
from faults.recording import commands_written, nonfinite_writes, recorded, recorded_urdf
from faults.release import DIFFBOT, SIM_ARM, Releases, fic_yaml, judge, robot_rows
from faults.release_rig import WHEEL_SPEED, Motion
from faults.report import failures, table
from faults.robots import BASES, DIFF_DRIVE
from faults.storms import Tally

JOINTS = ['a', 'b']


def state(t_s: float, positions, velocities=(0.0, 0.0), names=JOINTS) -> JointState:
    msg = JointState(name=list(names), position=list(positions), velocity=list(velocities))
    msg.header.stamp.sec = int(t_s)
    msg.header.stamp.nanosec = round((t_s - int(t_s)) * 1e9)
    return msg


def test_motion_is_the_largest_distance_from_the_held_position_of_each_joint():
    motion = Motion(
        state(0.0, [0.6, -0.2]),
        [state(0.5, [0.601, -0.2]), state(1.0, [0.598, -0.203]), state(3.0, [0.6, -0.2])],
    )
    moved = motion.moved(JOINTS)
    assert moved == pytest.approx({'a': 0.002, 'b': 0.003})


def test_braking_starts_at_the_last_sample_at_full_speed():
    v = WHEEL_SPEED
    # 1 s at full speed while the tool runs, then 0.2 s to rest, 1 rad rolled after
    msgs = [
        state(0.5, [5.0, 5.0], [v, v]),
        state(1.0, [10.0, 10.0], [v, v]),
        state(1.1, [10.7, 10.7], [v / 2, v / 2]),
        state(1.2, [11.0, 11.0], [0.001, 0.0]),
        state(3.0, [11.0, 11.0], [0.0, 0.0]),
    ]
    rolled, rest = Motion(state(0.0, [0.0, 0.0], [v, v]), msgs).braking(JOINTS, v)
    assert rolled == pytest.approx(1.0)
    assert rest == pytest.approx(0.2)


def test_a_wheel_still_turning_at_the_end_never_came_to_rest():
    v = WHEEL_SPEED
    msgs = [state(1.0, [1.0, 1.0], [0.5, 0.5]), state(3.0, [2.0, 2.0], [0.02, 0.0])]
    _, rest = Motion(state(0.0, [0.0, 0.0], [v, v]), msgs).braking(JOINTS, v)
    assert rest is None


def test_an_arm_that_moves_5_mrad_fails_its_row_and_a_rolling_wheel_is_a_command_after_stop():
    joints = SIM_ARM.joints
    held = state(0.0, [0.6] * 6, [0.0] * 6, joints)
    sagged = Motion(held, [state(3.0, [0.6, 0.605, 0.6, 0.6, 0.6, 0.6], [0.0] * 6, joints)])
    row = Row('arm', 'release')
    judge(row, SIM_ARM, sagged)
    assert not row.states_ok and row.notes[0].startswith('5.00 mrad max (joint2)')

    wheels = DIFFBOT.joints
    rolling = Motion(
        state(0.0, [0.0, 0.0], [WHEEL_SPEED] * 2, wheels),
        [state(3.0, [9.0, 9.0], [3.0, 3.0], wheels)],
    )
    row = Row('base', 'release', after_stop=0)
    judge(row, DIFFBOT, rolling)
    assert row.after_stop == 1 and not row.states_ok


def test_only_claimed_non_finite_commands_count_as_reaching_the_hardware(tmp_path, monkeypatch):
    monkeypatch.setenv('FAULTS_RECORD_DIR', str(tmp_path))

    class Plain:  # the part of a hardware component the recorder uses
        def __init__(self):
            self.info = SimpleNamespace(name='Arm')
            self.command_interfaces = {
                'j1/velocity': SimpleNamespace(value=math.inf),
                'j2/velocity': SimpleNamespace(value=math.nan),  # unclaimed: "no command"
            }

        def perform_command_mode_switch(self, start, stop):
            return None

        def write(self, time, period):
            return None

    component = recorded(Plain)()
    component.write(None, None)
    assert nonfinite_writes(tmp_path) == 0  # nothing claimed yet
    component.perform_command_mode_switch(['j1/velocity'], [])
    component.write(None, None)
    component.command_interfaces['j1/velocity'].value = 1e308  # huge but finite
    component.write(None, None)
    assert nonfinite_writes(tmp_path) == 1
    component.perform_command_mode_switch([], ['j1/velocity'])
    component.command_interfaces['j1/velocity'].value = math.inf
    component.write(None, None)
    assert nonfinite_writes(tmp_path) == 1


def test_recorded_urdf_swaps_only_the_named_plugins():
    urdf = (
        '<plugin>py_controllers/SimulatedSystem</plugin>'
        '<plugin>mock_components/GenericSystem</plugin>'
    )
    swapped = recorded_urdf(urdf, ['py_controllers/SimulatedSystem'])
    assert swapped == (
        '<plugin>recorded/py_controllers/SimulatedSystem</plugin>'
        '<plugin>mock_components/GenericSystem</plugin>'
    )


def test_the_fault_injection_controllers_hold_the_arm_in_position_and_fall_back():
    text = fic_yaml([SIM_ARM, DIFFBOT])
    assert 'fic_arm_controller_fb: {type: py_controllers/FaultInjectionController, ' in text
    assert 'fallback_controllers: [diff_drive_controller]' in text
    assert 'command_interfaces: [joint1/position, joint2/position' in text
    assert 'command_interfaces: [left_wheel_joint/velocity, right_wheel_joint/velocity]' in text


def test_a_refusal_is_a_line_naming_the_parameter():
    output = "[ros2_control_node] ERROR: parameter 'cpu_affinity' must be an integer\nother"
    assert refusals(output, 'cpu_affinity') == [output.splitlines()[0]]
    assert refusals(output, 'thread_priority') == []


def test_a_storm_tally_counts_unanswered_and_refused_calls_apart():
    tally = Tally()
    for what, ok in [('load a', True), ('load b', None), ('unload c', False), ('x', False)]:
        tally.count(what, ok)
    assert (tally.sent, tally.unanswered, tally.refused) == (4, 1, 2)
    assert tally.refusals == ['unload c', 'x']


def test_a_base_at_rest_holds_within_a_millimetre_and_its_steering_within_a_milliradian():
    before = (0.4, 0.0, 0.1, -0.1)
    assert base_unchanged(before, (0.4009, 0.0009, 0.1009, -0.1))
    assert not base_unchanged(before, (0.402, 0.0, 0.1, -0.1))  # rolled 2 mm
    assert not base_unchanged(before, (0.4, 0.002, 0.1, -0.1))  # moving
    assert not base_unchanged(before, (0.4, 0.0, 0.102, -0.1))  # steered
    assert not base_unchanged(before, (0.4, 0.0))  # the steering went missing
    assert not base_unchanged(None, before)


def test_a_huge_twist_may_be_taken_only_within_the_limits_with_finite_odometry():
    diff = within_limits(DIFF_DRIVE)  # 1 m/s, no steering
    assert diff(None, (5.0, 1.0005))
    assert not diff(None, (5.0, 1.01))
    assert not diff(None, (math.inf, 0.0))
    car = within_limits(BASES[0])  # the Ackermann car: no speed limit, steering +-1.5 rad
    assert car(None, (0.4, 30.0, -1.5, 1.3))
    assert not car(None, (0.4, 0.0, -1.51, 1.3))
    assert not car(None, (0.4, math.nan, 0.0, 0.0))


def test_the_bad_twists_carry_what_their_kind_says():
    now = 1_000 * 10**9
    kinds = bad_twists(lambda: now)
    nan = kinds['NaN / inf velocities'](0)
    assert math.isnan(nan.twist.linear.x) and nan.header.stamp.sec == 1_000
    assert kinds['huge finite velocities (+-1e308)'](1).twist.angular.z == -1e308
    assert kinds['negative stamps'](1).header.stamp.sec == -10
    assert kinds['huge stamps (far future)'](0).header.stamp.sec == 2**31 - 1
    assert kinds['out-of-order (stale) stamps'](2).header.stamp.sec == 1_000 - 30


def test_nan_is_no_command_only_where_the_hardware_declares_it(tmp_path, monkeypatch):
    monkeypatch.setenv('FAULTS_RECORD_DIR', str(tmp_path))

    class Primitives:  # a motion_type interface read as "NaN: nothing new", a plain one
        def __init__(self):
            self.info = SimpleNamespace(name='Robot')
            self.command_interfaces = {
                'mp/motion_type': SimpleNamespace(value=math.nan, nan_means_no_command=True),
                'j1/velocity': SimpleNamespace(value=0.0),
            }

        def perform_command_mode_switch(self, start, stop):
            return None

        def write(self, time, period):
            self.command_interfaces['mp/motion_type'].value = math.nan  # taken, cleared

    component = recorded(Primitives)()
    component.perform_command_mode_switch(['mp/motion_type', 'j1/velocity'], [])
    component.write(None, None)
    assert (nonfinite_writes(tmp_path), commands_written(tmp_path)) == (0, 0)
    component.command_interfaces['mp/motion_type'].value = 0.0  # a PTP handed over
    component.write(None, None)  # seen before the hardware clears it
    assert (nonfinite_writes(tmp_path), commands_written(tmp_path)) == (0, 1)
    component.command_interfaces['mp/motion_type'].value = math.inf  # handed over, and bad
    component.write(None, None)
    assert (nonfinite_writes(tmp_path), commands_written(tmp_path)) == (1, 2)
    component.command_interfaces['j1/velocity'].value = math.nan  # no such promise here
    component.write(None, None)
    assert nonfinite_writes(tmp_path) == 2


def test_a_release_the_rig_could_not_set_up_fails_the_run_saying_nothing_was_released():
    """An arm that never reached its pose was never released: its row says so, apart from
    a release that moved the arm, and the run still fails (it may be a bug)."""
    rows: list[Row] = []
    table_rows = robot_rows([SIM_ARM], rows)
    rig = SimpleNamespace(robot=None, to_pose=lambda: False, settled=lambda joints: True)
    releases = Releases(rig, [SIM_ARM], table_rows)
    assert not releases.ready('deactivate', [SIM_ARM.controller])
    row = table_rows[SIM_ARM.kind, 'deactivate']
    assert not row.set_up and row.states_ok
    assert row.notes == ['not set up, nothing tried: the arm did not reach the pose']
    judge(table_rows[SIM_ARM.kind, 'unspawn'], SIM_ARM, Motion(
        state(0.0, [0.6] * 6, [0.0] * 6, SIM_ARM.joints),
        [state(1.0, [0.606] + [0.6] * 5, [0.0] * 6, SIM_ARM.joints)],
    ))  # fmt: skip
    assert failures(rows) == [
        '1 rows not in the expected state',
        '1 rows not set up (nothing was tried there)',
    ]
    lines = table(rows).splitlines()
    assert '| NOT SET UP; not set up, nothing tried: the arm did not reach the pose |' in lines[2]
    assert '| NO; 6.00 mrad max (joint1) in 3 s; moved 6.0 mrad >= 5 |' in lines[3]
