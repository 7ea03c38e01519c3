"""Jogging the servo arms from the dashboard (issue #38): the OpenManipulator-X
(DynamixelSystem) and the SO-101 (FeetechSystem), each on the simulated bus answering the
real protocol bytes, with its arm controller (a JointTrajectoryController) and its gripper
(a GripperActionController). A slider let go on the trajectory page sends a goal; the joint
state, over ROS and on the page, follows. The servos run on stepped time and the manager on
it (`use_sim_time`), as in test/ros/test_servo_arms.py: a busy machine slows the bus, it
never makes the arm fall behind its trajectory."""

import re

import pytest
from browser_rig import number, wait_for_number
from playwright.sync_api import expect
from sensor_msgs.msg import JointState

from py_controllers.dashboard.model import joint_ranges
from py_controllers.hardware.servo_bus.arm_files import ARMS, urdf_on_port
from py_controllers.hardware.servo_bus.bus_sim import LOCKSTEP_MANAGER_PARAMS, PtyServoBus
from py_controllers.hardware.servo_bus.sim_arms import make_servos
from py_controllers.testing import ManagerProcess, run_tool

ARM, GRIPPER = 'arm_controller', 'gripper_controller'
JOGGED = {'omx': 'joint2', 'so101': 'elbow_flex'}  # a joint that carries the arm's weight
GRIP_TOLERANCE = {'omx': 0.002, 'so101': 0.02}  # the gripper controllers' goal_tolerance


@pytest.fixture(scope='module', params=list(ARMS))
def manager(request, tmp_path_factory):
    arm = ARMS[request.param]
    folder = tmp_path_factory.mktemp(arm.name)
    link, urdf = folder / f'tty{arm.name}', folder / f'{arm.name}.urdf'
    urdf.write_text(urdf_on_port(arm, str(link)))
    with (
        PtyServoBus(make_servos(arm.sim), link=link, step_s=0.01),
        ManagerProcess([arm.controllers], urdf, params=LOCKSTEP_MANAGER_PARAMS) as proc,
    ):
        result = run_tool(
            'spawner',
            'joint_state_broadcaster',
            ARM,
            GRIPPER,
            '--controller-manager-timeout',
            '30',
        )
        assert result.returncode == 0, result.stdout + result.stderr + proc.output()
        proc.arm, proc.ranges = arm, joint_ranges(urdf.read_text())
        yield proc
        assert proc.alive, proc.output()


def jog(manager, dashboard, page, ros, controller: str, joint: str, fraction: float):
    """Enable `controller`'s panel, click its `joint` slider at `fraction` of its width:
    (where the joint was, the target the page shows, a function reading where it is)."""
    states = ros.subscribe(JointState, '/joint_states')
    assert ros.spin_for_messages(states, 1)

    def position() -> float:
        return dict(zip(states[-1].name, states[-1].position))[joint]

    start = position()
    page.goto(dashboard.address('/trajectory'))
    slider = page.get_by_test_id(f'slider-{controller}-{joint}')
    result = page.get_by_test_id(f'result-{controller}')
    expect(slider).to_have_attribute('aria-disabled', 'true')  # nothing moves before enabling
    # the panel as built from the description (it is built again once that is read)
    expect(slider).to_have_attribute('aria-valuemax', str(manager.ranges[joint].upper))
    page.get_by_test_id(f'enable-{controller}').click()
    expect(result).to_contain_text('enabled')
    box = slider.bounding_box()
    slider.click(position={'x': box['width'] * fraction, 'y': box['height'] / 2})
    expect(result).to_contain_text(re.compile('goal 1( accepted|: )'))  # it may be done already
    target = number(page.get_by_test_id(f'target-{controller}-{joint}'))
    return start, target, position


def test_a_joint_of_the_arm_is_jogged_and_its_state_follows(manager, dashboard, page, ros):
    joint = JOGGED[manager.arm.name]
    start, target, position = jog(manager, dashboard, page, ros, ARM, joint, 0.7)
    assert abs(target - start) > 0.3, (start, target)
    assert ros.spin_until(lambda: abs(position() - target) < 0.03), (
        position(),
        target,
        page.get_by_test_id(f'result-{ARM}').inner_text(),
        manager.output(),
    )
    expect(page.get_by_test_id(f'result-{ARM}')).to_contain_text('goal 1: succeeded')
    wait_for_number(page, f'actual-{ARM}-{joint}', target, 0.03)  # the page follows


def test_the_gripper_is_jogged_and_its_state_follows(manager, dashboard, page, ros):
    tolerance = GRIP_TOLERANCE[manager.arm.name]
    start, target, position = jog(manager, dashboard, page, ros, GRIPPER, 'gripper', 0.7)
    # config/*_controllers.yaml: max_effort 1.0, sent with the goal
    expect(page.get_by_test_id(f'max-effort-{GRIPPER}')).to_contain_text('max effort 1.00')
    assert abs(target - start) > 4 * tolerance, (start, target)
    assert ros.spin_until(lambda: abs(position() - target) < tolerance), (
        position(),
        target,
        page.get_by_test_id(f'result-{GRIPPER}').inner_text(),
        manager.output(),
    )
    expect(page.get_by_test_id(f'result-{GRIPPER}')).to_contain_text(
        'goal 1: succeeded (reached the goal'
    )
    wait_for_number(page, f'actual-{GRIPPER}-gripper', target, tolerance)
