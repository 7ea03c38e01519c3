"""What every fault group needs: a row of the table, a manager process seen through its
public ROS interfaces, and a measured batch (loop statistics, log lines, liveness)."""

from __future__ import annotations

import json
import math
import re
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import controller_manager_msgs.srv as cm_srv
from lifecycle_msgs.msg import State
from rcl_interfaces.msg import Parameter as ParameterMsg
from rcl_interfaces.msg import ParameterType, ParameterValue
from rcl_interfaces.srv import GetParameters, SetParameters
from std_srvs.srv import Trigger

from faults.recording import (
    RecordingProcess,
    commands_written,
    nonfinite_writes,
    recorded_urdf,
)
from py_controllers.testing import ManagerProcess, RosHarness, run_tool

CALL_TIMEOUT_S = 10.0
"""A client that got nothing back within this is a client left without an answer."""

LOG_LINE = re.compile(r'^\[(DEBUG|INFO|WARN|ERROR|FATAL)\] \[[\d.]+\] \[([^\]]+)\]: (.*)$')


@dataclass
class Row:
    """One line of the table: an entry point and a kind of bad input or fault."""

    entry: str
    kind: str
    sent: int = 0
    crashes: int = 0
    stalls: int = 0
    worst_ms: float = 0.0
    unanswered: int = 0
    errors: int = 0
    expected_errors: int = 0
    logs: int | None = None
    after_stop: int | None = None
    states_ok: bool = True
    measured: bool = True
    set_up: bool = True
    notes: list[str] = field(default_factory=list)

    def fail(self, why: str) -> None:
        """The state afterwards was not the expected one."""
        self.states_ok = False
        self.note(why)

    def not_set_up(self, why: str) -> None:
        """The rig could not bring the robot to where the fault starts, so nothing was tried:
        still a failed run (a robot that cannot get there may be a bug), said apart."""
        self.set_up = False
        self.note(f'not set up, nothing tried: {why}')

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

    def answered(self, ok: bool | None, expect_error: bool) -> None:
        """Count one request: None = no answer; ok False = an error came back."""
        self.sent += 1
        if ok is None:
            self.unanswered += 1
            return
        if expect_error:
            self.expected_errors += 1
            self.errors += 0 if ok else 1


class Robot:
    """A running ros2_control_node, seen only through ROS (and its printed output)."""

    def __init__(
        self,
        proc: ManagerProcess,
        ros: RosHarness,
        manager: str = '/controller_manager',
        records: Path | None = None,
    ):
        self.proc = proc
        self.ros = ros
        self.records = records  # faults.recording's folder, when the hardware records
        self.node = ros.node
        self.manager = manager
        self._clients: dict[str, Any] = {}
        self.period_us = 10_000.0

    # --- plain service calls, never retried --------------------------------------------
    def client(self, srv_type: Any, service: str) -> Any:
        if service not in self._clients:
            self._clients[service] = self.node.create_client(srv_type, service)
        return self._clients[service]

    def call(
        self, srv_type: Any, service: str, request: Any, timeout_s: float = CALL_TIMEOUT_S
    ) -> Any | None:
        """The response of `service`, or None when it did not answer within `timeout_s`, or
        at once when the manager's process has ended (nobody will: a group whose manager
        died fails in seconds instead of waiting out every call)."""
        client = self.client(srv_type, service)
        deadline = time.monotonic() + timeout_s
        proc = self.proc
        ready = self.ros.spin_until(lambda: client.service_is_ready() or not proc.alive, timeout_s)
        if not ready or not proc.alive:
            return None
        future = client.call_async(request)
        self.ros.spin_until(
            lambda: future.done() or not proc.alive, max(0.1, deadline - time.monotonic())
        )
        if not future.done():
            client.remove_pending_request(future)
            return None
        return future.result()

    def cm(self, srv_type: Any, service: str, request: Any, timeout_s: float = CALL_TIMEOUT_S):
        """Call one of the manager's own services."""
        return self.call(srv_type, f'{self.manager}/{service}', request, timeout_s)

    def client_ready(self) -> bool:
        """True when the manager's services are up (its robot description was accepted)."""
        return self.client(
            cm_srv.ListControllers, f'{self.manager}/list_controllers'
        ).service_is_ready()

    def controller_states(self) -> dict[str, str] | None:
        res = self.cm(cm_srv.ListControllers, 'list_controllers', cm_srv.ListControllers.Request())
        return None if res is None else {c.name: c.state for c in res.controller}

    def hardware_states(self) -> dict[str, str] | None:
        res = self.cm(
            cm_srv.ListHardwareComponents,
            'list_hardware_components',
            cm_srv.ListHardwareComponents.Request(),
        )
        return None if res is None else {c.name: c.state.label for c in res.component}

    def switch(
        self, activate: Sequence[str], deactivate: Sequence[str], strictness: int = 2
    ) -> tuple[bool, str] | None:
        req = cm_srv.SwitchController.Request(
            activate_controllers=list(activate),
            deactivate_controllers=list(deactivate),
            strictness=strictness,
        )
        req.timeout.sec = 5
        res = self.cm(cm_srv.SwitchController, 'switch_controller', req)
        return None if res is None else (bool(res.ok), str(res.message))

    def set_hardware(self, name: str, label: str) -> tuple[bool, str] | None:
        req = cm_srv.SetHardwareComponentState.Request(name=name, target_state=State(label=label))
        res = self.cm(cm_srv.SetHardwareComponentState, 'set_hardware_component_state', req)
        return None if res is None else (bool(res.ok), str(res.state.label))

    def named(self, srv_type: Any, service: str, name: str) -> bool | None:
        """load/configure/cleanup/unload `name`: ok, or None without an answer."""
        res = self.cm(srv_type, service, srv_type.Request(name=name))
        return None if res is None else bool(res.ok)

    def set_params(self, node: str, params: Sequence[ParameterMsg]) -> list[Any] | None:
        """SetParameters on `node` (as `ros2 param set`): the results, None without answer."""
        res = self.call(
            SetParameters, f'{node}/set_parameters', SetParameters.Request(parameters=params)
        )
        return None if res is None else list(res.results)

    def get_params(self, node: str, names: Sequence[str]) -> list[Any] | None:
        res = self.call(GetParameters, f'{node}/get_parameters', GetParameters.Request(names=names))
        return None if res is None else [param_value(v) for v in res.values]

    def nonfinite_writes(self) -> int | None:
        """write() calls so far that carried a non-finite command (None: not recorded)."""
        return None if self.records is None else nonfinite_writes(self.records)

    def commands_written(self) -> int | None:
        """write() calls so far that handed a command to "NaN: nothing new" interfaces."""
        return None if self.records is None else commands_written(self.records)

    # --- statistics, output, time -------------------------------------------------------
    def reset_statistics(self) -> bool:
        return self.cm(Trigger, 'reset_statistics', Trigger.Request()) is not None

    def statistics(self) -> dict | None:
        res = self.cm(Trigger, 'get_statistics', Trigger.Request())
        return None if res is None else json.loads(res.message)

    def mark(self) -> int:
        """A position in the process output; `log_lines(mark)` reads what came after."""
        return len(self.proc.output())

    def log_lines(
        self, mark: int, loggers: Sequence[str] = (), levels: Sequence[str] = ('WARN', 'ERROR')
    ) -> list[str]:
        """Log lines printed since `mark` at `levels` by `loggers` (any logger if empty)."""
        lines = []
        for line in self.proc.output()[mark:].splitlines():
            m = LOG_LINE.match(line)
            if m and m.group(1) in levels and (not loggers or m.group(2) in loggers):
                lines.append(line)
        return lines

    def spin(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        self.ros.spin_until(lambda: time.monotonic() >= end, seconds + 5.0)

    def wait(self, predicate: Callable[[], bool], timeout_s: float = 10.0) -> bool:
        return self.ros.spin_until(predicate, timeout_s)

    def poll(self, predicate: Callable[[], bool], timeout_s: float = 10.0, every_s=0.05) -> bool:
        """Like wait(), for predicates that call services (not evaluated on every spin)."""
        deadline = time.monotonic() + timeout_s
        while True:
            if predicate():
                return True
            if time.monotonic() > deadline:
                return False
            self.spin(every_s)

    @contextmanager
    def batch(self, row: Row, *, expect_alive: bool = True) -> Iterator[None]:
        """Measure one batch: a new statistics window before, the worst period after; a
        process that died (when it should not have) is a crash."""
        if self.proc.alive:
            self.reset_statistics()
        try:
            yield
        finally:
            self.close_batch(row, expect_alive=expect_alive)

    def close_batch(self, row: Row, *, expect_alive: bool = True) -> None:
        self.spin(3 * self.period_us * 1e-6)  # a batch spans a few periods at least
        if not self.proc.alive:
            if expect_alive:
                row.crashes += 1
                row.fail(f'process exited with {self.proc.process.returncode}')
            return
        stats = self.statistics()
        if stats is None:
            row.unanswered += 1
            row.note('get_statistics did not answer')
            return
        self.period_us = 1e6 / float(stats['update_rate_hz'])
        worst = float(stats['period']['max_us'])
        row.worst_ms = max(row.worst_ms, worst / 1000.0)
        if worst > 2.0 * self.period_us:
            row.stalls += 1

    def reactivate(self, row: Row, expected: dict[str, str]) -> None:
        """Activate again the controllers of `expected` that should be active and are not
        (so that the next row starts as this one did); the row says so."""
        states = self.controller_states() or {}
        down = [n for n, s in expected.items() if s == 'active' and states.get(n) == 'inactive']
        if down:
            switched = self.switch(down, [])
            row.note(
                f'{", ".join(down)} activated again'
                + ('' if switched and switched[0] else ': FAILED')
            )

    def expect_states(self, row: Row, expected: dict[str, str]) -> None:
        """Fail `row` unless the listed controllers are in these states."""
        states = self.controller_states()
        if states is None:
            row.unanswered += 1
            row.fail('list_controllers did not answer')
            return
        wrong = {n: states.get(n, 'absent') for n, s in expected.items() if states.get(n) != s}
        if wrong:
            row.fail(f'states afterwards: {wrong}')


@contextmanager
def running(
    params_files: Sequence[Path | str],
    urdf: Path | str,
    controllers: Sequence[str],
    *,
    params: dict[str, Any] | None = None,
    recorded: Sequence[str] = (),
) -> Iterator[Robot]:
    """ros2_control_node with `controllers` spawned by `spawner`, as a Robot; with the
    hardware plug-ins `recorded` keeping records (faults.recording: non-finite writes)."""
    with ExitStack() as stack:
        records = None
        if recorded:
            records = Path(stack.enter_context(tempfile.TemporaryDirectory()))
            robot_file = records / 'robot.urdf'
            robot_file.write_text(recorded_urdf(Path(urdf).read_text(), list(recorded)))
            proc = RecordingProcess(records, list(recorded), params_files, robot_file, params)
        else:
            proc = ManagerProcess(params_files, urdf, params=params)
        stack.enter_context(proc)
        ros = stack.enter_context(RosHarness('faults'))
        result = run_tool(
            'spawner', *controllers, '--controller-manager-timeout', '60', timeout_s=300
        )
        if result.returncode != 0:
            raise RuntimeError(
                f'spawner exited with {result.returncode}:\n{result.stdout}\n{result.stderr}\n'
                f'{proc.output()[-3000:]}'
            )
        yield Robot(proc, ros, records=records)


def param_msg(name: str, value: Any) -> ParameterMsg:
    """A Parameter message with the type of `value` (lists typed by their first item)."""
    v = ParameterValue()
    if isinstance(value, bool):
        v.type, v.bool_value = ParameterType.PARAMETER_BOOL, value
    elif isinstance(value, int):
        v.type, v.integer_value = ParameterType.PARAMETER_INTEGER, value
    elif isinstance(value, float):
        v.type, v.double_value = ParameterType.PARAMETER_DOUBLE, value
    elif isinstance(value, str):
        v.type, v.string_value = ParameterType.PARAMETER_STRING, value
    elif isinstance(value, list) and value and isinstance(value[0], float):
        v.type, v.double_array_value = ParameterType.PARAMETER_DOUBLE_ARRAY, value
    elif isinstance(value, list) and value and isinstance(value[0], int):
        v.type, v.integer_array_value = ParameterType.PARAMETER_INTEGER_ARRAY, value
    elif isinstance(value, list):
        v.type, v.string_array_value = ParameterType.PARAMETER_STRING_ARRAY, value
    return ParameterMsg(name=name, value=v)


def param_value(v: ParameterValue) -> Any:
    """The Python value of a ParameterValue message."""
    return {
        ParameterType.PARAMETER_NOT_SET: None,
        ParameterType.PARAMETER_BOOL: v.bool_value,
        ParameterType.PARAMETER_INTEGER: v.integer_value,
        ParameterType.PARAMETER_DOUBLE: v.double_value,
        ParameterType.PARAMETER_STRING: v.string_value,
        ParameterType.PARAMETER_DOUBLE_ARRAY: list(v.double_array_value),
        ParameterType.PARAMETER_INTEGER_ARRAY: list(v.integer_array_value),
        ParameterType.PARAMETER_STRING_ARRAY: list(v.string_array_value),
        ParameterType.PARAMETER_BOOL_ARRAY: list(v.bool_array_value),
    }.get(v.type)


def same_values(a: Any, b: Any) -> bool:
    """Equal, with NaN equal to NaN (parameter values)."""
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    return a == b


def cycle(variants: Sequence[Any], n: int) -> list[Any]:
    """`n` inputs taken in turn from `variants`."""
    return [variants[i % len(variants)] for i in range(n)]
