"""The ros2_control system both servo buses share: DynamixelSystem and FeetechSystem.

Lifecycle: configure opens the port, finds each joint's servo (its model from the model
number, checked against the joint's `model` if given), reboots a Dynamixel reporting a
hardware error (still reporting it: configure fails naming the bits), reads the position,
velocity and current limits, refuses a joint whose URDF position limits reach beyond its
servo's range, writes upstream's raw gains, and starts the bus thread (`bus_worker`).
Activate puts every servo in position mode holding where it is, torque on; deactivate holds
the same way and keeps the torque on (an arm must not drop). Shutdown holds too and turns
the torque off only with `torque_off_on_shutdown`. On a simulated bus on stepped time
(`bus_sim`, `step_s`) the component reports its servos' time as its simulation time (a
manager with `use_sim_time` runs on it) and read() runs one bus round, one step of the
servos, per cycle (`BusWorker.step`). An error (the bus lost, a servo faulted)
closes the port; configure and activate again (`set_hardware_component_state active`)
reopen it: reconnecting the cable brings the bus back without restarting the manager.

Command modes: one command interface per joint. A claim puts the servo in that operating
mode (torque off, mode, torque on); a claim that ends puts it back in position mode at the
measured position (a position-commanded servo within `hold_tolerance` of its last goal keeps
that goal: it holds its load there). Commands: NaN sends nothing new; a position beyond the
servo's range is held at the range's end, never wrapped (logged once per joint); velocity
and current are held within the servo's Velocity Limit and Current Limit.
"""

from __future__ import annotations

import logging
import math
from typing import Any

from py_controllers.hardware.component_params import joint_bounds
from py_controllers.hardware.servo_bus.bus_worker import (
    HOLD,
    LOCKSTEP_WAIT_S,
    BusWorker,
    Goals,
    Sample,
    Servo,
)
from py_controllers.hardware.servo_bus.models import (
    DYNAMIXEL,
    MODELS,
    Register,
    by_number,
    error_text,
    fast_sync_read_supported,
)
from py_controllers.hardware.servo_bus.sdk_bus import BusError, SdkBus
from py_controllers.hardware.servo_bus.servo_params import (
    DYNAMIXEL_EXTRAS,
    JointParams,
    parse_bus,
    parse_joint,
)
from py_controllers.hardware.servo_bus.sim_progress import SimProgress
from py_controllers.hardware.simulated_component import OneCommandPerJoint
from py_controllers.hardware_interface.hardware_component import SystemInterface
from py_controllers.hardware_interface.types import (
    RETURN_OK,
    CallbackReturn,
    LifecycleStateId,
    ReturnType,
)

# the hold fails when the bus made no progress for this long: a servo that does not answer
# fails a round within the SDK's own timeouts (about 0.1 s); this only guards against a hung
# bus thread, and lets a host starved of CPU (or a simulator's thread) finish the hold
HOLD_STALL_S = 10.0
_DXL_VELOCITY_LIMIT = Register(44, 4)
_DXL_CURRENT_LIMIT = Register(38, 2)
_KIND_OF_MODE = {
    DYNAMIXEL: {3: 'position', 1: 'velocity', 0: 'effort'},
    'feetech': {0: 'position', 1: 'velocity'},
}


class ServoBusSystem(OneCommandPerJoint, SystemInterface):
    """Joints on serial bus servos of one family (see the module docstring)."""

    family = DYNAMIXEL
    lockstep_wait_s = LOCKSTEP_WAIT_S  # stepped time: the longest read() waits for its round

    def on_init(self, info: Any) -> CallbackReturn:
        super().on_init(info)
        where = f"hardware '{info.name}'"
        try:
            if getattr(info, 'sensors', None) or getattr(info, 'gpios', None):
                raise ValueError(f'{where}: sensors and gpios are not supported on a servo bus')
            self.params = parse_bus(info.hardware_parameters, self.family, where)
            self.joints = [
                parse_joint(j, self.family, self.params.read_only, where) for j in info.joints
            ]
            ids = [j.id for j in self.joints]
            if len(set(ids)) != len(ids):
                raise ValueError(f'{where}: servo ids {ids} are not unique')
            if not self.joints:
                raise ValueError(f'{where}: no joints')
        except ValueError as exc:
            self._log().error(str(exc))
            return CallbackReturn.ERROR
        self._where = where
        self._index = {j.name: i for i, j in enumerate(self.joints)}
        self._claimed: list[str | None] = [None] * len(self.joints)
        self._active = False
        self._bus: SdkBus | None = None
        self._worker: BusWorker | None = None
        self._servos: list[Servo] = []
        self._reported_failure = False
        self._clamped: set[str] = set()
        sim = None if self.params.use_dummy else SimProgress.attach(self.params.usb_port)
        self._stepped = sim is not None and sim.step_ns() > 0
        self._time_ns = sim.time_ns() if self._stepped else 0
        return CallbackReturn.SUCCESS

    def simulation_time_ns(self) -> int | None:
        """The servos' time at the last sync read on a stepped simulated bus, else None."""
        return self._time_ns if getattr(self, '_stepped', False) else None

    def _log(self) -> Any:
        return self.logger if self.logger is not None else logging.getLogger(type(self).__module__)

    def _commandable(self, i: int, kind: str) -> bool:
        return kind in self.joints[i].commands

    # --- lifecycle ------------------------------------------------------------------------
    def on_configure(self, previous_state: LifecycleStateId) -> CallbackReturn:
        self._states = [
            tuple(
                self.state_interfaces.get(f'{j.name}/{k}')
                for k in ('position', 'velocity', 'effort')
            )
            for j in self.joints
        ]
        self._dummy = [[0.0, 0.0, 0.0] for _ in self.joints]
        if self.params.use_dummy:
            for i, handles in enumerate(self._states):
                start = handles[0].value if handles[0] is not None else 0.0
                self._dummy[i][0] = start if math.isfinite(start) else 0.0
            self._publish([tuple(d) for d in self._dummy])
            return CallbackReturn.SUCCESS
        return CallbackReturn.SUCCESS if self._connect() else CallbackReturn.FAILURE

    def on_activate(self, previous_state: LifecycleStateId) -> CallbackReturn:
        if not self.params.use_dummy:
            worker = self._worker
            if worker is None or worker.failed or not worker.is_alive():
                self._close()
                if not self._connect():
                    return CallbackReturn.FAILURE
            if not self._hold_all():
                return CallbackReturn.FAILURE
        self._active = True
        return CallbackReturn.SUCCESS

    def on_deactivate(self, previous_state: LifecycleStateId) -> CallbackReturn:
        """Every servo holds where it is, torque on."""
        self._active = False
        self._hold_all()
        return CallbackReturn.SUCCESS

    def on_cleanup(self, previous_state: LifecycleStateId) -> CallbackReturn:
        self._close()
        return CallbackReturn.SUCCESS

    def on_error(self, previous_state: LifecycleStateId) -> CallbackReturn:
        """Close the port; configuring again reopens it."""
        self._active = False
        self._close()
        return CallbackReturn.SUCCESS

    def on_shutdown(self, previous_state: LifecycleStateId) -> CallbackReturn:
        """Hold; turn the torque off only with torque_off_on_shutdown; close."""
        self._active = False
        if self._worker is not None and self._worker.failed is None:
            self._hold_all()
        bus = self._bus
        self._stop_worker()
        if bus is not None and self.params.torque_off_on_shutdown:
            for s in self._servos:
                try:
                    bus.write(s.id, s.model.torque_enable, 0)
                except BusError as exc:
                    self._log().warning(f'{self._where}: torque off failed: {exc}')
        self._close()
        return CallbackReturn.SUCCESS

    def _hold_all(self) -> bool:
        worker = self._worker
        if worker is None or self.params.read_only:
            return True
        worker.set_goals(None)
        for s in self._servos:
            worker.request_mode(s.id, HOLD)
        if not worker.flush(HOLD_STALL_S) or worker.failed:
            self._log().error(f'{self._where}: the servos did not take the hold: {worker.failed}')
            return False
        return True

    # --- the bus ----------------------------------------------------------------------------
    def _connect(self) -> bool:
        p = self.params
        bus = SdkBus(self.family, p.usb_port, p.baud_rate, fast=False)
        try:
            bus.open()
            servos, firmware = [], []
            for j in self.joints:
                servo, version = self._find_servo(bus, j)
                servos.append(servo)
                firmware.append(version)
        except (BusError, ValueError, OSError) as exc:
            self._log().error(f'{self._where}: {exc}')
            bus.close()
            return False
        bus.fast = (
            self.family == DYNAMIXEL
            and p.fast_sync_read
            and fast_sync_read_supported([(s.model, v) for s, v in zip(servos, firmware)])
        )
        self._bus, self._servos = bus, servos
        self._worker = BusWorker(
            bus,
            servos,
            max_consecutive_errors=p.max_consecutive_errors,
            hold_tolerance_ticks=round(p.hold_tolerance * 4096 / (2 * math.pi)),
            read_only=p.read_only,
            log=self.log_rt,
            lockstep=self._stepped,
        )
        try:
            self._worker.poll_once()
        except (BusError, OSError) as exc:
            self._log().error(f'{self._where}: the first sync read failed: {exc}')
            self._close()
            return False
        self._publish_sample(self._worker.sample)
        self._reported_failure = False
        self._worker.start()
        fast = ' (fast sync read)' if bus.fast else ''
        self._log().info(
            f"{self._where}: {len(servos)} servos on '{p.usb_port}' at {p.baud_rate} baud{fast}"
        )
        return True

    def _find_servo(self, bus: SdkBus, j: JointParams) -> tuple[Servo, int]:
        """Identify, check and prepare one joint's servo; ValueError/BusError naming it."""
        here = f"joint '{j.name}' (servo {j.id})"
        any_model = next(m for m in MODELS.values() if m.family == self.family)
        number = bus.ping(j.id, any_model.model_number_register)
        model = by_number(self.family, number)
        if model is None:
            raise ValueError(
                f'{here}: model number {number} is not a supported {self.family} model'
            )
        if j.model is not None and j.model != model.name:
            raise ValueError(f"{here}: the URDF says '{j.model}', the servo is a {model.name}")
        if 'effort' in (*j.commands, *j.states) and model.present_current is None:
            raise ValueError(f'{here}: a {model.name} has no current sensing: no effort interface')
        firmware = bus.read(j.id, model.firmware)
        bits = bus.read(j.id, model.error_status)
        if bits and self.family == DYNAMIXEL:
            self._log().warning(f'{here}: hardware error {error_text(model, bits)}: rebooting it')
            bus.reboot(j.id)
            bits = bus.read(j.id, model.error_status)
        if bits and self.family == DYNAMIXEL:
            raise ValueError(f'{here}: hardware error {error_text(model, bits)} after a reboot')
        low, high = (
            bus.read(j.id, model.min_position_limit),
            bus.read(j.id, model.max_position_limit),
        )
        if low >= high:  # Feetech's 0/0: multi-turn; one turn is what position mode reaches
            low, high = 0, model.ticks_per_rev - 1
        servo = Servo(j.name, j.id, model, j.transform, low, high)
        self._check_range(servo, here)
        torque = bus.read(j.id, model.torque_enable)
        mode = _KIND_OF_MODE[self.family].get(bus.read(j.id, model.operating_mode))
        servo.mode = mode if torque else None
        if mode == 'position':
            servo.last_goal = bus.read(j.id, model.goal_position)
        if self.family == DYNAMIXEL:
            servo.velocity_limit = bus.read(j.id, _DXL_VELOCITY_LIMIT)
            servo.current_limit = bus.read(j.id, _DXL_CURRENT_LIMIT) if model.goal_current else 0
        else:
            servo.velocity_limit, servo.current_limit = (1 << 15) - 1, 0
        for name, value in j.extras.items():
            bus.write(j.id, DYNAMIXEL_EXTRAS[name], value)
        if self.params.read_only and torque:
            bus.write(j.id, model.torque_enable, 0)
        return servo, firmware

    def _check_range(self, s: Servo, here: str) -> None:
        joint = next(jt for jt in self.info.joints if jt.name == s.joint)
        if 'position' not in self.joints[self._index[s.joint]].commands:
            return
        lo, hi = s.transform.position_range(s.model, s.low_ticks, s.high_ticks)
        bounds = joint_bounds(self.info, joint)
        if bounds.lower < lo - 1e-3 or bounds.upper > hi + 1e-3:
            raise ValueError(
                f'{here}: URDF position limits [{bounds.lower:g}, {bounds.upper:g}] reach '
                f'beyond the servo range [{lo:.4f}, {hi:.4f}] (ticks {s.low_ticks}..{s.high_ticks})'
            )

    def _stop_worker(self) -> None:
        if self._worker is not None:
            self._worker.stop()
            self._worker = None

    def _close(self) -> None:
        self._stop_worker()
        if self._bus is not None:
            self._bus.close()
            self._bus = None

    # --- command modes ----------------------------------------------------------------------
    def perform_command_mode_switch(
        self, start_interfaces: list[str], stop_interfaces: list[str]
    ) -> ReturnType:
        """Each newly claimed joint to its kind's mode, each released one to the hold."""
        try:
            claimed = self._claims_after(start_interfaces, stop_interfaces)
        except ValueError as exc:
            self.log_rt('error', str(exc))
            return ReturnType.ERROR
        worker = self._worker
        for i, (old, new) in enumerate(zip(self._claimed, claimed)):
            if old != new and worker is not None:
                worker.request_mode(self._servos[i].id, new or HOLD)
        self._claimed = claimed
        return ReturnType.OK

    # --- the loop ---------------------------------------------------------------------------
    def read(self, time: Any, period: Any) -> ReturnType:
        if self.params.use_dummy:
            self._dummy_step(period)
            return RETURN_OK
        worker = self._worker
        if worker is None or worker.failed:
            if not self._reported_failure:
                self._reported_failure = True
                why = worker.failed if worker is not None else 'the bus is closed'
                self.log_rt('error', f'{self._where}: {why}')
            return ReturnType.ERROR
        if self._stepped:
            worker.step(self.lockstep_wait_s)  # one round, one step of the servos, per cycle
        self._publish_sample(worker.sample)
        return RETURN_OK

    def _publish_sample(self, sample: Sample | None) -> None:
        if sample is None:
            return
        self._publish(sample.joints)
        if sample.time_ns is not None:  # never backwards, whichever simulator comes next
            self._time_ns = max(self._time_ns, sample.time_ns)

    def _publish(self, sample: Any) -> None:
        if sample is None:
            return
        for handles, values in zip(self._states, sample):
            for handle, value in zip(handles, values):
                if handle is not None:
                    handle.value = value

    def write(self, time: Any, period: Any) -> ReturnType:
        """The claimed commands as raw goals for the bus thread."""
        worker = self._worker
        if not self._active or worker is None:
            return RETURN_OK
        goals = Goals()
        for i, kind in enumerate(self._claimed):
            if kind is None:
                continue
            value = self.command_interfaces[f'{self.joints[i].name}/{kind}'].value
            if not math.isfinite(value):
                continue
            s = self._servos[i]
            goals.by_kind.setdefault(kind, {})[s.id] = self._raw_goal(s, kind, value)
        worker.set_goals(goals)
        return RETURN_OK

    def _raw_goal(self, s: Servo, kind: str, value: float) -> int:
        t, m = s.transform, s.model
        if kind == 'position':
            raw, lo, hi = t.position_ticks(m, value), s.low_ticks, s.high_ticks
        elif kind == 'velocity':
            raw, lo, hi = t.velocity_raw(m, value), -s.velocity_limit, s.velocity_limit
        else:
            raw, lo, hi = t.effort_raw(m, value), -s.current_limit, s.current_limit
        if lo <= raw <= hi:
            return raw
        if s.joint not in self._clamped:
            self._clamped.add(s.joint)
            self.log_rt(
                'warning',
                f"{self._where}: joint '{s.joint}' {kind} command {value:g} is beyond what servo "
                f'{s.id} takes (raw {lo}..{hi}): held at the limit, never wrapped',
            )
        return min(max(raw, lo), hi)

    def _dummy_step(self, period: Any) -> None:
        dt = getattr(period, 'nanoseconds', 0) * 1e-9
        for i, kind in enumerate(self._claimed):
            d = self._dummy[i]
            value = math.nan
            if kind is not None and self._active:
                value = self.command_interfaces[f'{self.joints[i].name}/{kind}'].value
            d[1] = value if kind == 'velocity' and math.isfinite(value) else 0.0
            d[2] = value if kind == 'effort' and math.isfinite(value) else 0.0
            if kind == 'position' and math.isfinite(value):
                d[0] = value
            d[0] += d[1] * dt
        self._publish([tuple(d) for d in self._dummy])
