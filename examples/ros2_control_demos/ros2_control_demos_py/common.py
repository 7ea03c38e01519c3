"""What the demo components share: their exemplary start/stop waits, their throttled log
lines, their `<param>` reading and the random numbers upstream draws for fake sensors."""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Mapping
from typing import Any

from py_controllers.hardware_interface.types import CallbackReturn

THROTTLE_MS = 500
"""RCLCPP_INFO_THROTTLE's period in the demos' read() and write()."""


def logger_of(component: Any) -> Any:
    """The component's logger (the manager's child logger named after the component)."""
    return component.logger or logging.getLogger(type(component).__name__)


class ParameterMissingError(ValueError):
    """A `<param>` the demo reads is absent or not a number (upstream: stod throws)."""


def number(params: Mapping[str, str], name: str, where: str) -> float:
    """`<param name=...>` of the `<hardware>` tag as a float; ParameterMissingError saying which
    one and why when it is absent or not a number."""
    text = params.get(name)
    if text is None:
        raise ParameterMissingError(f"{where}: hardware parameter '{name}' is missing")
    try:
        return float(text)
    except ValueError:
        raise ParameterMissingError(
            f"{where}: hardware parameter '{name}' is not a number: '{text}'"
        ) from None


def read_numbers(component: Any, names: list[str]) -> list[float] | None:
    """The `<hardware>` parameters `names` as floats, or None after logging (FATAL) why not."""
    info = component.info
    try:
        return [number(info.hardware_parameters, n, f"hardware '{info.name}'") for n in names]
    except ParameterMissingError as exc:
        logger_of(component).fatal(str(exc))
        return None


def countdown(component: Any, seconds: float) -> None:
    """The demos' 'please wait' loop: one second asleep, then '<left> seconds left...', for
    as long as `i < seconds` (upstream's `for (int i = 0; i < hw_start_sec_; i++)`)."""
    log = logger_of(component)
    i = 0
    while i < seconds:
        time.sleep(1.0)
        log.info(f'{seconds - i:.1f} seconds left...')
        i += 1


def waiting_transition(component: Any, what: str, seconds: float, done: str) -> CallbackReturn:
    """'<what> ...please wait...', the countdown, then `done` (an empty `done` logs nothing)."""
    log = logger_of(component)
    log.info(f'{what} ...please wait...')
    countdown(component, seconds)
    if done:
        log.info(done)
    return CallbackReturn.SUCCESS


class Throttle:
    """At most one `ready()` per `period_ms` of monotonic time: one per call site, as each
    RCLCPP_*_THROTTLE keeps its own last time. The first call is ready."""

    def __init__(self, period_ms: int = THROTTLE_MS, clock: Callable[[], int] = time.monotonic_ns):
        self.period_ns = period_ms * 1_000_000
        self.clock = clock
        self.last_ns: int | None = None

    def ready(self) -> bool:
        now = self.clock()
        if self.last_ns is not None and now - self.last_ns < self.period_ns:
            return False
        self.last_ns = now
        return True


def log_throttled(component: Any, throttle: Throttle, text_of: Callable[[], str]) -> None:
    """Hand `text_of()` to the component's loop-safe log at info level when `throttle` is
    ready (the text is only built then)."""
    if throttle.ready():
        component.log_rt('info', text_of())


def fixed2(value: float) -> str:
    """A value as `std::fixed << std::setprecision(2)` prints it ('nan', 'inf' alike)."""
    return f'{value:.2f}'


# --- std::minstd_rand and std::uniform_real_distribution, as libstdc++ computes them -------
MINSTD_A = 48271
MINSTD_M = 2**31 - 1
MINSTD_MIN = 1
MINSTD_MAX = MINSTD_M - 1


class MinstdRand:
    """std::minstd_rand: x <- 48271 x mod (2^31 - 1), seeded as libstdc++ does."""

    def __init__(self, seed: int) -> None:
        x = seed % MINSTD_M
        self.x = 1 if x == 0 else x

    def __call__(self) -> int:
        self.x = (MINSTD_A * self.x) % MINSTD_M
        return self.x


def generate_canonical(rng: MinstdRand) -> float:
    """std::generate_canonical<double, 53>(rng) of libstdc++: two draws for a 31-bit engine."""
    r = float(MINSTD_MAX - MINSTD_MIN) + 1.0
    log2r = math.log(r) / math.log(2.0)
    k = max(1, int((53 + log2r - 1) / log2r))
    total, factor = 0.0, 1.0
    for _ in range(k):
        total += float(rng() - MINSTD_MIN) * factor
        factor *= r
    result = total / factor
    return math.nextafter(1.0, 0.0) if result >= 1.0 else result


def uniform_from_time(index: int, upper: float, now_s: float | None = None) -> float:
    """What the demos' fake sensors read: `uniform_real_distribution(0, upper)` drawn once
    from a `minstd_rand` seeded with `time(NULL) + index`, so a value changes once a second."""
    seconds = int(time.time() if now_s is None else now_s)
    rng = MinstdRand((seconds + index) % 2**32)
    return generate_canonical(rng) * upper
