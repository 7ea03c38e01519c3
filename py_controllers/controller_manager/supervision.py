"""What the controller manager does when something fails, and on every way out.

- A controller whose update() fails is taken out with every controller commanding it (the
  release transaction, `release.py`); its fallback controllers are activated, displacing
  the controllers that hold the command interfaces they need (as upstream).
- A hardware component whose read()/write() fails: the controllers commanding it are
  taken out in the loop, at once; its on_error runs off the loop (it may do I/O), the
  component skipped meanwhile. write() asking to DEACTIVATE works the same way.
- Hardware lifecycle transitions requested over ROS run off the loop and outside the
  cycle lock (see `hardware_transitions.py`); no fallback starts on a component going down.
- Every way out (`stop_robot`, then `shutdown`): the loop stopped, every controller
  released, one final write() delivers the holds to each component in a bounded wait of
  its own, then controllers are unloaded and each component is deactivated and shut down,
  again each in its own bounded wait: one stuck component starves nobody.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import Future
from typing import TYPE_CHECKING

from rclpy.duration import Duration

from py_controllers.controller_manager.bounded import (
    LOCK_TIMEOUT_S,
    LoopBusyError,
    bounded_lock,
    run_each_bounded,
)
from py_controllers.controller_manager.hardware_transitions import (
    HardwareTransitions,
    TransitionBusyError,
)
from py_controllers.controller_manager.release import release
from py_controllers.controller_manager.switch_plan import STRICT
from py_controllers.hardware_interface.types import LifecycleStateId

if TYPE_CHECKING:
    from py_controllers.controller_manager.manager_tables import ManagerTables

S = LifecycleStateId
FINAL_WRITE_TIMEOUT_S = 1.0
HARDWARE_SHUTDOWN_TIMEOUT_S = 5.0


class Supervisor:
    """Failure handling, hardware transitions and shutdown for one ControllerManager."""

    def __init__(self, cm: ManagerTables) -> None:
        self.cm = cm
        self.transitions = HardwareTransitions(
            lambda: cm.rm, cm.cycle_lock, on_done=lambda _name: cm.notify_changed(), log=cm.log
        )

    # --- controllers -----------------------------------------------------------------
    def deactivate_after_error(
        self, names: Iterable[str], why: str, *, going_down: str | None = None
    ) -> None:
        """Take out `names`, everything commanding them and everything holding interfaces
        their fallback controllers need; then activate those fallbacks (none that needs
        hardware component `going_down`). The loop thread holds the cycle lock already; a
        service waits for it at most LOCK_TIMEOUT_S (LoopBusyError)."""
        cm = self.cm
        with bounded_lock(cm.cycle_lock, why):
            todo = list(dict.fromkeys(names))
            fallbacks = self._fallbacks_of(todo, going_down)
            needed = self._interfaces_of(fallbacks)
            for spec in cm.active:
                displaced = needed.intersection(spec.claimed)
                if displaced and spec.name not in todo and spec.name not in fallbacks:
                    todo.append(spec.name)
            i = 0
            while i < len(todo):
                for p in cm.preceding(todo[i]):
                    if p not in todo and cm.is_running(p):
                        todo.append(p)
                i += 1
            for name in todo:
                cm.log('error', f"deactivating controller '{name}': {why}")
            release(cm, todo)
            if fallbacks:
                ok, msg = cm.switch_locked(fallbacks, [], STRICT, LOCK_TIMEOUT_S)
                if ok:
                    cm.log('info', f'fallback controllers {fallbacks} activated')
                else:
                    cm.log('error', f'fallback controllers {fallbacks} not activated: {msg}')
            cm.notify_changed()

    def _fallbacks_of(self, names: list[str], going_down: str | None) -> list[str]:
        cm = self.cm
        fallbacks: list[str] = []
        for name in names:
            for f in cm.controllers[name].fallback_controllers:
                if f not in fallbacks and f in cm.controllers:
                    fallbacks.append(f)
        if going_down is None:
            return fallbacks
        leaving = set(cm.rm.interfaces_of(going_down)[0])
        kept = []
        for f in fallbacks:
            if leaving.intersection(self._interfaces_of([f])):
                cm.log('warning', f"fallback '{f}' not started: it needs '{going_down}'")
            else:
                kept.append(f)
        return kept

    def _interfaces_of(self, names: list[str]) -> set[str]:
        cm = self.cm
        wanted: set[str] = set()
        for name in names:
            try:
                wanted.update(cm.resolve_command_interfaces(cm.controllers[name]))
            except RuntimeError as exc:
                cm.log('error', str(exc))
        return wanted

    def controllers_using(self, component: str, *, commands_only: bool = False) -> list[str]:
        """Running controllers claiming (or, unless commands_only, reading) `component`."""
        cmd, state = self.cm.rm.interfaces_of(component)
        cmd_set, state_set = set(cmd), set(state)
        users = []
        for spec in self.cm.active:
            if cmd_set.intersection(spec.claimed) or (
                not commands_only
                and state_set.intersection(h.name for h in spec.controller.state_interfaces)
            ):
                users.append(spec.name)
        return users

    # --- hardware failures (loop thread) -----------------------------------------------
    def handle_hardware_error(self, component: str, where: str) -> None:
        """read()/write() failed: the controllers commanding it stop now, its on_error runs
        off the loop. Controllers that only read it (a broadcaster of several components)
        keep running: its state interfaces read NaN ("unknown") from now on."""
        users = self.controllers_using(component, commands_only=True)
        self.cm.rm.invalidate_states(component)
        if users:
            self.deactivate_after_error(
                users, f"hardware '{component}' failed in {where}()", going_down=component
            )
        self.cm.log('error', f"hardware '{component}' failed in {where}(): handling the error")
        self._start(component, lambda m: m.handle_error(), 'on_error')
        self.cm.notify_changed()

    def handle_hardware_self_deactivate(self, component: str) -> None:
        """write() returned DEACTIVATE: stop the controllers commanding it; the component
        goes to INACTIVE off the loop."""
        if self.cm.deactivate_on_hardware_self_deactivate:
            users = self.controllers_using(component, commands_only=True)
            if users:
                self.deactivate_after_error(
                    users, f"hardware '{component}' deactivated itself", going_down=component
                )
        self._start(component, lambda m: m.set_state(S.INACTIVE), 'deactivate')
        self.cm.notify_changed()

    def _start(self, component: str, work: Callable, what: str) -> Future | None:
        try:
            return self.transitions.start(component, work, what)
        except (TransitionBusyError, LoopBusyError):
            return None

    # --- hardware transitions requested over ROS --------------------------------------
    def request_hardware_state(
        self, component: str, target: LifecycleStateId
    ) -> Future[tuple[bool, LifecycleStateId | None]]:
        """Start driving `component` to `target`; the future has (ok, resulting state).
        Controllers that need what goes away are taken out first (between two cycles), and
        none of their fallbacks that needs the component starts."""
        cm = self.cm
        outcome: Future[tuple[bool, LifecycleStateId | None]] = Future()
        with cm.admin_lock:
            managed = cm.rm.components.get(component)
            if managed is None:
                cm.log('error', f"hardware component '{component}' does not exist")
                outcome.set_result((False, None))
                return outcome
            if managed.busy:
                cm.log('error', f"hardware '{component}' is in a transition already: try again")
                outcome.set_result((False, managed.state))
                return outcome
            try:
                if target != S.ACTIVE:
                    users = self.controllers_using(component, commands_only=target == S.INACTIVE)
                    if users:
                        self.deactivate_after_error(
                            users,
                            f"hardware '{component}' goes to {target.label}",
                            going_down=component,
                        )
                inner = self.transitions.start(
                    component, lambda m: m.set_state(target), f'transition to {target.label}'
                )
            except (TransitionBusyError, LoopBusyError) as exc:
                cm.log('error', str(exc))
                inner = None
        if inner is None:
            outcome.set_result((False, managed.state))
            return outcome

        def done(f: Future) -> None:
            ok = f.exception() is None and bool(f.result())
            outcome.set_result((ok, managed.state))

        inner.add_done_callback(done)
        return outcome

    # --- every way out ----------------------------------------------------------------
    def final_write(
        self, *, timeout_s: float = FINAL_WRITE_TIMEOUT_S, loop_stuck: bool = False
    ) -> list[str]:
        """write() every active component once, outside the loop, async ones included
        (their threads stopped first), each in a thread of its own, all within `timeout_s`:
        a write() that blocks starves nobody. The names that failed or were still writing
        when the time ran out."""
        cm = self.cm
        locked = not loop_stuck and cm.cycle_lock.acquire(timeout=LOCK_TIMEOUT_S)
        if not locked:
            cm.logger.error('final write without the cycle lock: the control cycle is stuck')
        try:
            now = cm.node.get_clock().now()
            period = Duration(nanoseconds=round(1e9 / cm.update_rate))
            rm = cm.rm
            writers = {m.name: m for m in rm.final_writers()}
            results = run_each_bounded(
                {
                    name: (lambda m=m: rm.final_write_one(m, now, period, timeout_s))
                    for name, m in writers.items()
                },
                timeout_s,
                'final_write',
            )
        finally:
            if locked:
                cm.cycle_lock.release()
        failed = []
        for name, result in results.items():
            if isinstance(result, TimeoutError):
                cm.logger.error(
                    f"final write: hardware '{name}' still writing after {timeout_s:g} s"
                )
            elif isinstance(result, BaseException) or not result:
                cm.logger.error(f"hardware '{name}': the final write() failed ({result!r})")
            else:
                continue
            failed.append(name)
        return failed

    def stop_robot(self, stop_loop: Callable[[], bool] | None = None) -> bool:
        """The safe stop, each step bounded: the loop stopped, every controller released
        (its commands to their hold values, the hardware told through its command-mode
        switch), then one final write to every component. False when the loop is stuck
        inside a cycle (nothing waits for it then)."""
        cm = self.cm
        loop_stopped = stop_loop() if stop_loop is not None else True
        locked = loop_stopped and cm.cycle_lock.acquire(timeout=LOCK_TIMEOUT_S)
        if not locked:
            cm.logger.error('safe stop without the cycle lock: the control loop is stuck')
        try:
            ending = [
                n
                for n, spec in list(cm.controllers.items())
                if cm.is_running(n) or spec.claimed or cm.state_of(n) == S.ACTIVE
            ]
            if ending:
                release(cm, ending)
        finally:
            if locked:
                cm.cycle_lock.release()
        self.final_write(loop_stuck=not loop_stopped)
        return loop_stopped

    def shutdown(self, stop_loop: Callable[[], bool] | None = None) -> None:
        """Stop the robot (`stop_robot`), then free everything: controllers unloaded, each
        hardware component deactivated and shut down in its own bounded wait. Every wait is
        bounded (LOCK_TIMEOUT_S for a lock or a transition, FINAL_WRITE_TIMEOUT_S,
        HARDWARE_SHUTDOWN_TIMEOUT_S): about 10 s at worst."""
        cm = self.cm
        admin = cm.admin_lock.acquire(timeout=LOCK_TIMEOUT_S)
        if not admin:
            cm.logger.error('shutdown: a service request is still under way; not waiting for it')
        try:
            loop_stopped = self.stop_robot(stop_loop)
            free = admin and loop_stopped and cm.cycle_lock.acquire(timeout=LOCK_TIMEOUT_S)
            if free:
                cm.cycle_lock.release()
                for name in list(cm.controllers):
                    self._unload_at_shutdown(name)
            if not self.transitions.wait_idle(LOCK_TIMEOUT_S):
                cm.logger.error(
                    f'shutdown: hardware still in transition: {self.transitions.busy()}'
                )
            rm = cm.rm
            results = run_each_bounded(
                {
                    name: (lambda m=m: rm.shutdown_component(m, HARDWARE_SHUTDOWN_TIMEOUT_S))
                    for name, m in rm.components.items()
                },
                HARDWARE_SHUTDOWN_TIMEOUT_S,
                'hw_shutdown',
            )
            for name, result in results.items():
                if isinstance(result, TimeoutError):
                    cm.logger.error(
                        f"shutdown: hardware '{name}' did not shut down within "
                        f'{HARDWARE_SHUTDOWN_TIMEOUT_S:g} s'
                    )
            self.transitions.close()
        finally:
            if admin:
                cm.admin_lock.release()
        cm.deferred.run_pending()

    def _unload_at_shutdown(self, name: str) -> None:
        """Unload `name`; one left ACTIVE by a failed on_deactivate is shut down first."""
        cm = self.cm
        ok, _ = cm.unload_controller(name)
        if not ok and name in cm.controllers and cm.state_of(name) == S.ACTIVE:
            cm.controllers[name].controller.get_node().trigger_shutdown()
            cm.unload_controller(name)
