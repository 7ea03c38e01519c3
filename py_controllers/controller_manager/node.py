"""`ros2_control_node`: the controller manager process.

One rclpy node `controller_manager`, spun by a single-threaded executor in the main
thread (controller nodes join the same executor), and the control loop thread. The
robot description comes from the `robot_description` parameter, from a file named by
`robot_description_file` (a `.xacro` file expanded with `robot_description_xacro_args`), or
from the `robot_description` topic as upstream (`/robot_description`, where
robot_state_publisher publishes it) or `~/robot_description` (Humble's): see
`description_topics.py`. Controller nodes get the manager's ROS arguments, never the
process's global ones (`controller_node_args.py`).

Every way out stops the robot: SIGINT, SIGTERM, SIGHUP (a closed terminal), SIGQUIT, the
ROS context shutting down, the loop ending on a failure or stalling (the watchdog) all go
through `shutdown()` (controllers deactivated unconditionally, hold values, one final
write, hardware shut down, each step bounded). A second SIGINT/SIGTERM while that runs
exits at once after one final-write attempt. A loop failure or stall also reports ERROR on
/diagnostics and makes the process exit with status 1, so a supervisor or launch's
`respawn` can act.
"""

from __future__ import annotations

import gc
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

import rclpy
from rcl_interfaces.msg import SetParametersResult
from rclpy.exceptions import ParameterUninitializedException
from rclpy.executors import SingleThreadedExecutor
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.signals import SignalHandlerOptions
from rosgraph_msgs.msg import Clock
from std_msgs.msg import String

from py_controllers.controller_manager.bounded import run_each_bounded
from py_controllers.controller_manager.controller_node_args import ros_arguments
from py_controllers.controller_manager.description_file import (
    XACRO_ARGS,
    DescriptionFileError,
    check_description_file,
    read_description_file,
    xacro_arguments,
)
from py_controllers.controller_manager.description_topics import DescriptionTopics
from py_controllers.controller_manager.loop import ControlLoop
from py_controllers.controller_manager.manager import ControllerManager
from py_controllers.controller_manager.node_executors import (
    BetweenCycles,
    NodeExecutors,
    serve,
)
from py_controllers.controller_manager.process_signals import ProcessSignals, say
from py_controllers.controller_manager.release import release
from py_controllers.controller_manager.services import ManagerServices
from py_controllers.controller_manager.startup_parameters import (
    StartupParameterError,
    check_loop_settings,
)
from py_controllers.controller_manager.stop_flag import StopFlag
from py_controllers.controller_manager.watchdog import (
    BACKSTOP_MIN_S,
    DEFAULT_MAX_SWITCH_S,
    Backstop,
    LoopWatchdog,
)
from py_controllers.hardware_interface.types import LifecycleStateId
from py_controllers.realtime_tools import scheduling
from py_controllers.realtime_tools.clock_publisher import ClockPublisher

S = LifecycleStateId

SWITCH_INTERVAL_S = 0.0002
IDLE_WAKE_S = 0.5
FAILURE_REPORT_S = 0.5  # after the loop died: time for the ERROR to reach subscribers

DEFAULTS: dict[str, Any] = {
    'update_rate': 100,
    'enforce_command_limits': True,
    'robot_description': '',
    'robot_description_file': '',
    XACRO_ARGS: Parameter.Type.STRING_ARRAY,
    'hardware_components_initial_state.unconfigured': Parameter.Type.STRING_ARRAY,
    'hardware_components_initial_state.inactive': Parameter.Type.STRING_ARRAY,
    'defaults.switch_controller.strictness': 'strict',
    'defaults.allow_controller_activation_with_inactive_hardware': False,
    'defaults.deactivate_controllers_on_hardware_self_deactivate': True,
    'loop.spin_us': -1,  # -1: automatic at 500 Hz and above (wake_up.py), 0 below
    'loop.guard_us': 300,
    'thread_priority': 50,
    'lock_memory': False,
    'watchdog.periods': 10,
    'watchdog.min_stall_ms': -1,  # -1: 250, or 2000 while the loop drives a simulator
    'watchdog.exit_on_stall': True,
    'watchdog.max_switch_ms': round(DEFAULT_MAX_SWITCH_S * 1000),
    'use_sim_time': False,
}
READ_AT_START = frozenset(DEFAULTS) | {'cpu_affinity', 'use_sim_time'}
# The second signal's bounds, one per step (about 3 s at worst): long enough for a starved
# process (two busy loops beside it) to finish a cycle, a release and a write that are only
# slow, short enough that a stuck one does not hold the exit for long. At 0.3 / 0.3 / 0.5 s,
# Other's final write in test_signal_sequences.py did not end before the exit once, on a
# host running four test processes: its last write stayed at the commanded 1.5.
EMERGENCY_LOCK_S = 1.0  # the wait for a cycle under way to end
EMERGENCY_RELEASE_S = 1.0  # the release transaction without the controllers' hooks
EMERGENCY_WRITE_S = 1.0  # the final-write attempt
SHUTDOWN_BOUND_S = 20.0  # the safe stop's own bounds add up to about 10 s


class ControllerManagerRuntime:
    """What `ros2_control_node` runs (not a node itself): the `controller_manager` node, the
    manager, its services and the loop thread; waits for a robot description."""

    def __init__(
        self,
        executor: SingleThreadedExecutor,
        *,
        start_loop: bool = True,
        stop_requested: StopFlag | None = None,
        args: Sequence[str] | None = None,
        backstop: Backstop | None = None,
        **node_kwargs: Any,
    ) -> None:
        """`start_loop=False` keeps the loop thread from starting: a test then runs the
        cycles itself with `loop.cycle()` (see `py_controllers.testing.SteppedManager`).
        `stop_requested` is set when the process should end (a signal may set it before
        this returns). `args`: the command line the context was initialised with; its ROS
        arguments (and those in `cli_args`) go to every controller node, less the manager's
        name, namespace and description. `backstop`: the process's GIL-free last resort (only
        the process entry point has one; see watchdog.py). Raises StartupParameterError for
        start-up parameters that cannot work."""
        self.start_loop = start_loop
        # set when the process should end: a signal, the loop failing or stalling
        self.stop_requested = stop_requested or StopFlag()
        self.node = Node(
            'controller_manager',
            allow_undeclared_parameters=True,
            automatically_declare_parameters_from_overrides=True,
            **node_kwargs,
        )
        for name, default in DEFAULTS.items():
            if not self.node.has_parameter(name):
                self.node.declare_parameter(name, default)
        self.node.add_on_set_parameters_callback(self._refuse_start_up_parameters)
        self.executor = executor
        executor.add_node(self.node)
        try:
            self.settings = check_loop_settings(self.param)
            path = str(self.param('robot_description_file') or '')
            xacro_mappings = check_description_file(path, xacro_arguments(self.param(XACRO_ARGS)))
        except StartupParameterError:
            executor.remove_node(self.node)
            self.node.destroy_node()
            raise
        settings = self.settings
        rate = settings.update_rate
        # With the loop in its own thread, each controller node gets an executor thread of
        # its own (a message then wakes one small wait set); a stepped test serves them all
        # from its executor, so callbacks run only when it spins.
        self.node_executors = NodeExecutors(lambda: self.loop.gate, self.node.get_logger())
        self.manager = ControllerManager(
            self.node,
            update_rate=rate,
            add_node=self.node_executors.add if start_loop else executor.add_node,
            remove_node=self.node_executors.remove if start_loop else executor.remove_node,
            strict_by_default=settings.strict_by_default,
            allow_inactive_hardware=settings.allow_inactive_hardware,
            deactivate_on_hardware_self_deactivate=settings.deactivate_on_hardware_self_deactivate,
            ros_args=ros_arguments(args or []) + ros_arguments(node_kwargs.get('cli_args') or []),
        )
        self.loop = ControlLoop(
            self.manager,
            self.node.get_clock(),
            rate,
            spin_ns=settings.spin_us * 1000,
            guard_ns=settings.guard_us * 1000,
            thread_setup=self._configure_loop_thread,
            on_failure=self._on_loop_failure,
            use_sim_time=settings.use_sim_time,
            publish_clock=self._clock_publisher() if settings.use_sim_time else None,
        )
        self.watchdog = LoopWatchdog(
            self.loop,
            periods=settings.watchdog_periods,
            min_stall_s=settings.watchdog_min_stall_s,
            max_switch_s=settings.watchdog_max_switch_s,
            held_by=lambda: self.manager.held_by,
            on_stall=self._on_loop_stall,
            on_recover=self._on_loop_recovered,
            on_held=self._on_loop_held,
            on_slow=self._on_loop_slow,
            backstop=backstop,
        )
        self.stalled_out = False  # the process ends because the loop stalled
        self._failure_wake = self.node.create_guard_condition(self.report_loop_failure)
        self.services: ManagerServices | None = None
        self._description_topics: DescriptionTopics | None = None
        self._description_source = ''
        description = self.param('robot_description') or ''
        source = 'the robot_description parameter'
        log = self.node.get_logger()
        if not isinstance(description, str):
            log.error(
                f"invalid robot description: parameter 'robot_description' must be a string, "
                f'got {description!r}; waiting for one on a topic'
            )
            description = ''
        if not description and path:
            source = f"robot_description_file '{path}'"
            try:
                description = read_description_file(path, xacro_mappings)
            except DescriptionFileError as exc:
                log.error(f'invalid robot description: {source} {exc}; waiting for one on a topic')
        if description:
            self.on_description(String(data=description), source)
        if self.services is None:  # none given, or it was refused: wait for one on the topics
            self._description_topics = DescriptionTopics(self.node, self.on_description)

    def _refuse_start_up_parameters(self, parameters: list[Parameter]) -> SetParametersResult:
        """The manager's own parameters are read when it starts: a later change would be
        accepted and never used, so it is refused (as upstream's read-only ones)."""
        loaded = self.services is not None
        for parameter in parameters:
            name = parameter.name
            description = name in ('robot_description', 'robot_description_file')
            if (name in READ_AT_START and not description) or (
                loaded and (description or name.startswith('joint_limits.'))
            ):
                return SetParametersResult(
                    successful=False,
                    reason=f"'{name}' is read when ros2_control_node starts: restart it to "
                    'change this',
                )
        return SetParametersResult(successful=True)

    def _configure_loop_thread(self) -> None:
        """In the loop thread: the scheduling the settings ask for (warnings only)."""
        settings = self.settings
        scheduling.configure_thread(
            settings.thread_priority,
            settings.cpu_affinity,
            settings.lock_memory,
            self.node.get_logger(),
        )

    def _on_loop_stall(self, silent_s: float, report: str) -> None:
        """From the watchdog: the loop has not ended a cycle for `silent_s`; `report` says
        where it is."""
        exits = self.settings.watchdog_exit_on_stall
        self.loop.stall = f'control loop stalled: no cycle for {silent_s:.2f} s'
        self.node.get_logger().fatal(
            f'{self.loop.stall} (watchdog.periods {self.settings.watchdog_periods}); '
            + ('stopping the robot and exiting' if exits else 'watchdog.exit_on_stall is off')
            + f'\n{report}'
        )
        if exits:
            self.stalled_out = True
            self.watchdog.hand_backstop_over(SHUTDOWN_BOUND_S)
            self.stop_requested.set()
        self._failure_wake.trigger()

    def _on_loop_held(self, what: str, held_s: float, ended: bool) -> None:
        """From the watchdog: a service's switch held the loop off (not a stall)."""
        bound = self.settings.watchdog_max_switch_s
        if ended:
            self.node.get_logger().warning(
                f'control loop running again after {held_s:.2f} s held off by {what}'
            )
            return
        self.node.get_logger().warning(
            f'control loop held off for {held_s:.2f} s by {what}: not a stall while within '
            f'watchdog.max_switch_ms ({bound * 1000:.0f} ms); controllers should activate '
            'quickly (upstream runs activation in the loop)'
        )

    def _on_loop_slow(self, silent_s: float, meanwhile: str) -> None:
        """From the watchdog: a silence the wall clock would call a stall, on a loop that
        drives a simulator (whose physics waited for it)."""
        self.node.get_logger().warning(
            f'control loop went about {silent_s:.2f} s without a cycle: not a stall while it '
            "drives the simulator's time (the physics waited; watchdog floor "
            f'{self.watchdog.threshold_ns * 1e-9:g} s)' + (f'; {meanwhile}' if meanwhile else '')
        )

    def _on_loop_recovered(self, stalled_s: float) -> None:
        self.loop.stall = None
        self.node.get_logger().warning(f'control loop running again after {stalled_s:.2f} s')
        self._failure_wake.trigger()

    def _clock_publisher(self) -> Callable[[int], None]:
        """/clock from the loop, for a simulator among the hardware (never blocks; handed
        over ahead of the cycle's stamped messages, see ClockPublisher)."""
        return ClockPublisher(self.node.create_publisher(Clock, '/clock', 10)).publish

    def param(self, name: str) -> Any:
        """Value of one of the manager's own parameters (None when declared without one)."""
        try:
            return self.node.get_parameter(name).value
        except ParameterUninitializedException:
            return None

    def on_description(self, msg: String, source: str = 'a direct call') -> None:
        """Load the hardware from the URDF, set initial states, start services and loop;
        `source` says where the description came from, for the log."""
        log = self.node.get_logger()
        if self.services is not None:
            log.warning(
                f'robot description received again from {source}: ignored (no reload; the '
                f'one from {self._description_source} is loaded)'
            )
            return
        try:
            self.manager.rm.load_urdf(msg.data)
            if self.settings.enforce_command_limits:
                limits = self.node.get_parameters_by_prefix('joint_limits')
                self.manager.rm.enable_command_limits(
                    {f'joint_limits.{k}': p.value for k, p in limits.items()}
                )
        except Exception as exc:
            log.error(f'invalid robot description: {exc}; waiting for a new one')
            self.manager.reset_hardware()
            return
        self._description_source = source
        if self._description_topics is not None:
            self._description_topics.loaded()
            log.info(f'robot description received from {source}')
        unconfigured = set(self.settings.initial_unconfigured)
        inactive = set(self.settings.initial_inactive)
        unknown = (unconfigured | inactive) - set(self.manager.rm.components)
        if unknown:
            log.warning(
                f'hardware_components_initial_state names {sorted(unknown)}, which the robot '
                f'description does not have (it has {sorted(self.manager.rm.components)})'
            )
        for name in self.manager.rm.components:
            target = S.UNCONFIGURED if name in unconfigured else S.ACTIVE
            target = S.INACTIVE if name in inactive else target
            if not self.manager.rm.set_component_state(name, target):
                log.error(f"hardware '{name}' failed to reach {target.label}")
            else:
                log.info(f"hardware '{name}' is {target.label}")
        self.services = ManagerServices(self.node, self.manager, self.loop)
        if self.stop_requested.is_set():  # a signal while the hardware came up
            log.info('stop requested during start-up: the control loop does not start')
        elif self.start_loop:
            self.loop.start()
            self.watchdog.start()
            log.info(f'control loop running at {self.manager.update_rate} Hz')

    def _on_loop_failure(self, exc: BaseException) -> None:
        """In the dying loop thread: say so at once, then let the executor report it."""
        self.node.get_logger().fatal(
            f'the control loop stopped on an unhandled error: {exc!r}; stopping the robot '
            f'and exiting\n{self.loop.failure_traceback}'
        )
        self.stop_requested.set()
        self._failure_wake.trigger()

    def emergency_stop(self) -> None:
        """A second signal: no further cycle, every claim released through the release
        transaction without the controllers' hooks, one final-write attempt; bounded."""
        cm = self.manager
        self.loop.request_stop()
        # kept for good: the process ends right after, and no cycle may overwrite the holds
        locked = cm.cycle_lock.acquire(timeout=EMERGENCY_LOCK_S)
        ending = [n for n, spec in list(cm.controllers.items()) if cm.is_running(n) or spec.claimed]
        released = run_each_bounded(
            {'release': lambda: release(cm, ending, run_hooks=False)},
            EMERGENCY_RELEASE_S,
            'emergency',
        )['release']
        if isinstance(released, BaseException):  # the final write still goes out
            say(f'emergency stop: releasing {ending} did not finish: {released!r}')
        cm.supervisor.final_write(timeout_s=EMERGENCY_WRITE_S, loop_stuck=not locked)

    def report_loop_failure(self) -> None:
        """Publish /diagnostics now (ERROR once the loop has failed)."""
        if self.services is not None:
            self.services.publish_diagnostics()

    @property
    def failed(self) -> bool:
        """True when the loop died or stalled (the process exits with status 1)."""
        return self.loop.failure is not None or self.stalled_out

    def shutdown(self) -> None:
        """Stop the robot (every controller deactivated, hold values, one final write) and
        free the hardware; bounded (see Supervisor.shutdown). The backstop gets the whole
        shutdown's bound: a shutdown wedged beyond it still ends the process."""
        self.watchdog.hand_backstop_over(SHUTDOWN_BOUND_S)
        self.watchdog.stop()
        self.node.get_logger().info('stopping the robot and shutting down')
        self.manager.shutdown(stop_loop=self.loop.stop)
        self.loop.stop(0.0)
        self.node_executors.stop_all()
        self.executor.remove_node(self.node)
        self.node.destroy_node()


def main(argv: list[str] | None = None) -> int:
    """Entry point of `ros2_control_node`."""
    signals = ProcessSignals()  # first: a signal during start-up still ends in the safe stop
    args = argv if argv is not None else sys.argv
    rclpy.init(args=args, signal_handler_options=SignalHandlerOptions.NO)
    # The loop thread must get the GIL back soon after it wakes: shorten the interpreter's
    # switch interval from 5 ms (the other threads only run short callbacks). It is
    # interpreter-wide by nature, so only this process entry point sets it: a program that
    # embeds the manager in its own process chooses for itself.
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    executor = SingleThreadedExecutor()
    backstop = Backstop(BACKSTOP_MIN_S)  # its bound follows the watchdog's settings
    try:
        cm = ControllerManagerRuntime(
            executor, stop_requested=signals.stop, backstop=backstop, args=args
        )
    except Exception as exc:
        print(f'[ros2_control_node] ERROR: {exc}', file=sys.stderr)
        rclpy.shutdown()
        return 1
    signals.runtime = cm
    signals.wake_with(cm.node.create_guard_condition(lambda: None).trigger)
    # What start-up made (modules, the hardware, the nodes) lives as long as the process: the
    # cycle collector leaves it out from now on, or each full collection (one comes as the
    # controllers load) walks it all again, holding the GIL, and so the loop (43-143 ms seen)
    gc.freeze()
    stop = cm.stop_requested
    try:
        # Each wake-up rebuilds the wait set in Python, so idle wake-ups are rare; a signal
        # wakes the wait at once (ProcessSignals).
        spinner = BetweenCycles(executor)
        serve(
            spinner,
            lambda: cm.loop.gate,
            lambda: not stop.is_set() and rclpy.ok(),
            cm.node.get_logger(),
            'callback',
            IDLE_WAKE_S,
        )
        if cm.failed:
            # the ERROR on /diagnostics goes out now, from here, and has time to arrive
            # before the node goes away
            cm.report_loop_failure()
            deadline = time.monotonic() + FAILURE_REPORT_S
            while time.monotonic() < deadline:
                spinner.spin_once(cm.loop.gate, 0.05)
    finally:
        cm.shutdown()
        executor.shutdown()
        rclpy.try_shutdown()
        backstop.disarm()
    return 1 if cm.failed else 0


if __name__ == '__main__':
    sys.exit(main())
