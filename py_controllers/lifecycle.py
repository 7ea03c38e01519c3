"""The managed-node lifecycle of ROS 2 (rcl's default state machine), for controllers and
hardware components alike, without rclpy.

Each transition calls one hook of the owner with the state it leaves. SUCCESS moves on,
FAILURE stays where it was, ERROR (or a hook that raises, or returns something that is not
a result) runs on_error: SUCCESS there goes to UNCONFIGURED, anything else to FINALIZED.
Shutdown calls on_shutdown from any state but FINALIZED and ends FINALIZED unless it errs.

The one rule for return values, controllers and hardware alike, hooks and loop methods:
None means success (for update()/read()/write() with a warning, once, to return
ReturnType.OK explicitly). For hooks True is SUCCESS too, False is FAILURE, a
CallbackReturn (or rclpy's TransitionCallbackReturn) is itself; anything else (an int, a
ReturnType, a string) counts as ERROR, logged with what came back.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from py_controllers.hardware_interface.types import CallbackReturn, LifecycleStateId

S = LifecycleStateId
R = CallbackReturn

# (from, to) -> the hook of that single transition.
TRANSITIONS = {
    (S.UNCONFIGURED, S.INACTIVE): 'on_configure',
    (S.INACTIVE, S.ACTIVE): 'on_activate',
    (S.ACTIVE, S.INACTIVE): 'on_deactivate',
    (S.INACTIVE, S.UNCONFIGURED): 'on_cleanup',
}
_ORDER = (S.UNCONFIGURED, S.INACTIVE, S.ACTIVE)
# rclpy's TransitionCallbackReturn values (lifecycle_msgs/Transition callback codes)
_RCLPY_RESULTS = {97: R.SUCCESS, 98: R.FAILURE, 99: R.ERROR}


def as_callback_return(result: Any) -> CallbackReturn | None:
    """The CallbackReturn `result` stands for, or None when it stands for nothing: only
    None, True, False, a CallbackReturn and rclpy's TransitionCallbackReturn count. A bare
    int or another enum (`ReturnType.ERROR`, whose value is FAILURE's) is nonsense: ERROR."""
    if result is None or result is True:
        return R.SUCCESS
    if result is False:
        return R.FAILURE
    if type(result) is R:
        return result
    kind = type(result)
    if kind.__name__.startswith('TransitionCallbackReturn') and kind.__module__.startswith('rclpy'):
        return _RCLPY_RESULTS.get(getattr(result, 'value', None))
    return None


class LifecycleMachine:
    """The lifecycle state of one owner, driven through its hooks (user code, contained)."""

    def __init__(self, hooks: Callable[[str, LifecycleStateId], Any], name: str, log: Any) -> None:
        """`hooks(hook_name, previous_state)` runs the owner's hook; `log(level, text)`."""
        self._hooks = hooks
        self.name = name
        self._log = log
        self.state = S.UNCONFIGURED

    def call(self, hook: str) -> CallbackReturn:
        """Run `hook` with the current state; exceptions and nonsense count as ERROR."""
        try:
            result = self._hooks(hook, self.state)
        except Exception as exc:
            self._log('error', f'{self.name}: {hook} raised {exc!r}')
            return R.ERROR
        known = as_callback_return(result)
        if known is None:
            self._log('error', f'{self.name}: {hook} returned {result!r}: taken as ERROR')
            return R.ERROR
        return known

    def transition(self, target: LifecycleStateId) -> CallbackReturn:
        """One step to the neighbouring primary state `target` (ValueError if it is not one)."""
        hook = TRANSITIONS.get((self.state, target))
        if hook is None:
            where = f'from {self.state.label} to {target.label}'
            raise ValueError(f'{self.name}: no transition {where}')
        result = self.call(hook)
        if result == R.SUCCESS:
            self.state = target
        elif result == R.ERROR:
            self._log('error', f'{self.name}: {hook} failed with ERROR')
            self.handle_error()
        else:
            self._log('warning', f'{self.name}: {hook} refused (FAILURE)')
        return result

    def handle_error(self) -> LifecycleStateId:
        """Run on_error: recovered (SUCCESS) goes to UNCONFIGURED, otherwise FINALIZED."""
        ok = self.call('on_error') == R.SUCCESS
        self.state = S.UNCONFIGURED if ok else S.FINALIZED
        return self.state

    def shutdown(self) -> LifecycleStateId:
        """on_shutdown from any state but FINALIZED; FINALIZED unless it errs."""
        if self.state == S.FINALIZED:
            return self.state
        if self.call('on_shutdown') == R.ERROR:
            return self.handle_error()
        self.state = S.FINALIZED
        return self.state

    def set_state(self, target: LifecycleStateId) -> bool:
        """Walk the transitions to `target`, stopping at the first that does not succeed;
        FINALIZED deactivates first, then shuts down."""
        if target == self.state:
            return True
        if self.state == S.FINALIZED:
            return False
        if target == S.FINALIZED:
            if self.state == S.ACTIVE and self.transition(S.INACTIVE) != R.SUCCESS:
                return False
            return self.shutdown() == S.FINALIZED
        if target not in _ORDER:
            return False
        while self.state != target:
            here, there = _ORDER.index(self.state), _ORDER.index(target)
            step = _ORDER[here + (1 if there > here else -1)]
            if self.transition(step) != R.SUCCESS:
                return False
        return True
