"""The demo's figures (matplotlib, PNG): joints, efforts, base path, loop periods."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path
from typing import Any


def pyplot() -> Any:
    import matplotlib

    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    return plt


def plot_joints(
    path: Path, samples: list[tuple[float, list[str], list[float], list[float]]]
) -> Path:
    """Desired vs actual position of every joint over time (from controller_state)."""
    plt = pyplot()
    names = samples[0][1]
    fig, axes = plt.subplots(len(names), 1, figsize=(8, 1.6 * len(names)), sharex=True)
    t0 = samples[0][0]
    times = [s[0] - t0 for s in samples]
    for i, (ax, name) in enumerate(zip(axes, names)):
        ax.plot(times, [s[2][i] for s in samples], '--', label='desired')
        ax.plot(times, [s[3][i] for s in samples], label='actual')
        ax.set_ylabel(f'{name}\n[rad]')
        ax.grid(True, alpha=0.3)
    axes[0].legend(loc='upper right')
    axes[-1].set_xlabel('time [s]')
    fig.suptitle('Joint trajectory controller: desired vs actual')
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def plot_path(
    path: Path,
    odom: list[tuple[float, float]],
    commanded: list[tuple[float, float]],
    *,
    title: str = 'Diff drive: odometry path',
    commanded_label: str = 'commanded square',
) -> Path:
    """The base's odometry path against the commanded one."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 6))
    ax.plot([p[0] for p in commanded], [p[1] for p in commanded], '--', label=commanded_label)
    ax.plot([p[0] for p in odom], [p[1] for p in odom], label='odometry')
    ax.set_aspect('equal')
    ax.set_xlabel('x [m]')
    ax.set_ylabel('y [m]')
    ax.grid(True, alpha=0.3)
    ax.legend(loc='best', fontsize='small')
    ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def plot_periods(path: Path, histogram: dict[str, list[float]], rate_hz: float) -> Path:
    """Histogram of the measured loop periods."""
    plt = pyplot()
    edges, counts = histogram['edges_us'], histogram['counts']
    fig, ax = plt.subplots(figsize=(8, 4))
    widths = [b - a for a, b in pairwise(edges)]
    ax.bar(edges[:-1], counts, width=widths, align='edge')
    ax.axvline(1e6 / rate_hz, color='k', linestyle='--', label=f'{1e6 / rate_hz:.0f} us target')
    ax.set_yscale('log')
    ax.set_xlabel('loop period [us]')
    ax.set_ylabel('cycles')
    ax.legend()
    ax.set_title('Control loop periods')
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def plot_efforts(path: Path, samples: list[tuple[float, list[str], list[float]]]) -> Path:
    """Every joint's effort over time (from /joint_states): the torque its motor delivers."""
    plt = pyplot()
    names = samples[0][1]
    fig, ax = plt.subplots(figsize=(8, 4))
    t0 = samples[0][0]
    times = [s[0] - t0 for s in samples]
    for i, name in enumerate(names):
        ax.plot(times, [s[2][i] for s in samples], label=name)
    ax.set_xlabel('time [s]')
    ax.set_ylabel('effort [Nm]')
    ax.grid(True, alpha=0.3)
    ax.legend(loc='upper right', ncol=3)
    ax.set_title('Joint efforts')
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path
