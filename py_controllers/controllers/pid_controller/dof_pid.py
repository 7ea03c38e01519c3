"""One degree of freedom of ``pid_controller/PidController``, without ROS.

Per update, as ros2_controllers' pid_controller (rolling/kilted) does, when the reference
and the measurement are both finite:

* feed-forward ``ff = feedforward_gain * reference_dot`` with two interfaces (0 if the
  reference derivative is not finite), ``feedforward_gain * reference`` with one;
* ``error = reference - measured`` (the shortest rotation with ``angle_wraparound``);
* with two interfaces and finite ``reference_dot`` and ``measured_dot`` the PID gets
  ``error_dot = reference_dot - measured_dot``, otherwise it differentiates the error;
* output ``ff + pid``.

Otherwise nothing is computed and the caller writes nothing (the last command stays).

Overflow: finite inputs give a finite output. The error, its derivative and the output
saturate at ``+-sys.float_info.max`` where they would overflow (the PID does the same inside,
see :mod:`~py_controllers.control_toolbox.pid`); :meth:`DofPid.overflow_problem` tells the
input callbacks which values to refuse before they reach the loop.
"""

from __future__ import annotations

import math
import sys

from py_controllers.control_toolbox.angles import shortest_angular_distance
from py_controllers.control_toolbox.pid import Gains, Pid, saturate

__all__ = ['DofPid']

_INF = math.inf
_NAN = math.nan
_MAX = sys.float_info.max


def _finite(value: float) -> bool:
    return -_INF < value < _INF


class DofPid:
    """PID with feed-forward and optional angle wrap-around for one dof."""

    __slots__ = ('angle_wraparound', 'feedforward_gain', 'pid', 'two_interfaces')

    def __init__(
        self,
        gains: Gains,
        *,
        feedforward_gain: float = 0.0,
        angle_wraparound: bool = False,
        two_interfaces: bool = False,
    ) -> None:
        self.pid = Pid.from_gains(gains)
        self.feedforward_gain = feedforward_gain
        self.angle_wraparound = angle_wraparound
        self.two_interfaces = two_interfaces

    def error(self, reference: float, measured: float) -> float:
        """reference - measured, or the shortest rotation with angle wrap-around."""
        if self.angle_wraparound:
            return shortest_angular_distance(measured, reference)
        return reference - measured

    def step(
        self,
        reference: float,
        reference_dot: float,
        measured: float,
        measured_dot: float,
        dt_s: float,
        *,
        feedforward: bool = True,
    ) -> float:
        """One update; NaN (PID untouched) unless reference and measured are finite.

        ``reference_dot``/``measured_dot`` are ignored with one interface (pass NaN).
        ``feedforward=False`` drops the feed-forward term (jazzy's switch).
        """
        if not (_finite(reference) and _finite(measured)):
            return _NAN
        ff = 0.0
        if feedforward:
            if not self.two_interfaces:
                ff = self.feedforward_gain * reference
            elif _finite(reference_dot):
                ff = self.feedforward_gain * reference_dot
        error = self.error(reference, measured)
        if not -_MAX <= error <= _MAX:
            error = saturate(error)
        if self.two_interfaces and _finite(reference_dot) and _finite(measured_dot):
            error_dot = saturate(reference_dot - measured_dot)
            output = ff + self.pid.compute_command(error, dt_s, error_dot=error_dot)
        else:
            output = ff + self.pid.compute_command(error, dt_s)
        return output if -_MAX <= output <= _MAX else saturate(output)

    def overflow_problem(self, value: float, value_dot: float) -> str:
        """Why a reference (or measured state) would overflow this dof's terms, or ''.

        A finite ``value`` is refused when a gain it is multiplied by overflows: p (through
        the error) and, with one interface, feedforward_gain; ``value_dot`` likewise with d
        and feedforward_gain (two interfaces). NaN ("leave as is") is never a problem.
        """
        gains = self.pid.get_gains()
        products = [('p', gains.p, value)]
        if self.two_interfaces:
            products += [
                ('d', gains.d, value_dot),
                ('feedforward_gain', self.feedforward_gain, value_dot),
            ]
        else:
            products.append(('feedforward_gain', self.feedforward_gain, value))
        for name, gain, x in products:
            if _finite(x) and not _finite(gain * x):
                return f'{name} {gain} times {x} overflows'
        return ''
