"""`gz_ros2_control/GazeboSimSystem`, as example 9's Gazebo launch names it: refused at
on_init with one line that points to the MuJoCo path (there is no Gazebo here; see
docs/ros2_control_demos.md, example 9)."""

from __future__ import annotations

from typing import Any

from py_controllers.hardware_interface.hardware_component import SystemInterface
from py_controllers.hardware_interface.types import CallbackReturn
from ros2_control_demos_py.common import logger_of

REFUSAL = (
    'gz_ros2_control/GazeboSimSystem is not available in py_controllers (no Gazebo): simulate '
    'with py_controllers/MujocoSystem instead (docs/mujoco.md), or run example 9 without '
    'Gazebo (rrbot.launch.py, ros2_control_demo_example_9/RRBotSystemPositionOnlyHardware)'
)


class GazeboSimSystem(SystemInterface):
    """Refuses to load, saying what to use instead."""

    def on_init(self, info: Any) -> CallbackReturn:
        super().on_init(info)
        logger_of(self).error(REFUSAL)
        return CallbackReturn.ERROR
