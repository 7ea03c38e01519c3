"""`tricycle_steering_controller/TricycleSteeringController`: two traction wheels (right,
left) on the rear axle and one steering joint, as upstream."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from py_controllers.controllers.steering.kinematics import Configuration
from py_controllers.controllers.steering.library import SteeringControllersLibrary
from py_controllers.controllers.steering.steering_odometry import Geometry


class TricycleSteeringController(SteeringControllersLibrary):
    """Tricycle: one steered wheel ahead of a driven axle whose wheels turn at their own
    speeds on the circle."""

    CONFIGURATION = Configuration.TRICYCLE
    GEOMETRY_SCHEMA = Path(__file__).parent / 'tricycle_steering_controller_parameters.yaml'

    def geometry(self, p: Any) -> Geometry:
        return Geometry(p.traction_wheels_radius, p.wheelbase, p.traction_track_width)
