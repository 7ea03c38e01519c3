"""What the in-process manager tests share: a manager on the minimal robot, a controller
that counts its updates (registered as test/CountingController), loading helpers."""

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from rclpy.parameter import Parameter

from py_controllers import plugins
from py_controllers.controller_interface.controller_interface import (
    ControllerInterface,
    InterfaceConfiguration,
    ReturnType,
)
from py_controllers.controller_manager.node import ControllerManagerRuntime
from py_controllers.testing import CONFIG, RosHarness


class CountingController(ControllerInterface):
    """Counts its updates; writes joint1/velocity."""

    def on_init(self):
        self.updates = 0

    def command_interface_configuration(self):
        return InterfaceConfiguration.individual(['joint1/velocity'])

    def update(self, time, period):
        self.updates += 1
        self.command_interfaces[0].value = 0.0
        return ReturnType.OK


plugins.register(plugins.CONTROLLERS_GROUP, 'test/CountingController', CountingController)


@contextmanager
def inprocess_runtime(*overrides: Parameter) -> Iterator[tuple[RosHarness, Any]]:
    """(harness, runtime): a ControllerManagerRuntime on the minimal robot at 200 Hz, its loop
    thread running, on the harness's executor (callbacks run only while the test spins);
    `overrides`: more of its parameters."""
    harness = RosHarness(
        'inprocess', args=['--ros-args', '--params-file', str(CONFIG / 'minimal_controllers.yaml')]
    )
    node = ControllerManagerRuntime(
        harness.executor,
        context=harness.context,
        args=harness.args,
        parameter_overrides=[
            Parameter('robot_description', value=(CONFIG / 'minimal_robot.urdf').read_text()),
            Parameter('update_rate', value=200),
            *overrides,
        ],
    )
    try:
        yield harness, node
    finally:
        node.shutdown()
        harness.close()


@contextmanager
def inprocess_manager() -> Iterator[tuple[RosHarness, Any]]:
    """(harness, manager): the manager of `inprocess_runtime()`."""
    with inprocess_runtime() as (harness, node):
        yield harness, node.manager


def load(manager, name, type_name):
    ok, msg = manager.load_controller(name, type_name)
    assert ok, msg
    ok, msg = manager.configure_controller(name)
    assert ok, msg
    return manager.controllers[name].controller
