"""Bad requests to every controller_manager service and to its parameters, on the demo
robot with its four controllers active: each must be answered, bad ones with an error, and
leave the controllers as they were."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import controller_manager_msgs.srv as cm_srv
from lifecycle_msgs.msg import State

from bench.common import DEMO_CONTROLLERS
from faults.common import Robot, Row, cycle, param_msg, running
from faults.param_inputs import param_row
from py_controllers.testing import CONFIG

CM = '/controller_manager'
ALL_ACTIVE = {name: 'active' for name in DEMO_CONTROLLERS}
ABSURD_NAMES = ['', 'no_such_controller', 'x' * 5000, 'bad name!', '/a/b/../c', 'jöint_ctrl']


@dataclass
class Call:
    """One request and what must come back: 'error', 'ok' or 'any' (just an answer)."""

    srv: Any
    service: str
    request: Any
    expect: str = 'error'


def error_back(res: Any) -> bool:
    """An answer that says no clearly: ok/success false, with a message where there is one."""
    ok = getattr(res, 'ok', getattr(res, 'success', None))
    return ok is False and (not hasattr(res, 'message') or bool(res.message))


def run_calls(robot: Robot, row: Row, calls: Sequence[Call]) -> None:
    """Send `calls` in one measured batch; count answers and errors into `row`."""
    mark = robot.mark()
    with robot.batch(row):
        for call in calls:
            res = robot.cm(call.srv, call.service, call.request)
            row.answered(None if res is None else not error_back(res), call.expect == 'error')
            if res is not None and call.expect == 'ok' and error_back(res):
                row.fail(f'a valid request was refused: {getattr(res, "message", "")}')
    row.logs = len(robot.log_lines(mark, ['controller_manager']))
    if row.expected_errors and not row.logs:
        row.note('no log line')


def named(srv: Any, service: str, names: Sequence[str], n: int, expect: str = 'error') -> list:
    return [Call(srv, service, srv.Request(name=name), expect) for name in cycle(names, n)]


def switch(
    activate: Sequence[str],
    deactivate: Sequence[str],
    strictness: int = 2,
    timeout: tuple[int, int] = (5, 0),
    expect: str = 'error',
) -> Call:
    req = cm_srv.SwitchController.Request(
        activate_controllers=list(activate),
        deactivate_controllers=list(deactivate),
        strictness=strictness,
    )
    req.timeout.sec, req.timeout.nanosec = timeout
    return Call(cm_srv.SwitchController, 'switch_controller', req, expect)


def hardware(name: str, label: str = 'active', state_id: int = 0) -> Call:
    req = cm_srv.SetHardwareComponentState.Request(
        name=name, target_state=State(id=state_id, label=label)
    )
    return Call(cm_srv.SetHardwareComponentState, 'set_hardware_component_state', req)


def service_cases(n: int) -> list[tuple[str, str, list[Call]]]:
    """(entry point, kind, N requests) for every manager service that takes input."""
    load, conf = cm_srv.LoadController, cm_srv.ConfigureController
    clean, unload = cm_srv.CleanupController, cm_srv.UnloadController
    active = ['arm_controller', 'gripper_controller']
    gripper = 'gripper_controller'
    strict_unknown = [switch([name], []) for name in ABSURD_NAMES]
    strict_unknown += [switch([], [name]) for name in ABSURD_NAMES]
    strict_unknown.append(switch([f'ghost_{i}' for i in range(500)], []))
    odd_timeouts = [(-5, 0), (0, 0), (2**31 - 1, 999_999_999), (0, 4_000_000_000), (-(2**31), 0)]
    labels = [hardware('Gripper', label) for label in ['flying', '', 'ACTIVE!', 'finalised']]
    labels += [hardware('Gripper', '', state_id) for state_id in (99, 255, 7)]
    reload = cm_srv.ReloadControllerLibraries
    bad, taken = 'unknown, empty, absurd names', 'active controller'
    return [
        ('load_controller', bad, named(load, 'load_controller', ABSURD_NAMES, n)),
        ('load_controller', 'already loaded', named(load, 'load_controller', active, n)),
        ('configure_controller', bad, named(conf, 'configure_controller', ABSURD_NAMES, n)),
        ('configure_controller', taken, named(conf, 'configure_controller', active, n)),
        ('cleanup_controller', bad, named(clean, 'cleanup_controller', ABSURD_NAMES, n)),
        ('cleanup_controller', taken, named(clean, 'cleanup_controller', active, n)),
        ('unload_controller', bad, named(unload, 'unload_controller', ABSURD_NAMES, n)),
        ('unload_controller', taken, named(unload, 'unload_controller', active, n)),
        ('switch_controller', bad + ' (strict)', cycle(strict_unknown, n)),
        (
            'switch_controller',
            'activate active, deactivate unloaded',
            cycle([switch(active, []), switch([], ['not_loaded']), switch([gripper] * 2, [])], n),
        ),
        (
            'switch_controller',
            'strictness 0 and 2 (strict), unknown name',
            cycle([switch(['ghost'], [], 0), switch(['ghost'], [], 2)], n),
        ),
        (
            'switch_controller',
            'strictness 99 and -1 (invalid), unknown name',
            cycle([switch(['ghost'], [], 99), switch(['ghost'], [], -1)], n),
        ),
        (
            'switch_controller',
            'strictness 1 (best effort), unknown name',
            cycle(
                [switch(['ghost'], [], 1, expect='any'), switch([], ['ghost'], 1, expect='any')], n
            ),
        ),
        (
            'switch_controller',
            'restart with negative, zero, huge timeouts',
            cycle([switch([gripper], [gripper], 2, t, 'ok') for t in odd_timeouts], n),
        ),
        (
            'switch_controller',
            'restart with duplicate names',
            cycle([switch([gripper] * 3, [gripper] * 3, 2, expect='ok')], n),
        ),
        (
            'set_hardware_component_state',
            'unknown, empty, absurd hardware',
            cycle([hardware(h) for h in ['NoSuchHardware', '', 'x' * 5000, 'arm_controller']], n),
        ),
        ('set_hardware_component_state', 'bad lifecycle labels and ids', cycle(labels, n)),
        (
            'reload_controller_libraries',
            'force_kill false, controllers active',
            cycle([Call(reload, 'reload_controller_libraries', reload.Request())], n),
        ),
    ]


def load_after_set_row(robot: Robot, n: int, kind: str, variants: list[dict[str, Any]]) -> Row:
    """Manager parameters of a new controller set (as spawner does) with set_parameters,
    then load_controller: it must refuse, and answer even when the bad value makes the
    manager's own code raise."""
    row = Row(f'{CM}/set_parameters + load_controller', kind)
    mark = robot.mark()
    with robot.batch(row):
        for i, values in enumerate(cycle(variants, n)):
            name = f'bad_spec_{i}'
            params = [param_msg(k.replace('NAME', name), v) for k, v in values.items()]
            if robot.set_params(CM, params) is None:
                row.answered(None, True)
                continue
            row.answered(robot.named(cm_srv.LoadController, 'load_controller', name), True)
    row.logs = len(robot.log_lines(mark, ['controller_manager']))
    robot.expect_states(row, ALL_ACTIVE)
    loaded = [name for name in robot.controller_states() or {} if name.startswith('bad_spec_')]
    if loaded:
        row.note(f'loaded anyway: {loaded[:3]}')
    for name in loaded:
        robot.named(cm_srv.UnloadController, 'unload_controller', name)
    return row


FORWARD = 'forward_command_controller/ForwardCommandController'
UNKNOWN_TYPES: list[dict[str, Any]] = [
    {'NAME.type': 'no_such_pkg/NoSuchController'},
    {'NAME.type': 'joint_trajectory_controller'},
    {'NAME.type': 42},
    {'NAME.type': 1.5},
]
WRONG_SPEC_TYPES: list[dict[str, Any]] = [
    {'NAME.type': FORWARD, 'NAME.params_file': 5},
    {'NAME.type': FORWARD, 'NAME.node_options_args': 7},
    {'NAME.type': FORWARD, 'NAME.node_options_args': '--no-such-option'},
    {'NAME.type': FORWARD, 'NAME.fallback_controllers': 5},
    {'NAME.type': FORWARD, 'NAME.fallback_controllers': 'gripper_controller'},
]


MANAGER_PARAMS: list[tuple[str, Any]] = [
    ('update_rate', 'fast'),
    ('update_rate', -5),
    ('update_rate', 0),
    ('enforce_command_limits', 'yes'),
    ('defaults.switch_controller.strictness', 'sometimes'),
    ('thread_priority', 10**9),
]


def manager_params_row(robot: Robot, n: int) -> Row:
    """`ros2 param set /controller_manager` with wrong types and absurd values."""
    row = param_row(
        robot, 'controller_manager', 'wrong types, absurd values', MANAGER_PARAMS, n, ALL_ACTIVE
    )
    stats = robot.statistics()
    if stats is not None and stats['update_rate_hz'] != 100:
        row.fail(f'loop rate changed to {stats["update_rate_hz"]}')
    return row


def run(n: int, rows: list[Row]) -> None:
    """Every manager service and the manager's parameters, N bad inputs of each kind."""
    with running(
        [CONFIG / 'demo_controllers.yaml'], CONFIG / 'demo_robot.urdf', DEMO_CONTROLLERS
    ) as robot:
        for entry, kind, calls in service_cases(n):
            row = Row(f'{CM}/{entry}', kind)
            run_calls(robot, row, calls)
            robot.expect_states(row, ALL_ACTIVE)
            hardware_states = robot.hardware_states() or {}
            if any(state != 'active' for state in hardware_states.values()):
                row.fail(f'hardware afterwards: {hardware_states}')
            rows.append(row)
        rows.append(
            load_after_set_row(robot, n, '<name>.type unknown or not a string', UNKNOWN_TYPES)
        )
        rows.append(
            load_after_set_row(
                robot,
                n,
                'params_file, node_options_args, fallback_controllers of wrong types',
                WRONG_SPEC_TYPES,
            )
        )
        rows.append(manager_params_row(robot, n))
