"""The bus's own thread: one round per control cycle, never the control loop's time.

A round is: the operating mode changes asked for since the last round (each servo: torque
off, mode, the new mode's hold goal, torque on, as the servos require: a Dynamixel refuses a
mode write while its torque is on), one sync write per goal register of the goals handed
over by write(), and one sync read of every servo's position, velocity and current. The loop
wakes the thread from write(); without writes (component inactive) it still reads at 20 Hz.

Failures: a hardware error bit in a status packet (overload, overheating, input voltage,
encoder...) fails the bus at once, naming the servo, its joint and the bits; a round that
fails otherwise (a servo silent, a garbled reply, the port gone) is retried, and
`max_consecutive_errors` failed rounds in a row fail the bus naming what failed last.
read() then returns ERROR: the manager takes out the controllers of this component only.

Lock-step (`lockstep=True`, a simulated bus on stepped time): a round runs only when read()
asks for one (`step()`), which waits for it at most `LOCKSTEP_WAIT_S`: each control cycle is
one round, one step of the simulated servos, so the controllers' time and the servos' agree
however slowly the bus goes; the wait stays well below the manager's watchdog (250 ms).
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from py_controllers.hardware.servo_bus.models import ServoModel, error_text
from py_controllers.hardware.servo_bus.sdk_bus import BusError, SdkBus
from py_controllers.hardware.servo_bus.units import JointTransform

HOLD = 'hold'  # a mode request: position mode, aimed at where the joint is
LOCKSTEP_WAIT_S = 0.1  # the longest read() waits for its round in lock-step
PLAUSIBLE_TURNS = 256  # a present position beyond this many turns is not a servo's


@dataclass
class Servo:
    """One joint's servo: id, model, how the joint sees it, and its mode on the bus."""

    joint: str
    id: int
    model: ServoModel
    transform: JointTransform
    low_ticks: int = 0
    high_ticks: int = 4095
    mode: str | None = None  # 'position' / 'velocity' / 'effort' as set on the servo
    last_ticks: int | None = None  # the last present position read
    last_goal: int | None = None  # the last position goal sent
    velocity_limit: int = 0  # raw, as the servo's Velocity Limit
    current_limit: int = 0  # raw, as its Current Limit (0: no current mode)


@dataclass(frozen=True)
class Sample:
    """Every joint's (position, velocity, effort) in SI from one sync read, and the time
    the servos were at (a simulated bus on stepped time; None on any other)."""

    joints: tuple[tuple[float, float, float], ...]
    time_ns: int | None = None


@dataclass
class Goals:
    """Raw goals per command kind (servo id -> value), handed over whole by write()."""

    by_kind: dict[str, dict[int, int]] = field(default_factory=dict)


class BusWorker(threading.Thread):
    """Runs the bus rounds (see the module docstring)."""

    def __init__(
        self,
        bus: SdkBus,
        servos: list[Servo],
        *,
        max_consecutive_errors: int,
        hold_tolerance_ticks: int,
        read_only: bool,
        log: Callable[[str, str], None],
        lockstep: bool = False,
    ) -> None:
        super().__init__(name='servo_bus', daemon=True)
        self.bus = bus
        self.servos = servos
        self.by_id = {s.id: s for s in servos}
        self.max_errors = max_consecutive_errors
        self.hold_tolerance = hold_tolerance_ticks
        self.read_only = read_only
        self.log = log
        self.lockstep = lockstep
        self._round_done = threading.Condition()
        self._asked_round = -1  # lock-step: the round count read() waits for
        self.goals: Goals | None = None  # None: send no goals
        self.sample: Sample | None = None  # replaced whole after every read
        self.failed: str | None = None
        self.rounds = 0  # rounds done
        self.failed_rounds = 0  # rounds that failed and were retried, in all
        self.consecutive_errors = 0
        self._requests: list[tuple[int, str]] = []  # (servo id, kind or HOLD)
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._idle = threading.Event()
        self._idle.set()
        self._stop_event = threading.Event()

    # --- what the component hands over -----------------------------------------------
    def request_mode(self, servo_id: int, kind: str) -> None:
        """Put the servo in `kind` mode (or HOLD) at the start of the next round."""
        with self._lock:
            self._requests.append((servo_id, kind))
            self._idle.clear()
        self._wake.set()

    def set_goals(self, goals: Goals | None) -> None:
        """The goals the next round sends (lock-step: the round read() asks for)."""
        self.goals = goals
        if not self.lockstep:
            self._wake.set()

    def step(self, timeout_s: float = LOCKSTEP_WAIT_S) -> bool:
        """Lock-step: one round (the one asked for before, if it has not ended), waited for
        at most `timeout_s`; False when it did not end in time or the bus failed."""
        with self._round_done:
            if self.rounds >= self._asked_round:
                self._asked_round = self.rounds + 1
            target = self._asked_round
            self._wake.set()  # again each time: a round that failed is tried again
            return (
                self._round_done.wait_for(
                    lambda: self.rounds >= target or self.failed is not None or not self.is_alive(),
                    timeout_s,
                )
                and self.rounds >= target
            )

    def flush(self, stall_s: float) -> bool:
        """Wait until the mode requests made so far went out; False when the bus made no
        progress (not one transaction) for `stall_s`: a slow bus is waited for, a hung one
        is not."""
        if not self.is_alive():
            return not self._requests
        self._wake.set()
        seen, since = self.bus.transactions, time.monotonic()
        while not self._idle.wait(0.02):
            self._wake.set()  # lock-step too: a round that failed is tried again
            if self.bus.transactions != seen:
                seen, since = self.bus.transactions, time.monotonic()
            elif time.monotonic() - since > stall_s:
                return False
        return True

    # --- one round ---------------------------------------------------------------------
    def poll_once(self) -> None:
        """Mode changes, goals, then the states; raises BusError on failure."""
        with self._lock:
            requests = list(self._requests)
        goals = self.goals
        for servo_id, kind in requests:
            self._apply_mode(self.by_id[servo_id], kind)
            with self._lock:
                # only now: a request whose round failed half-way (torque off, no mode yet)
                # is sent again whole by the next round, never dropped
                self._requests.pop(0)
        if goals is not None and not self.read_only:
            for kind, values in goals.by_kind.items():
                wanted = {i: v for i, v in values.items() if self.by_id[i].mode == kind}
                if wanted:
                    model = self.by_id[next(iter(wanted))].model
                    self.bus.sync_write(_goal_register(model, kind), wanted)
                    if kind == 'position':
                        for i, v in wanted.items():
                            self.by_id[i].last_goal = v
        self._read_states()
        with self._round_done:
            self.rounds += 1
            self._round_done.notify_all()
        with self._lock:
            if not self._requests:
                self._idle.set()

    def _read_states(self) -> None:
        readings = self.bus.sync_read([(s.id, s.model) for s in self.servos])
        time_ns = self.bus.stepped_time_ns()
        sample = []
        for s in self.servos:
            r = readings[s.id]
            if r.error & (0x80 if s.model.family == 'dynamixel' else 0x7F):
                bits = self.bus.read(s.id, s.model.error_status)
                raise ServoFaultError(
                    f"servo {s.id} (joint '{s.joint}', {s.model.name}) reports a hardware "
                    f'error: {error_text(s.model, bits or r.error)}'
                )
            if abs(r.position) > PLAUSIBLE_TURNS * s.model.ticks_per_rev or (
                s.velocity_limit and abs(r.velocity) > 4 * s.velocity_limit
            ):
                raise BusError(
                    f"servo {s.id} (joint '{s.joint}') reports implausible values: position "
                    f'{r.position} ticks, velocity {r.velocity} units',
                    s.id,
                )
            s.last_ticks = r.position
            t, m = s.transform, s.model
            effort = t.effort(m, r.current) if r.current is not None else math.nan
            sample.append((t.position(m, r.position), t.velocity(m, r.velocity), effort))
        self.sample = Sample(tuple(sample), time_ns)

    def _apply_mode(self, s: Servo, kind: str) -> None:
        """Torque off, mode, the hold goal, torque on; HOLD keeps a position servo's goal
        when it stands within the hold tolerance of it (it is holding its load there)."""
        m, bus = s.model, self.bus
        present = s.last_ticks if s.last_ticks is not None else bus.read(s.id, m.present_position)
        target = 'position' if kind == HOLD else kind
        holding = kind == HOLD and s.mode == 'position' and s.last_goal is not None
        if holding and abs(s.last_goal - present) <= self.hold_tolerance:
            return
        if self.read_only:
            return
        if s.mode != target:
            bus.write(s.id, m.torque_enable, 0)
            bus.write(s.id, m.operating_mode, m.modes[target])
        if target == 'position':
            goal = min(max(present, s.low_ticks), s.high_ticks)
            bus.write(s.id, m.goal_position, goal)
            s.last_goal = goal
        elif target == 'velocity':
            bus.write(s.id, m.goal_velocity, 0)
        elif m.goal_current is not None:
            bus.write(s.id, m.goal_current, 0)
        bus.write(s.id, m.torque_enable, 1)
        s.mode = target

    # --- the thread --------------------------------------------------------------------
    def run(self) -> None:
        while not self._stop_event.is_set():
            woken = self._wake.wait(0.05)
            self._wake.clear()
            if self._stop_event.is_set():
                break
            if self.lockstep and not (
                woken and (self.rounds < self._asked_round or self._requests)
            ):
                continue  # no rounds of its own: the servos move only with the loop's cycles
            try:
                self.poll_once()
                self.consecutive_errors = 0
            except ServoFaultError as exc:
                self._fail(str(exc))
                return
            except (BusError, OSError) as exc:
                self.failed_rounds += 1
                self.consecutive_errors += 1
                if self.consecutive_errors >= self.max_errors:
                    self._fail(f'{self.consecutive_errors} bus rounds failed in a row: {exc}')
                    return
            except Exception as exc:  # the SDK on a vanished port: TypeError, SerialException...
                self.failed_rounds += 1
                self.consecutive_errors += 1
                if self.consecutive_errors >= self.max_errors:
                    self._fail(f'the bus failed: {exc!r}')
                    return
        self._idle.set()

    def _fail(self, text: str) -> None:
        self.failed = text
        self.log('error', text)
        self._idle.set()
        with self._round_done:
            self._round_done.notify_all()

    def stop(self, timeout_s: float = 2.0) -> None:
        self._stop_event.set()
        self._wake.set()
        if self.is_alive() and threading.current_thread() is not self:
            self.join(timeout_s)


class ServoFaultError(BusError):
    """A servo reports a hardware error: no retry."""


def _goal_register(model: ServoModel, kind: str):  # type: ignore[no-untyped-def]
    if kind == 'position':
        return model.goal_position
    if kind == 'velocity':
        return model.goal_velocity
    return model.goal_current


def wait_rounds(worker: BusWorker, count: int, timeout_s: float) -> bool:
    """Wait until `count` more rounds ran (tools and tests)."""
    target = worker.rounds + count
    end = time.monotonic() + timeout_s
    while worker.rounds < target and worker.failed is None and time.monotonic() < end:
        if worker.lockstep:
            worker.step(max(0.0, end - time.monotonic()))
            continue
        worker._wake.set()
        time.sleep(0.005)
    return worker.rounds >= target
