"""`ackermann_steering_controller/AckermannSteeringController`: two traction wheels on the
rear axle, two steered front wheels (right, left), as upstream."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from py_controllers.controllers.steering.kinematics import Configuration
from py_controllers.controllers.steering.library import SteeringControllersLibrary
from py_controllers.controllers.steering.steering_odometry import Geometry


class AckermannSteeringController(SteeringControllersLibrary):
    """Ackermann steering: each front wheel on its own circle about the rear axle's centre."""

    CONFIGURATION = Configuration.ACKERMANN
    GEOMETRY_SCHEMA = Path(__file__).parent / 'ackermann_steering_controller_parameters.yaml'

    def geometry(self, p: Any) -> Geometry:
        # steering_track_width 0 (unset) means the traction track, as upstream
        return Geometry(
            p.traction_wheels_radius, p.wheelbase, p.traction_track_width, p.steering_track_width
        )
