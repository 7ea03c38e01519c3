"""A minimal diagnostic_updater (that package is not on PyPI): tasks report a level and a
message into DiagnosticStatus entries named '<node>: <task>', published on /diagnostics
once a second (the updater's default period) with the hardware id."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus

PERIOD_S = 1.0


class Updater:
    """diagnostic_updater.Updater's publishing part, on `node`."""

    def __init__(self, node: Any, period_s: float = PERIOD_S) -> None:
        self.node = node
        self.hardware_id = ''
        self.tasks: list[tuple[str, Callable[[DiagnosticStatus], Any]]] = []
        self.publisher = node.create_publisher(DiagnosticArray, '/diagnostics', 1)
        self.timer = node.create_timer(period_s, self.update)

    def setHardwareID(self, hardware_id: str) -> None:
        self.hardware_id = hardware_id

    def add(self, name: str, task: Callable[[DiagnosticStatus], Any]) -> None:
        """`task(status)` fills `status.level` and `status.message` (see `summary`)."""
        self.tasks.append((name, task))

    def update(self) -> None:
        """Run every task and publish their statuses."""
        statuses = []
        for name, task in self.tasks:
            status = DiagnosticStatus(
                name=f'{self.node.get_name()}: {name}', hardware_id=self.hardware_id
            )
            task(status)
            statuses.append(status)
        msg = DiagnosticArray(status=statuses)
        msg.header.stamp = self.node.get_clock().now().to_msg()
        self.publisher.publish(msg)


def summary(status: DiagnosticStatus, level: bytes, message: str) -> None:
    """DiagnosticStatusWrapper.summary: the status's level and message."""
    status.level = level
    status.message = message
