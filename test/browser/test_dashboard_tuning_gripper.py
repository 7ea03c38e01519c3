"""The effort gripper's tuning page in a real browser (config/gripper_controllers.yaml,
gripper_robot.urdf): its position PID's gains, which it declares under
`gains.<joint>.` rather than in its own schema, are listed with their descriptions and
values and set through the node's parameter service like any other parameter."""

import pytest
from playwright.sync_api import expect

from py_controllers.testing import CONFIG, ManagerProcess, run_tool

GRIPPER = 'effort_gripper_controller'
P = 'gains.effort_gripper_joint.p'
D = 'gains.effort_gripper_joint.d'


@pytest.fixture(scope='module')
def manager():
    with ManagerProcess(
        [CONFIG / 'gripper_controllers.yaml'], CONFIG / 'gripper_robot.urdf'
    ) as proc:
        result = run_tool('spawner', GRIPPER, '--controller-manager-timeout', '30')
        assert result.returncode == 0, result.stdout + result.stderr + proc.output()
        yield proc
        assert proc.alive, proc.output()


def gain(ros, name: str) -> float:
    (value,) = ros.get_parameters(f'/{GRIPPER}', [name])
    return value.double_value


def test_the_grippers_pid_gains_are_listed_and_set(dashboard, page, ros):
    page.goto(dashboard.address(f'/tuning?controller={GRIPPER}'))
    expect(page.get_by_test_id('tuning-type')).to_contain_text(
        'effort_controllers/GripperActionController (active)'
    )
    expect(page.get_by_test_id(f'param-{P}')).to_contain_text('Proportional gain')
    expect(page.get_by_test_id(f'input-{P}')).to_have_value('50.0')  # gripper_controllers.yaml
    expect(page.get_by_test_id(f'input-{D}')).to_have_value('4.0')
    expect(page.get_by_test_id('input-max_effort')).to_have_value('5.0')  # its own schema too

    page.get_by_test_id(f'input-{P}').fill('40')
    page.get_by_test_id(f'set-{P}').click()
    expect(page.get_by_test_id('answer')).to_have_text(f'{P} set to 40.0')
    assert gain(ros, P) == 40.0
    (put_back,) = ros.set_parameters(f'/{GRIPPER}', {P: 50.0})  # for other tests
    assert put_back.successful
