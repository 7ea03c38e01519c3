"""The fake force-torque readings of examples 4 and 5: every state interface of every
`<sensor>` gets a uniform number in [0, example_param_max_sensor_change), drawn as upstream
does (a minstd_rand seeded with the current second plus the interface's index, in URDF
order), so the readings change once a second."""

from __future__ import annotations

from typing import Any

from ros2_control_demos_py.common import fixed2, uniform_from_time


def sensor_interface_names(info: Any) -> list[str]:
    """`<sensor>/<state_interface>` of every sensor, in URDF order."""
    return [f'{s.name}/{itf.name}' for s in info.sensors for itf in s.state_interfaces]


def draw_readings(component: Any, names: list[str], upper: float) -> str:
    """Set each of `names` to its reading; the log text ('Reading states from sensors:...')."""
    rows = []
    for i, name in enumerate(names):
        component.set_state(name, uniform_from_time(i, upper))
        rows.append(f"\n\t{fixed2(component.get_state(name))} for sensor '{name}'")
    return 'Reading states from sensors:' + ''.join(rows)
