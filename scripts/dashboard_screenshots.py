"""Screenshots of every dashboard page into docs/dashboard_<page>.png.

Starts the demo's ros2_control_node (simulated mobile manipulator), spawns its controllers,
starts the dashboard, and visits each page in headless Chromium, doing on the way what a
user would (a trajectory goal, a moment of steering, a GPIO output) so the pictures show
something; then the simulated PID robot's pid_controller on the tuning page, following a
few reference steps. Run: `.venv/bin/python scripts/dashboard_screenshots.py [--out docs]`.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

# a domain of our own, localhost only, before anything starts rclpy (children inherit it)
os.environ.setdefault('ROS_DOMAIN_ID', str(100 + os.getpid() % 100))
os.environ['ROS_AUTOMATIC_DISCOVERY_RANGE'] = 'LOCALHOST'

from control_msgs.msg import MultiDOFCommand
from playwright.sync_api import expect, sync_playwright
from rclpy.qos import QoSProfile, ReliabilityPolicy

from py_controllers.dashboard.browser import DashboardProcess, launch_chromium
from py_controllers.testing import CONFIG, ManagerProcess, RosHarness, run_tool

CONTROLLERS = [
    'joint_state_broadcaster',
    'arm_controller',
    'diff_drive_controller',
    'gripper_controller',
    'imu_sensor_broadcaster',
    'force_torque_sensor_broadcaster',
    'gpio_command_controller',
]
WAIT_MS = 30_000
PID = 'pid_controller'  # config/pid_controllers.yaml: tool_joint, state from the joint


def shoot(page: object, out: Path, name: str, *, full_page: bool = True) -> None:
    """Save a screenshot of `page` as docs/dashboard_<name>.png."""
    path = out / f'dashboard_{name}.png'
    page.evaluate('window.scrollTo(0, 0)')  # type: ignore[attr-defined]  (fixed header on top)
    page.screenshot(path=str(path), full_page=full_page)  # type: ignore[attr-defined]
    print(f'wrote {path}')


def shoot_tuning(out: Path) -> int:
    """The tuning page of the PID robot's pid_controller while its reference steps; 0 on
    success."""
    params, urdf = CONFIG / 'pid_controllers.yaml', CONFIG / 'pid_joint_robot.urdf'
    with ManagerProcess([params], urdf) as mgr:
        spawned = run_tool('spawner', PID, '--controller-manager-timeout', '30')
        if spawned.returncode != 0:
            print(spawned.stdout, spawned.stderr, mgr.output(), file=sys.stderr)
            return 1
        with (
            RosHarness('dashboard_screenshots') as ros,
            DashboardProcess() as dash,
            sync_playwright() as playwright,
        ):
            qos = QoSProfile(depth=1, reliability=ReliabilityPolicy.BEST_EFFORT)
            reference = ros.node.create_publisher(MultiDOFCommand, f'/{PID}/reference', qos)
            browser = launch_chromium(playwright)
            page = browser.new_page(viewport={'width': 1280, 'height': 1000})
            page.set_default_timeout(WAIT_MS)
            page.goto(dash.address(f'/tuning?controller={PID}'))
            expect(page.get_by_test_id('input-gains.tool_joint.p')).to_be_visible()
            for target in (0.8, -0.4, 0.5):  # steps the plots show the response to

                def held(end: float = time.monotonic() + 2.5, value: float = target) -> bool:
                    reference.publish(MultiDOFCommand(dof_names=['tool_joint'], values=[value]))
                    return time.monotonic() > end

                ros.spin_until(held, 10.0)
            shoot(page, out, 'tuning', full_page=False)
            browser.close()
    return 0


def main(argv: list[str] | None = None) -> int:
    """Take the screenshots; 0 on success."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--out', type=Path, default=Path(__file__).resolve().parents[1] / 'docs')
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    with ManagerProcess([CONFIG / 'demo_controllers.yaml'], CONFIG / 'demo_robot.urdf') as mgr:
        spawned = run_tool('spawner', *CONTROLLERS, '--controller-manager-timeout', '30')
        if spawned.returncode != 0:
            print(spawned.stdout, spawned.stderr, mgr.output(), file=sys.stderr)
            return 1
        run_tool('unspawner', 'gpio_command_controller')  # so the page can show loading it
        with DashboardProcess() as dash, sync_playwright() as playwright:
            browser = launch_chromium(playwright)
            page = browser.new_page(viewport={'width': 1280, 'height': 860})
            page.set_default_timeout(WAIT_MS)
            status = page.get_by_test_id('manager-status')

            page.goto(dash.address('/'))
            expect(status).to_contain_text('connected')
            page.get_by_test_id('load-name').click()
            page.get_by_role('option', name='gpio_command_controller').click()
            page.get_by_test_id('load').click()
            page.get_by_test_id('configure-gpio_command_controller').click()
            page.get_by_test_id('activate-gpio_command_controller').click()
            expect(page.get_by_test_id('state-gpio_command_controller')).to_have_text('active')
            page.keyboard.press('Escape')
            shoot(page, args.out, 'controllers')

            page.goto(f'{dash.url}/hardware')
            expect(page.get_by_test_id('hardware-ArmSystem')).to_be_visible()
            shoot(page, args.out, 'hardware')

            page.goto(f'{dash.url}/trajectory')
            page.get_by_test_id('enable-arm_controller').click()
            for joint, fraction in (('joint1', 0.7), ('joint2', 0.35), ('joint3', 0.65)):
                slider = page.get_by_test_id(f'slider-arm_controller-{joint}')
                box = slider.bounding_box()
                assert box is not None
                slider.click(position={'x': box['width'] * fraction, 'y': box['height'] / 2})
            expect(page.get_by_test_id('result-arm_controller')).to_contain_text(
                'succeeded', timeout=WAIT_MS
            )
            shoot(page, args.out, 'trajectory')

            page.goto(f'{dash.url}/steering')
            page.get_by_test_id('steer-enable-diff_drive_controller').click()
            pad = page.get_by_test_id('pad-diff_drive_controller')
            box = pad.bounding_box()
            assert box is not None
            page.mouse.move(box['x'] + box['width'] * 0.65, box['y'] + box['height'] * 0.2)
            page.mouse.down()
            sending = page.get_by_test_id('steer-sending-diff_drive_controller')
            expect(sending).to_contain_text('sending')
            shoot(page, args.out, 'steering')
            page.mouse.up()
            expect(sending).to_have_text('stopped')

            page.goto(f'{dash.url}/io')
            page.get_by_test_id('gpio-set-tool_io/digital_output').locator('..').get_by_text(
                'on', exact=True
            ).click()
            expect(page.get_by_test_id('gpio-states-gpio_command_controller')).to_contain_text(
                'tool_io/digital_output: 1.000'
            )
            shoot(page, args.out, 'io')

            page.goto(f'{dash.url}/joints')
            expect(page.get_by_test_id('joint-table')).to_contain_text('joint1')
            page.wait_for_timeout(1000)  # let the charts draw a full frame
            shoot(page, args.out, 'joints')

            page.goto(f'{dash.url}/loop')
            expect(page.get_by_test_id('loop-summary')).to_contain_text('Hz measured')
            page.wait_for_timeout(3000)  # a few points on the live charts
            shoot(page, args.out, 'loop')

            page.goto(f'{dash.url}/scene')
            expect(page.get_by_test_id('scene-status')).to_contain_text('visuals')
            page.get_by_test_id('enable-arm_controller').click()
            slider = page.get_by_test_id('slider-arm_controller-joint2')
            box = slider.bounding_box()
            assert box is not None
            # held, not released: the ghost shows the goal the slider would send
            page.mouse.move(box['x'] + box['width'] * 0.5, box['y'] + box['height'] / 2)
            page.mouse.down()
            page.mouse.move(box['x'] + box['width'] * 0.8, box['y'] + box['height'] / 2, steps=5)
            page.wait_for_timeout(1000)  # a few frames of the 3D view
            shoot(page, args.out, 'scene', full_page=False)
            page.mouse.up()
            browser.close()
    return shoot_tuning(args.out)  # another robot: after the demo's manager has stopped


if __name__ == '__main__':
    sys.exit(main())
