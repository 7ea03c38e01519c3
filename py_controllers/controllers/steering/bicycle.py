"""`bicycle_steering_controller/BicycleSteeringController`: one traction wheel and one
steering joint, as upstream."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from py_controllers.controllers.steering.kinematics import Configuration
from py_controllers.controllers.steering.library import SteeringControllersLibrary
from py_controllers.controllers.steering.steering_odometry import Geometry


class BicycleSteeringController(SteeringControllersLibrary):
    """Bicycle model: a steered wheel `wheelbase` ahead of a driven one."""

    CONFIGURATION = Configuration.BICYCLE
    GEOMETRY_SCHEMA = Path(__file__).parent / 'bicycle_steering_controller_parameters.yaml'

    def geometry(self, p: Any) -> Geometry:
        return Geometry(p.traction_wheel_radius, p.wheelbase)
