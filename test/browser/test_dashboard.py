"""The web dashboard in a real browser, against a real ros2_control_node.

Debian's Chromium runs headless through Playwright; the dashboard is started as a user
starts it (`python -m py_controllers.dashboard`, inheriting this process's ROS_DOMAIN_ID);
the manager is the demo's mobile manipulator with the robot description given the upstream
way (the `robot_description` parameter). What the page claims is checked over ROS:
list_controllers, /joint_states, odometry, cmd_vel.
"""

import urllib.error
import urllib.request

import pytest
from browser_rig import WAIT_MS, number, wait_for_number
from geometry_msgs.msg import TwistStamped
from nav_msgs.msg import Odometry
from playwright.sync_api import expect
from sensor_msgs.msg import JointState

from py_controllers.dashboard.browser import DashboardProcess
from py_controllers.testing import CONFIG, ManagerProcess

DRIVE = 'diff_drive_controller'


def test_load_configure_activate_by_clicking(dashboard, page, ros):
    cm = ros.manager()
    name = 'gpio_command_controller'
    assert name not in {c.name for c in cm.list_controllers()}
    try:
        page.goto(dashboard.address('/'))
        expect(page.get_by_test_id('manager-status')).to_contain_text('connected')
        page.get_by_test_id('load-name').click()
        page.get_by_role('option', name=name).click()
        page.get_by_test_id('load').click()
        expect(page.get_by_test_id('answer')).to_have_text(f'load_controller({name}): ok')
        expect(page.get_by_test_id(f'state-{name}')).to_have_text('unconfigured')
        page.get_by_test_id(f'configure-{name}').click()
        expect(page.get_by_test_id(f'state-{name}')).to_have_text('inactive')
        page.get_by_test_id(f'activate-{name}').click()
        expect(page.get_by_test_id(f'state-{name}')).to_have_text('active')
        expect(page.get_by_test_id('answer')).to_contain_text(f"activate=['{name}']")
        states = {c.name: c.state for c in cm.list_controllers()}
        assert states[name] == 'active', states
        claimed = next(c for c in cm.list_controllers() if c.name == name).claimed_interfaces
        assert list(claimed) == ['tool_io/digital_output']
        expect(page.get_by_test_id(f'controller-{name}')).to_contain_text('tool_io/digital_output')
        # a refused request shows the manager's answer, and changes nothing
        page.get_by_test_id('load-name').fill('no_such_controller')
        page.keyboard.press('Enter')
        page.get_by_test_id('load').click()
        expect(page.get_by_test_id('answer')).to_contain_text('refused')
        assert 'no_such_controller' not in {c.name for c in cm.list_controllers()}
    finally:
        states = {c.name: c.state for c in cm.list_controllers()}
        if states.get(name) == 'active':
            assert cm.switch_controllers([], [name])[0]
        if name in states:
            assert cm.unload_controller(name)


def test_trajectory_slider_moves_the_joint(dashboard, page, ros):
    joint_states = ros.subscribe(JointState, '/joint_states')
    assert ros.spin_for_messages(joint_states, 1)

    def position() -> float:
        msg = joint_states[-1]
        return dict(zip(msg.name, msg.position))['joint1']

    start = position()
    page.goto(dashboard.address('/trajectory'))
    slider = page.get_by_test_id('slider-arm_controller-joint1')
    result = page.get_by_test_id('result-arm_controller')
    expect(slider).to_have_attribute('aria-disabled', 'true')  # nothing moves before enabling
    page.get_by_test_id('enable-arm_controller').click()
    expect(result).to_contain_text('enabled')
    box = slider.bounding_box()
    target_fraction = 0.25 if start > 0.0 else 0.75  # joint1 spans -3.1 .. 3.1
    slider.click(position={'x': box['width'] * target_fraction, 'y': box['height'] / 2})
    expect(result).to_contain_text('goal 1 accepted')
    target = number(page.get_by_test_id('target-arm_controller-joint1'))
    assert abs(target - start) > 1.0, (start, target)
    assert ros.spin_until(lambda: abs(position() - target) < 0.03, 30.0), (position(), target)
    expect(result).to_contain_text('goal 1: succeeded')
    wait_for_number(page, 'actual-arm_controller-joint1', target, 0.03)  # the page follows


def test_a_forged_slider_value_is_clamped_by_the_server(dashboard, page, ros):
    """The page keeps its sliders within the URDF limits; a client that does not (a forged
    'change' event of 50 rad) still gets a goal within them: the server clamps it."""
    joint_states = ros.subscribe(JointState, '/joint_states')
    assert ros.spin_for_messages(joint_states, 1)
    page.goto(dashboard.address('/trajectory'))
    result = page.get_by_test_id('result-arm_controller')
    page.get_by_test_id('enable-arm_controller').click()
    expect(result).to_contain_text('enabled')
    page.evaluate(
        """() => getElement(document.querySelector('[data-testid="slider-arm_controller-joint1"]'))
            .$emit('change', 50.0)"""
    )
    expect(result).to_contain_text('accepted')
    assert number(page.get_by_test_id('target-arm_controller-joint1')) == pytest.approx(3.1)

    def joint1() -> float:
        msg = joint_states[-1]
        return dict(zip(msg.name, msg.position))['joint1']

    assert ros.spin_until(lambda: abs(joint1() - 3.1) < 0.03, 30.0), joint1()
    expect(result).to_contain_text('succeeded')


def test_steering_pad_drives_and_stops(dashboard, browser, page, ros):
    odom = ros.subscribe(Odometry, f'/{DRIVE}/odom')
    commands = ros.subscribe(TwistStamped, f'/{DRIVE}/cmd_vel')
    assert ros.spin_for_messages(odom, 1)

    def hold(page, fraction_up: float):
        pad = page.get_by_test_id(f'pad-{DRIVE}')
        box = pad.bounding_box()
        cx, cy = box['x'] + box['width'] / 2, box['y'] + box['height'] / 2
        page.mouse.move(cx, cy - box['height'] / 2 * fraction_up)
        page.mouse.down()

    def x() -> float:
        return odom[-1].pose.pose.position.x

    def stopped_for(count: int) -> bool:
        """After the zero: the base stands still and nothing more is sent while `count`
        odometry messages arrive. On a starved host the lease (0.3 s) can run out between
        two of the page's renewals (every 0.1 s), before the let-go is in: a zero, then the
        next renewal drives again until the let-go's zero (q27). So the quiet after a zero
        is looked for three times: a page or server that keeps sending never gets it."""
        for _ in range(3):
            assert ros.spin_until(lambda: commands[-1].twist.linear.x == 0.0)
            assert ros.spin_until(lambda: odom[-1].twist.twist.linear.x == 0.0)
            sent = len(commands)
            assert ros.spin_for_messages(odom, count)
            if len(commands) == sent:
                return True
        return False

    page.goto(dashboard.address('/steering'))
    sending = page.get_by_test_id(f'steer-sending-{DRIVE}')
    hold(page, 0.8)  # not enabled: the pad does nothing
    page.mouse.up()
    page.get_by_test_id(f'steer-enable-{DRIVE}').click()
    expect(sending).to_have_text('stopped')
    assert not commands

    x0 = x()
    hold(page, 0.8)  # forward at 0.8 of max linear 0.5 m/s
    expect(sending).to_contain_text('sending linear 0.40')
    assert ros.spin_until(lambda: x() > x0 + 0.1), (x0, x())
    # 0.4 m/s while held; a zero where the lease ran out between two renewals (a starved
    # host, q30), which stops the base by design until the next renewal
    assert any(c.twist.linear.x == pytest.approx(0.4) for c in commands)
    assert all(c.twist.linear.x in (pytest.approx(0.4), 0.0) for c in commands)
    page.mouse.up()
    assert ros.spin_until(lambda: commands[-1].twist.linear.x == 0.0)
    assert commands[-1].twist.angular.z == 0.0
    expect(sending).to_have_text('stopped')
    assert stopped_for(30)

    # the page goes away while the pad is held: the robot stops all the same
    before = len(commands)
    hold(page, 0.8)
    assert ros.spin_until(lambda: len(commands) > before + 2)
    assert commands[-1].twist.linear.x == pytest.approx(0.4)
    page.close()
    assert ros.spin_until(lambda: commands[-1].twist.linear.x == 0.0)
    assert stopped_for(30)


def test_hardware_state_set_by_clicking_and_the_loop_page(dashboard, page, ros):
    """The hardware page drives a component's lifecycle through
    set_hardware_component_state (checked with list_hardware_components); the loop page
    shows the manager's measured rate from ~/get_statistics."""
    cm = ros.manager()

    def gripper_state() -> str:
        return next(h for h in cm.list_hardware_components() if h.name == 'Gripper').state.label

    assert gripper_state() == 'active'
    try:
        page.goto(dashboard.address('/hardware'))
        expect(page.get_by_test_id('hw-state-Gripper')).to_have_text('active')
        page.get_by_test_id('hw-inactive-Gripper').click()
        expect(page.get_by_test_id('hw-state-Gripper')).to_have_text('inactive')
        assert gripper_state() == 'inactive'
        page.get_by_test_id('hw-active-Gripper').click()
        expect(page.get_by_test_id('hw-state-Gripper')).to_have_text('active')
        assert gripper_state() == 'active'
    finally:
        if gripper_state() != 'active':
            cm.set_hardware_component_state('Gripper', 'active')
    page.goto(f'{dashboard.url}/loop')
    expect(page.get_by_test_id('loop-summary')).to_contain_text('Hz measured of 100 Hz')
    measured = float(page.get_by_test_id('loop-summary').inner_text().split(' Hz')[0])
    assert measured > 0.0  # a figure from ~/get_statistics, not a placeholder


def test_wrong_token_is_refused(manager, browser):
    with DashboardProcess('--token', 'open-sesame') as dash:
        context = browser.new_context()
        context.set_default_timeout(WAIT_MS)
        page = context.new_page()
        try:
            for address in (f'{dash.url}/?token=wrong', f'{dash.url}/', f'{dash.url}/steering'):
                response = page.goto(address)
                assert response.status == 403, address
                expect(page.get_by_test_id('refused')).to_be_visible()
                assert page.get_by_test_id('load').count() == 0
                assert page.get_by_test_id(f'pad-{DRIVE}').count() == 0
                assert page.get_by_test_id('manager-status').count() == 0
            response = page.goto(f'{dash.url}/?token=open-sesame')
            assert response.status == 200
            expect(page.get_by_test_id('manager-status')).to_contain_text('connected')
            expect(page.get_by_test_id('load')).to_be_visible()
            # the session remembers the token; a wrong one given again is refused again
            page.goto(f'{dash.url}/hardware')
            expect(page.get_by_test_id('manager-status')).to_contain_text('connected')
            assert page.goto(f'{dash.url}/hardware?token=wrong').status == 403
            # bound to loopback: a request naming another host (DNS rebinding) is refused
            forged = urllib.request.Request(
                f'{dash.url}/?token=open-sesame', headers={'Host': 'attacker.example'}
            )
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(forged, timeout=10)
            assert refused.value.code == 400
        finally:
            context.close()
        assert dash.stop() == 0, dash.output()
        assert 'Traceback' not in dash.output(), dash.output()


def test_manager_absent_then_back_then_gone(browser, tmp_path):
    with DashboardProcess('-c', '/late/controller_manager') as dash:
        context = browser.new_context()
        context.set_default_timeout(WAIT_MS)
        page = context.new_page()
        try:
            page.goto(dash.address('/'))
            status = page.get_by_test_id('manager-status')
            expect(status).to_contain_text('not available')
            expect(status).to_contain_text("no controller manager at '/late/controller_manager'")
            expect(page.get_by_text('No controller manager: nothing to show.')).to_be_visible()
            page.get_by_test_id('load-name').fill('anything')
            page.keyboard.press('Enter')
            page.get_by_test_id('load').click()
            expect(page.get_by_test_id('answer')).to_contain_text('is not available')
            with ManagerProcess(
                [], CONFIG / 'minimal_robot.urdf', ros_args=['-r', '__ns:=/late']
            ) as late:
                expect(status).to_contain_text('connected')
                expect(status).to_contain_text('1 hardware components')
                late.stop()
            expect(status).to_contain_text('not available')
            assert 'Traceback' not in page.locator('body').inner_text()
        finally:
            context.close()
        assert dash.alive, dash.output()
        assert dash.stop() == 0, dash.output()
        assert 'Traceback' not in dash.output(), dash.output()
