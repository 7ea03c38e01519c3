"""MujocoSystem's `<hardware>` parameters: each one takes effect or is refused (no ROS here).

The names are ours and upstream's (ros-controls/mujoco_ros2_control, whose plugin is
`mujoco_ros2_control/MujocoSystemInterface`, and moveit/mujoco_ros2_control, plugin
`mujoco_ros2_control/MujocoSystem`). A parameter MujocoSystem cannot carry out is refused
at on_init with one line saying why and what to do instead; none is accepted and ignored.
The table is in `mujoco_system`'s docstring and docs/mujoco.md.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from py_controllers import yaml_loading
from py_controllers.hardware.component_params import bool_param, float_param
from py_controllers.hardware.mujoco_model import MujocoModelError, resolve_model_path

SIM_MODES = ('step_with_loop', 'realtime')
SENSOR_SUFFIXES = (
    'force_mjcf_suffix',
    'torque_mjcf_suffix',
    'orientation_mjcf_suffix',
    'angular_velocity_mjcf_suffix',
    'linear_acceleration_mjcf_suffix',
    'position_mjcf_suffix',
)
ACCEPTED = (
    'mujoco_model',
    'mujoco_model_path',
    'sim_mode',
    'realtime_factor',
    'sim_speed_factor',
    'max_substeps',
    'viewer',
    'headless',
    'initial_keyframe',
    'override_start_position_file',
    'pids_config_file',
    *SENSOR_SUFFIXES,
)
_NO_ODOM = (
    "publishing a free joint's odometry (nav_msgs/Odometry) is not simulated; drop it and "
    'read the base pose from a pose sensor (mujoco_type pose) instead'
)
REFUSED = {
    'mujoco_model_topic': (
        'reading the MJCF from a topic is not supported; give the file as '
        "<param name='mujoco_model'>"
    ),
    'odom_free_joint_name': _NO_ODOM,
    'odom_topic': _NO_ODOM,
}
# pid_gains.<kind>.<joint>.<key> of upstream's pids_config_file -> our joint <param>s
PID_KINDS = ('position', 'velocity')
PID_KEYS = ('p', 'i', 'd', 'i_clamp_max', 'i_clamp_min', 'u_clamp_max', 'u_clamp_min')


@dataclass
class MujocoParams:
    """What the `<hardware>` parameters ask for, checked."""

    model_path: Path
    sim_mode: str = SIM_MODES[0]
    realtime_factor: float = 1.0
    max_substeps: int = 1000
    viewer: bool = False
    initial_keyframe: str = ''
    start_state: dict[str, list[float]] | None = None  # qpos, qvel, ctrl of the start file
    joint_gains: dict[str, dict[str, str]] = field(default_factory=dict)  # joint -> params


def parse_params(hw: Mapping[str, str], joint_names: list[str], where: str) -> MujocoParams:
    """Every `<hardware>` parameter checked; ValueError (one line, naming it) if refused."""
    for name in hw:
        if name in REFUSED:
            raise ValueError(f"{where}: parameter '{name}' is refused: {REFUSED[name]}")
        if name not in ACCEPTED:
            raise ValueError(
                f"{where}: parameter '{name}' is not a MujocoSystem parameter "
                f'(it takes: {", ".join(ACCEPTED)})'
            )
    params = MujocoParams(model_path=_model_path(hw, where))
    params.sim_mode = hw.get('sim_mode', '').strip() or SIM_MODES[0]
    if params.sim_mode not in SIM_MODES:
        raise ValueError(
            f"{where}: parameter 'sim_mode' must be one of {SIM_MODES}, got '{params.sim_mode}'"
        )
    params.realtime_factor = _speed_factor(hw, params.sim_mode, where)
    params.max_substeps = int(float_param(hw, 'max_substeps', 1000, where))
    if params.max_substeps < 1:
        raise ValueError(f"{where}: parameter 'max_substeps' must be >= 1")
    params.viewer = _viewer(hw, where)
    params.initial_keyframe = hw.get('initial_keyframe', '').strip()
    start_file = hw.get('override_start_position_file', '').strip()
    if start_file:
        if params.initial_keyframe:
            raise ValueError(
                f"{where}: parameters 'override_start_position_file' and 'initial_keyframe' "
                'both set the start state; give one'
            )
        params.start_state = read_start_state(start_file, where)
    pids_file = hw.get('pids_config_file', '').strip()
    if pids_file:
        params.joint_gains = read_pid_gains(pids_file, joint_names, where)
    return params


def _model_path(hw: Mapping[str, str], where: str) -> Path:
    """`mujoco_model` (ros-controls) or `mujoco_model_path` (moveit, here a hardware param)."""
    ours, moveits = hw.get('mujoco_model', '').strip(), hw.get('mujoco_model_path', '').strip()
    if ours and moveits and ours != moveits:
        raise ValueError(
            f"{where}: parameters 'mujoco_model' and 'mujoco_model_path' name different "
            'files; give one'
        )
    if not (ours or moveits):
        raise ValueError(
            f"{where}: parameter 'mujoco_model' (the MJCF file) is required in <hardware>; "
            "moveit's node parameter 'mujoco_model_path' is not read, give it as "
            "<param name='mujoco_model_path'> in <hardware> instead"
        )
    return resolve_model_path(ours or moveits)


def _speed_factor(hw: Mapping[str, str], sim_mode: str, where: str) -> float:
    """`realtime_factor`, or upstream's `sim_speed_factor` (negative: not set, as upstream).

    In step_with_loop the simulation advances one update period per cycle of the loop,
    which the manager paces by the wall clock: it runs at 1x. A factor of 1 says just that
    and is accepted; any other factor is refused there rather than ignored."""
    given = {}
    for name in ('sim_speed_factor', 'realtime_factor'):
        value = float_param(hw, name, math.nan, where)
        if name == 'sim_speed_factor' and value < 0.0:
            continue  # upstream: no override, the viewer's slider (100 % without one)
        if not math.isnan(value):
            if not (math.isfinite(value) and value > 0.0):
                raise ValueError(f"{where}: parameter '{name}' must be > 0, got {value}")
            given[name] = value
    if len(set(given.values())) > 1:
        raise ValueError(
            f"{where}: parameters 'sim_speed_factor' and 'realtime_factor' differ; give one"
        )
    name, factor = next(iter(given.items()), ('realtime_factor', 1.0))
    if sim_mode == 'step_with_loop' and factor != 1.0:
        raise ValueError(
            f"{where}: parameter '{name}' {factor:g} needs sim_mode realtime: in "
            'step_with_loop the simulation advances one update period per cycle, so it runs '
            "at the loop's pace (1x)"
        )
    return factor


def _viewer(hw: Mapping[str, str], where: str) -> bool:
    """`viewer` (ours) or not `headless` (upstream); refused when the two disagree."""
    viewer = bool_param(hw, 'viewer', False, where) if 'viewer' in hw else None
    headless = bool_param(hw, 'headless', True, where) if 'headless' in hw else None
    if viewer is not None and headless is not None and viewer == headless:
        raise ValueError(f"{where}: parameters 'viewer' and 'headless' contradict each other")
    if viewer is not None:
        return viewer
    return headless is False


def read_start_state(text: str, where: str) -> dict[str, list[float]]:
    """Upstream's start file: MuJoCo's `<key qpos=... qvel=... ctrl=.../>` ('Copy state')."""
    import xml.etree.ElementTree as ET

    path = resolve_model_path(text, 'override_start_position_file')
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as exc:
        raise MujocoModelError(
            f"{where}: parameter 'override_start_position_file': {path}: {exc}"
        ) from None
    key = root if root.tag == 'key' else root.find('.//key')
    if key is None:
        raise MujocoModelError(
            f"{where}: parameter 'override_start_position_file': {path} has no <key> element"
        )
    state = {}
    for name in ('qpos', 'qvel', 'ctrl'):
        if key.get(name) is None:
            raise MujocoModelError(
                f"{where}: parameter 'override_start_position_file': <key> has no '{name}'"
            )
        state[name] = [float(x) for x in key.get(name, '').split()]
    return state


def read_pid_gains(text: str, joint_names: list[str], where: str) -> dict[str, dict[str, str]]:
    """Upstream's pids_config_file (`pid_gains.<position|velocity>.<joint>.<p|i|d|...>`
    under any node's ros__parameters) as our joint servo `<param>`s, per joint."""
    label = f"{where}: parameter 'pids_config_file'"
    path = resolve_model_path(text, 'pids_config_file')
    try:
        document = yaml_loading.safe_load(path.read_text()) or {}
    except yaml.YAMLError as exc:
        raise ValueError(f'{label}: {path} is not YAML ({exc})') from None
    tables = [
        node['ros__parameters']['pid_gains']
        for node in document.values()
        if isinstance(node, dict) and isinstance(node.get('ros__parameters'), dict)
        if 'pid_gains' in node['ros__parameters']
    ]
    if not tables:
        raise ValueError(f'{label}: {path} has no ros__parameters.pid_gains')
    gains: dict[str, dict[str, str]] = {}
    for table in tables:
        for kind, joints in table.items():
            if kind not in PID_KINDS:
                raise ValueError(f'{label}: pid_gains.{kind}: use {" or ".join(PID_KINDS)}')
            for joint, values in joints.items():
                if joint not in joint_names:
                    raise ValueError(
                        f'{label}: pid_gains.{kind}.{joint} names no joint of this '
                        f'<ros2_control> ({", ".join(joint_names)})'
                    )
                gains.setdefault(joint, {}).update(_servo_params(kind, values, label, joint))
    return gains


def _servo_params(kind: str, values: dict[str, Any], label: str, joint: str) -> dict[str, str]:
    """control_toolbox gains as our `<kind>.<gain>` params. Its i_clamp_max/min bound the
    integral term (i * integral), ours the integral: i_clamp = i_clamp_max / i."""
    unknown = sorted(set(values) - set(PID_KEYS))
    if unknown:
        raise ValueError(f'{label}: pid_gains.{kind}.{joint}: {unknown} not simulated')
    out = {f'{kind}.{k}': str(values[k]) for k in ('p', 'i', 'd') if k in values}
    for bound in ('i_clamp', 'u_clamp'):
        high, low = values.get(f'{bound}_max'), values.get(f'{bound}_min')
        if high is None and low is None:
            continue
        if high is None or low is None or not math.isclose(float(low), -float(high)):
            raise ValueError(
                f'{label}: pid_gains.{kind}.{joint}: {bound}_min must be -{bound}_max '
                '(a symmetric clamp)'
            )
        if bound == 'u_clamp':
            out[f'{kind}.u_clamp'] = str(abs(float(high)))
        elif float(values.get('i', 0.0)) != 0.0:
            out[f'{kind}.i_clamp'] = str(abs(float(high) / float(values['i'])))
    return out


def joint_params(joint: Any, gains: Mapping[str, Mapping[str, str]]) -> dict[str, str]:
    """A joint's `<param>`s with its pids_config_file gains over them."""
    return {**(getattr(joint, 'parameters', None) or {}), **gains.get(joint.name, {})}


_MOVEIT_SENSOR = re.compile(r'^(?P<base>.+)_(?P<kind>fts|imu)$')


def moveit_sensor(name: str) -> tuple[str, str] | None:
    """moveit's convention: a sensor named `<base>_fts` / `<base>_imu` reads MJCF sensors
    `<base>_force`... / `<base>_quat`...; (mujoco_type, base) or None."""
    match = _MOVEIT_SENSOR.match(name)
    return (match['kind'], match['base']) if match else None


def check_start_state(model: Any, state: Mapping[str, list[float]], where: str) -> None:
    """The start file's qpos, qvel, ctrl must have the model's nq, nv, nu values."""
    sizes = {'qpos': model.nq, 'qvel': model.nv, 'ctrl': model.nu}
    wrong = [f'{k} {len(state[k])} (model: {n})' for k, n in sizes.items() if len(state[k]) != n]
    if wrong:
        raise MujocoModelError(
            f"{where}: parameter 'override_start_position_file' does not fit the model: "
            + ', '.join(wrong)
        )


def start_conflict(name: str, value: float, start: float, source: str) -> str | None:
    """Why a joint's initial_value contradicts the start state of `source`, or None.

    Upstream lets the keyframe or start file win over initial_value; MujocoSystem used to
    let initial_value win. Rather than ignore one of the two, a disagreement is refused."""
    if math.isclose(value, start, rel_tol=0.0, abs_tol=1e-12):
        return None
    return (
        f"joint '{name}': its initial_value {value:g} and {source} ({start:g}) both set "
        'its start position; drop one'
    )
