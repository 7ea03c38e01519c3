"""Run the posture-hold example: a simulated 6-joint arm under gravity holds its start pose.

    .venv/bin/python examples/posture_hold/run.py [--seconds 5] [--no-hold]

Starts a controller manager in this process (real-time loop at 100 Hz) on ``arm6.urdf``,
activates ``joint_state_broadcaster`` and ``posture_hold_controller`` (unless ``--no-hold``,
which shows the arm falling), and prints how far each joint strayed from its start angle.
While it runs, ``ros2 topic echo /joint_states`` shows the arm.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import rclpy
from rclpy.executors import SingleThreadedExecutor
from std_msgs.msg import String

from py_controllers import plugins
from py_controllers.controller_manager.node import ControllerManagerRuntime

HERE = Path(__file__).resolve().parent
SIMULATION = 'py_controllers/SimulatedSystem'
sys.path.insert(0, str(HERE))

from posture_hold import TYPE_NAME, PostureHoldController  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    """Run the example; exit 0 if every joint stayed within 0.05 rad (always with --no-hold)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--seconds', type=float, default=5.0)
    parser.add_argument('--no-hold', action='store_true', help='leave the arm to gravity')
    args = parser.parse_args(argv)

    plugins.register(plugins.CONTROLLERS_GROUP, TYPE_NAME, PostureHoldController)
    if SIMULATION not in plugins.available(plugins.HARDWARE_GROUP):  # not installed yet
        from py_controllers.hardware.simulated_system import SimulatedSystem

        plugins.register(plugins.HARDWARE_GROUP, SIMULATION, SimulatedSystem)
    ros_args = ['--ros-args', '--params-file', str(HERE / 'posture_hold_controllers.yaml')]
    rclpy.init(args=ros_args)
    executor = SingleThreadedExecutor()
    # No description yet: the controllers are loaded and configured first, so the arm is
    # handed to them right after the simulation (and the loop) starts, before it can sag.
    # The controllers' nodes get the parameter file through `args`, as from ros2_control_node.
    cm = ControllerManagerRuntime(executor, args=ros_args)
    manager = cm.manager
    names = ['joint_state_broadcaster'] + ([] if args.no_hold else ['posture_hold_controller'])
    for name in names:
        for step in (manager.load_controller, manager.configure_controller):
            ok, message = step(name)
            if not ok:
                print(f'{name}: {message}', file=sys.stderr)
                cm.shutdown()
                rclpy.try_shutdown()
                return 1
    cm.on_description(String(data=(HERE / 'arm6.urdf').read_text()))
    ok, message = manager.switch_controller(names, [], 2)
    if not ok:  # also when the description was refused (no hardware): logged above
        print(message, file=sys.stderr)
        cm.shutdown()
        rclpy.try_shutdown()
        return 1
    joints = [f'joint{i}' for i in range(1, 7)]
    states = manager.rm.state_interfaces
    start = [states[f'{j}/position'].value for j in joints]
    if not args.no_hold:  # the pose it holds, as taken at activation
        start = list(manager.controllers['posture_hold_controller'].controller.q_ref)
    worst = [0.0] * len(joints)
    deadline = time.monotonic() + args.seconds
    try:
        while time.monotonic() < deadline:
            executor.spin_once(timeout_sec=0.05)
            for i, j in enumerate(joints):
                worst[i] = max(worst[i], abs(states[f'{j}/position'].value - start[i]))
    finally:
        cm.shutdown()
        executor.shutdown()
        rclpy.try_shutdown()
    for j, q0, w in zip(joints, start, worst):
        print(f'{j}: start {q0:+.3f} rad, largest deviation {w:.4f} rad')
    return 0 if args.no_hold or max(worst) < 0.05 else 1


if __name__ == '__main__':
    sys.exit(main())
