"""The tuning page in a real browser: a pid_controller on the simulated PID robot
(config/pid_controllers.yaml), a gain changed on the page and read back over the
controller's parameter service, the plot and the state topic following it, and an out of
range value refused with the node's own reason shown."""

from pathlib import Path

import pytest
from browser_rig import LAST_POINT, pause_plots, wait_for_last_point
from control_msgs.msg import MultiDOFCommand, MultiDOFStateStamped
from playwright.sync_api import expect
from rclpy.qos import QoSProfile, ReliabilityPolicy

from py_controllers.testing import CONFIG, ManagerProcess, run_tool

PID = 'pid_controller_external'  # the measured state comes from a topic: a constant error
DOF = 'tool_joint'
P = f'gains.{DOF}.p'
TRACKING = f'gains.{DOF}.tracking_time_constant'
BEST_EFFORT = QoSProfile(depth=1, reliability=ReliabilityPolicy.BEST_EFFORT)


@pytest.fixture(scope='module')
def manager():
    with ManagerProcess([CONFIG / 'pid_controllers.yaml'], CONFIG / 'pid_joint_robot.urdf') as proc:
        result = run_tool('spawner', PID, '--controller-manager-timeout', '30')
        assert result.returncode == 0, result.stdout + result.stderr + proc.output()
        yield proc
        assert proc.alive, proc.output()


def parameters(ros, names):
    values = ros.get_parameters(f'/{PID}', names)
    assert len(values) == len(names)
    return [v.double_value for v in values]


def set_directly(ros, name, value):
    (result,) = ros.set_parameters(f'/{PID}', {name: value})
    return result


def last_output_on_page(page):
    return page.evaluate(LAST_POINT, [f'chart-{DOF}-error-and-output', f'{DOF} output'])


def wait_for_plotted_output(page, value):
    wait_for_last_point(page, f'chart-{DOF}-error-and-output', f'{DOF} output', value, 0.0)


def test_a_gain_set_on_the_page_reaches_the_controller_and_the_plot(dashboard, page, ros):
    states = ros.subscribe(MultiDOFStateStamped, f'/{PID}/controller_state')
    reference = ros.node.create_publisher(MultiDOFCommand, f'/{PID}/reference', BEST_EFFORT)
    measured = ros.node.create_publisher(MultiDOFCommand, f'/{PID}/measured_state', BEST_EFFORT)
    assert parameters(ros, [P]) == [4.0]  # from pid_controllers.yaml

    def output_is(value):
        # reference 1, measured 0: error 1, so the output is p (i, d, feed-forward are 0)
        reference.publish(MultiDOFCommand(dof_names=[DOF], values=[1.0]))
        measured.publish(MultiDOFCommand(dof_names=[DOF], values=[0.0]))
        return bool(states) and states[-1].dof_states[0].output == value

    assert ros.spin_until(lambda: output_is(4.0)), states[-1:] or 'no controller_state'
    assert states[-1].dof_states[0].error == 1.0

    page.goto(dashboard.address(f'/tuning?controller={PID}'))
    expect(page.get_by_test_id('tuning-type')).to_contain_text('pid_controller/PidController')
    # the schema's description, read-only flags and ranges are shown
    expect(page.get_by_test_id(f'param-{P}')).to_contain_text('Proportional gain')
    expect(page.get_by_test_id('readonly-dof_names')).to_be_visible()
    expect(page.get_by_test_id('value-dof_names')).to_have_text('["tool_joint"]')
    assert page.get_by_test_id('input-dof_names').count() == 0  # read-only: no editing
    expect(page.get_by_test_id(f'range-{TRACKING}')).to_have_text('[0.0, inf]')
    expect(page.get_by_test_id(f'input-{P}')).to_have_value('4.0')
    wait_for_plotted_output(page, 4.0)

    page.get_by_test_id(f'input-{P}').fill('8')
    page.get_by_test_id(f'set-{P}').click()
    expect(page.get_by_test_id('answer')).to_have_text(f'{P} set to 8.0')
    assert parameters(ros, [P]) == [8.0]  # read back over the parameter service
    assert ros.spin_until(lambda: output_is(8.0)), states[-1]  # the loop took the new gain
    wait_for_plotted_output(page, 8.0)  # and the page's plot shows it

    # pause freezes the plot: the output goes back to 4 but the page keeps showing 8
    pause_plots(page)
    assert set_directly(ros, P, 4.0).successful
    assert ros.spin_until(lambda: output_is(4.0))
    assert ros.spin_for_messages(states, 50, timeout_s=30.0)
    assert last_output_on_page(page) == 8.0
    page.get_by_test_id('plot-pause').click()
    wait_for_plotted_output(page, 4.0)


def test_an_out_of_range_value_is_refused_with_the_nodes_reason(dashboard, page, ros):
    before = parameters(ros, [TRACKING])
    page.goto(dashboard.address(f'/tuning?controller={PID}'))
    field = page.get_by_test_id(f'input-{TRACKING}')
    expect(field).to_have_value(str(before[0]))
    field.fill('-1')
    page.get_by_test_id(f'set-{TRACKING}').click()
    refusal = set_directly(ros, TRACKING, -1.0)  # what the node says to anyone
    assert not refusal.successful and refusal.reason
    expect(page.get_by_test_id('answer')).to_have_text(f'{TRACKING} refused: {refusal.reason}')
    assert parameters(ros, [TRACKING]) == before
    # text that is no number never leaves the page
    field.fill('fast')
    page.get_by_test_id(f'set-{TRACKING}').click()
    expect(page.get_by_test_id('answer')).to_contain_text('expected double')
    assert parameters(ros, [TRACKING]) == before


def test_csv_export_holds_the_plotted_signals(dashboard, page, ros):
    page.goto(dashboard.address(f'/tuning?controller={PID}'))
    expect(page.get_by_test_id('plot-status')).not_to_contain_text(' 0 samples')
    with page.expect_download() as download:
        page.get_by_test_id('plot-export').click()
    text = Path(download.value.path()).read_text()
    header, *rows = text.splitlines()
    assert header == f't,{DOF} reference,{DOF} state,{DOF} error,{DOF} output'
    assert rows
    last = [float(x) for x in rows[-1].split(',')]
    assert last[1:4] == [1.0, 0.0, 1.0]  # the reference and measured state the test gave


def test_the_controllers_card_links_to_its_tuning_page(dashboard, page):
    page.goto(dashboard.address('/'))
    page.get_by_test_id(f'tune-{PID}').click()
    expect(page).to_have_url(f'{dashboard.url}/tuning?controller={PID}')
    expect(page.get_by_test_id('tuning-type')).to_contain_text(
        f'pid_controller/PidController (active), node /{PID}'
    )
    expect(page.get_by_test_id(f'input-{P}')).to_be_visible()
