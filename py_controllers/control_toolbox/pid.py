"""PID controller with output clamping and anti-windup, as ``control_toolbox::Pid``.

Behaviour follows ros-controls/control_toolbox master (rolling) and kilted, which agree:
``control_toolbox/src/pid.cpp`` and ``include/control_toolbox/pid.hpp``. The code is our own.

One call of :meth:`Pid.compute_command` with error ``e``, error derivative ``ed`` and time
step ``dt`` runs, in this order:

1. ``cmd_unsat = p*e + i_term + d*ed``, where ``i_term`` is the integral accumulated by
   *previous* calls (the current error reaches the integral one step later);
2. ``cmd = clamp(cmd_unsat, u_min, u_max)``;
3. unless ``|e| <= error_deadband``, integrate according to the strategy:
   ``'none'``: ``i_term += dt*i*e``;
   ``'back_calculation'`` (only if ``i != 0``): ``i_term += dt*(i*e + (cmd - cmd_unsat)/Tt)``;
   ``'conditional_integration'``: ``i_term += dt*i*e`` unless the output saturated
   (``cmd != cmd_unsat``) and ``e`` has the sign of ``cmd_unsat`` (pushing further out);
4. ``i_term = clamp(i_term, i_min, i_max)``, always.

Note that ``i_term`` is the integral of ``i*e`` (not of ``e``), so changing ``i`` at runtime
does not make the output jump.

Jazzy's ``'legacy'`` strategy (control_toolbox 4.x, the default for jazzy controllers) is
accepted for old configurations. It integrates *before* computing the command, so the
current error already contributes: ``i_term = clamp(i_term + i*dt*e, i_min, i_max)`` if
``legacy_antiwindup`` (the ``antiwindup`` parameter) is true, otherwise ``i_term += i*dt*e``
and the command uses ``clamp(i_term, i_min, i_max)``; step 4 then clamps ``i_term`` in both
cases, so in practice the flag does not change the result. Humble's 3.x PID (integral of the
error, no output clamp, ``dt == 0`` returning 0) is not reproduced.

Derivative: ``compute_command(error, dt_s)`` differentiates by backward difference,
``(error - previous error) / dt_s``; the previous error is 0 after :meth:`Pid.reset`, so the
first call sees a derivative kick. ``compute_command(error, dt_s, error_dot=ed)`` uses the
given derivative instead. ``error_dot`` is keyword-only on purpose: upstream's C++ overload
is ``(error, error_dot, dt)``, and a positional port of such a call fails loudly here
instead of silently swapping ``dt`` and ``error_dot``.

Special inputs, as upstream: ``|dt_s| <= machine epsilon`` returns the previous command and
changes nothing; ``dt_s < 0`` raises ``ValueError``; a non-finite error (or error_dot)
returns NaN, leaves the integral and the previous error untouched and makes NaN the
"previous command".

Overflow (a deviation: upstream returns inf or NaN here): finite inputs always give a finite
command and keep a finite integral. Where a step would overflow, and only there, so every
finite result is the same as upstream's: the backward-difference derivative, the p and d
terms and their sum saturate at ``+-sys.float_info.max`` (:func:`saturate`) before the
``u_min``/``u_max`` clamp; an integration step that overflows saturates the integral at
``+-max`` before the ``i_min``/``i_max`` clamp, and one that gives NaN (``inf - inf`` in
back-calculation) is skipped. Inputs that overflow are best refused where they come in
(the controllers' topic and goal callbacks do); this keeps the loop finite regardless.

Other deliberate deviations, all of them inputs upstream turns into a NaN or
infinite integral: a NaN or infinite ``dt_s`` raises ``ValueError``; ``set_gains`` also
rejects non-finite p/i/d, NaN integral bounds, and a back-calculation tracking time
constant that resolves to zero, a negative or a non-finite value while ``i != 0``; and
the constructor raises ``ValueError`` for every invalid gain set (upstream throws only for
``u_min >= u_max`` and otherwise keeps default gains).

Threads: :meth:`Pid.set_gains` validates, then swaps one reference to an immutable snapshot;
:meth:`Pid.compute_command` reads that reference once per call. Gains can therefore be
replaced from a parameter callback while the control loop runs. Everything else (compute,
reset, set_current_cmd) belongs to the control loop thread.
"""

from __future__ import annotations

import dataclasses
import math
import sys
from dataclasses import dataclass, field
from typing import Final

__all__ = ['ANTIWINDUP_STRATEGY_TYPES', 'AntiWindupStrategy', 'Gains', 'Pid', 'saturate']

_EPS: Final = sys.float_info.epsilon
_MAX: Final = sys.float_info.max
_INF: Final = math.inf
_NAN: Final = math.nan

# Internal strategy codes used on the hot path.
_NO_INTEGRATION: Final = -1  # back_calculation with i == 0: upstream never integrates then
_NONE: Final = 0
_BACK_CALCULATION: Final = 1
_CONDITIONAL_INTEGRATION: Final = 2
_LEGACY: Final = 3

_STRATEGY_CODES = {
    'none': _NONE,
    'back_calculation': _BACK_CALCULATION,
    'conditional_integration': _CONDITIONAL_INTEGRATION,
    'legacy': _LEGACY,
}

#: Accepted values of ``AntiWindupStrategy.type`` (``'legacy'`` only for jazzy configs).
ANTIWINDUP_STRATEGY_TYPES: tuple[str, ...] = tuple(_STRATEGY_CODES)


def _is_zero(value: float) -> bool:
    return abs(value) <= _EPS


def saturate(value: float) -> float:
    """``value`` with an overflow (+-inf) saturated at ``+-sys.float_info.max``; NaN stays."""
    if -_MAX <= value <= _MAX:
        return value
    if value > 0.0:
        return _MAX
    return -_MAX if value < 0.0 else value


def _saturated_sum(p_term: float, i_term: float, d_term: float) -> float:
    """p + i + d with each term and the sum saturated (never NaN for non-NaN terms)."""
    return saturate(saturate(p_term) + i_term + saturate(d_term))


def _integral(new: float, old: float) -> float:
    """The integral after a step: ``new`` saturated, or ``old`` when the step gave NaN."""
    if -_MAX <= new <= _MAX:
        return new
    return old if new != new else saturate(new)


@dataclass(frozen=True)
class AntiWindupStrategy:
    """How the integral is kept from winding up, with the integral bounds and deadband.

    ``tracking_time_constant`` is only used by ``'back_calculation'`` (0 picks a default,
    see :class:`Pid`); ``legacy_antiwindup`` only by jazzy's ``'legacy'``. No integration
    happens while ``|error| <= error_deadband`` (machine epsilon by default, as upstream).
    """

    type: str = 'none'
    i_max: float = _INF
    i_min: float = -_INF
    tracking_time_constant: float = 0.0
    error_deadband: float = _EPS
    legacy_antiwindup: bool = False

    def validate(self) -> None:
        """Raise ``ValueError`` naming the offending field if the strategy is unusable."""
        if self.type not in _STRATEGY_CODES:
            raise ValueError(
                f"unknown antiwindup strategy '{self.type}'; valid strategies are "
                "'back_calculation', 'conditional_integration', 'none' (and 'legacy' for "
                'jazzy configurations)'
            )
        tt = self.tracking_time_constant
        if self.type == 'back_calculation' and not (0.0 <= tt < _INF):
            raise ValueError(
                "antiwindup strategy 'back_calculation' needs a finite tracking_time_constant "
                f'>= 0 (0 picks a default), got {tt}'
            )
        if math.isnan(self.i_min) or math.isnan(self.i_max):
            raise ValueError(f'i_min ({self.i_min}) and i_max ({self.i_max}) must not be NaN')
        if self.i_min > 0.0:
            raise ValueError(f'i_min must be <= 0, got {self.i_min}')
        if self.i_max < 0.0:
            raise ValueError(f'i_max must be >= 0, got {self.i_max}')


@dataclass(frozen=True)
class Gains:
    """PID gains, output bounds and anti-windup strategy; immutable so it can be shared."""

    p: float = 0.0
    i: float = 0.0
    d: float = 0.0
    u_max: float = _INF
    u_min: float = -_INF
    antiwindup_strategy: AntiWindupStrategy = field(default_factory=AntiWindupStrategy)

    @classmethod
    def from_i_clamp(
        cls,
        p: float,
        i: float,
        d: float,
        i_clamp: float,
        *,
        u_max: float = _INF,
        u_min: float = -_INF,
        strategy: str = 'none',
        legacy_antiwindup: bool = False,
    ) -> Gains:
        """Gains from the old symmetric ``i_clamp`` parameter: i_max=|i_clamp|, i_min=-|i_clamp|.

        As with the ROS 1 / humble parameter, ``i_clamp = 0`` keeps the integral at zero.
        """
        bound = abs(i_clamp)
        return cls(
            p=p,
            i=i,
            d=d,
            u_max=u_max,
            u_min=u_min,
            antiwindup_strategy=AntiWindupStrategy(
                type=strategy, i_max=bound, i_min=-bound, legacy_antiwindup=legacy_antiwindup
            ),
        )

    def validate(self) -> None:
        """Raise ``ValueError`` with a message naming the field if these gains are unusable."""
        for name in ('p', 'i', 'd'):
            value = getattr(self, name)
            if not math.isfinite(value):
                raise ValueError(f'gain {name} must be finite, got {value}')
        if math.isnan(self.u_min) or math.isnan(self.u_max):
            raise ValueError(f'u_min ({self.u_min}) and u_max ({self.u_max}) must not be NaN')
        if self.u_min >= self.u_max:
            raise ValueError(f'u_min ({self.u_min}) must be less than u_max ({self.u_max})')
        self.antiwindup_strategy.validate()

    def resolved(self) -> Gains:
        """Validated copy with the back-calculation default Tt filled in (raises ValueError).

        When ``tracking_time_constant`` is 0 and ``i != 0``: ``sqrt(d/i)`` if ``d != 0``,
        else ``p/i`` (upstream's recommended defaults).
        """
        self.validate()
        strategy = self.antiwindup_strategy
        if strategy.type != 'back_calculation' or _is_zero(self.i):
            return self
        tt = strategy.tracking_time_constant
        if _is_zero(tt):
            if _is_zero(self.d):
                tt = self.p / self.i
            else:
                ratio = self.d / self.i
                tt = math.sqrt(ratio) if ratio >= 0.0 else _NAN
        if not _EPS < tt < _INF:
            raise ValueError(
                "antiwindup strategy 'back_calculation' needs a positive tracking_time_constant; "
                f'the default from the gains (sqrt(d/i) or p/i) is {tt}, set it explicitly'
            )
        if tt == strategy.tracking_time_constant:
            return self
        return dataclasses.replace(
            self,
            antiwindup_strategy=dataclasses.replace(strategy, tracking_time_constant=tt),
        )


# What compute_command unpacks per call, typed element by element: compiled, a tuple of
# known types is held unboxed, and its floats are read without converting objects.
_Snapshot = tuple[
    Gains, float, float, float, bool, float, float, int, float, float, float, float, bool
]


def _snapshot(gains: Gains) -> _Snapshot:
    """Validate ``gains`` and flatten them into the tuple compute_command unpacks per call.

    (gains, p, i, d, clamp_output, u_min, u_max, kind, inv_tt, i_min, i_max, deadband,
    legacy_antiwindup)
    """
    resolved = gains.resolved()
    strategy = resolved.antiwindup_strategy
    kind = _STRATEGY_CODES[strategy.type]
    inv_tt = 0.0
    if kind == _BACK_CALCULATION:
        if _is_zero(resolved.i):
            kind = _NO_INTEGRATION
        else:
            inv_tt = 1.0 / strategy.tracking_time_constant
    u_min = float(resolved.u_min)
    u_max = float(resolved.u_max)
    return (
        resolved,
        float(resolved.p),
        float(resolved.i),
        float(resolved.d),
        math.isfinite(u_min) or math.isfinite(u_max),
        u_min,
        u_max,
        kind,
        inv_tt,
        float(strategy.i_min),
        float(strategy.i_max),
        float(strategy.error_deadband),
        bool(strategy.legacy_antiwindup),
    )


class Pid:
    """PID controller; see the module docstring for the exact update order.

    ``Pid(p, i, d, u_max, u_min, antiwindup_strategy)`` mirrors upstream's constructor and
    raises ``ValueError`` for invalid gains; :meth:`from_gains` builds one from a
    :class:`Gains`.
    """

    __slots__ = (
        '_active',
        '_cmd',
        '_cmd_unsat',
        '_d_error',
        '_i_term',
        '_last_gains_error',
        '_p_error',
        '_p_error_last',
    )

    def __init__(
        self,
        p: float = 0.0,
        i: float = 0.0,
        d: float = 0.0,
        u_max: float = _INF,
        u_min: float = -_INF,
        antiwindup_strategy: AntiWindupStrategy | None = None,
    ) -> None:
        strategy = AntiWindupStrategy() if antiwindup_strategy is None else antiwindup_strategy
        self._last_gains_error = ''
        if not self.set_gains(Gains(p, i, d, u_max, u_min, strategy)):
            raise ValueError(f'Pid: invalid gains: {self._last_gains_error}')
        self._i_term = 0.0
        self.reset()

    @classmethod
    def from_gains(cls, gains: Gains) -> Pid:
        """Build a Pid from a :class:`Gains`; raises ``ValueError`` if they are invalid."""
        return cls(gains.p, gains.i, gains.d, gains.u_max, gains.u_min, gains.antiwindup_strategy)

    # -- gains ---------------------------------------------------------------------------

    def set_gains(self, gains: Gains) -> bool:
        """Validate and atomically install new gains; safe from another thread.

        Returns False and keeps the old gains if they are invalid; the reason is then in
        :attr:`last_gains_error`.
        """
        try:
            snapshot = _snapshot(gains)
        except (TypeError, ValueError, AttributeError) as exc:
            self._last_gains_error = str(exc)
            return False
        self._active: _Snapshot = snapshot
        self._last_gains_error = ''
        return True

    def initialize(self, gains: Gains) -> bool:
        """Set gains and, if they were accepted, reset the state (integral included)."""
        if self.set_gains(gains):
            self.reset()
            return True
        return False

    def get_gains(self) -> Gains:
        """The gains in use, with a defaulted back-calculation Tt filled in."""
        return self._active[0]

    @property
    def last_gains_error(self) -> str:
        """Why the last :meth:`set_gains` call was rejected ('' if it was accepted)."""
        return self._last_gains_error

    # -- state ---------------------------------------------------------------------------

    def reset(self, save_i_term: bool = False) -> None:
        """Zero errors and command; keep the integral only if ``save_i_term``."""
        self._p_error_last = 0.0
        self._p_error = 0.0
        self._d_error = 0.0
        self._cmd = 0.0
        self._cmd_unsat = 0.0
        if not save_i_term:
            self._i_term = 0.0

    def clear_saved_iterm(self) -> None:
        """Zero the integral term only."""
        self._i_term = 0.0

    def get_current_cmd(self) -> float:
        """The last command returned (NaN after a non-finite error)."""
        return self._cmd

    def set_current_cmd(self, cmd: float) -> None:
        """Overwrite the remembered command (what a ``dt == 0`` call returns)."""
        self._cmd = cmd

    def get_current_pid_errors(self) -> tuple[float, float, float]:
        """(p_error, i_term, d_error) of the last computation, as upstream's (pe, ie, de)."""
        return self._p_error, self._i_term, self._d_error

    # -- control loop --------------------------------------------------------------------

    def compute_command(
        self, error: float, dt_s: float, *, error_dot: float | None = None
    ) -> float:
        """Advance the controller by ``dt_s`` seconds and return the command.

        ``error`` is setpoint minus measurement. Without ``error_dot`` the derivative is the
        backward difference of the errors. Raises ``ValueError`` if ``dt_s`` is negative,
        NaN or infinite; ``dt_s == 0`` returns the previous command without any update.
        """
        if dt_s <= _EPS:
            if dt_s >= -_EPS:
                return self._cmd
            raise ValueError(f'Pid.compute_command: dt_s must not be negative, got {dt_s}')
        if not dt_s < _INF:
            raise ValueError(f'Pid.compute_command: dt_s must be finite, got {dt_s}')

        if error_dot is None:
            if not -_INF < error < _INF:
                self._cmd = _NAN
                return _NAN
            error_dot = (error - self._p_error_last) / dt_s
            if not -_MAX <= error_dot <= _MAX:  # the difference of two finite errors overflowed
                error_dot = saturate(error_dot)
            self._p_error_last = error

        (
            _,
            p,
            i,
            d,
            clamp_output,
            u_min,
            u_max,
            kind,
            inv_tt,
            i_min,
            i_max,
            deadband,
            legacy_aw,
        ) = self._active

        self._p_error = error
        self._d_error = error_dot
        if not (-_INF < error < _INF and -_INF < error_dot < _INF):
            self._cmd = _NAN
            return _NAN

        integrate = not abs(error) <= deadband
        i_term = self._i_term

        if kind == _LEGACY:
            if integrate:
                i_term = _integral(i_term + i * dt_s * error, i_term)
                if legacy_aw:
                    i_term = i_min if i_term < i_min else (i_max if i_term > i_max else i_term)
            if legacy_aw:
                i_used = i_term
            else:
                i_used = i_min if i_term < i_min else (i_max if i_term > i_max else i_term)
        else:
            i_used = i_term
        cmd_unsat = p * error + i_used + d * error_dot
        if not -_MAX <= cmd_unsat <= _MAX:  # a term or the sum overflowed (inf or inf - inf)
            cmd_unsat = _saturated_sum(p * error, i_used, d * error_dot)

        if clamp_output:
            cmd = u_min if cmd_unsat < u_min else (u_max if cmd_unsat > u_max else cmd_unsat)
        else:
            cmd = cmd_unsat

        if integrate:
            stepped = i_term
            if kind == _NONE:
                stepped = i_term + dt_s * i * error
            elif kind == _BACK_CALCULATION:
                stepped = i_term + dt_s * (i * error + inv_tt * (cmd - cmd_unsat))
            elif kind == _CONDITIONAL_INTEGRATION:
                pushing_out = abs(cmd_unsat - cmd) > _EPS and error * cmd_unsat > 0.0
                if not pushing_out:
                    stepped = i_term + dt_s * i * error
            i_term = stepped if -_MAX <= stepped <= _MAX else _integral(stepped, i_term)

        self._i_term = i_min if i_term < i_min else (i_max if i_term > i_max else i_term)
        self._cmd_unsat = cmd_unsat
        self._cmd = cmd
        return cmd
