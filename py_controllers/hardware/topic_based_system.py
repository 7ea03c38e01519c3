"""`topic_based_ros2_control/TopicBasedSystem`: a robot driven over two JointState topics.

How Isaac Sim's ROS 2 bridge and other simulators are driven (upstream:
PickNikRobotics/topic_based_ros2_control): write() publishes the joint commands as a
sensor_msgs/JointState, read() takes the latest JointState the simulator published.

`<hardware>` parameters (upstream's, with upstream's defaults, unless marked ours):

    joint_commands_topic             default /robot_joint_commands (upstream's code; its
                                     user guide says /robot_joint_command)
    joint_states_topic               default /robot_joint_states
    trigger_joint_command_threshold  default 1e-5. Commands are published only when they
                                     differ from the robot by more than this: upstream's sum
                                     over position-commanded joints of |position state -
                                     position command|, plus (ours: upstream never sends a
                                     velocity or effort command from rest) the sum of |command
                                     - last published command| over velocity and effort
                                     commands. A negative value publishes every cycle.
    sum_wrapped_joint_states         default false. true: the simulator's positions wrap
                                     (Isaac Sim: within +-2 pi); each reading moves the
                                     position state by the shortest angle to it, so it
                                     counts whole turns. Prismatic joints are left as read
                                     (ours: upstream unwraps them too).
    state_timeout                    ours, seconds, default 1.0, > 0. Once states have
                                     arrived, an active component whose last state message is
                                     older than this fails read() (ERROR, one log line): the
                                     manager stops the controllers commanding it. Before the
                                     first message the states keep their initial values (the
                                     simulator may start after the manager).

Per joint, as upstream: `<param name="mimic">other_joint</param>` and `multiplier`
(default 1): the joint's states and commands are `multiplier` times the other joint's. URDF
`<mimic>` joints (ros2_control's own) are followed too, with their offset. Interfaces:
position, velocity and effort (JointState has no acceleration: refused). Each joint is
driven in the kind its controller claims (before any claim: the first it has; after a
release: the same kind, with the hold value). Its command goes in that kind's array, the
others get NaN ("no command": our stand-in reads it so; check what your simulator does with
NaN when its joints have several command interfaces); arrays of kinds no joint has stay
empty, so with one command interface per joint the message is upstream's. A change of kind
is sent at once, whatever the threshold, and so are the commands when a subscriber joins the
commands topic (ours: a simulator started or restarted after the manager gets a velocity
or effort command that no longer changes). Anything else upstream does not have (sensors,
gpios, other parameters) is refused at on_init with one line.
"""

from __future__ import annotations

import array
import logging
import math
import time
from typing import Any

from py_controllers.hardware.component_params import bool_param, float_param
from py_controllers.hardware.simulated_component import OneCommandPerJoint
from py_controllers.hardware.topic_bridge import StateSample, TopicBridge
from py_controllers.hardware_interface.hardware_component import SystemInterface, initial_value
from py_controllers.hardware_interface.types import (
    HW_IF_EFFORT,
    HW_IF_POSITION,
    HW_IF_VELOCITY,
    RETURN_OK,
    CallbackReturn,
    LifecycleStateId,
    ReturnType,
)

KINDS = (HW_IF_POSITION, HW_IF_VELOCITY, HW_IF_EFFORT)
HARDWARE_PARAMETERS = {
    'joint_commands_topic': '/robot_joint_commands',
    'joint_states_topic': '/robot_joint_states',
    'trigger_joint_command_threshold': '1e-5',
    'sum_wrapped_joint_states': 'false',
    'state_timeout': '1.0',
}
JOINT_PARAMETERS = ('mimic', 'multiplier')
_TWO_PI = 2.0 * math.pi


def shortest_angle(from_angle: float, to_angle: float) -> float:
    """The angle in [-pi, pi) that turns `from_angle` onto `to_angle` (modulo 2 pi)."""
    return (to_angle - from_angle + math.pi) % _TWO_PI - math.pi


class TopicBasedSystem(OneCommandPerJoint, SystemInterface):
    """Commands out and states in as sensor_msgs/JointState (module docstring: parameters)."""

    def on_init(self, info: Any) -> CallbackReturn:
        """Read the parameters and interfaces; ERROR with one line for anything refused."""
        super().on_init(info)
        try:
            self._parse(info)
        except ValueError as exc:
            self._logger().error(str(exc))
            return CallbackReturn.ERROR
        self._bridge: TopicBridge | None = None
        self._active = False
        return CallbackReturn.SUCCESS

    def _logger(self) -> Any:
        return self.logger if self.logger is not None else logging.getLogger(__name__)

    def _parse(self, info: Any) -> None:
        where = f"hardware '{info.name}' (topic_based_ros2_control/TopicBasedSystem)"
        hw = dict(info.hardware_parameters)
        unknown = sorted(set(hw) - set(HARDWARE_PARAMETERS))
        if unknown:
            raise ValueError(
                f'{where}: unknown parameter(s) {unknown}; accepted: {sorted(HARDWARE_PARAMETERS)}'
            )
        if info.sensors or info.gpios:
            raise ValueError(f'{where}: only <joint>s are supported (no <sensor>, no <gpio>)')
        self.commands_topic = hw.get('joint_commands_topic', '').strip() or '/robot_joint_commands'
        self.states_topic = hw.get('joint_states_topic', '').strip() or '/robot_joint_states'
        self.threshold = float_param(hw, 'trigger_joint_command_threshold', 1e-5, where)
        self.sum_wrapped = bool_param(hw, 'sum_wrapped_joint_states', False, where)
        self.state_timeout = float_param(hw, 'state_timeout', 1.0, where)
        if not (math.isfinite(self.state_timeout) and self.state_timeout > 0.0):
            raise ValueError(f"{where}: parameter 'state_timeout' must be > 0 seconds")
        self.joint_names = [j.name for j in info.joints]
        index = {name: i for i, name in enumerate(self.joint_names)}
        self._commanded: dict[str, list[int]] = {kind: [] for kind in KINDS}
        self._initial: list[float] = []
        self._wraps: list[bool] = []
        self._mimics: list[tuple[int, int, float, float]] = []  # joint, source, factor, offset
        urdf = getattr(info, 'urdf_joints', None) or {}
        for i, joint in enumerate(info.joints):
            at = f"{where} joint '{joint.name}'"
            for itf in (*joint.state_interfaces, *joint.command_interfaces):
                if itf.name not in KINDS:
                    raise ValueError(
                        f"{at}: interface '{itf.name}' is not one of {KINDS} (JointState "
                        'carries only these)'
                    )
            for itf in joint.command_interfaces:
                self._commanded[itf.name].append(i)
            extra = sorted(set(joint.parameters) - set(JOINT_PARAMETERS))
            if extra:
                raise ValueError(f'{at}: unknown parameter(s) {extra}; accepted: mimic, multiplier')
            start = 0.0
            for itf in joint.state_interfaces:
                value = initial_value(itf.initial_value, f'{joint.name}/{itf.name}')
                if itf.name == HW_IF_POSITION and not math.isnan(value):
                    start = value
            self._initial.append(start)
            kind = getattr(urdf.get(joint.name), 'type', '')
            self._wraps.append(self.sum_wrapped and kind != 'prismatic')
            if 'mimic' in joint.parameters:
                source = index.get(joint.parameters['mimic'].strip())
                if source is None:
                    raise ValueError(
                        f"{at}: mimicked joint '{joint.parameters['mimic']}' is not a <joint> here"
                    )
                factor = float_param(joint.parameters, 'multiplier', 1.0, at)
                self._mimics.append((i, source, factor, 0.0))
            elif 'multiplier' in joint.parameters:
                raise ValueError(f"{at}: parameter 'multiplier' without 'mimic'")
        for m in getattr(info, 'mimic_joints', None) or []:
            self._mimics.append((m.joint_index, m.mimicked_joint_index, m.multiplier, m.offset))
        self._mimicked = {m[0] for m in self._mimics}

    # --- lifecycle (off the loop thread) ----------------------------------------------
    def on_configure(self, previous_state: LifecycleStateId) -> CallbackReturn:
        """Open the node (publisher, subscription, executor thread); states from initial values."""
        self._close()
        try:
            node_name = 'topic_based_ros2_control_' + _node_safe(self.info.name)
            self._bridge = TopicBridge(
                node_name, self.joint_names, self.commands_topic, self.states_topic
            )
        except Exception as exc:  # rclpy not initialized, a bad topic name, ...
            self._logger().error(f"hardware '{self.info.name}': cannot open its topics: {exc}")
            return CallbackReturn.ERROR
        self._resolve_handles()
        n = len(self.joint_names)
        self._position = list(self._initial)
        self._have_position = [False] * n
        self._last_sample: StateSample | None = None
        self._index = {name: i for i, name in enumerate(self.joint_names)}
        self._claimed: list[str | None] = [None] * n
        self._drive = [self._first_kind(i) for i in range(n)]
        self._last_sent = [math.nan] * n
        self._mode_changed = True  # the first write tells the simulator where to hold
        self._joins_seen = 0  # a subscriber that joins later gets the commands at once
        for kind in KINDS:  # as upstream: commands start at the state's initial value
            for i, handle in enumerate(self._command[kind]):
                if handle is not None:
                    handle.value = self._initial[i] if kind == HW_IF_POSITION else 0.0
        for i, handle in enumerate(self._state[HW_IF_POSITION]):
            if handle is not None:
                handle.value = self._initial[i]
        for kind in (HW_IF_VELOCITY, HW_IF_EFFORT):
            for handle in self._state[kind]:
                if handle is not None and math.isnan(handle.value):
                    handle.value = 0.0
        self._prepare_message()
        return CallbackReturn.SUCCESS

    def on_activate(self, previous_state: LifecycleStateId) -> CallbackReturn:
        """Watch for stale states from now on."""
        self._stale_reported = False
        self._active = True
        return CallbackReturn.SUCCESS

    def on_deactivate(self, previous_state: LifecycleStateId) -> CallbackReturn:
        self._active = False
        return CallbackReturn.SUCCESS

    def on_cleanup(self, previous_state: LifecycleStateId) -> CallbackReturn:
        self._close()
        return CallbackReturn.SUCCESS

    def on_shutdown(self, previous_state: LifecycleStateId) -> CallbackReturn:
        self._close()
        return CallbackReturn.SUCCESS

    def on_error(self, previous_state: LifecycleStateId) -> CallbackReturn:
        """Close the topics: configuring again opens them anew."""
        self._close()
        return CallbackReturn.SUCCESS

    def _close(self) -> None:
        bridge, self._bridge = getattr(self, '_bridge', None), None
        if bridge is not None:
            bridge.close()

    def _resolve_handles(self) -> None:
        self._state = {
            kind: [self.state_interfaces.get(f'{name}/{kind}') for name in self.joint_names]
            for kind in KINDS
        }
        self._command = {
            kind: [self.command_interfaces.get(f'{name}/{kind}') for name in self.joint_names]
            for kind in KINDS
        }

    def _first_kind(self, i: int) -> str:
        """How joint `i` is driven before any claim: the first of its command kinds."""
        for kind in KINDS:
            if self._command[kind][i] is not None:
                return kind
        return HW_IF_POSITION  # no command interface: a mimic joint, or states only

    def _prepare_message(self) -> None:
        """The JointState filled in place by write(): arrays for the kinds some joint commands."""
        msg = self._bridge.commands.msg
        n = len(self.joint_names)
        msg.name = list(self.joint_names)
        self._sent_kinds = [kind for kind in KINDS if self._commanded[kind]]
        for kind in KINDS:
            size = n if kind in self._sent_kinds else 0
            setattr(msg, kind, array.array('d', [math.nan] * size))

    # --- the loop -----------------------------------------------------------------------
    def read(self, time: Any, period: Any) -> ReturnType:
        """Copy the latest state message into the state interfaces; ERROR when it is stale."""
        bridge = self._bridge
        if bridge is None:
            return RETURN_OK
        sample = bridge.states.get()
        if sample is None:
            return RETURN_OK  # nothing heard yet: initial values stand
        if self._is_stale(sample):
            return ReturnType.ERROR
        if sample is self._last_sample:
            return RETURN_OK
        self._last_sample = sample
        self._take(sample)
        return RETURN_OK

    def _is_stale(self, sample: StateSample) -> bool:
        age_s = (time.monotonic_ns() - sample.received_ns) * 1e-9
        if age_s <= self.state_timeout or not self._active:
            return False
        if not self._stale_reported:
            self._stale_reported = True
            self.log_rt(
                'error',
                f"hardware '{self.info.name}': no state on '{self.states_topic}' for "
                f'{age_s:.2f} s (state_timeout {self.state_timeout:g} s): read() fails',
            )
        return True

    def _take(self, sample: StateSample) -> None:
        position = self._position
        for i, value in enumerate(sample.position):
            if value != value:  # NaN: joint not in this message
                continue
            if self._wraps[i] and self._have_position[i]:
                position[i] += shortest_angle(position[i], value)
            else:
                position[i] = value
            self._have_position[i] = True
        values = {HW_IF_POSITION: position, HW_IF_VELOCITY: sample.velocity}
        values[HW_IF_EFFORT] = sample.effort
        for kind in KINDS:
            src = values[kind]
            for i, handle in enumerate(self._state[kind]):
                if handle is not None and src[i] == src[i]:
                    handle.value = src[i]
        for joint, source, factor, offset in self._mimics:
            for kind in KINDS:
                handle, from_handle = self._state[kind][joint], self._state[kind][source]
                if handle is not None and from_handle is not None:
                    handle.value = factor * from_handle.value + (
                        offset if kind == HW_IF_POSITION else 0.0
                    )

    def write(self, time: Any, period: Any) -> ReturnType:
        """Publish the commands when they differ from the robot by more than the threshold, a
        joint changed its command mode, or a subscriber joined the commands topic."""
        bridge = self._bridge
        if bridge is None:
            return RETURN_OK
        joins = bridge.joins
        if (
            not self._mode_changed
            and joins == self._joins_seen
            and self._difference() <= self.threshold
        ):
            return RETURN_OK
        publisher = bridge.commands
        if not publisher.trylock():
            return RETURN_OK  # the previous one is still on its way: next cycle
        self._joins_seen = joins
        msg = publisher.msg
        ns = int(getattr(time, 'nanoseconds', 0))
        msg.header.stamp.sec, msg.header.stamp.nanosec = divmod(ns, 1_000_000_000)
        arrays = {kind: getattr(msg, kind) for kind in self._sent_kinds}
        for i, kind in enumerate(self._drive):
            handle = self._command[kind][i]
            for other, out in arrays.items():
                out[i] = handle.value if other == kind and handle is not None else math.nan
        for joint, source, factor, offset in self._mimics:
            for kind, out in arrays.items():
                out[joint] = factor * out[source] + (offset if kind == HW_IF_POSITION else 0.0)
        for i, kind in enumerate(self._drive):
            if kind in arrays:
                self._last_sent[i] = arrays[kind][i]
        self._mode_changed = False
        publisher.unlock_and_publish()
        return RETURN_OK

    def _difference(self) -> float:
        """Upstream's sum of |position state - position command|, plus |command - last sent|
        of the joints driven in velocity or effort."""
        total = 0.0
        states = self._state[HW_IF_POSITION]
        for i, kind in enumerate(self._drive):
            handle = self._command[kind][i]
            if handle is None or i in self._mimicked:
                continue
            command = handle.value
            if kind == HW_IF_POSITION:
                measured = states[i].value if states[i] is not None else self._position[i]
                total += abs(measured - command)
            else:
                delta = abs(command - self._last_sent[i])
                total += delta if delta == delta else math.inf  # never sent: send
        return total

    # --- command modes (the loop's side) --------------------------------------------------
    def _commandable(self, i: int, kind: str) -> bool:
        return self._command[kind][i] is not None

    def perform_command_mode_switch(
        self, start_interfaces: list[str], stop_interfaces: list[str]
    ) -> ReturnType:
        """A joint is driven by the kind claimed on it; released, it keeps that kind (its hold
        value goes out: measured position, or 0 velocity/effort). A change is sent at once."""
        try:
            claimed = self._claims_after(start_interfaces, stop_interfaces)
        except ValueError as exc:
            self.log_rt('error', str(exc))
            return ReturnType.ERROR
        self._claimed = claimed
        for i, kind in enumerate(claimed):
            if kind is not None and kind != self._drive[i]:
                self._drive[i] = kind
                self._mode_changed = True
        return ReturnType.OK


def _node_safe(name: str) -> str:
    """`name` as a ROS node name: letters, digits and underscores."""
    return ''.join(c if c.isalnum() or c == '_' else '_' for c in name)
