"""Topic-to-hardware latency: another process publishes on a forward controller's
~/commands, a probe hardware component timestamps when write() first sees each value.

The manager runs in this process (the ros2_control_node code: ControllerManagerRuntime, its
loop thread, the same executor spin) so the probe can be registered without an entry
point; the publisher is a separate process. Both read CLOCK_MONOTONIC, which is one
clock for the whole machine, and the send time travels inside the command itself.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
import time
from typing import Any

import numpy as np
import rclpy
from rclpy.context import Context
from rclpy.executors import SingleThreadedExecutor

from bench.common import WAIT_S
from py_controllers import plugins
from py_controllers.controller_manager.node import SWITCH_INTERVAL_S, ControllerManagerRuntime
from py_controllers.controller_manager.node_executors import BetweenCycles
from py_controllers.hardware_interface.hardware_component import SystemInterface
from py_controllers.hardware_interface.types import ReturnType
from py_controllers.robot_description import swap_hardware
from py_controllers.testing import CONFIG

PROBE = 'bench/LatencyProbe'
TOPIC = '/forward_position_controller/commands'

PUBLISHER = textwrap.dedent(
    """
    import sys, time
    import rclpy
    from std_msgs.msg import Float64MultiArray
    count, interval_s = int(sys.argv[1]), float(sys.argv[2])
    rclpy.init()
    node = rclpy.create_node('latency_publisher')
    pub = node.create_publisher(Float64MultiArray, '{topic}', 10)
    deadline = time.monotonic() + {wait_s}
    while pub.get_subscription_count() == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.5)
    for seq in range(count):
        pub.publish(Float64MultiArray(data=[float(time.monotonic_ns()), float(seq), 0.0]))
        time.sleep(interval_s)
    time.sleep(0.5)
    rclpy.shutdown()
    """
).format(topic=TOPIC, wait_s=WAIT_S)


class LatencyProbe(SystemInterface):
    """Mirrors commands to states and notes how old each new joint1 command is in write()."""

    def on_configure(self, previous_state: Any) -> Any:
        self._cmd = self.command_interfaces['joint1/position']
        self._last = self._cmd.value
        self._since_ns = time.monotonic_ns()
        self.latencies_ns: list[int] = []
        return super().on_configure(previous_state)

    def write(self, time_: Any, period: Any) -> ReturnType:
        value = self._cmd.value
        # a send time is later than this configure; the hold value the command guard writes
        # at activation (the measured position) is not one
        if value != self._last and value >= self._since_ns:
            self.latencies_ns.append(time.monotonic_ns() - int(value))
            self._last = value
        return ReturnType.OK


def latency_run(rate_hz: int, count: int = 300, interval_s: float = 0.013) -> dict:
    """p50/p99/max of publish -> hardware write, in microseconds, at `rate_hz`."""
    plugins.register(plugins.HARDWARE_GROUP, PROBE, LatencyProbe)
    urdf = swap_hardware((CONFIG / 'minimal_robot.urdf').read_text(), PROBE)
    context = Context()
    ros_args = [
        '--ros-args',
        '--params-file',
        str(CONFIG / 'minimal_controllers.yaml'),
        '-p',
        f'update_rate:={rate_hz}',
        # the command carries its send time, far outside joint1's position limits
        '-p',
        'enforce_command_limits:=false',
    ]
    rclpy.init(context=context, args=ros_args)
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    executor = SingleThreadedExecutor(context=context)
    cm = ControllerManagerRuntime(
        executor,
        context=context,
        args=ros_args,
        parameter_overrides=[
            rclpy.parameter.Parameter('robot_description', value=urdf),
            # a stall of this in-process loop on a loaded host is reported, never the end of
            # the whole bench
            rclpy.parameter.Parameter('watchdog.exit_on_stall', value=False),
        ],
    )
    stop = threading.Event()
    try:
        for name in ('forward_position_controller',):
            assert cm.manager.load_controller(name)[0]
            assert cm.manager.configure_controller(name)[0]
        assert cm.manager.switch_controller(['forward_position_controller'], [], 2)[0]
        probe = cm.manager.rm.components['MinimalSystem'].component
        publisher = subprocess.Popen(
            [sys.executable, '-c', PUBLISHER, str(count), str(interval_s)],
            stdout=subprocess.DEVNULL,
        )
        spinner = BetweenCycles(executor)
        while publisher.poll() is None:
            spinner.spin_once(cm.loop.gate, 0.05)
        stop.set()
        samples = np.array(probe.latencies_ns, dtype=np.float64) * 1e-3
    finally:
        cm.shutdown()
        executor.shutdown()
        rclpy.try_shutdown(context=context)
    if samples.size == 0:
        raise RuntimeError('no command reached the hardware')
    return {
        'rate_hz': rate_hz,
        'received': int(samples.size),
        'sent': count,
        'p50_us': float(np.percentile(samples, 50)),
        'p99_us': float(np.percentile(samples, 99)),
        'max_us': float(samples.max()),
        'period_us': 1e6 / rate_hz,
    }
