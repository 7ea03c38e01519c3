"""`make demo ARGS=--admittance`: the MuJoCo arm made compliant by the admittance controller.

Starts `ros2_control_node` on simulated time with config/mujoco/arm6.urdf (the 6-axis arm of
`--mujoco`, its joints on position commands through MujocoSystem's servo) and
config/mujoco_admittance_controllers.yaml; spawns the broadcasters, the push gpio's
controller and the chain joint_trajectory_controller -> admittance_controller with
`spawner`; sends a FollowJointTrajectory goal through the chain; pushes the gripper with
PUSH_N along the base's x through /push_controller/commands, then lets go. The tool (tool0,
by forward kinematics on /joint_states) yields F/K and springs back; the demo prints the
figures, a summary table, and writes plots.
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

import numpy as np
from control_msgs.action import FollowJointTrajectory
from control_msgs.msg import AdmittanceControllerState, DynamicInterfaceGroupValues, InterfaceValue
from rclpy.action import ActionClient
from sensor_msgs.msg import JointState
from trajectory_msgs.msg import JointTrajectoryPoint

from py_controllers.demo import plots
from py_controllers.demo.mujoco_arm import JOINTS, URDF, MujocoArmDemo, stamp_s
from py_controllers.demo.summary import print_summary
from py_controllers.kinematics import KinematicsParams, load_kinematics
from py_controllers.ros_conversions import set_duration
from py_controllers.testing import CONFIG, GUARD_S, ManagerProcess, RosHarness

PARAMS = CONFIG / 'mujoco_admittance_controllers.yaml'
CONTROLLERS = [  # the admittance controller before the trajectory controller chained to it
    'joint_state_broadcaster',
    'force_torque_sensor_broadcaster',
    'push_controller',
    'admittance_controller',
    'joint_trajectory_controller',
]
CHAIN = ('admittance_controller', 'joint_trajectory_controller')
GOAL = [0.3, -0.1, 1.3, 0.0, 0.5, 0.0]  # rad, in GOAL_S: turned, the tool 0.13 m further out
GOAL_S = 1.5
GOAL_TOLERANCE = 0.01  # rad, constraints.<joint>.goal in the YAML
SETTLE_S = 1.5  # s simulated after the goal's result
PUSH_N = 30.0  # along the base's x, on the gripper's centre of mass
STIFFNESS = 300.0  # N/m, admittance.stiffness (x, y, z) in the YAML
PUSH_S = 2.0  # s of simulated time, pushed and then let go
SETTLED_S = 0.5  # the last 0.5 s of the push: the steady displacement
YIELD_TOLERANCE = 0.15  # relative, of F/K
RETURN_TOLERANCE = 0.003  # m, after release
GRIPPER_WEIGHT_N = 1.0 * 9.81

Sample = tuple[float, np.ndarray]  # (sim time s, a 3-vector)


class AdmittanceDemo(MujocoArmDemo):
    """One run of the admittance demo (MujocoArmDemo's steps and helpers, another chain)."""

    def __init__(self, ros: RosHarness, duration_scale: float) -> None:
        super().__init__(ros, duration_scale)
        self.kinematics = load_kinematics('kinematics_interface_kdl/KinematicsInterfaceKDL')
        self.kinematics.initialize(URDF.read_text(), KinematicsParams('base_link', 'tool0'))
        self.status = ros.subscribe(AdmittanceControllerState, '/admittance_controller/status')
        self.push_states = ros.subscribe(
            DynamicInterfaceGroupValues, '/push_controller/gpio_states'
        )
        self.push_pub = ros.node.create_publisher(
            DynamicInterfaceGroupValues, '/push_controller/commands', 10
        )
        self.push_at: tuple[float, float] = (math.nan, math.nan)  # sim s of push, release

    def tool(self, msg: JointState) -> np.ndarray:
        """The flange's (tool0) position in base_link for the joints of `msg`, m."""
        by_name = dict(zip(msg.name, msg.position))
        return self.transform([by_name[j] for j in JOINTS])[:3, 3]

    def transform(self, q: list[float]) -> np.ndarray:
        """tool0 in base_link (4x4) at joint positions `q` (JOINTS' order)."""
        return self.kinematics.calculate_link_transform(np.array(q), 'tool0')

    def tool_path(self, since_s: float = -math.inf) -> list[Sample]:
        """(stamp, tool0 position) of every /joint_states message from `since_s` on."""
        return [(stamp_s(m), self.tool(m)) for m in self.joint_states if stamp_s(m) >= since_s]

    def forces(self, since_s: float = -math.inf) -> list[Sample]:
        """The wrist wrench's force in base_link minus the gripper's weight: the push, N."""
        rotation = self.transform([self.positions()[j] for j in JOINTS])[:3, :3]
        weight = np.array([0.0, 0.0, -GRIPPER_WEIGHT_N])
        samples = []
        for msg in self.wrenches:
            f = msg.wrench.force
            t = stamp_s(msg)
            if t >= since_s:  # the tool turns by well under a degree: one rotation will do
                samples.append((t, rotation @ np.array([f.x, f.y, f.z]) - weight))
        return samples

    def wait_sim(self, duration_s: float) -> bool:
        """Spin until `duration_s` more of simulated time passed on /joint_states."""
        until_s = stamp_s(self.joint_states[-1]) + duration_s
        return self.ros.spin_until(lambda: stamp_s(self.joint_states[-1]) >= until_s, GUARD_S)

    # --- steps -----------------------------------------------------------------------
    def chain(self, since_s: float) -> bool:
        """The chain takes the joints' position commands and holds the arm at home (the
        servo's integral starts again from 0: the arm sags a little for a moment)."""
        print('\n== the chain takes over')
        cm = self.ros.manager()
        print(f'  {"controller":<34}{"type":<54}state')
        for c in cm.list_controllers():
            print(f'  {c.name:<34}{c.type:<54}{c.state}')
        self.ros.spin_until(lambda: False, 0.2)  # take in what queued up meanwhile
        if not self.joint_states or not self.wait_sim(0.5):
            return self.record('chain', False, 'no /joint_states')
        # Judged 1 s of simulated time after the deepest sag, wherever the hand-over fell
        # in the stream of messages (a loaded machine delivers them late).
        since = [m for m in self.joint_states if stamp_s(m) >= since_s]
        deepest = max(since, key=self.off_home)
        settled_s = stamp_s(deepest) + 1.0
        if not self.ros.spin_until(lambda: stamp_s(self.joint_states[-1]) >= settled_s, GUARD_S):
            return self.record('chain', False, 'no /joint_states')
        later = next(m for m in self.joint_states if stamp_s(m) >= settled_s)
        moved, off = self.off_home(deepest), self.off_home(later)
        return self.record(
            'chain',
            moved < 0.02 and off < 0.001,
            f'{off * 1000:.2f} mrad from home 1 s after the deepest sag ({moved * 1000:.2f} mrad)',
        )

    def trajectory(self) -> bool:
        """A FollowJointTrajectory goal through the chain; success, joints in tolerance."""
        print('\n== FollowJointTrajectory goal to /joint_trajectory_controller (chained)')
        name = '/joint_trajectory_controller/follow_joint_trajectory'
        client = ActionClient(self.ros.node, FollowJointTrajectory, name)
        if not self.ros.spin_until(client.server_is_ready, GUARD_S):
            return self.record('trajectory', False, 'action server not available')
        goal = FollowJointTrajectory.Goal()
        goal.trajectory.joint_names = JOINTS
        point = JointTrajectoryPoint(positions=GOAL, velocities=[0.0] * len(JOINTS))
        set_duration(point.time_from_start, GOAL_S * self.scale)
        goal.trajectory.points.append(point)
        run = self.run_goal(client, goal, GOAL_S * self.scale)
        if isinstance(run, str):
            return self.record('trajectory', False, run)
        settled = self.state_at(run.end_s + SETTLE_S)  # the admittance rings on a little
        if settled is None:
            return self.record('trajectory', False, 'no /joint_states after the goal')
        at = dict(zip(settled.name, settled.position))
        worst = max(abs(at[j] - GOAL[i]) for i, j in enumerate(JOINTS))
        gap = np.linalg.norm(self.tool(settled) - self.transform(GOAL)[:3, 3])
        ok = run.result.error_code == FollowJointTrajectory.Result.SUCCESSFUL
        return self.record(
            'trajectory',
            ok and worst <= GOAL_TOLERANCE,
            f'error_code {run.result.error_code} after {run.end_s - run.start_s:.2f} s '
            f'simulated; {SETTLE_S} s later max joint error {worst * 1000:.2f} mrad, tool '
            f'{gap * 1000:.2f} mm off the goal',
        )

    def set_push(self, force_x: float) -> bool:
        """Command the push through /push_controller/commands until gpio_states shows it."""
        msg = DynamicInterfaceGroupValues(interface_groups=['tool_push'])
        names = ['force.x', 'force.y', 'force.z']
        msg.interface_values = [InterfaceValue(interface_names=names, values=[force_x, 0.0, 0.0])]

        def applied() -> bool:
            self.push_pub.publish(msg)
            group = self.push_states[-1].interface_values[0] if self.push_states else None
            return group is not None and dict(zip(group.interface_names, group.values)).get(
                'force.x'
            ) == float(force_x)

        return self.ros.spin_until(applied, GUARD_S)

    def push(self) -> bool:
        """PUSH_N along x for PUSH_S: the tool settles at F/K along the push."""
        print(f'\n== {PUSH_N:.0f} N on the gripper along x through /push_controller/commands')
        before = self.tool_path(stamp_s(self.joint_states[-1]) - 0.2)
        self.origin = np.mean([p for _, p in before], axis=0)
        if not self.set_push(PUSH_N):
            return self.record('push', False, 'the push never showed on gpio_states')
        # gpio_states' stamp, and the joint states up to PUSH_S after it: the deep queue of
        # /joint_states can run seconds behind the others on a loaded host
        start_s = stamp_s(self.push_states[-1])
        end_s = start_s + PUSH_S
        if self.state_at(end_s) is None:
            return self.record('push', False, 'no /joint_states while pushed')
        self.push_at = (start_s, end_s)
        path = [(t, p - self.origin) for t, p in self.tool_path(start_s) if t <= end_s]
        steady = np.mean([d for t, d in path if t >= end_s - SETTLED_S], axis=0)
        peak = max(d[0] for _, d in path)
        expected = PUSH_N / STIFFNESS
        error = steady[0] / expected - 1.0
        off_axis = math.hypot(steady[1], steady[2])
        force = np.mean([f for t, f in self.forces(end_s - SETTLED_S)], axis=0)
        print(
            f'   tool displaced [{steady[0] * 1000:+.2f}, {steady[1] * 1000:+.2f}, '
            f'{steady[2] * 1000:+.2f}] mm (mean of the last {SETTLED_S} s), F/K = '
            f'{expected * 1000:.1f} mm; peak {peak * 1000:.2f} mm'
        )
        print(
            f'   wrist force in base_link, weight removed: [{force[0]:+.2f}, {force[1]:+.2f}, '
            f'{force[2]:+.2f}] N'
        )
        ok = abs(error) <= YIELD_TOLERANCE and off_axis < 0.1 * abs(steady[0])
        return self.record(
            'push',
            ok,
            f'{steady[0] * 1000:.1f} mm along x for F/K {expected * 1000:.1f} mm '
            f'({error * 100:+.1f} %), {off_axis * 1000:.2f} mm off the axis',
        )

    def release(self) -> bool:
        """Let go: the tool springs back to where it was."""
        print('\n== let go')
        if not self.set_push(0.0):
            return self.record('release', False, 'the push never went off on gpio_states')
        start_s = stamp_s(self.push_states[-1])
        if self.state_at(start_s + PUSH_S) is None:
            return self.record('release', False, 'no /joint_states after release')
        self.push_at = (self.push_at[0], start_s)
        path = [
            (t, np.linalg.norm(p - self.origin))
            for t, p in self.tool_path(start_s)
            if t <= start_s + PUSH_S
        ]
        back = path[-1][1]
        out = [t for t, d in path if d >= 0.001]  # the last time it was 1 mm away or more
        within_s = (out[-1] if out else start_s) - start_s
        return self.record(
            'release',
            back < RETURN_TOLERANCE,
            f'{back * 1000:.2f} mm from where it was {PUSH_S:.1f} s after release (within 1 mm '
            f'after {within_s:.2f} s)',
        )

    def running(self) -> bool:
        """The chain is still active and the admittance controller still publishes."""
        states = {c.name: c.state for c in self.ros.manager().list_controllers()}
        count = len(self.status)
        publishing = self.ros.spin_until(lambda: len(self.status) > count + 5, GUARD_S)
        ok = all(states.get(c) == 'active' for c in CHAIN) and publishing
        chain = ', '.join(f'{c} {states.get(c)}' for c in CHAIN)
        return self.record('running', ok, f'{chain}; ~/status publishing: {publishing}')


def run(args: argparse.Namespace) -> int:
    """Run the demo with the options of `python -m py_controllers.demo`; 0 if all went well."""
    print(__doc__.splitlines()[0])
    wall0 = time.monotonic()
    with (
        ManagerProcess([PARAMS], URDF, params={'use_sim_time': 'true'}) as proc,
        RosHarness('admittance_demo_user') as ros,
    ):
        demo = AdmittanceDemo(ros, args.duration)
        ok = demo.spawner(*CONTROLLERS[:3]) and demo.hold()
        since_s = demo.sim_time_s()
        ok = ok and demo.spawner(*CONTROLLERS[3:]) and demo.chain(since_s)
        ok = ok and demo.trajectory() and demo.push()
        if not math.isnan(demo.push_at[0]):  # let go of whatever was pushed
            ok = demo.release() and ok
        ok = ok and demo.running()
        stats = demo.statistics()
        demo.check_manager(proc)
    print_summary(demo.results, f'summary ({time.monotonic() - wall0:.1f} s wall clock)')
    ok = ok and all(r[1] for r in demo.results)
    if not (args.no_plots or args.quick) and not math.isnan(demo.push_at[0]):
        written = [write_plot(args.output / 'admittance_push.png', demo)]
        if 'period_histogram' in stats:
            written.append(
                plots.plot_periods(
                    args.output / 'admittance_loop_periods.png',
                    stats['period_histogram'],
                    stats['update_rate_hz'],
                )
            )
        print(f'\n  plots written to {args.output.resolve()}: {", ".join(p.name for p in written)}')
    print(f'\n{"demo succeeded" if ok else "demo FAILED"}')
    return 0 if ok else 1


def write_plot(path: Path, demo: AdmittanceDemo) -> Path:
    """The push (wrist force in base_link, weight removed) and the tool's displacement."""
    plt = plots.pyplot()
    path.parent.mkdir(parents=True, exist_ok=True)
    t0 = demo.push_at[0] - 1.0
    fig, (ax_f, ax_x) = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
    for ax, samples, scale in (
        (ax_f, demo.forces(t0), 1.0),
        (ax_x, [(t, p - demo.origin) for t, p in demo.tool_path(t0)], 1000.0),
    ):
        times = [t - t0 for t, _ in samples]
        for i, axis in enumerate('xyz'):
            ax.plot(times, [v[i] * scale for _, v in samples], label=axis)
        for t in demo.push_at:
            ax.axvline(t - t0, color='k', linestyle=':', linewidth=0.8)
        ax.grid(True, alpha=0.3)
        ax.legend(loc='upper right')
    ax_x.axhline(PUSH_N / STIFFNESS * 1000, color='k', linestyle='--', linewidth=0.8)
    ax_f.set_ylabel('wrist force [N]\n(base_link, weight removed)')
    ax_x.set_ylabel('tool0 displacement [mm]')
    ax_x.set_xlabel('simulated time [s]')
    fig.suptitle(f'Admittance: {PUSH_N:.0f} N push, stiffness {STIFFNESS:.0f} N/m (F/K dashed)')
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path
