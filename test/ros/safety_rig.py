"""Robots and controllers the safety tests share: FaultInjectionSystem components on
revolute joints, and controllers that misbehave in one named way each."""

from __future__ import annotations

import time

from rclpy.parameter import Parameter
from std_msgs.msg import Float64MultiArray
from std_srvs.srv import Trigger

from py_controllers import plugins
from py_controllers.controller_interface.controller_interface import (
    ControllerInterface,
    InterfaceConfiguration,
    ReturnType,
)
from py_controllers.controller_manager.node import ControllerManagerRuntime

STRICT = 2


def start(manager, name, type_name='Commanding', **params):
    """Load controller `name` of `safety/<type_name>`, set its parameters, configure and
    activate it; the controller object."""
    ok, msg = manager.load_controller(name, f'safety/{type_name}')
    assert ok, msg
    ctrl = manager.controllers[name].controller
    ctrl.get_node().set_parameters([Parameter(k, value=v) for k, v in params.items()])
    ok, msg = manager.configure_controller(name)
    assert ok, msg
    ok, msg = manager.switch_controller([name], [], STRICT)
    assert ok, msg
    return ctrl


def running_manager(harness, urdf, **params):
    """A manager with its real loop at 100 Hz (default scheduler) in `harness`'s process."""
    overrides = {'robot_description': urdf, 'update_rate': 100, 'thread_priority': 0, **params}
    return ControllerManagerRuntime(
        harness.executor,
        context=harness.context,
        args=harness.args,
        parameter_overrides=[Parameter(k, value=v) for k, v in overrides.items()],
    )


def robot(
    components: dict[str, tuple[dict[str, object], list[str]]],
    *,
    plugin: str = '',
    fault_gpio: str = '',
    safety: dict[str, str] | None = None,
    attributes: dict[str, str] | None = None,
) -> str:
    """A URDF: one revolute joint per name, each `<ros2_control>` a FaultInjectionSystem
    (unless `plugin`) with `params` and position/velocity/effort commands; the component
    named `fault_gpio` gets the `faults` gpio (read, write) to inject faults at run time;
    `safety` maps joints to the attributes of a `<safety_controller>`, `attributes`
    components to extra attributes of their `<ros2_control>` tag (e.g. is_async)."""
    joints = [j for _, names in components.values() for j in names]
    links = ''.join(f'<link name="l_{j}"/>' for j in joints)
    urdf_joints = ''.join(
        f'<joint name="{j}" type="revolute"><parent link="base"/><child link="l_{j}"/>'
        '<axis xyz="0 0 1"/><limit lower="-3" upper="3" velocity="2" effort="10"/>'
        + (f'<safety_controller {safety[j]}/>' if safety and j in safety else '')
        + '</joint>'
        for j in joints
    )
    tags = ''
    for name, (params, names) in components.items():
        hw_params = ''.join(f'<param name="{k}">{v}</param>' for k, v in params.items())
        joint_tags = ''.join(
            f'<joint name="{j}"><command_interface name="position"/>'
            '<command_interface name="velocity"/><command_interface name="effort"/>'
            '<state_interface name="position"><param name="initial_value">0.0</param>'
            '</state_interface><state_interface name="velocity"/></joint>'
            for j in names
        )
        if name == fault_gpio:
            joint_tags += (
                '<gpio name="faults"><command_interface name="read"/>'
                '<command_interface name="write"/></gpio>'
            )
        tags += (
            f'<ros2_control name="{name}" type="system" {(attributes or {}).get(name, "")}>'
            '<hardware><plugin>'
            f'{plugin or "py_controllers/FaultInjectionSystem"}</plugin>{hw_params}'
            f'</hardware>{joint_tags}</ros2_control>'
        )
    return f'<robot name="safety"><link name="base"/>{links}{urdf_joints}{tags}</robot>'


class Commanding(ControllerInterface):
    """Writes `value` (default 1.5) to the command interfaces in its `interfaces` parameter."""

    def on_init(self):
        node = self.get_node()
        node.declare_parameter('interfaces', ['j1/velocity'])
        node.declare_parameter('value', 1.5)
        self.updates = 0

    def on_configure(self, previous_state):
        self.names = list(self.get_node().get_parameter('interfaces').value)
        self.value = float(self.get_node().get_parameter('value').value)

    def command_interface_configuration(self):
        return InterfaceConfiguration.individual(self.names)

    def update(self, time, period):
        self.updates += 1
        for handle in self.command_interfaces:
            handle.value = self.value
        return ReturnType.OK


class Reading(ControllerInterface):
    """Reads j1's position state, commands nothing (a broadcaster's shape)."""

    def state_interface_configuration(self):
        return InterfaceConfiguration.individual(['j1/position'])

    def update(self, time, period):
        return ReturnType.OK


class SlowToAnswer(Reading):
    """Reading whose interface configuration takes a millisecond: anyone walking the
    controller table while asking it gives other threads time to change the table."""

    def command_interface_configuration(self):
        time.sleep(0.001)
        return InterfaceConfiguration.none()


class BadReturn(Commanding):
    """update() returns something that is not a ReturnType."""

    def update(self, time, period):
        super().update(time, period)
        return 'done'


class Returning(Commanding):
    """Commanding whose update() returns `result` (set by the test), OK until then."""

    result = ReturnType.OK

    def update(self, time, period):
        super().update(time, period)
        return self.result


class NoReturn(Commanding):
    """update() forgets to return: None, which the one rule takes as success."""

    def update(self, time, period):
        super().update(time, period)


class BadConfiguration(Commanding):
    """command_interface_configuration() raises once configured."""

    def command_interface_configuration(self):
        raise KeyError('no such joint in my table')


class CallbackBomb(ControllerInterface):
    """Its `~/input` subscription and `~/trigger` service raise on every call."""

    def on_configure(self, previous_state):
        node = self.get_node()
        self.calls = 0
        node.create_subscription(Float64MultiArray, '~/input', self._explode, 10)
        node.create_service(Trigger, '~/trigger', self._explode_service)

    def _explode(self, msg):
        self.calls += 1
        raise ValueError(f'cannot take {list(msg.data)}')

    def _explode_service(self, request, response):
        self.calls += 1
        raise ZeroDivisionError('service bug')


for _cls in (
    Commanding,
    Reading,
    SlowToAnswer,
    BadReturn,
    Returning,
    NoReturn,
    BadConfiguration,
    CallbackBomb,
):
    plugins.register(plugins.CONTROLLERS_GROUP, f'safety/{_cls.__name__}', _cls)
