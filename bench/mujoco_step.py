"""What a simulated arm costs the loop: read() + write() of one hardware component per cycle.

MujocoSystem with the 6-axis arm of config/mujoco/arm6.urdf (MuJoCo, 1 ms timestep) against
SimulatedSystem with the demo's arm (config/demo_robot.urdf, ArmSystem: per-joint dynamics
with sim_dt 1 ms), both effort commanded, driven directly as the resource manager drives
them (no manager, no ROS traffic), back to back in this process. A PD computed between the
cycles (not timed) holds each arm near its start so that the physics do the same work all
along; the bare `mujoco.mj_step` of the arm6 model is the floor, back to back and paced as
the control loop paces its cycles.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import mujoco
import numpy as np
from rclpy.duration import Duration
from rclpy.time import Time

from py_controllers import plugins
from py_controllers.controller_manager.wake_up import WINDOW, sleep_until, wake_up_policy
from py_controllers.hardware_interface.component_parser import parse_control_resources_from_urdf
from py_controllers.hardware_interface.hardware_component import SystemInterface
from py_controllers.hardware_interface.types import CallbackReturn, LifecycleStateId, ReturnType
from py_controllers.realtime_tools.scheduling import LOOP_TIMER_SLACK_NS, set_timer_slack
from py_controllers.testing import CONFIG

ARM6_URDF = CONFIG / 'mujoco' / 'arm6.urdf'
ARM6_XML = CONFIG / 'mujoco' / 'arm6.xml'
DEMO_URDF = CONFIG / 'demo_robot.urdf'
JOINTS = [f'joint{i}' for i in range(1, 7)]
S = LifecycleStateId


def started_component(urdf: str, name: str) -> SystemInterface:
    """The `<ros2_control name=name>` component of `urdf`, active, every joint's effort
    claimed, as the resource manager would leave it."""
    (info,) = [i for i in parse_control_resources_from_urdf(urdf) if i.name == name]
    cls = plugins.load(plugins.HARDWARE_GROUP, info.plugin, SystemInterface)
    component = cls()
    if component.on_init(info) != CallbackReturn.SUCCESS:
        raise RuntimeError(f'{info.plugin} {name}: on_init failed')
    component.state_interfaces = {h.name: h for h in component.export_state_interfaces()}
    component.command_interfaces = {h.name: h for h in component.export_command_interfaces()}
    if component.on_configure(S.UNCONFIGURED) != CallbackReturn.SUCCESS:
        raise RuntimeError(f'{info.plugin} {name}: on_configure failed')
    if component.on_activate(S.INACTIVE) != CallbackReturn.SUCCESS:
        raise RuntimeError(f'{info.plugin} {name}: on_activate failed')
    claimed = [f'{j}/effort' for j in JOINTS]
    if component.prepare_command_mode_switch(claimed, []) != ReturnType.OK:
        raise RuntimeError(f'{info.plugin} {name}: effort claim refused')
    component.perform_command_mode_switch(claimed, [])
    return component


def holding_pd(component: SystemInterface, kp: list[float], kd: list[float]) -> Callable:
    """A PD towards the start positions, written into the effort commands (untimed)."""
    states = component.state_interfaces
    positions = [states[f'{j}/position'] for j in JOINTS]
    velocities = [states[f'{j}/velocity'] for j in JOINTS]
    commands = [component.command_interfaces[f'{j}/effort'] for j in JOINTS]
    targets = [h.value for h in positions]

    def update() -> None:
        for k in range(len(JOINTS)):
            error = targets[k] - positions[k].value
            commands[k].value = kp[k] * error - kd[k] * velocities[k].value

    return update


def cycle_costs(component: SystemInterface, update: Callable, period_ns: int, cycles: int) -> dict:
    """read / write / read + write per cycle, us: mean and p99 over `cycles` after a warm-up."""
    now, period = Time(nanoseconds=0), Duration(nanoseconds=period_ns)
    clock = time.perf_counter_ns
    costs = np.empty((cycles, 2), dtype=np.int64)
    warmup = max(cycles // 10, 100)
    for i in range(-warmup, cycles):
        t0 = clock()
        read = component.read(now, period)
        t1 = clock()
        update()
        t2 = clock()
        written = component.write(now, period)
        t3 = clock()
        if read != ReturnType.OK or written != ReturnType.OK:
            raise RuntimeError('read() or write() failed')
        if i >= 0:
            costs[i] = (t1 - t0, t3 - t2)
    total = costs.sum(axis=1)

    def stats(values: np.ndarray) -> tuple[float, float]:
        return float(values.mean()) * 1e-3, float(np.percentile(values, 99)) * 1e-3

    return {'read': stats(costs[:, 0]), 'write': stats(costs[:, 1]), 'total': stats(total)}


def mj_step_floor(cycles: int) -> tuple[float, float, float]:
    """(mean, p99, median) us of one bare `mujoco.mj_step` of the arm6 model, back to back.
    The median is the floor the ratio target takes: this thread runs at normal priority, and
    on a busy host the few steps during which it was preempted move the mean (even above the
    p99), not the median."""
    return _mj_step_costs(cycles)


def mj_step_paced(period_ns: int, cycles: int) -> tuple[float, float, float]:
    """(mean, p99, median) us of one bare `mj_step` of arm6 paced as the control loop paces
    its cycles (in a thread of its own with the loop thread's timer slack, `sleep_until` each
    deadline with the loop's own spin): the floor under the conditions of the loop's cycle,
    which starts on whatever caches the host left it while it slept (on a shared VM, a
    multiple of the back-to-back cost)."""
    with ThreadPoolExecutor(1, thread_name_prefix='paced_mj_step') as thread:
        return thread.submit(_paced_costs, period_ns, cycles).result()


def _paced_costs(period_ns: int, cycles: int) -> tuple[float, float, float]:
    set_timer_slack(LOOP_TIMER_SLACK_NS)
    wake_up = wake_up_policy(period_ns, None)
    deadline = time.monotonic_ns()

    def pace() -> None:
        nonlocal deadline
        deadline += period_ns
        behind = time.monotonic_ns() - deadline
        if behind > 0:  # missed periods are skipped, as the loop skips them
            deadline += (behind // period_ns + 1) * period_ns
        wake_up.record(sleep_until(deadline, wake_up.spin_ns))

    return _mj_step_costs(cycles, pace, warm_up=PACED_WARM_UP)


PACED_WARM_UP = WINDOW
"""Paced steps before the timed ones: the automatic spin learns the host's sleeps first."""


def _mj_step_costs(
    cycles: int, pace: Callable[[], None] | None = None, warm_up: int = 0
) -> tuple[float, float, float]:
    model = mujoco.MjModel.from_xml_path(str(ARM6_XML))
    data = mujoco.MjData(model)
    costs = np.empty(cycles, dtype=np.int64)
    clock = time.perf_counter_ns
    for i in range(-warm_up, cycles):
        if pace is not None:
            pace()
        t0 = clock()
        mujoco.mj_step(model, data)
        if i >= 0:
            costs[i] = clock() - t0
    return (
        float(costs.mean()) * 1e-3,
        float(np.percentile(costs, 99)) * 1e-3,
        float(np.median(costs)) * 1e-3,
    )


def mujoco_step_run(seconds: float) -> list[tuple[str, dict[str, Any]]]:
    """The rows of the table: (what, costs) for each arm, at 1 kHz and the demo's 100 Hz."""
    cycles_1k = max(int(seconds * 1000), 1000)
    rows = []
    arm6 = ARM6_URDF.read_text()
    demo = DEMO_URDF.read_text()
    gains_arm6 = ([3000, 6000, 3000, 300, 300, 300], [200, 400, 150, 10, 10, 10])
    gains_demo = ([60, 150, 100, 30, 30, 15], [6, 15, 10, 3, 3, 1.5])
    for label, urdf, name, gains in (
        ('MujocoSystem, arm6 (MuJoCo)', arm6, 'MujocoArm6', gains_arm6),
        ('SimulatedSystem, demo arm', demo, 'ArmSystem', gains_demo),
    ):
        component = started_component(urdf, name)
        update = holding_pd(component, *gains)
        rows.append((f'{label}, 1 kHz', cycle_costs(component, update, 1_000_000, cycles_1k)))
    component = started_component(arm6, 'MujocoArm6')
    update = holding_pd(component, *gains_arm6)
    cycles = max(cycles_1k // 10, 200)
    costs = cycle_costs(component, update, 10_000_000, cycles)
    rows.append(('MujocoSystem, arm6, 100 Hz (10 steps per read)', costs))
    for label, (mean, p99, median) in (
        (PACED, mj_step_paced(1_000_000, cycles_1k)),
        (BARE, mj_step_floor(cycles_1k)),
    ):
        floor = {'read': (mean, p99), 'write': ('-', '-'), 'total': (mean, p99), 'median': median}
        rows.append((label, floor))
    return rows


BARE = 'bare mujoco.mj_step, arm6'
PACED = 'bare mujoco.mj_step, arm6, paced at 1 kHz as the loop paces its cycles'
