"""What the dashboard's browser tests share: Debian's Chromium, a fresh page per test, and
the demo robot's manager (config/demo_controllers.yaml, its description given the upstream
way: the `robot_description` parameter) with a dashboard watching it. A module that needs
another robot defines its own `manager`; `ros` and `dashboard` then follow that one."""

import pytest
import yaml
from browser_rig import WAIT_MS
from playwright.sync_api import sync_playwright

from py_controllers.dashboard.browser import DashboardProcess, chromium_path, launch_chromium
from py_controllers.testing import CONFIG, ManagerProcess, RosHarness, run_tool

DEMO_SPAWNED = ('joint_state_broadcaster', 'arm_controller', 'diff_drive_controller')


def pytest_collection_modifyitems(items):
    if chromium_path() is None:
        skip = pytest.mark.skip(
            reason='no Chromium at /usr/bin/chromium: scripts/setup_browser.sh installs it'
        )
        for item in items:
            if 'test/browser' in str(item.fspath):
                item.add_marker(skip)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A failed test that used the dashboard gets the end of what the dashboard logged in
    its report: a page that stops updating says nothing of why on the page itself."""
    outcome = yield
    report = outcome.get_result()
    dash = getattr(item, 'funcargs', {}).get('dashboard')
    if report.when == 'call' and report.failed and isinstance(dash, DashboardProcess):
        report.sections.append(
            ('dashboard output, last 80 lines', '\n'.join(dash.output().splitlines()[-80:]))
        )


@pytest.fixture(scope='module')
def browser():
    with sync_playwright() as playwright:
        chromium = launch_chromium(playwright)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={'width': 1400, 'height': 1000})
    context.set_default_timeout(WAIT_MS)
    page = context.new_page()
    yield page
    context.close()


@pytest.fixture(scope='module')
def manager(tmp_path_factory):
    """The demo's mobile manipulator with DEMO_SPAWNED active."""
    description = tmp_path_factory.mktemp('demo') / 'description.yaml'
    urdf = (CONFIG / 'demo_robot.urdf').read_text()
    # The arm's goal may take longer than the demo's 1.5 s after its end to settle: its PID
    # and simulation run on the real loop, which a starved host slows (q30, two busy loops:
    # a 1.5 rad goal aborted 1.5 s late). The pages are under test here, not the arm's timing.
    slow_host = {'ros__parameters': {'constraints': {'goal_time': 10.0}}}
    description.write_text(
        yaml.safe_dump(
            {
                'controller_manager': {'ros__parameters': {'robot_description': urdf}},
                'arm_controller': slow_host,
            }
        )
    )
    with ManagerProcess([CONFIG / 'demo_controllers.yaml', description]) as proc:
        result = run_tool('spawner', *DEMO_SPAWNED, '--controller-manager-timeout', '30')
        assert result.returncode == 0, result.stdout + result.stderr + proc.output()
        yield proc
        assert proc.alive, proc.output()


@pytest.fixture(scope='module')
def ros(manager):
    with RosHarness('dashboard_browser_test') as harness:
        yield harness


@pytest.fixture(scope='module')
def dashboard(manager):
    with DashboardProcess() as dash:
        yield dash
        assert dash.alive, dash.output()
        assert dash.stop() == 0, dash.output()  # SIGINT: a clean exit
        assert 'Traceback' not in dash.output(), dash.output()
