"""RRBot with a force-torque sensor in the same system (example 4): the joints as in
example 1, the `<sensor>` interfaces fake readings (fake_sensor.py).

`<hardware>` parameters (required): those of example 1 and `example_param_max_sensor_change`,
the upper bound of the readings.
"""

from __future__ import annotations

from typing import Any

from py_controllers.hardware_interface.types import CallbackReturn, ReturnType
from ros2_control_demos_py.common import Throttle, fixed2, log_throttled, read_numbers
from ros2_control_demos_py.fake_sensor import draw_readings, sensor_interface_names
from ros2_control_demos_py.rrbot import RRBotSystemPositionOnlyHardware


class RRBotSystemWithSensorHardware(RRBotSystemPositionOnlyHardware):
    """ros2_control_demo_example_4/RRBotSystemWithSensorHardware."""

    def on_init(self, info: Any) -> CallbackReturn:
        if super().on_init(info) != CallbackReturn.SUCCESS:
            return CallbackReturn.ERROR
        values = read_numbers(self, ['example_param_max_sensor_change'])
        if values is None:
            return CallbackReturn.ERROR
        self.hw_sensor_change = values[0]
        self.sensor_names = sensor_interface_names(info)
        self._sensor_log = Throttle()
        return CallbackReturn.SUCCESS

    def on_configure(self, previous_state: Any) -> CallbackReturn:
        for name in self.sensor_names:
            self.set_state(name, 0.0)
        return super().on_configure(previous_state)

    def read(self, time: Any, period: Any) -> ReturnType:
        for name in self.names:  # simulate the RRBot's movement
            state = self.get_state(name)
            self.set_state(name, state + (self.get_command(name) - state) / self.hw_slowdown)
        log_throttled(
            self,
            self._read_log,
            lambda: (
                'Reading states from joints:'
                + ''.join(f"\n\t{fixed2(self.get_state(n))} for joint '{n}'" for n in self.names)
            ),
        )
        text = draw_readings(self, self.sensor_names, self.hw_sensor_change)
        log_throttled(self, self._sensor_log, lambda: text)
        return ReturnType.OK
