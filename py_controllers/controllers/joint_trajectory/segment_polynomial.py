"""The polynomial of one trajectory segment: its coefficients (linear, cubic Hermite or
quintic in the positions, linear in effort) and the basis rows that evaluate it and its first
two derivatives at a time into the segment. Pure math (numpy only)."""

from __future__ import annotations

import struct
from typing import Any

import numpy as np

Pair = tuple[np.ndarray, np.ndarray]
"""A field at both ends of a segment."""

_BASIS_ROWS = struct.Struct('=18d')  # 3 x 6 doubles in C order
BASIS_BYTES = _BASIS_ROWS.size


def write_basis(buffer: Any, offset: int, tau: float) -> None:
    """Value, first and second derivative of [1, tau, ..., tau^5], a 3 x 6 basis row-major,
    into `buffer` at byte `offset` (one call: numpy element writes cost ~2.5x as much)."""
    tau2 = tau * tau
    tau3 = tau2 * tau
    _BASIS_ROWS.pack_into(
        buffer, offset,
        1.0, tau, tau2, tau3, tau3 * tau, tau3 * tau2,
        0.0, 1.0, 2.0 * tau, 3.0 * tau2, 4.0 * tau3, 5.0 * tau3 * tau,
        0.0, 0.0, 2.0, 6.0 * tau, 12.0 * tau2, 20.0 * tau3,
    )  # fmt: skip


def segment_coefficients(
    positions: Pair, effort: Pair, duration_s: float, vel: Pair | None, acc: Pair | None
) -> np.ndarray:
    """Polynomial coefficients (rows: powers 0..5) for positions | effort of one segment:
    quintic with `vel` and `acc`, cubic with `vel` only, else linear."""
    pa, pb = positions
    n = pa.shape[0]
    coeffs = np.zeros((6, 2 * n))
    coeffs[0, :n] = pa
    coeffs[0, n:] = effort[0]
    big_t = duration_s
    if big_t != 0.0:
        coeffs[1, n:] = (effort[1] - effort[0]) / big_t
    if vel is not None and acc is not None:
        (va, vb), (aa, ab) = vel, acc
        coeffs[1, :n] = va
        coeffs[2, :n] = 0.5 * aa
        if big_t != 0.0:
            t2 = big_t * big_t
            dp = pb - pa
            coeffs[3, :n] = (20.0 * dp - (12.0 * va + 8.0 * vb) * big_t - (3.0 * aa - ab) * t2) / (
                2.0 * t2 * big_t
            )
            coeffs[4, :n] = (
                -30.0 * dp + (16.0 * va + 14.0 * vb) * big_t + (3.0 * aa - 2.0 * ab) * t2
            ) / (2.0 * t2 * t2)
            coeffs[5, :n] = (12.0 * dp - 6.0 * (va + vb) * big_t - (aa - ab) * t2) / (
                2.0 * t2 * t2 * big_t
            )
    elif vel is not None:
        va, vb = vel
        coeffs[1, :n] = va
        if big_t != 0.0:
            dp = pb - pa
            coeffs[2, :n] = (3.0 * dp - (2.0 * va + vb) * big_t) / (big_t * big_t)
            coeffs[3, :n] = (-2.0 * dp + (va + vb) * big_t) / (big_t * big_t * big_t)
    elif big_t != 0.0:
        coeffs[1, :n] = (pb - pa) / big_t
    return coeffs
