"""The one rule for a lifecycle hook's result: None/True SUCCESS, False FAILURE, a
CallbackReturn or rclpy's TransitionCallbackReturn itself; anything else ERROR (so
on_error runs). A bare int or another enum was taken by its value before:
`ReturnType.ERROR` (1) from on_activate counted as FAILURE and on_error never ran."""

import pytest
from rclpy.lifecycle import TransitionCallbackReturn

from py_controllers.hardware_interface.types import CallbackReturn as R
from py_controllers.hardware_interface.types import LifecycleStateId as S
from py_controllers.hardware_interface.types import ReturnType
from py_controllers.lifecycle import LifecycleMachine, as_callback_return


@pytest.mark.parametrize(
    ('result', 'meaning'),
    [
        (None, R.SUCCESS),
        (True, R.SUCCESS),
        (False, R.FAILURE),
        (R.SUCCESS, R.SUCCESS),
        (R.FAILURE, R.FAILURE),
        (R.ERROR, R.ERROR),
        (TransitionCallbackReturn.SUCCESS, R.SUCCESS),
        (TransitionCallbackReturn.FAILURE, R.FAILURE),
        (TransitionCallbackReturn.ERROR, R.ERROR),
        (0, None),
        (1, None),
        (2, None),
        (ReturnType.OK, None),
        (ReturnType.ERROR, None),
        ('SUCCESS', None),
        (1.0, None),
    ],
)
def test_only_the_documented_results_mean_something(result, meaning):
    assert as_callback_return(result) is meaning


def test_returntype_error_from_on_activate_runs_on_error():
    calls = []

    def hooks(hook, previous):
        calls.append(hook)
        return ReturnType.ERROR if hook == 'on_activate' else R.SUCCESS

    machine = LifecycleMachine(hooks, 'controller x', lambda level, text: None)
    assert machine.set_state(S.INACTIVE)
    assert machine.transition(S.ACTIVE) == R.ERROR
    assert calls == ['on_configure', 'on_activate', 'on_error']
    assert machine.state == S.UNCONFIGURED  # on_error recovered
