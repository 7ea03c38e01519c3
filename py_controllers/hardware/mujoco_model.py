"""How a `<ros2_control>` description maps onto a MuJoCo model (no ROS here).

Joints map to MJCF joints of the same name (hinge or slide only). Each joint has at most
one actuator: on the joint, or, as upstream, on a tendon and named as the joint (fingers
coupled by a tendon and an equality), classified as upstream mujoco_ros2_control does by its
gain and bias: `position` (a position servo), `velocity` (a velocity servo), `effort` (a
motor) or `other`. A command interface is carried out as follows:

    command    the joint's actuator
               of that kind        motor, or none              velocity servo   other
    position   ctrl = gear q*      servo -> ctrl / qfrc        servo -> ctrl    error
    velocity   ctrl = gear v*      servo -> ctrl / qfrc        (that kind)      error
    effort     ctrl = tau / gear   (that kind) / qfrc_applied  error            error

(a position actuator takes position commands only; `force` and `torque` commands are
efforts, as upstream). A servo's output goes to the joint's
motor or velocity actuator, or, without one, into `qfrc_applied`; without gains the
command is refused at init. Its gains are the joint's `<param>`s `p`, `i`, `d`, `i_clamp`
(aliases `kp`, `ki`, `kd`/`kv`), each overridable per kind as `position.p`, `velocity.p`,
..., and `u_clamp` bounds the output (upstream's `pid_gains.<kind>.<joint>` ROS
parameters come in through `pids_config_file`, see `mujoco_params`).

Sensors follow mujoco_ros2_control: a `<sensor>`'s `mujoco_type` (`fts`, `imu`, `pose`,
`magnetometer`, else guessed from its interfaces) and `mujoco_sensor_name` (default: the
sensor's name; moveit's `<base>_fts` / `<base>_imu` names give type and base) pick
MJCF sensors named `<mujoco_sensor_name><suffix>`, suffixes from the sensor's or the
hardware's `<param>`s (`force_mjcf_suffix` `_force`, `torque_mjcf_suffix` `_torque`,
`orientation_mjcf_suffix` `_quat`, `angular_velocity_mjcf_suffix` `_gyro`,
`linear_acceleration_mjcf_suffix` `_accel`, `position_mjcf_suffix` `_pos`; a
magnetometer has none). Force and torque are negated as upstream
(the load the tool puts on the sensor, not the support the sensor gives the tool).

A `<gpio>` is an external push (ours; upstream simulates no gpios): its `body` parameter
names a MuJoCo body, its command interfaces among `force.x` ... `torque.z` set that body's
`xfrc_applied` (world frame, at its centre of mass) while the component is active, and
state interfaces of the same names report what is applied. A GpioCommandController then
pushes the robot from a topic.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import mujoco

from py_controllers.hardware.component_params import float_param

POSITION, VELOCITY, EFFORT, OTHER = 'position', 'velocity', 'effort', 'other'
COMMAND_KINDS = (POSITION, VELOCITY, EFFORT)
# upstream (ros-controls) names for an effort: the same data, a linear or angular joint's
EFFORT_NAMES = {'effort': EFFORT, 'force': EFFORT, 'torque': EFFORT}
COMMAND_NAMES = {POSITION: POSITION, VELOCITY: VELOCITY, **EFFORT_NAMES}
JOINT_STATES = ('position', 'velocity', 'effort', 'force', 'torque', 'acceleration')
QFRC_APPLIED = -1  # Drive.actuator when the output goes into qfrc_applied
_ACTUATOR_NAMES = {POSITION: 'position actuator', VELOCITY: 'velocity actuator'}
_ACTUATOR_NAMES.update({EFFORT: 'motor', OTHER: 'general actuator'})
_ACTUATOR = mujoco.mjtObj.mjOBJ_ACTUATOR
_GAIN_ALIASES = {'p': ('p', 'kp'), 'i': ('i', 'ki'), 'd': ('d', 'kd', 'kv')}


class MujocoModelError(ValueError):
    """The description does not fit the model; the message names the joint or sensor."""


@dataclass(frozen=True)
class ServoGains:
    """PID gains of a servo built in Python: out = p e + i integral(e) - d dq/dt."""

    p: float
    i: float = 0.0
    d: float = 0.0
    i_clamp: float = math.inf
    u_clamp: float = math.inf  # bound on the output, +-u_clamp

    def clamp(self, out: float) -> float:
        """`out` within +-u_clamp."""
        return min(max(out, -self.u_clamp), self.u_clamp)


@dataclass(frozen=True)
class Drive:
    """How one command kind reaches the model: native `ctrl` or a servo's output."""

    kind: str  # position, velocity or effort: what the command means
    actuator: int  # actuator index, or QFRC_APPLIED
    output: str  # what the actuator / qfrc_applied takes: position, velocity or effort
    gear: float = 1.0
    gains: ServoGains | None = None  # None: the command goes straight to `output`

    def to_ctrl(self, value: float) -> float:
        """`value` (joint units, of kind `output`) as the actuator's ctrl."""
        return value / self.gear if self.output == EFFORT else value * self.gear


@dataclass(frozen=True)
class JointBinding:
    """A `<joint>` resolved to its MuJoCo addresses and drives."""

    name: str
    qpos_adr: int
    dof_adr: int
    actuator_kind: str | None  # kind of its actuator, None without one
    drives: dict[str, Drive]  # command kind -> drive, for its command interfaces
    hold_drive: Drive | None  # what holds it while nothing commands it


@dataclass(frozen=True)
class SensorReading:
    """A sensor state interface: `scale * sensordata[address]`."""

    interface: str  # '<sensor>/<interface>'
    address: int
    scale: float = 1.0


def actuator_kind(model: Any, index: int) -> str:
    """position, velocity, effort (motor) or other, from the actuator's gain and bias."""
    if int(model.actuator_dyntype[index]) != mujoco.mjtDyn.mjDYN_NONE:
        return OTHER
    if int(model.actuator_gaintype[index]) != mujoco.mjtGain.mjGAIN_FIXED:
        return OTHER
    gain = model.actuator_gainprm[index][0]
    bias = model.actuator_biasprm[index]
    biastype = int(model.actuator_biastype[index])
    if biastype == mujoco.mjtBias.mjBIAS_NONE:
        return EFFORT
    if biastype == mujoco.mjtBias.mjBIAS_AFFINE and bias[0] == 0.0 and gain != 0.0:
        if bias[1] == -gain:
            return POSITION
        if bias[1] == 0.0 and bias[2] == -gain:
            return VELOCITY
    return OTHER


def _name(model: Any, obj: Any, index: int) -> str:
    return mujoco.mj_id2name(model, obj, index) or f'#{index}'


def _names(model: Any, obj: Any, count: int) -> str:
    return ', '.join(_name(model, obj, i) for i in range(count)) or 'none'


def _joint_actuators(model: Any, joint_id: int, name: str) -> list[int]:
    """The joint's actuators: on the joint, or (as upstream) on a tendon and named as the
    joint (a gripper's fingers coupled by a tendon and an equality, say)."""

    def drives_it(i: int) -> bool:
        trn = int(model.actuator_trntype[i])
        if trn == mujoco.mjtTrn.mjTRN_TENDON:
            return _name(model, _ACTUATOR, i) == name
        return trn == mujoco.mjtTrn.mjTRN_JOINT and model.actuator_trnid[i][0] == joint_id

    return [i for i in range(model.nu) if drives_it(i)]


def servo_gains(params: Mapping[str, str], kind: str, where: str) -> ServoGains | None:
    """The joint's gains for a `kind` servo (`<kind>.<gain>` over `<gain>`), None without p."""

    def gain(names: tuple[str, ...], default: float) -> float:
        for key in [f'{kind}.{n}' for n in names] + list(names):
            if key in params:
                return float_param(params, key, default, where)
        return default

    p = gain(_GAIN_ALIASES['p'], math.nan)
    if math.isnan(p):
        return None
    gains = ServoGains(
        p,
        gain(_GAIN_ALIASES['i'], 0.0),
        gain(_GAIN_ALIASES['d'], 0.0),
        abs(gain(('i_clamp',), math.inf)),
        abs(gain(('u_clamp',), math.inf)),
    )
    if not all(math.isfinite(g) for g in (gains.p, gains.i, gains.d)):
        raise MujocoModelError(f'{where}: servo gains must be finite numbers, got {gains}')
    return gains


def _drive(
    kind: str, actuator: int, act_kind: str | None, gear: float, params: Any, where: str
) -> Drive:
    """The drive for a `kind` command on a joint with (or without) `actuator`."""
    if act_kind == kind:
        return Drive(kind, actuator, kind, gear)
    has = f'its {_ACTUATOR_NAMES[act_kind]}' if act_kind else 'no actuator'
    if kind == EFFORT and act_kind is None:
        return Drive(EFFORT, QFRC_APPLIED, EFFORT)
    servo_output = {None: EFFORT, EFFORT: EFFORT}
    if kind == POSITION:
        servo_output[VELOCITY] = VELOCITY
    if act_kind not in servo_output:
        fix = 'a motor or no actuator' if kind == EFFORT else f'a {_ACTUATOR_NAMES[kind]}'
        raise MujocoModelError(
            f"{where}: a '{kind}' command does not fit the model, which drives the joint "
            f'with {has}; give the joint {fix}, or drop the command interface'
        )
    gains = servo_gains(params, kind, where)
    if gains is None:
        raise MujocoModelError(
            f"{where}: a '{kind}' command needs a {_ACTUATOR_NAMES[kind]} in the model, or "
            f"servo gains (<param name='p'>, 'i', 'd') on the joint; the model has {has}"
        )
    target = QFRC_APPLIED if act_kind is None else actuator
    return Drive(kind, target, servo_output[act_kind], gear, gains)


def bind_joint(model: Any, joint: Any, params: Mapping[str, str] | None = None) -> JointBinding:
    """Resolve a `<joint>` description (`params` over its `<param>`s); MujocoModelError
    naming the joint if it does not fit."""
    where = f"joint '{joint.name}'"
    joint_id = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, joint.name)
    if joint_id < 0:
        known = _names(model, mujoco.mjtObj.mjOBJ_JOINT, model.njnt)
        raise MujocoModelError(f'{where} is not in the MuJoCo model (its joints: {known})')
    jtype = int(model.jnt_type[joint_id])  # MuJoCo enums: compare as int
    if jtype not in (mujoco.mjtJoint.mjJNT_HINGE, mujoco.mjtJoint.mjJNT_SLIDE):
        kind = mujoco.mjtJoint(jtype).name.removeprefix('mjJNT_').lower()
        raise MujocoModelError(
            f'{where} is a {kind} joint in the MuJoCo model; only hinge and slide joints '
            'can be ros2_control joints'
        )
    actuators = _joint_actuators(model, joint_id, joint.name)
    if len(actuators) > 1:
        names = ', '.join(_name(model, mujoco.mjtObj.mjOBJ_ACTUATOR, i) for i in actuators)
        raise MujocoModelError(
            f'{where} has {len(actuators)} actuators in the MuJoCo model ({names}); '
            'MujocoSystem drives a joint through one'
        )
    actuator = actuators[0] if actuators else QFRC_APPLIED
    act_kind = actuator_kind(model, actuator) if actuators else None
    gear = float(model.actuator_gear[actuator][0]) if actuators else 1.0
    if actuators and gear == 0.0:
        raise MujocoModelError(f'{where}: its actuator has gear 0')
    if params is None:
        params = getattr(joint, 'parameters', None) or {}
    drives = {}
    for itf in joint.command_interfaces:
        if itf.name not in COMMAND_NAMES:
            raise MujocoModelError(
                f"{where}: command interface '{itf.name}' is not simulated "
                '(use position, velocity or effort; force and torque name an effort)'
            )
        kind = COMMAND_NAMES[itf.name]
        drives[itf.name] = _drive(kind, actuator, act_kind, gear, params, where)
    for itf in joint.state_interfaces:
        if itf.name not in JOINT_STATES:
            raise MujocoModelError(
                f"{where}: state interface '{itf.name}' is not simulated "
                f'(use {", ".join(JOINT_STATES)})'
            )
    hold = next((drives[k] for k in COMMAND_NAMES if k in drives), None)
    if hold is None and act_kind in COMMAND_KINDS:
        hold = Drive(act_kind, actuator, act_kind, gear)
    qpos_adr, dof_adr = int(model.jnt_qposadr[joint_id]), int(model.jnt_dofadr[joint_id])
    return JointBinding(joint.name, qpos_adr, dof_adr, act_kind, drives, hold)


# --- sensors -----------------------------------------------------------------------------
@dataclass(frozen=True)
class SensorPart:
    """One MJCF sensor behind an interface group (`force`, `orientation`, ...)."""

    suffix_param: str  # upstream's `<group>_mjcf_suffix`
    default_suffix: str
    mj_type: Any  # mujoco.mjtSensor
    fields: dict[str, int]  # interface field (x, y, z, w) -> offset in sensordata
    scale: float = 1.0


def _part(group: str, suffix: str, mj_type: Any, scale: float = 1.0) -> SensorPart:
    fields = {'x': 0, 'y': 1, 'z': 2}
    if mj_type == mujoco.mjtSensor.mjSENS_FRAMEQUAT:  # MuJoCo quaternions are w, x, y, z
        fields = {'w': 0, 'x': 1, 'y': 2, 'z': 3}
    return SensorPart(f'{group}_mjcf_suffix', suffix, mj_type, fields, scale)


_S = mujoco.mjtSensor
# mujoco_type -> interface group -> the MJCF sensor that gives it
SENSOR_LAYOUTS: dict[str, dict[str, SensorPart]] = {
    'fts': {
        'force': _part('force', '_force', _S.mjSENS_FORCE, -1.0),
        'torque': _part('torque', '_torque', _S.mjSENS_TORQUE, -1.0),
    },
    'imu': {
        'orientation': _part('orientation', '_quat', _S.mjSENS_FRAMEQUAT),
        'angular_velocity': _part('angular_velocity', '_gyro', _S.mjSENS_GYRO),
        'linear_acceleration': _part('linear_acceleration', '_accel', _S.mjSENS_ACCELEROMETER),
    },
    'pose': {
        'position': _part('position', '_pos', _S.mjSENS_FRAMEPOS),
        'orientation': _part('orientation', '_quat', _S.mjSENS_FRAMEQUAT),
    },
    'magnetometer': {'magnetic_field': _part('magnetic_field', '', _S.mjSENS_MAGNETOMETER)},
}


def _sensor_type(sensor: Any, declared: str) -> str:
    groups = {itf.name.partition('.')[0] for itf in sensor.state_interfaces}
    if declared:
        if declared not in SENSOR_LAYOUTS:
            raise MujocoModelError(
                f"sensor '{sensor.name}': mujoco_type '{declared}' is not simulated "
                f'(use {", ".join(SENSOR_LAYOUTS)})'
            )
        return declared
    for mujoco_type, layout in SENSOR_LAYOUTS.items():
        if groups and groups <= set(layout):
            return mujoco_type
    raise MujocoModelError(
        f"sensor '{sensor.name}': cannot tell its kind from its interfaces; give "
        f"<param name='mujoco_type'> ({', '.join(SENSOR_LAYOUTS)}); cameras and lidars are "
        'not simulated'
    )


def bind_sensor(
    model: Any,
    sensor: Any,
    hardware_params: Mapping[str, str],
    named: tuple[str, str] | None = None,
) -> list[SensorReading]:
    """Resolve a `<sensor>`; MujocoModelError naming the sensor and the missing MJCF sensor.
    `named`: (mujoco_type, base name) from the sensor's name (moveit's `_fts`/`_imu`)."""
    where = f"sensor '{sensor.name}'"
    params = getattr(sensor, 'parameters', None) or {}
    declared = params.get('mujoco_type', '').strip().lower()
    base = params.get('mujoco_sensor_name') or sensor.name
    if named is not None and not declared and 'mujoco_sensor_name' not in params:
        declared, base = named
    layout = SENSOR_LAYOUTS[_sensor_type(sensor, declared)]
    readings = []
    for itf in sensor.state_interfaces:
        group, _, field = itf.name.partition('.')
        part = layout.get(group)
        if part is None or field not in part.fields:
            fields = ', '.join(f'{g}.{f}' for g, p in layout.items() for f in p.fields)
            raise MujocoModelError(
                f"{where}: state interface '{itf.name}' is not simulated (use {fields})"
            )
        suffix = params.get(part.suffix_param, hardware_params.get(part.suffix_param))
        mj_name = base + (part.default_suffix if suffix is None else suffix)
        sensor_id = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_SENSOR, mj_name)
        if sensor_id < 0:
            known = _names(model, mujoco.mjtObj.mjOBJ_SENSOR, model.nsensor)
            raise MujocoModelError(
                f"{where}: the MuJoCo model has no sensor '{mj_name}' for '{itf.name}' "
                f'(its sensors: {known})'
            )
        if int(model.sensor_type[sensor_id]) != part.mj_type:
            found = mujoco.mjtSensor(model.sensor_type[sensor_id]).name
            raise MujocoModelError(
                f"{where}: MuJoCo sensor '{mj_name}' is a {found}, expected {part.mj_type.name}"
            )
        address = int(model.sensor_adr[sensor_id]) + part.fields[field]
        readings.append(SensorReading(f'{sensor.name}/{itf.name}', address, part.scale))
    return readings


# --- the model file ----------------------------------------------------------------------
_FIND = re.compile(r'^\$\(find (?P<package>[\w-]+)\)(?P<rest>.*)$')


def resolve_model_path(text: str, param: str = 'mujoco_model') -> Path:
    """A file path: absolute, `package://<pkg>/...`, `$(find <pkg>)/...`, `file://...` or
    relative to the current directory; MujocoModelError when no such file exists."""
    text = text.strip()
    if text.startswith('file://'):
        path = Path(text.removeprefix('file://'))
    elif text.startswith('package://'):
        package, _, rest = text.removeprefix('package://').partition('/')
        path = _package_share(package, param) / rest
    elif match := _FIND.match(text):  # xacro's $(find pkg), as upstream URDFs write it
        path = _package_share(match['package'], param) / match['rest'].lstrip('/')
    else:
        path = Path(text).expanduser()
    if not path.is_file():
        raise MujocoModelError(f"parameter '{param}': no such file '{text}' ({path})")
    return path.resolve()


def _package_share(package: str, param: str) -> Path:
    # py_controllers run from its source tree (an editable install, PYTHONPATH): that tree,
    # whose config/ is current, not the copy installed into share/ at install time
    root = Path(__file__).resolve().parents[2]
    if package == 'py_controllers' and (root / 'package.xml').is_file():
        return root
    try:
        from ament_index_python.packages import get_package_share_directory

        return Path(get_package_share_directory(package))
    except Exception:
        raise MujocoModelError(f"parameter '{param}': package '{package}' not found") from None


def load_model(path: Path) -> Any:
    """Compile the model at `path`; MujocoModelError with MuJoCo's message if it fails."""
    try:
        return mujoco.MjModel.from_xml_path(str(path))
    except Exception as exc:
        raise MujocoModelError(
            f"parameter 'mujoco_model': MuJoCo cannot load {path}: {exc}"
        ) from None


WRENCH_AXES = ('force.x', 'force.y', 'force.z', 'torque.x', 'torque.y', 'torque.z')


@dataclass
class PushBinding:
    """A `<gpio>` that pushes a MuJoCo body: its command interfaces among `WRENCH_AXES`
    (world frame, at the body's centre of mass) go to `xfrc_applied[body_id]`."""

    name: str
    body_id: int
    axes: list[tuple[str, int]]  # (interface name, column of xfrc_applied)


def bind_push(model: Any, gpio: Any) -> PushBinding:
    """The gpio's `body` parameter and interfaces checked against the model."""
    where = f"gpio '{gpio.name}'"
    body = str(gpio.parameters.get('body', '')).strip()
    if not body:
        raise MujocoModelError(
            f'{where}: MujocoSystem simulates a gpio as an external wrench on a body; '
            "parameter 'body' (the MuJoCo body to push) is required"
        )
    body_id = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, body)
    if body_id < 0:
        bodies = _names(model, mujoco.mjtObj.mjOBJ_BODY, model.nbody)
        raise MujocoModelError(f"{where}: the MuJoCo model has no body '{body}' (it has: {bodies})")
    names = [itf.name for itf in (*gpio.command_interfaces, *gpio.state_interfaces)]
    unknown = sorted({n for n in names if n not in WRENCH_AXES})
    if unknown or not gpio.command_interfaces:
        raise MujocoModelError(
            f'{where}: interfaces {unknown or "(none)"} are not a wrench; '
            f'command interfaces are among {list(WRENCH_AXES)}'
        )
    axes = [(itf.name, WRENCH_AXES.index(itf.name)) for itf in gpio.command_interfaces]
    return PushBinding(gpio.name, body_id, axes)
