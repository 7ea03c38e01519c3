"""Non-finite and huge values on the demo's gpio_command_controller/commands (the
`tool_io` digital output, mirrored to its state): an infinite or NaN command is refused
with a log line and the output stays; a huge finite one may be written (the output must
read a finite value, the controller stays active). Either way no non-finite command
reaches write()."""

from __future__ import annotations

import math

from control_msgs.msg import DynamicInterfaceGroupValues, InterfaceValue

from faults.common import Robot, Row, cycle
from faults.messages import HUGE, INF, NAN, Latest
from faults.topics import topic_row

TOPIC = '/gpio_command_controller/commands'
GPIO, OUTPUT = 'tool_io', 'digital_output'


def command(value: float) -> DynamicInterfaceGroupValues:
    return DynamicInterfaceGroupValues(
        interface_groups=[GPIO],
        interface_values=[InterfaceValue(interface_names=[OUTPUT], values=[value])],
    )


def rows(robot: Robot, n: int, expected: dict[str, str], out: list[Row]) -> None:
    states = Latest(robot.node, DynamicInterfaceGroupValues, '/gpio_command_controller/gpio_states')
    pub = robot.node.create_publisher(DynamicInterfaceGroupValues, TOPIC, 10)

    def output() -> float | None:
        msg = states.msg
        if msg is None or GPIO not in msg.interface_groups:
            return None
        group = msg.interface_values[list(msg.interface_groups).index(GPIO)]
        names = list(group.interface_names)
        return group.values[names.index(OUTPUT)] if OUTPUT in names else None

    def set_output(value: float) -> bool:
        def there() -> bool:
            pub.publish(command(value))
            robot.spin(0.05)
            return output() == value

        return robot.poll(there, 5.0, 0.0)

    same = lambda a, b: a is not None and a == b  # noqa: E731
    finite = lambda _, b: b is not None and math.isfinite(b)  # noqa: E731
    for kind, values in [
        ('NaN / inf values', [NAN, INF, -INF]),
        ('huge finite values (+-1e308)', [HUGE, -HUGE]),
    ]:
        huge = kind.startswith('huge')
        row = Row(TOPIC, kind)
        if not set_output(1.0):
            row.note('the output could not be set before the batch')
        topic_row(
            robot,
            row,
            pub,
            [command(v) for v in cycle(values, n)],
            loggers=['gpio_command_controller'],
            observe=output,
            unchanged=finite if huge else same,
            expected=expected,
            expect_error=not huge,
        )
        if huge:
            row.note(f'output afterwards {output()}')
        if not set_output(0.0):
            row.fail('a valid command afterwards was not taken')
        out.append(row)
