"""`make demo ARGS=--mujoco`: a 6-axis arm simulated by MuJoCo, with gravity, under ros2_control.

Starts `ros2_control_node` on simulated time with config/mujoco/arm6.urdf (hardware
`py_controllers/MujocoSystem`, physics config/mujoco/arm6.xml: a 31 kg arm of the 10 kg
payload class, effort motors, a wrist force-torque sensor) and
config/mujoco_arm_controllers.yaml; spawns the joint state broadcaster, the joint trajectory
controller (effort through its PID) and the force-torque broadcaster with `spawner`; sends a
FollowJointTrajectory goal; reads the wrench the gripper puts on the wrist; prints the result
and final error per joint, the loop statistics, a summary table, and writes plots.
"""

from __future__ import annotations

import argparse
import math
import time
from dataclasses import dataclass
from pathlib import Path

from control_msgs.action import FollowJointTrajectory
from geometry_msgs.msg import WrenchStamped
from rclpy.action import ActionClient
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState
from trajectory_msgs.msg import JointTrajectoryPoint

from py_controllers.demo.arm_state import record_arm_state
from py_controllers.demo.references import stamp_s
from py_controllers.demo.summary import Steps, print_summary
from py_controllers.ros_conversions import duration_to_s, set_duration
from py_controllers.testing import CONFIG, GUARD_S, ManagerProcess, RosHarness, run_tool

JOINTS = [f'joint{i}' for i in range(1, 7)]
CONTROLLERS = ['joint_state_broadcaster', 'arm_controller', 'force_torque_sensor_broadcaster']
URDF = CONFIG / 'mujoco' / 'arm6.urdf'
PARAMS = CONFIG / 'mujoco_arm_controllers.yaml'
HOME = [0.0, -0.3, 1.4, 0.0, 0.5, 0.0]  # the initial_value of each joint in arm6.urdf
# (time from start in s, positions): reach out to the left, swing over to the right with
# the arm stretched further, end out in front, the tool 1.08 m from the base axis (gravity
# loads the shoulder with 75, 98 and 93 Nm at these points, the elbow with about 40 Nm)
WAYPOINTS = [
    (2.0, [0.8, 0.4, 0.9, 0.5, 0.9, -0.8]),
    (4.0, [-0.6, 0.7, 0.6, -0.4, 1.2, 0.6]),
    (6.0, [0.3, 0.6, 0.9, 0.0, 0.6, 0.3]),
]
GOAL_TOLERANCE = 0.01  # rad, constraints.<joint>.goal in mujoco_arm_controllers.yaml
FINAL_AFTER_S = 0.05  # s simulated: the arm's final state is judged this long after the goal
SETTLE_S = 3.0  # simulated s the trajectory controller gets to hold the arm within tolerance
GRIPPER_WEIGHT_N = 1.0 * 9.81  # the 1 kg gripper under the wrist sensor (arm6.xml)


def via_velocities(
    start: list[float], waypoints: list[tuple[float, list[float]]]
) -> list[list[float]]:
    """Velocities at each waypoint: the mean of the slopes on either side where the joint
    keeps its direction, 0 where it turns back and at the end (a smooth cubic path)."""
    times = [0.0] + [t for t, _ in waypoints]
    points = [start] + [p for _, p in waypoints]
    result = []
    for k in range(1, len(points)):
        if k == len(points) - 1:
            result.append([0.0] * len(start))
            continue
        velocities = []
        for j in range(len(start)):
            before = (points[k][j] - points[k - 1][j]) / (times[k] - times[k - 1])
            after = (points[k + 1][j] - points[k][j]) / (times[k + 1] - times[k])
            velocities.append((before + after) / 2.0 if before * after > 0.0 else 0.0)
        result.append(velocities)
    return result


@dataclass
class GoalRun:
    """A FollowJointTrajectory goal that got a result; times in simulated s, from feedback."""

    result: FollowJointTrajectory.Result
    start_s: float  # the first feedback's stamp
    end_s: float  # no earlier than the goal's end on the controller's clock
    feedback: int  # feedback messages received
    wall_s: float  # from acceptance to the result


class MujocoArmDemo(Steps):
    """One run of the MuJoCo arm demo; every step records whether it succeeded."""

    def __init__(self, ros: RosHarness, duration_scale: float) -> None:
        self.ros = ros
        self.scale = duration_scale
        super().__init__()
        # deep queues: nothing is lost while `spawner` runs and nobody spins
        self.joint_states = ros.subscribe(JointState, '/joint_states', 1000)
        self.clock = ros.subscribe(Clock, '/clock', 1000)
        self.wrenches = ros.subscribe(WrenchStamped, '/force_torque_sensor_broadcaster/wrench')
        self.arm_state = record_arm_state(ros, 100)

    def positions(self) -> dict[str, float]:
        """The latest /joint_states positions by joint name."""
        msg = self.joint_states[-1]
        return dict(zip(msg.name, msg.position))

    def state_at(self, since_s: float) -> JointState | None:
        """The first /joint_states message stamped at or after `since_s` (simulated s),
        spun for until it arrives; None if it does not within GUARD_S. A loaded host
        delivers the stream late: the latest message received may be seconds old."""
        if not self.ros.spin_until(
            lambda: bool(self.joint_states) and stamp_s(self.joint_states[-1]) >= since_s,
            GUARD_S,
        ):
            return None
        return next(m for m in self.joint_states if stamp_s(m) >= since_s)

    def run_goal(
        self, client: ActionClient, goal: FollowJointTrajectory.Goal, duration_s: float
    ) -> GoalRun | str:
        """Send `goal` (its last point at `duration_s`) and wait for its result; what went
        wrong if it was rejected or got no result in time."""
        feedback: list[float] = []
        sent = client.send_goal_async(
            goal, feedback_callback=lambda msg: feedback.append(stamp_s(msg.feedback))
        )
        if not self.ros.spin_until(sent.done, GUARD_S) or not sent.result().accepted:
            return 'goal rejected'
        wall0 = time.monotonic()
        result_future = sent.result().get_result_async()
        if not self.ros.spin_until(result_future.done, duration_s * 3.0 + 20.0):
            return 'no result in time'
        if not feedback and not self.ros.spin_until(lambda: bool(feedback), GUARD_S):
            return 'a result but no feedback'
        # the JTC succeeds only past the goal's duration after its first feedback; feedback
        # sent later than the last one received may still be on its way
        end_s = max(feedback[-1], feedback[0] + duration_s)
        return GoalRun(
            result_future.result().result,
            feedback[0],
            end_s,
            len(feedback),
            time.monotonic() - wall0,
        )

    def sim_time_s(self) -> float:
        """The latest /clock, s (0 before one arrived)."""
        c = self.clock[-1].clock if self.clock else None
        return duration_to_s(c) if c is not None else 0.0

    # --- steps -----------------------------------------------------------------------
    def spawner(self, *controllers: str) -> bool:
        """Spawn `controllers` with the `spawner` executable."""
        print(f'\n== spawning {", ".join(controllers)} with `spawner`')
        result = run_tool(
            'spawner',
            *controllers,
            '--controller-manager-timeout',
            str(GUARD_S),
            timeout_s=3 * GUARD_S,
        )
        if result.returncode != 0:
            print(result.stdout + result.stderr)
        return self.record('spawner', result.returncode == 0, ', '.join(controllers))

    def off_home(self, msg: JointState) -> float:
        """The largest distance of a joint from HOME in `msg`, rad."""
        now = dict(zip(msg.name, msg.position))
        return max(abs(now[j] - HOME[i]) for i, j in enumerate(JOINTS))

    def hold(self) -> bool:
        """Before any controller claims the motors, MujocoSystem's servo holds the arm at
        home against gravity (the joints' p/i/d in arm6.urdf)."""
        print('\n== the arm before the trajectory controller: held by the hardware')
        if not self.ros.spin_until(lambda: self.sim_time_s() >= 1.0 and self.joint_states, GUARD_S):
            return self.record('hold', False, 'no /clock or /joint_states')
        off = self.off_home(self.joint_states[-1])
        return self.record(
            'hold', off < 0.005, f'{off * 1000:.2f} mrad from home at {self.sim_time_s():.2f} s'
        )

    def takeover(self, since_s: float) -> bool:
        """The trajectory controller takes the motors' effort and holds where the arm is:
        it sags until its integral has taken up gravity. `since_s`: simulated time before
        it was spawned."""
        print('\n== the trajectory controller takes over')
        cm = self.ros.manager()
        print(f'  {"controller":<34}{"type":<64}state')
        for c in cm.list_controllers():
            print(f'  {c.name:<34}{c.type:<64}{c.state}')
        for comp in cm.list_hardware_components():
            print(f'  hardware {comp.name} ({comp.plugin_name}): {comp.state.label}')
        self.ros.spin_until(lambda: False, 0.2)  # take in what queued up meanwhile

        def settled() -> bool:
            last = self.joint_states[-1]
            return stamp_s(last) >= since_s + 1.0 and self.off_home(last) < GOAL_TOLERANCE

        # the integral takes up gravity within about a second of simulated time; on a busy
        # host the spawner's answer comes later in simulated time, so wait for the state
        # (bounded in simulated time too) rather than sample one moment
        deadline_s = self.sim_time_s() + SETTLE_S
        done = self.ros.spin_until(
            lambda: settled() or stamp_s(self.joint_states[-1]) >= deadline_s, 30.0
        )
        if not done:
            return self.record('takeover', False, 'no /joint_states')
        sag = max(self.off_home(m) for m in self.joint_states if stamp_s(m) >= since_s)
        last = self.joint_states[-1]
        off = self.off_home(last)
        return self.record(
            'takeover',
            sag < 0.05 and off < GOAL_TOLERANCE,
            f'{off * 1000:.1f} mrad from home at {stamp_s(last) - since_s:.2f} s (sagged '
            f'{sag * 1000:.1f} mrad while the PID integral took up gravity)',
        )

    def trajectory(self) -> bool:
        """A three-point FollowJointTrajectory goal; success and every joint in tolerance."""
        print('\n== FollowJointTrajectory goal to /arm_controller/follow_joint_trajectory')
        client = ActionClient(
            self.ros.node, FollowJointTrajectory, '/arm_controller/follow_joint_trajectory'
        )
        if not self.ros.spin_until(client.server_is_ready, GUARD_S):
            return self.record('trajectory', False, 'action server not available')
        goal = FollowJointTrajectory.Goal()
        goal.trajectory.joint_names = JOINTS
        start = [self.positions()[j] for j in JOINTS]
        scaled = [(t * self.scale, p) for t, p in WAYPOINTS]
        for (t, positions), velocities in zip(scaled, via_velocities(start, scaled)):
            point = JointTrajectoryPoint(positions=positions, velocities=velocities)
            set_duration(point.time_from_start, t)
            goal.trajectory.points.append(point)
        run = self.run_goal(client, goal, scaled[-1][0])
        if isinstance(run, str):
            return self.record('trajectory', False, run)
        print(f'  goal started at simulated time {run.start_s:.2f} s')
        final_state = self.state_at(run.end_s + FINAL_AFTER_S)
        if final_state is None:
            return self.record('trajectory', False, 'no /joint_states after the goal')
        final = dict(zip(final_state.name, final_state.position))
        target = WAYPOINTS[-1][1]
        errors = [final[j] - target[i] for i, j in enumerate(JOINTS)]
        print(
            f'  result after {run.end_s - run.start_s:.2f} s simulated ({run.wall_s:.2f} s '
            f'wall clock); goal tolerance {GOAL_TOLERANCE * 1000:.0f} mrad per joint, '
            f'{FINAL_AFTER_S} s after the goal:'
        )
        for j, e in zip(JOINTS, errors):
            print(f'    {j}: final error {e * 1000:+7.2f} mrad')
        worst = max(abs(e) for e in errors)
        result = run.result
        ok = result.error_code == FollowJointTrajectory.Result.SUCCESSFUL
        ok = ok and worst <= GOAL_TOLERANCE
        return self.record(
            'trajectory',
            ok,
            f'error_code {result.error_code} {result.error_string!r}, {run.feedback} feedback '
            f'messages, max final error {worst * 1000:.2f} mrad',
        )

    def wrench(self) -> bool:
        """At rest, the wrist sensor carries the gripper's weight, whatever its orientation."""
        print('\n== /force_torque_sensor_broadcaster/wrench with the arm at rest')
        count = len(self.wrenches)
        if not self.ros.spin_until(lambda: len(self.wrenches) > count + 5, GUARD_S):
            return self.record('wrench', False, 'no wrench messages')
        msg = self.wrenches[-1]
        f, tq = msg.wrench.force, msg.wrench.torque
        weight = math.sqrt(f.x * f.x + f.y * f.y + f.z * f.z)
        print(
            f'   force [{f.x:+.3f}, {f.y:+.3f}, {f.z:+.3f}] N (|F| {weight:.3f} N), torque '
            f'[{tq.x:+.3f}, {tq.y:+.3f}, {tq.z:+.3f}] Nm in {msg.header.frame_id}'
        )
        ok = abs(weight - GRIPPER_WEIGHT_N) < 0.01 * GRIPPER_WEIGHT_N
        return self.record(
            'wrench', ok, f'|F| {weight:.3f} N, the 1 kg gripper weighs {GRIPPER_WEIGHT_N:.2f} N'
        )

    def statistics(self) -> dict:
        """The manager's loop statistics, printed."""
        stats = self.ros.manager().statistics()
        p, cost = stats['period'], stats['execution']
        print(
            f'\n== loop: {stats["measured_rate_hz"]:.1f} Hz measured '
            f'(target {stats["update_rate_hz"]}), period mean {p["mean_us"]:.0f} us, p99 '
            f'{p["p99_us"]:.0f} us, overruns {stats["overruns"]}; simulated time '
            f'{self.sim_time_s():.2f} s'
        )
        print(
            f'   cycle cost mean {cost["mean_us"]:.1f} us, p99 {cost["p99_us"]:.1f} us; read '
            f'(MuJoCo steps) mean {stats["read"]["mean_us"]:.1f} us'
        )
        for name, s in stats.get('controllers', {}).items():
            print(f'   update {name:<34} mean {s["mean_us"]:7.1f} us  max {s["max_us"]:8.1f} us')
        return stats


def efforts_of(states: list[JointState]) -> list[tuple[float, list[str], list[float]]]:
    """(stamp s, names, efforts) of the /joint_states messages that carry efforts."""
    return [
        (stamp_s(m), list(m.name), list(m.effort)) for m in states if len(m.effort) == len(m.name)
    ]


def run(args: argparse.Namespace) -> int:
    """Run the demo with the options of `python -m py_controllers.demo`; 0 if all went well."""
    print(__doc__.splitlines()[0])
    with (
        ManagerProcess([PARAMS], URDF, params={'use_sim_time': 'true'}) as proc,
        RosHarness('mujoco_demo_user') as ros,
    ):
        demo = MujocoArmDemo(ros, args.duration)
        ok = demo.spawner(CONTROLLERS[0]) and demo.hold()
        since_s = demo.sim_time_s()
        ok = ok and demo.spawner(*CONTROLLERS[1:]) and demo.takeover(since_s)
        if ok:  # the wrench is worth a look even after a failed goal
            ok = demo.trajectory() and ok
            ok = demo.wrench() and ok
        stats = demo.statistics()
        demo.check_manager(proc)
    print_summary(demo.results)
    ok = ok and all(r[1] for r in demo.results)
    if not (args.no_plots or args.quick):
        write_plots(args.output, demo, stats)
    print(f'\n{"demo succeeded" if ok else "demo FAILED"}')
    return 0 if ok else 1


def write_plots(folder: Path, demo: MujocoArmDemo, stats: dict) -> None:
    """Joints (desired vs actual), motor torques and loop periods as PNG in `folder`."""
    from py_controllers.demo import plots

    folder.mkdir(parents=True, exist_ok=True)
    written = []
    if demo.arm_state:
        written.append(plots.plot_joints(folder / 'mujoco_joints.png', demo.arm_state))
    since_s = demo.arm_state[0][0] if demo.arm_state else 0.0  # the joints' time axis
    efforts = [e for e in efforts_of(demo.joint_states) if e[0] >= since_s]
    if efforts:
        written.append(plots.plot_efforts(folder / 'mujoco_efforts.png', efforts))
    if 'period_histogram' in stats:
        written.append(
            plots.plot_periods(
                folder / 'mujoco_loop_periods.png',
                stats['period_histogram'],
                stats['update_rate_hz'],
            )
        )
    print(f'\n  plots written to {folder.resolve()}: {", ".join(p.name for p in written)}')
