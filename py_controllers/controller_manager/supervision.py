"""What the controller manager does when something fails, and on every way out.

- A controller whose update() fails is deactivated with every controller commanding it;
  its fallback controllers are activated, displacing the controllers that hold the command
  interfaces they need (as upstream).
- A hardware component whose read()/write() fails: the controllers using it are deactivated
  in the loop, at once; its on_error runs off the loop (it may do I/O), the component
  skipped meanwhile. write() asking to DEACTIVATE works the same way.
- Hardware lifecycle transitions requested over ROS run off the loop and outside the
  cycle lock (see `hardware_transitions.py`).
- Every way out (`stop_robot`, then `shutdown`): the loop stopped, every controller
  deactivated unconditionally (hold on release: `hardware_interface/hold.py`), one final
  write() delivers the holds to every component, then controllers are unloaded and the
  hardware is deactivated and shut down; every wait bounded.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import Future
from typing import TYPE_CHECKING

from rclpy.duration import Duration

from py_controllers.controller_manager.bounded import run_bounded
from py_controllers.controller_manager.hardware_transitions import (
    HardwareTransitions,
    TransitionBusyError,
)
from py_controllers.controller_manager.switch_plan import STRICT
from py_controllers.hardware_interface.types import LifecycleStateId

if TYPE_CHECKING:
    from py_controllers.controller_manager.manager_tables import ManagerTables

S = LifecycleStateId
LOCK_TIMEOUT_S = 2.0
FINAL_WRITE_TIMEOUT_S = 1.0
HARDWARE_SHUTDOWN_TIMEOUT_S = 6.0  # the resource manager bounds its own wait at 5 s


class Supervisor:
    """Failure handling, hardware transitions and shutdown for one ControllerManager."""

    def __init__(self, cm: ManagerTables) -> None:
        self.cm = cm
        self.transitions = HardwareTransitions(
            lambda: cm.rm, cm.cycle_lock, on_done=lambda _name: cm.notify_changed(), log=cm.log
        )

    # --- controllers -----------------------------------------------------------------
    def deactivate_after_error(self, names: Iterable[str], why: str) -> None:
        """Deactivate `names`, everything commanding them and everything holding interfaces
        their fallback controllers need; then activate those fallbacks."""
        cm = self.cm
        with cm.cycle_lock:
            todo = list(dict.fromkeys(names))
            fallbacks: list[str] = []
            for name in todo:
                for f in cm.controllers[name].fallback_controllers:
                    if f not in fallbacks and f in cm.controllers:
                        fallbacks.append(f)
            needed = self._interfaces_of(fallbacks)
            for spec in cm.active:
                displaced = needed.intersection(spec.claimed)
                if displaced and spec.name not in todo and spec.name not in fallbacks:
                    todo.append(spec.name)
            i = 0
            while i < len(todo):
                for p in cm.preceding(todo[i]):
                    if p not in todo and cm.state_of(p) == S.ACTIVE:
                        todo.append(p)
                i += 1
            for name in todo:
                cm.log('error', f"deactivating controller '{name}': {why}")
            cm.deactivate_unconditionally(todo)
            if fallbacks:
                ok, msg = cm.switch_locked(fallbacks, [], STRICT, LOCK_TIMEOUT_S)
                if ok:
                    cm.log('info', f'fallback controllers {fallbacks} activated')
                else:
                    cm.log('error', f'fallback controllers {fallbacks} not activated: {msg}')
            cm.notify_changed()

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
        """Active controllers claiming (or, unless commands_only, reading) `component`."""
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
            self.deactivate_after_error(users, f"hardware '{component}' failed in {where}()")
        self.cm.log('error', f"hardware '{component}' failed in {where}(): handling the error")
        self._start(component, lambda m: m.handle_error(), 'on_error')
        self.cm.notify_changed()

    def handle_hardware_self_deactivate(self, component: str) -> None:
        """write() returned DEACTIVATE: stop the controllers commanding it; the component
        goes to INACTIVE off the loop."""
        if self.cm.deactivate_on_hardware_self_deactivate:
            users = self.controllers_using(component, commands_only=True)
            if users:
                self.deactivate_after_error(users, f"hardware '{component}' deactivated itself")
        self._start(component, lambda m: m.set_state(S.INACTIVE), 'deactivate')
        self.cm.notify_changed()

    def _start(self, component: str, work: Callable, what: str) -> Future | None:
        try:
            return self.transitions.start(component, work, what)
        except TransitionBusyError:
            return None

    # --- hardware transitions requested over ROS --------------------------------------
    def request_hardware_state(
        self, component: str, target: LifecycleStateId
    ) -> Future[tuple[bool, LifecycleStateId | None]]:
        """Start driving `component` to `target`; the future has (ok, resulting state).
        Controllers that need what goes away are deactivated first (between two cycles)."""
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
            if target != S.ACTIVE:
                users = self.controllers_using(component, commands_only=target == S.INACTIVE)
                if users:
                    self.deactivate_after_error(
                        users, f"hardware '{component}' goes to {target.label}"
                    )
            inner = self._start(
                component, lambda m: m.set_state(target), f'transition to {target.label}'
            )
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
        (their threads stopped first), within `timeout_s`; the names that failed (or were
        still writing when the time ran out)."""
        cm = self.cm
        locked = not loop_stuck and cm.cycle_lock.acquire(timeout=LOCK_TIMEOUT_S)
        if not locked:
            cm.logger.error('final write without the cycle lock: the control cycle is stuck')
        current: list[str] = []
        try:
            now = cm.node.get_clock().now()
            period = Duration(nanoseconds=round(1e9 / cm.update_rate))
            done, result = run_bounded(
                lambda: cm.rm.final_write(now, period, timeout_s, progress=current),
                timeout_s,
                'final_write',
            )
        finally:
            if locked:
                cm.cycle_lock.release()
        if not done:
            where = current[-1] if current else '?'
            cm.logger.error(f"final write: hardware '{where}' still writing after {timeout_s:g} s")
            return [where]
        if isinstance(result, BaseException):
            cm.logger.error(f'final write failed: {result!r}')
            return list(cm.rm.components)
        failed = result
        for name in failed:
            cm.logger.error(f"hardware '{name}': the final write() failed")
        return failed

    def stop_robot(self, stop_loop: Callable[[], bool] | None = None) -> bool:
        """The safe stop, each step bounded: the loop stopped, every controller deactivated
        whatever the hardware says (its commands to their hold values, the hardware told
        through its command-mode switch), then one final write to every component. False
        when the loop is stuck inside a cycle (nothing waits for it then)."""
        cm = self.cm
        loop_stopped = stop_loop() if stop_loop is not None else True
        locked = loop_stopped and cm.cycle_lock.acquire(timeout=LOCK_TIMEOUT_S)
        if not locked:
            cm.logger.error('safe stop without the cycle lock: the control loop is stuck')
        try:
            active = [n for n in list(cm.controllers) if cm.state_of(n) == S.ACTIVE]
            if active:
                cm.deactivate_unconditionally(active)
        finally:
            if locked:
                cm.cycle_lock.release()
        self.final_write(loop_stuck=not loop_stopped)
        return loop_stopped

    def shutdown(self, stop_loop: Callable[[], bool] | None = None) -> None:
        """Stop the robot (`stop_robot`), then free everything: controllers unloaded, hardware
        deactivated and shut down. Every wait is bounded (LOCK_TIMEOUT_S for a lock or a
        transition, FINAL_WRITE_TIMEOUT_S, HARDWARE_SHUTDOWN_TIMEOUT_S): about 10 s at worst."""
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
                    cm.unload_controller(name)
            if not self.transitions.wait_idle(LOCK_TIMEOUT_S):
                cm.logger.error(
                    f'shutdown: hardware still in transition: {self.transitions.busy()}'
                )
            done, _ = run_bounded(cm.rm.shutdown, HARDWARE_SHUTDOWN_TIMEOUT_S, 'hw_shutdown')
            if not done:
                cm.logger.error(
                    f'shutdown: the hardware did not shut down within '
                    f'{HARDWARE_SHUTDOWN_TIMEOUT_S:g} s'
                )
            self.transitions.close()
        finally:
            if admin:
                cm.admin_lock.release()
        cm.deferred.run_pending()
