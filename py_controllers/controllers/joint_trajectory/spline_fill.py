"""Knot velocities of a cubic spline through positions, for ``positions_upsampling`` (pure)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ['fill_cubic_spline_velocities']


def fill_cubic_spline_velocities(
    times_s: Sequence[float] | np.ndarray, positions: np.ndarray
) -> np.ndarray | None:
    """Knot velocities of the C2 cubic spline through ``positions`` (points x joints).

    Rest boundary conditions (zero velocity at both ends), as upstream ``positions_upsampling``.
    Returns None for fewer than two points or times that do not strictly increase.
    """
    t = np.asarray(times_s, dtype=float)
    p = np.asarray(positions, dtype=float)
    n = t.shape[0]
    if n < 2 or p.ndim != 2 or p.shape[0] != n or p.shape[1] == 0:
        return None
    h = np.diff(t)
    if not np.all(h > 0.0):
        return None
    velocities = np.zeros_like(p)
    if n == 2:
        return velocities
    # Interior rows: v[i-1]/h[i-1] + 2 (1/h[i-1] + 1/h[i]) v[i] + v[i+1]/h[i] = rhs[i];
    # the boundary velocities are zero, so solve for v[1..n-2] (Thomas algorithm, all joints).
    inv_h = 1.0 / h
    slope = np.diff(p, axis=0) * (inv_h * inv_h)[:, None]
    lower = inv_h[:-1]
    diag = 2.0 * (inv_h[:-1] + inv_h[1:])
    upper = inv_h[1:]
    rhs = 3.0 * (slope[1:] + slope[:-1])
    m = n - 2
    c_prime = np.zeros(m)
    d_prime = np.zeros((m, p.shape[1]))
    c_prime[0] = upper[0] / diag[0]
    d_prime[0] = rhs[0] / diag[0]
    for i in range(1, m):
        pivot = diag[i] - lower[i] * c_prime[i - 1]
        c_prime[i] = upper[i] / pivot
        d_prime[i] = (rhs[i] - lower[i] * d_prime[i - 1]) / pivot
    interior = d_prime
    for i in range(m - 2, -1, -1):
        interior[i] -= c_prime[i] * interior[i + 1]
    velocities[1:-1] = interior
    return velocities
