"""The GPIO and sensors page in Chromium (issue #31 item 5), each robot under its own
namespace: a GPIO output set on the page reaches the hardware (the mock mirrors the
command interface to its state, read back on ~/gpio_states over ROS), and sensor values
(an analog input, the simulated wrist force-torque sensor) show on the page with the
numbers their broadcasters publish."""

import pytest
from browser_rig import WAIT_MS, namespaced_params
from control_msgs.msg import DynamicInterfaceGroupValues
from geometry_msgs.msg import WrenchStamped
from playwright.sync_api import expect

from py_controllers.dashboard.browser import DashboardProcess
from py_controllers.testing import CONFIG, ManagerProcess, RosHarness, run_tool

GPIO = 'gpio_command_controller'
FT = 'force_torque_sensor_broadcaster'


def robot(params: str, urdf: str, ns: str, folder, *controllers: str) -> ManagerProcess:
    """A manager in `ns` with `controllers` spawned."""
    proc = ManagerProcess(
        [namespaced_params(CONFIG / params, ns, folder)],
        CONFIG / urdf,
        ros_args=['-r', f'__ns:={ns}'],
    )
    spawned = run_tool(
        'spawner',
        *controllers,
        '-c',
        f'{ns}/controller_manager',
        '--controller-manager-timeout',
        '30',
    )
    if spawned.returncode != 0:
        proc.stop()
        raise AssertionError(spawned.stdout + spawned.stderr + proc.output())
    return proc


@pytest.fixture(scope='module')
def ros():
    with RosHarness('dashboard_io_test') as harness:
        yield harness


@pytest.fixture
def open_io(browser):
    """Opens the io page of a dashboard watching `manager`; yields the opener."""
    opened = []

    def opener(manager: str):
        dash = DashboardProcess('-c', manager)
        context = browser.new_context(viewport={'width': 1280, 'height': 900})
        context.set_default_timeout(WAIT_MS)
        page = context.new_page()
        opened.append((dash, context))
        page.goto(dash.address('/io'))
        expect(page.get_by_test_id('manager-status')).to_contain_text(f'{manager}: connected')
        return page

    yield opener
    for dash, context in opened:
        context.close()
        assert dash.stop() == 0, dash.output()
        assert 'Traceback' not in dash.output(), dash.output()


def values(msg) -> dict[str, float]:
    return {
        f'{group}/{name}': value
        for group, v in zip(msg.interface_groups, msg.interface_values)
        for name, value in zip(v.interface_names, v.values)
    }


def test_a_gpio_output_set_on_the_page_reaches_the_hardware(ros, open_io, tmp_path):
    with robot(
        'gpio_controllers.yaml', 'gpio_robot.urdf', '/io1', tmp_path, GPIO, 'gpio_state_broadcaster'
    ) as manager:
        states = ros.subscribe(DynamicInterfaceGroupValues, f'/io1/{GPIO}/gpio_states')
        assert ros.spin_for_messages(states, 1), manager.output()
        assert values(states[-1])['flange_io/do1'] == 0.0
        page = open_io('/io1/controller_manager')
        card = page.get_by_test_id(f'gpio-{GPIO}')
        expect(card).to_contain_text(f'commands on /io1/{GPIO}/commands')
        readings = page.get_by_test_id(f'gpio-states-{GPIO}')
        expect(readings).to_contain_text('flange_io/do1: 0.000')
        expect(readings).to_contain_text('sensor_io/ai1: 1.250')  # the analog input's value
        expect(page.get_by_test_id('gpio-states-gpio_state_broadcaster')).to_contain_text(
            'sensor_io/ai1: 1.250'
        )
        page.get_by_test_id('gpio-value-flange_io/do1').fill('1')
        page.get_by_test_id('gpio-set-flange_io/do1').click()
        expect(page.get_by_test_id('answer')).to_have_text(
            f'flange_io/do1 <- 1 sent on /io1/{GPIO}/commands'
        )
        assert ros.spin_until(lambda: values(states[-1])['flange_io/do1'] == 1.0)
        assert values(states[-1])['flange_io/ao1'] == 0.0  # the other output untouched
        expect(readings).to_contain_text('flange_io/do1: 1.000')


def test_a_sensor_value_shows_on_the_page(ros, open_io, tmp_path):
    with robot('sensor_controllers.yaml', 'sensor_robot.urdf', '/sense1', tmp_path, FT) as manager:
        wrench = ros.subscribe(WrenchStamped, f'/sense1/{FT}/wrench')
        assert ros.spin_for_messages(wrench, 1), manager.output()
        force_z = wrench[-1].wrench.force.z
        assert force_z == pytest.approx(-0.5 * 9.81)  # tool_mass 0.5 kg
        page = open_io('/sense1/controller_manager')
        card = page.get_by_test_id(f'wrench-{FT}')
        expect(card).to_contain_text(f'/sense1/{FT}/wrench')
        expect(card).to_contain_text(f'force (N): x 0.000  y 0.000  z {force_z:.3f}')
