"""Two robots on one domain (issue #31 item 1): two ros2_control_node processes in /r1
and /r2, each the diffbot (config/diffbot_controllers.yaml, config/diffbot.urdf). The
dashboard, pointed at /r1's manager, finds both; its pad moves only r1's base, and once
the selector names /r2's manager the same page drives r2, and only r2. What moved is read
from each robot's own odometry."""

import pytest
from browser_rig import WAIT_MS, namespaced_params
from nav_msgs.msg import Odometry
from playwright.sync_api import expect

from py_controllers.dashboard.browser import DashboardProcess
from py_controllers.testing import CONFIG, ManagerProcess, RosHarness, run_tool

ROBOTS = ('/r1', '/r2')
DRIVE = 'diff_drive_controller'


@pytest.fixture(scope='module')
def robots(tmp_path_factory):
    folder = tmp_path_factory.mktemp('robots')
    procs = []
    try:
        for ns in ROBOTS:
            proc = ManagerProcess(
                [namespaced_params(CONFIG / 'diffbot_controllers.yaml', ns, folder)],
                CONFIG / 'diffbot.urdf',
                ros_args=['-r', f'__ns:={ns}'],
            )
            procs.append(proc)
            spawned = run_tool(
                'spawner',
                'joint_state_broadcaster',
                DRIVE,
                '-c',
                f'{ns}/controller_manager',
                '--controller-manager-timeout',
                '30',
            )
            assert spawned.returncode == 0, spawned.stdout + spawned.stderr + proc.output()
        yield procs
        for proc in procs:
            assert proc.alive, proc.output()
    finally:
        for proc in procs:
            proc.stop()


@pytest.fixture(scope='module')
def ros(robots):
    with RosHarness('dashboard_robots_test') as harness:
        yield harness


def test_each_pad_moves_only_its_own_robot(robots, ros, browser):
    odom = {ns: ros.subscribe(Odometry, f'{ns}/{DRIVE}/odom') for ns in ROBOTS}
    for ns in ROBOTS:
        assert ros.spin_for_messages(odom[ns], 1), ns

    def x(ns: str) -> float:
        return odom[ns][-1].pose.pose.position.x

    def drive_forward(page, ns: str) -> None:
        """Hold the pad forward until `ns` has moved 0.1 m, then let go and wait until its
        base stands still."""
        page.get_by_test_id(f'steer-enable-{DRIVE}').click()
        pad = page.get_by_test_id(f'pad-{DRIVE}')
        box = pad.bounding_box()
        page.mouse.move(box['x'] + box['width'] / 2, box['y'] + box['height'] * 0.1)
        page.mouse.down()
        expect(page.get_by_test_id(f'steer-sending-{DRIVE}')).to_contain_text('sending linear')
        start = x(ns)
        assert ros.spin_until(lambda: x(ns) > start + 0.1), (ns, start, x(ns))
        page.mouse.up()
        assert ros.spin_until(lambda: odom[ns][-1].twist.twist.linear.x == 0.0), ns

    with DashboardProcess('-c', '/r1/controller_manager') as dash:
        context = browser.new_context(viewport={'width': 1280, 'height': 900})
        context.set_default_timeout(WAIT_MS)
        page = context.new_page()
        try:
            page.goto(dash.address('/steering'))
            status = page.get_by_test_id('manager-status')
            expect(status).to_contain_text('controller manager /r1/controller_manager: connected')
            expect(page.get_by_test_id(f'steer-{DRIVE}')).to_contain_text(
                f'TwistStamped on /r1/{DRIVE}/cmd_vel'
            )
            r2_before = x('/r2')
            drive_forward(page, '/r1')
            assert x('/r2') == r2_before  # r2 never moved
            r1_after = x('/r1')
            assert r1_after > 0.1

            # the selector lists both managers; choosing r2 rebinds the page
            page.get_by_test_id('manager-select').click()
            page.get_by_role('option', name='/r2/controller_manager').click()
            expect(status).to_contain_text('controller manager /r2/controller_manager: connected')
            expect(page.get_by_test_id(f'steer-{DRIVE}')).to_contain_text(
                f'TwistStamped on /r2/{DRIVE}/cmd_vel'
            )
            drive_forward(page, '/r2')
            assert x('/r2') > r2_before + 0.1
            assert ros.spin_for_messages(odom['/r1'], 10)
            assert x('/r1') == r1_after  # r1 stayed where the first drive left it
        finally:
            context.close()
        assert dash.stop() == 0, dash.output()
        assert 'Traceback' not in dash.output(), dash.output()
