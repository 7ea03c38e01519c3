"""The 3D page in a real browser against the demo's ros2_control_node: the drawn arm follows
a joint, a dragged slider shows its goal as a ghost before it is sent, the base sits where
the diff drive's odometry says. Poses are read back from the three.js objects in the page.
"""

import math
import re

import numpy as np
import pytest
from browser_rig import WAIT_MS
from geometry_msgs.msg import TwistStamped
from nav_msgs.msg import Odometry
from playwright.sync_api import expect
from sensor_msgs.msg import JointState

WORLD_POSE = """(name) => {
    const root = document.querySelector('[data-testid="scene"]');
    const view = root === null ? null : getElement(root.id.slice(1));
    const object = view && view.scene ? view.scene.getObjectByName(name) : undefined;
    if (!object) return null;
    object.updateWorldMatrix(true, false);
    return {matrix: Array.from(object.matrixWorld.elements), visible: object.visible};
}"""


def world_pose(page, name: str) -> tuple[np.ndarray, bool]:
    """The 4x4 world pose of the three.js object `name` (and whether it is shown)."""
    page.wait_for_function(f'({WORLD_POSE})({name!r}) !== null')
    found = page.evaluate(WORLD_POSE, name)
    return np.array(found['matrix']).reshape(4, 4).T, found['visible']  # three.js: column-major


def joint1_drawn(page, prefix: str) -> float:
    """joint1's angle as drawn: link1's cylinder relative to the base's box, with the
    cylinder's turn from three.js's y axis to the URDF's z undone."""
    base, _ = world_pose(page, f'{prefix}:base_link/0')
    link1, _ = world_pose(page, f'{prefix}:link1/0')
    relative = base[:3, :3].T @ link1[:3, :3]
    y_to_z = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]])
    r = relative @ y_to_z.T
    return math.atan2(r[1, 0], r[0, 0])


def wait_for_drawn(page, prefix: str, angle: float, tolerance: float) -> float:
    """Wait (polling the page) until the drawn joint1 is `angle` within `tolerance`."""
    deadline_polls = WAIT_MS // 100
    for _ in range(deadline_polls):
        drawn = joint1_drawn(page, prefix)
        if abs(drawn - angle) < tolerance:
            return drawn
        page.wait_for_timeout(100)
    raise AssertionError(f'{prefix} joint1 drawn at {drawn}, expected {angle}')


def settled_value(page, slider, near) -> float:
    """The slider's value once the page has taken in the whole drag: `near(value)` holds and
    two reads 200 ms apart agree. The page shows the value the dashboard echoes back, and a
    busy dashboard can echo a mid-drag value for longer than that (CI: 0.85, then 1.23 held
    400 ms, of a 1.55 drag), so `near` must tell the drag's last step from the ones before."""
    value = float(slider.get_attribute('aria-valuenow'))
    for _ in range(WAIT_MS // 200):
        page.wait_for_timeout(200)
        again = float(slider.get_attribute('aria-valuenow'))
        if again == value and near(value):
            return value
        value = again
    raise AssertionError(f"the slider never settled at the drag's end (last {value})")


def test_the_drawn_arm_follows_a_goal_and_the_ghost_comes_first(dashboard, page, ros):
    joint_states = ros.subscribe(JointState, '/joint_states')
    assert ros.spin_for_messages(joint_states, 1)

    def joint1() -> float:
        msg = joint_states[-1]
        return dict(zip(msg.name, msg.position))['joint1']

    page.goto(dashboard.address('/scene'))
    expect(page.get_by_test_id('scene-status')).to_contain_text('demo_mobile_manipulator')
    expect(page.get_by_test_id('scene-status')).to_contain_text('robot_description')
    start = joint1()
    assert wait_for_drawn(page, 'robot', start, 0.01) == pytest.approx(start, abs=0.01)
    assert not world_pose(page, 'ghost:link1/0')[1]  # no ghost before a panel is enabled

    page.get_by_test_id('enable-arm_controller').click()
    result = page.get_by_test_id('result-arm_controller')
    expect(result).to_contain_text('enabled')
    slider = page.get_by_test_id('slider-arm_controller-joint1')
    box = slider.bounding_box()
    fraction = 0.25 if start > 0.0 else 0.75  # joint1 spans -3.1 .. 3.1
    y = box['y'] + box['height'] / 2
    page.mouse.move(box['x'] + box['width'] * 0.5, y)
    page.mouse.down()
    steps = 5
    page.mouse.move(box['x'] + box['width'] * fraction, y, steps=steps)
    # dragged, not let go: the ghost shows the slider's goal, nothing is sent. The drag ends
    # near -1.55 or 1.55 (the thumb's margins move it a little); its steps are 0.31 apart
    end = -3.1 + 6.2 * fraction
    half_step = 6.2 * abs(fraction - 0.5) / steps / 2
    dragged = settled_value(page, slider, lambda value: abs(value - end) < half_step)
    assert wait_for_drawn(page, 'ghost', dragged, 0.011) == pytest.approx(dragged, abs=0.011)
    assert world_pose(page, 'ghost:link1/0')[1]
    assert 'goal 1' not in result.inner_text()
    ros.spin_for_messages(joint_states, 5)
    assert joint1() == pytest.approx(start, abs=0.03)
    assert joint1_drawn(page, 'robot') == pytest.approx(start, abs=0.03)

    page.mouse.up()  # let go: the goal is sent, the arm and its drawing follow
    # a page polled late (q35, two busy loops) can find the goal already succeeded
    expect(result).to_contain_text(re.compile(r'goal 1( accepted|: succeeded)'))
    target = float(page.get_by_test_id('target-arm_controller-joint1').inner_text())
    assert target == pytest.approx(dragged, abs=0.011)
    expect(result).to_contain_text('goal 1: succeeded')
    # the goal's tolerance is the JTC's to judge; this test asks that the arm gets there and
    # is drawn there (CI, kilted under load: five states after 'succeeded' read 1.478 of 1.52)
    ros.spin_until(lambda: abs(joint1() - target) < 0.03)
    assert joint1() == pytest.approx(target, abs=0.03)
    # the drawing is judged against the arm's latest state: the arm may still be closing in
    # (s73: read at 1.506, it settled at 1.520, where it was drawn)
    drawn: list[float] = []

    def drawn_where_the_arm_is() -> bool:
        drawn.append(joint1_drawn(page, 'robot'))
        return abs(drawn[-1] - joint1()) < 0.01

    assert ros.spin_until(drawn_where_the_arm_is, WAIT_MS / 1000), (
        f'robot joint1 drawn at {drawn[-1]}, the arm at {joint1()}'
    )
    assert drawn[-1] - start == pytest.approx(target - start, abs=0.04)  # moved by the goal
    assert wait_for_drawn(page, 'ghost', target, 0.011) == pytest.approx(target, abs=0.011)


def test_the_base_sits_where_the_odometry_says(dashboard, page, ros):
    odom = ros.subscribe(Odometry, '/diff_drive_controller/odom')
    publisher = ros.node.create_publisher(TwistStamped, '/diff_drive_controller/cmd_vel', 10)
    assert ros.spin_for_messages(odom, 1)
    page.goto(dashboard.address('/scene'))
    expect(page.get_by_test_id('scene-base')).to_contain_text(
        'base base_link placed from /diff_drive_controller/odom'
    )

    def yaw() -> float:
        q = odom[-1].pose.pose.orientation
        return 2.0 * math.atan2(q.z, q.w)

    def drive(linear: float, angular: float) -> None:
        msg = TwistStamped()
        msg.header.stamp = ros.node.get_clock().now().to_msg()
        msg.twist.linear.x, msg.twist.angular.z = linear, angular
        publisher.publish(msg)

    timer = ros.node.create_timer(0.05, lambda: drive(0.3, 1.0))
    try:
        assert ros.spin_until(lambda: abs(yaw()) > 0.6), yaw()
    finally:
        timer.cancel()
        ros.node.destroy_timer(timer)
        drive(0.0, 0.0)
    assert ros.spin_until(lambda: odom[-1].twist.twist.angular.z == 0.0)
    assert ros.spin_for_messages(odom, 5)
    p = odom[-1].pose.pose.position
    expected_yaw = yaw()
    for _ in range(WAIT_MS // 100):  # the page redraws ten times a second
        base, _ = world_pose(page, 'robot:base_link/0')
        if abs(math.atan2(base[1, 0], base[0, 0]) - expected_yaw) < 1e-3:
            break
        page.wait_for_timeout(100)
    assert math.atan2(base[1, 0], base[0, 0]) == pytest.approx(expected_yaw, abs=1e-3)
    # the box's centre: 0.05 above base_link, which odometry puts at (x, y, 0)
    np.testing.assert_allclose(base[:3, 3], [p.x, p.y, 0.05], atol=1e-3)
