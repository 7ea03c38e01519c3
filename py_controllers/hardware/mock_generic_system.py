"""`mock_components/GenericSystem`: hardware that mirrors commands to states.

With `calculate_dynamics` the joints integrate instead, in the mode selected by the
command interface the active controller claims: position (velocity and acceleration
are differentiated), velocity (position integrated) or acceleration (both integrated).
Parameters and rules follow ros2_control's mock component.

GPIOs (`<gpio>`), as upstream: each command interface with a state interface of the same
name is looped back to it in read() (NaN: no command yet, the state keeps its value; an
infinite command makes read() return ERROR). A state interface without such a command
(an input) keeps its `initial_value` (NaN without one) unless `mock_gpio_commands` is
true: then every gpio state interface gets a command interface of its name to set it
from a controller. Joint states without an initial_value start at 0; gpio states stay NaN
until commanded, as upstream.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from py_controllers.hardware_interface.handle import CommandInterface, Handle
from py_controllers.hardware_interface.hardware_component import SystemInterface
from py_controllers.hardware_interface.types import (
    HW_IF_ACCELERATION,
    HW_IF_POSITION,
    HW_IF_VELOCITY,
    RETURN_OK,
    STANDARD_JOINT_INTERFACES,
    CallbackReturn,
    LifecycleStateId,
    ReturnType,
)

_MODES = (HW_IF_POSITION, HW_IF_VELOCITY, HW_IF_ACCELERATION)


def _flag(params: dict[str, str], name: str) -> bool:
    return str(params.get(name, 'false')).strip().lower() == 'true'


@dataclass
class _Joint:
    """Handles of one joint, resolved once."""

    name: str
    pos: Handle | None = None
    vel: Handle | None = None
    acc: Handle | None = None
    cmd_pos: Handle | None = None
    cmd_vel: Handle | None = None
    cmd_acc: Handle | None = None
    mode: str = HW_IF_POSITION


class GenericSystem(SystemInterface):
    """Mock system for tests and demos without dynamics (or with simple integration)."""

    def on_init(self, info: Any) -> CallbackReturn:
        super().on_init(info)
        params = info.hardware_parameters
        self.calculate_dynamics = _flag(params, 'calculate_dynamics')
        self.disable_commands = _flag(params, 'disable_commands')
        self.mock_sensor_commands = _flag(params, 'mock_sensor_commands') or _flag(
            params, 'fake_sensor_commands'
        )
        self.mock_gpio_commands = _flag(params, 'mock_gpio_commands') or _flag(
            params, 'fake_gpio_commands'
        )
        self.position_offset = float(params.get('position_state_following_offset', 0.0))
        self.custom_offset_interface = params.get('custom_interface_with_following_offset', '')
        self._warned_disabled = False
        return CallbackReturn.SUCCESS

    def export_command_interfaces(self) -> list[CommandInterface]:
        handles = super().export_command_interfaces()
        names = {h.name for h in handles}
        extra_sources = []
        if self.mock_sensor_commands:
            extra_sources += list(self.info.sensors)
        if self.mock_gpio_commands:
            extra_sources += list(self.info.gpios)
        for comp in extra_sources:
            for itf in comp.state_interfaces:
                if f'{comp.name}/{itf.name}' not in names:
                    handles.append(CommandInterface(comp.name, itf.name, data_type=itf.data_type))
        return handles

    def on_configure(self, previous_state: LifecycleStateId) -> CallbackReturn:
        gpio_states = {f'{g.name}/{i.name}' for g in self.info.gpios for i in g.state_interfaces}
        for handle in self.state_interfaces.values():
            if handle.name in gpio_states:
                continue  # as upstream: a gpio state without initial_value stays NaN
            if handle.data_type == 'double' and math.isnan(handle.value):
                handle.value = 0.0
        self._resolve()
        if not self.custom_offset_interface:
            for joint in self._joints:
                if joint.pos is not None:
                    joint.pos.value += self.position_offset
        return CallbackReturn.SUCCESS

    def _resolve(self) -> None:
        """Build the mirroring tables once; read() only walks them."""
        states, commands = self.state_interfaces, self.command_interfaces
        self._joints: list[_Joint] = []
        self._mirror: list[tuple[Handle, Handle, float]] = []
        custom = self.custom_offset_interface
        for comp in self.info.joints:
            j = _Joint(comp.name)
            j.pos = states.get(f'{comp.name}/{HW_IF_POSITION}')
            j.vel = states.get(f'{comp.name}/{HW_IF_VELOCITY}')
            j.acc = states.get(f'{comp.name}/{HW_IF_ACCELERATION}')
            j.cmd_pos = commands.get(f'{comp.name}/{HW_IF_POSITION}')
            j.cmd_vel = commands.get(f'{comp.name}/{HW_IF_VELOCITY}')
            j.cmd_acc = commands.get(f'{comp.name}/{HW_IF_ACCELERATION}')
            self._joints.append(j)
            for itf in comp.state_interfaces:
                name = f'{comp.name}/{itf.name}'
                if itf.name == custom and j.cmd_pos is not None:
                    self._mirror.append((j.cmd_pos, states[name], self.position_offset))
                    continue
                cmd = commands.get(name)
                if cmd is None or (
                    self.calculate_dynamics and itf.name in STANDARD_JOINT_INTERFACES
                ):
                    continue
                offset = self.position_offset if itf.name == HW_IF_POSITION and not custom else 0.0
                self._mirror.append((cmd, states[name], offset))
        for comp in (*self.info.sensors, *self.info.gpios):
            for itf in comp.state_interfaces:
                name = f'{comp.name}/{itf.name}'
                if name in commands:
                    self._mirror.append((commands[name], states[name], 0.0))
        self._mimics = self._resolve_mimics()

    def _resolve_mimics(self) -> list[tuple[_Joint, _Joint, float, float]]:
        urdf_joints = getattr(self.info, 'urdf_joints', None) or {}
        by_name = {j.name: j for j in self._joints}
        out = []
        for comp in self.info.joints:
            urdf = urdf_joints.get(comp.name)
            mimic = getattr(urdf, 'mimic', None) if urdf is not None else None
            if mimic is None or comp.is_mimic is False:
                continue
            source = by_name.get(mimic.joint)
            if source is not None:
                out.append((by_name[comp.name], source, mimic.multiplier, mimic.offset))
        return out

    def prepare_command_mode_switch(
        self, start_interfaces: list[str], stop_interfaces: list[str]
    ) -> ReturnType:
        if not self.calculate_dynamics:
            return ReturnType.OK
        per_joint: dict[str, list[str]] = {}
        for name in start_interfaces:
            prefix, _, itf = name.rpartition('/')
            if itf in _MODES:
                per_joint.setdefault(prefix, []).append(itf)
        for joint, modes in per_joint.items():
            if len(modes) > 1:
                self.log_rt(
                    'error',
                    f"joint '{joint}': only one of position/velocity/acceleration may be "
                    f'commanded at a time, got {modes}',
                )
                return ReturnType.ERROR
        return ReturnType.OK

    def perform_command_mode_switch(
        self, start_interfaces: list[str], stop_interfaces: list[str]
    ) -> ReturnType:
        by_name = {j.name: j for j in self._joints}
        for name in start_interfaces:
            prefix, _, itf = name.rpartition('/')
            if itf in _MODES and prefix in by_name:
                by_name[prefix].mode = itf
        return ReturnType.OK

    def read(self, time: Any, period: Any) -> ReturnType:
        if self.disable_commands:
            return RETURN_OK
        for cmd, state, offset in self._mirror:
            value = cmd.value
            if value != value:  # NaN: no command yet
                continue
            if math.isinf(value):
                return ReturnType.ERROR
            state.value = value + offset
        if self.calculate_dynamics:
            dt = period.nanoseconds * 1e-9
            if dt > 0.0:
                for joint in self._joints:
                    if not self._integrate(joint, dt):
                        return ReturnType.ERROR
        for joint, source, multiplier, offset in self._mimics:
            for mine, theirs, scale, add in (
                (joint.pos, source.pos, multiplier, offset),
                (joint.vel, source.vel, multiplier, 0.0),
                (joint.acc, source.acc, multiplier, 0.0),
            ):
                if mine is not None and theirs is not None:
                    mine.value = add + scale * theirs.value
        return RETURN_OK

    def _integrate(self, j: _Joint, dt: float) -> bool:
        pos = j.pos.value if j.pos is not None else 0.0
        vel = j.vel.value if j.vel is not None else 0.0
        if j.mode == HW_IF_POSITION and j.cmd_pos is not None:
            target = j.cmd_pos.value
            if target != target:
                return True
            if math.isinf(target):
                return False
            target += self.position_offset
            new_vel = (target - pos) / dt
            if j.acc is not None:
                j.acc.value = (new_vel - vel) / dt
            if j.vel is not None:
                j.vel.value = new_vel
            if j.pos is not None:
                j.pos.value = target
        elif j.mode == HW_IF_VELOCITY and j.cmd_vel is not None:
            target = j.cmd_vel.value
            if target != target:
                return True
            if math.isinf(target):
                return False
            if j.acc is not None:
                j.acc.value = (target - vel) / dt
            if j.vel is not None:
                j.vel.value = target
            if j.pos is not None:
                j.pos.value = pos + target * dt
        elif j.mode == HW_IF_ACCELERATION and j.cmd_acc is not None:
            target = j.cmd_acc.value
            if target != target:
                return True
            if math.isinf(target):
                return False
            if j.acc is not None:
                j.acc.value = target
            new_vel = vel + target * dt
            if j.vel is not None:
                j.vel.value = new_vel
            if j.pos is not None:
                j.pos.value = pos + new_vel * dt
        return True

    def write(self, time: Any, period: Any) -> ReturnType:
        return RETURN_OK
