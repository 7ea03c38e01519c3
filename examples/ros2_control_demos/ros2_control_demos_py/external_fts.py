"""An external force-torque sensor, a component of its own beside the RRBot (example 5):
every `<sensor>` state interface reads a fake value (fake_sensor.py).

`<hardware>` parameters (required): `example_param_hw_start_duration_sec` (on_activate
waits this long), `example_param_hw_stop_duration_sec` (on_deactivate),
`example_param_max_sensor_change` (the readings' upper bound).
"""

from __future__ import annotations

from typing import Any

from py_controllers.hardware_interface.hardware_component import SensorInterface
from py_controllers.hardware_interface.types import CallbackReturn, ReturnType
from ros2_control_demos_py.common import Throttle, log_throttled, read_numbers, waiting_transition
from ros2_control_demos_py.fake_sensor import draw_readings, sensor_interface_names


class ExternalRRBotForceTorqueSensorHardware(SensorInterface):
    """ros2_control_demo_example_5/ExternalRRBotForceTorqueSensorHardware."""

    def on_init(self, info: Any) -> CallbackReturn:
        if super().on_init(info) != CallbackReturn.SUCCESS:
            return CallbackReturn.ERROR
        values = read_numbers(
            self,
            [
                'example_param_hw_start_duration_sec',
                'example_param_hw_stop_duration_sec',
                'example_param_max_sensor_change',
            ],
        )
        if values is None:
            return CallbackReturn.ERROR
        self.hw_start_sec, self.hw_stop_sec, self.hw_sensor_change = values
        self.sensor_names = sensor_interface_names(info)
        self._read_log = Throttle()
        return CallbackReturn.SUCCESS

    def on_activate(self, previous_state: Any) -> CallbackReturn:
        return waiting_transition(self, 'Activating', self.hw_start_sec, 'Successfully activated!')

    def on_deactivate(self, previous_state: Any) -> CallbackReturn:
        return waiting_transition(
            self, 'Deactivating', self.hw_stop_sec, 'Successfully deactivated!'
        )

    def read(self, time: Any, period: Any) -> ReturnType:
        text = draw_readings(self, self.sensor_names, self.hw_sensor_change)
        log_throttled(self, self._read_log, lambda: text)
        return ReturnType.OK
