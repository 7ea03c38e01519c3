"""What the dashboard shows and decides, without rclpy or NiceGUI: plain values and rules.

The ROS layer turns messages into these values (`ros_bridge`, `manager_watch`); the pages
render them. Everything here is deterministic and tested with worked numbers.
"""

from __future__ import annotations

import hashlib
import hmac
import math
import secrets
import threading
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from py_controllers.hardware_interface.errors import UrdfError
from py_controllers.hardware_interface.urdf import CONTINUOUS, parse_urdf

JTC_TYPE = 'joint_trajectory_controller/JointTrajectoryController'
DIFF_DRIVE_TYPE = 'diff_drive_controller/DiffDriveController'
GPIO_TYPE = 'gpio_controllers/GpioCommandController'
IMU_TYPE = 'imu_sensor_broadcaster/IMUSensorBroadcaster'
WRENCH_TYPE = 'force_torque_sensor_broadcaster/ForceTorqueSensorBroadcaster'
GRIPPER_TYPES = {  # type -> its ~/gripper_cmd action: 'GripperCommand' or 'ParallelGripperCommand'
    'position_controllers/GripperActionController': 'GripperCommand',
    'effort_controllers/GripperActionController': 'GripperCommand',
    'parallel_gripper_action_controller/GripperActionController': 'ParallelGripperCommand',
}

LOOPBACK_HOSTS = ('127.0.0.1', 'localhost', '::1')


# --- the manager's answers as plain values -------------------------------------------
@dataclass(frozen=True)
class ControllerInfo:
    """One entry of `list_controllers`."""

    name: str
    type: str
    state: str
    update_rate_hz: int = 0
    claimed_interfaces: tuple[str, ...] = ()
    required_command_interfaces: tuple[str, ...] = ()
    required_state_interfaces: tuple[str, ...] = ()
    chain_connections: tuple[tuple[str, tuple[str, ...]], ...] = ()
    is_chainable: bool = False
    is_chained: bool = False


@dataclass(frozen=True)
class InterfaceInfo:
    """A hardware interface with its availability and claim."""

    name: str
    is_available: bool
    is_claimed: bool = False


@dataclass(frozen=True)
class HardwareInfo:
    """One entry of `list_hardware_components`."""

    name: str
    type: str
    plugin: str
    state: str
    command_interfaces: tuple[InterfaceInfo, ...] = ()
    state_interfaces: tuple[InterfaceInfo, ...] = ()


# Which lifecycle requests make sense in which controller state (upstream's rules).
CONTROLLER_ACTIONS: dict[str, tuple[str, ...]] = {
    'unconfigured': ('configure', 'unload'),
    'inactive': ('activate', 'cleanup', 'unload'),
    'active': ('deactivate',),
    'finalized': ('unload',),
}
HARDWARE_TARGETS: dict[str, tuple[str, ...]] = {
    'unconfigured': ('inactive', 'active', 'finalized'),
    'inactive': ('active', 'unconfigured', 'finalized'),
    'active': ('inactive', 'finalized'),
    'finalized': (),
}


def controller_actions(state: str) -> tuple[str, ...]:
    """The buttons offered for a controller in `state` (none for an unknown state)."""
    return CONTROLLER_ACTIONS.get(state, ())


def hardware_targets(state: str) -> tuple[str, ...]:
    """The lifecycle states a component in `state` can be asked to go to."""
    return HARDWARE_TARGETS.get(state, ())


def joints_of(controller: ControllerInfo) -> list[str]:
    """Joint names of a controller from its command interfaces (`joint1/position`), in
    order, each once; empty before it is configured."""
    names = controller.required_command_interfaces or controller.claimed_interfaces
    out: list[str] = []
    for itf in names:
        joint = itf.rsplit('/', 1)[0]
        if joint not in out:
            out.append(joint)
    return out


def loadable(declared: Iterable[str], loaded: Iterable[str]) -> list[str]:
    """Controller names declared on the manager (`<name>.type` parameters) not yet loaded."""
    have = set(loaded)
    names = {p[: -len('.type')] for p in declared if p.endswith('.type') and '.' not in p[:-5]}
    return sorted(n for n in names if n and n not in have)


# --- joint limits for sliders --------------------------------------------------------
@dataclass(frozen=True)
class JointRange:
    """Slider range of one joint; `max_velocity_rad_s` is None when the URDF has none."""

    lower: float
    upper: float
    max_velocity: float | None = None


DEFAULT_RANGE = JointRange(-math.pi, math.pi, None)


def joint_ranges(urdf_xml: str) -> dict[str, JointRange]:
    """Slider ranges of the movable joints of a URDF; raises UrdfError.

    Position limits where the URDF has them; continuous and unlimited joints get +-pi,
    as rqt_joint_trajectory_controller does.
    """
    out: dict[str, JointRange] = {}
    for name, joint in parse_urdf(urdf_xml).joints.items():
        if not joint.is_movable:
            continue
        lim = joint.limits
        limited = lim.has_position_limits and joint.type != CONTINUOUS
        lower, upper = (lim.lower, lim.upper) if limited else (-math.pi, math.pi)
        if not (math.isfinite(lower) and math.isfinite(upper) and lower < upper):
            lower, upper = -math.pi, math.pi
        velocity = lim.velocity if lim.has_velocity_limits and lim.velocity > 0 else None
        out[name] = JointRange(lower, upper, velocity)
    return out


def try_joint_ranges(urdf_xml: str | None) -> tuple[dict[str, JointRange], str]:
    """(ranges, problem): an empty dict and a sentence when there is no usable URDF."""
    if not urdf_xml:
        return {}, 'no robot description found: sliders span +-pi'
    try:
        return joint_ranges(urdf_xml), ''
    except UrdfError as exc:
        return {}, f'robot description not usable ({exc}): sliders span +-pi'


def clamp(value: float, lower: float, upper: float) -> float:
    """`value` limited to [lower, upper]."""
    return min(max(value, lower), upper)


def clamp_positions(positions: Sequence[float], ranges: Sequence[JointRange]) -> list[float]:
    """Each position limited to its joint's range; raises ValueError for a non-finite one
    (nothing is sent rather than a guess)."""
    out = []
    for value, rng in zip(positions, ranges, strict=True):
        value = float(value)
        if not math.isfinite(value):
            raise ValueError(f'target {value} is not a number')
        out.append(clamp(value, rng.lower, rng.upper))
    return out


def slider_step(rng: JointRange) -> float:
    """A slider step for `rng`: 0.01 (rad or m), finer for a short range so that it has
    at least about 200 steps (a gripper's 29 mm: 0.0001)."""
    span = rng.upper - rng.lower
    if not (math.isfinite(span) and span > 0.0):
        return 0.01
    return min(0.01, 10.0 ** math.floor(math.log10(span / 200.0)))


def step_digits(step: float) -> int:
    """Decimals that show a value on a slider of `step` (0.01: 2, 0.0001: 4)."""
    return max(0, -math.floor(math.log10(step) + 1e-9))


DEFAULT_VELOCITY = 1.0
"""rad/s (or m/s) assumed for a joint whose URDF gives no velocity limit."""


def trajectory_duration_s(
    current: Sequence[float],
    target: Sequence[float],
    max_velocities: Sequence[float | None],
    speed_scale: float,
    *,
    minimum_s: float = 0.2,
) -> float:
    """Time for a straight move from `current` to `target` with each joint at most at its
    velocity limit times `speed_scale` (0 < scale <= 1); at least `minimum_s`."""
    scale = clamp(speed_scale, 0.01, 1.0)
    longest = minimum_s
    for q0, q1, vmax in zip(current, target, max_velocities):
        if not (math.isfinite(q0) and math.isfinite(q1)):
            continue
        v = (vmax or DEFAULT_VELOCITY) * scale
        longest = max(longest, abs(q1 - q0) / v)
    return longest


TRAJECTORY_ERRORS = {
    0: 'SUCCESSFUL',
    -1: 'INVALID_GOAL',
    -2: 'INVALID_JOINTS',
    -3: 'OLD_HEADER_TIMESTAMP',
    -4: 'PATH_TOLERANCE_VIOLATED',
    -5: 'GOAL_TOLERANCE_VIOLATED',
}
GOAL_STATUS = {0: 'unknown', 1: 'accepted', 2: 'executing', 3: 'canceling', 4: 'succeeded'}
GOAL_STATUS.update({5: 'canceled', 6: 'aborted'})


def trajectory_result_text(status: int, error_code: int, error_string: str) -> str:
    """One line for a FollowJointTrajectory result: `succeeded (SUCCESSFUL)` or
    `aborted (GOAL_TOLERANCE_VIOLATED: joint2 ...)`."""
    code = TRAJECTORY_ERRORS.get(error_code, f'error {error_code}')
    detail = f'{code}: {error_string}' if error_string else code
    return f'{GOAL_STATUS.get(status, f"status {status}")} ({detail})'


def gripper_result_text(status: int, reached_goal: bool, stalled: bool, position: float) -> str:
    """One line for a gripper action's result: `succeeded (reached the goal at 0.012)`,
    `aborted (stalled at 0.004)`."""
    how = 'reached the goal' if reached_goal else 'stalled' if stalled else 'stopped'
    where = f'{position:.4g}' if math.isfinite(position) else 'an unknown position'
    return f'{GOAL_STATUS.get(status, f"status {status}")} ({how} at {where})'


# --- steering -----------------------------------------------------------------------
def twist_from_pad(
    x: float, y: float, max_linear: float, max_angular: float
) -> tuple[float, float]:
    """(linear m/s, angular rad/s) for a pad position: y up is forward, x right turns
    right (negative yaw rate); the position is limited to the unit circle."""
    if not (math.isfinite(x) and math.isfinite(y)):
        return 0.0, 0.0
    norm = math.hypot(x, y)
    if norm > 1.0:
        x, y = x / norm, y / norm
    return y * max_linear + 0.0, -x * max_angular + 0.0  # + 0.0: no -0.0


class Velocity(NamedTuple):
    """A base's velocity as a pad sends it (or the largest one it may send): linear x and
    y (m/s), angular z (rad/s)."""

    linear: float
    lateral: float
    angular: float


def limit_twist(twist: Velocity, maxima: Velocity) -> Velocity:
    """`twist` with each axis within +-its maximum; all zero when one is not finite."""
    if not all(math.isfinite(v) for v in twist):
        return Velocity(0.0, 0.0, 0.0)
    return Velocity(*(clamp(v, -top, top) for v, top in zip(twist, maxima, strict=True)))


def speed_limit(pad_max: float, controller_max: object) -> float:
    """The steering limit: the pad's `pad_max`, narrowed to the controller's
    `max_velocity` when it has a finite, positive one (NaN means unlimited upstream)."""
    limited = isinstance(controller_max, (int, float)) and math.isfinite(controller_max)
    if limited and controller_max > 0.0:
        return min(pad_max, float(controller_max))
    return pad_max


class SteeringLease:
    """Dead-man logic of one steering pad; thread-safe.

    `command()` renews a lease of `lease_s`; `tick(now)` says what to publish: the command
    while the lease holds, one zero when it is released or runs out, then nothing.
    """

    ZERO = Velocity(0.0, 0.0, 0.0)

    def __init__(self, lease_s: float = 0.3) -> None:
        self.lease_s = lease_s
        self._lock = threading.Lock()
        self._command: Velocity | None = None
        self._owner: str | None = None
        self._expires = 0.0
        self._stop_pending = False

    @property
    def current(self) -> Velocity | None:
        """The command being sent, None when stopped."""
        with self._lock:
            return self._command

    @property
    def owner(self) -> str | None:
        """The page that steers now, if any."""
        with self._lock:
            return self._owner

    def command(self, owner: str, twist: Velocity, now: float) -> None:
        """Steer with `twist` until `now + lease_s` unless renewed."""
        with self._lock:
            self._command = Velocity(*(float(v) for v in twist))
            self._owner = owner
            self._expires = now + self.lease_s
            self._stop_pending = False

    def release(self, owner: str | None = None) -> bool:
        """Stop (a zero goes out at the next tick); with `owner`, only if it steers.
        True when something was stopped."""
        with self._lock:
            if self._command is None or (owner is not None and owner != self._owner):
                return False
            self._command, self._owner = None, None
            self._stop_pending = True
            return True

    def tick(self, now: float) -> Velocity | None:
        """What to publish now: the command, ZERO once after a stop, else None."""
        with self._lock:
            if self._command is not None and now > self._expires:
                self._command, self._owner = None, None
                self._stop_pending = True
            if self._command is not None:
                return self._command
            if self._stop_pending:
                self._stop_pending = False
                return self.ZERO
            return None


# --- access -------------------------------------------------------------------------
def resolve_token(token: str | None, *, no_token: bool = False) -> tuple[str | None, bool]:
    """(token to require, generated?): a given token is required; without one a random
    token is made (the caller prints it), on loopback too, as Jupyter does: another user
    of the machine reaches loopback as well. `no_token` turns the check off."""
    if token:
        return token, False
    if no_token:
        return None, False
    return secrets.token_urlsafe(16), True


def token_digest(token: str) -> str:
    """What a session remembers of the token it was opened with."""
    return hashlib.sha256(token.encode()).hexdigest()


def session_allowed(current_token: str | None, remembered_digest: str | None) -> bool:
    """May a session act? Yes without a token; else only when the digest it remembers is
    that of the dashboard's token now (a session opened before a change is refused)."""
    if current_token is None:
        return True
    return remembered_digest is not None and token_ok(
        token_digest(current_token), remembered_digest
    )


def token_ok(expected: str | None, given: str | None) -> bool:
    """True when no token is required or `given` matches it (constant-time compare)."""
    if expected is None:
        return True
    return given is not None and hmac.compare_digest(expected.encode(), given.encode())


# --- time series for live charts -----------------------------------------------------
@dataclass
class Series:
    """(t, value) samples of one quantity over the last `window_s` seconds."""

    window_s: float = 10.0
    points: deque[tuple[float, float]] = field(default_factory=deque)

    def add(self, t: float, value: float) -> None:
        """Append a sample and forget the ones older than the window (non-finite skipped)."""
        if math.isfinite(value):
            self.points.append((t, value))
        while self.points and self.points[0][0] < t - self.window_s:
            self.points.popleft()

    def relative_to(self, t_now: float) -> list[list[float]]:
        """[[seconds before now (negative), value], ...] for a chart."""
        return [[round(t - t_now, 3), v] for t, v in self.points]


def loop_rows(stats: dict) -> list[dict[str, object]]:
    """Table rows (quantity, mean, p99, max in us) of a `~/get_statistics` answer."""
    rows: list[dict[str, object]] = []

    def row(label: str, d: dict) -> None:
        rows.append(
            {
                'what': label,
                'mean_us': round(float(d.get('mean_us', 0.0)), 1),
                'p99_us': round(float(d.get('p99_us', 0.0)), 1),
                'max_us': round(float(d.get('max_us', 0.0)), 1),
            }
        )

    for key in ('period', 'lateness', 'execution', 'read', 'write'):
        if isinstance(stats.get(key), dict):
            row(key, stats[key])
    for name, d in sorted((stats.get('controllers') or {}).items()):
        if isinstance(d, dict):
            row(f'update {name}', d)
    return rows


def quaternion_to_rpy(x: float, y: float, z: float, w: float) -> tuple[float, float, float]:
    """Roll, pitch, yaw (rad) of a unit quaternion."""
    roll = math.atan2(2 * (w * x + y * z), 1 - 2 * (x * x + y * y))
    pitch = math.asin(clamp(2 * (w * y - z * x), -1.0, 1.0))
    yaw = math.atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z))
    return roll, pitch, yaw
