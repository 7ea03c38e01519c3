"""Callbacks that never take the executor down and never leave a client waiting.

A ROS callback that raises ends up in the executor: in a plain `rclpy.spin` that ends the
spin, and a service client waits for an answer that never comes. `answering` wraps a
service callback so it always answers; `guarded` wraps a subscription or timer callback
so a bad message is logged (throttled) and dropped.
"""

from __future__ import annotations

import functools
import inspect
import math
import time
from collections.abc import Callable
from typing import Any


def answering(callback: Callable[[Any, Any], Any], logger: Any) -> Callable[[Any, Any], Any]:
    """`callback` for a service that answers even when it raises: the failure is logged and
    the response goes back with `ok`/`success` false and the error in `message`."""

    def fail(response: Any, exc: Exception) -> Any:
        logger.error(f'{getattr(callback, "__name__", "service")} failed: {exc!r}')
        for flag in ('ok', 'success'):
            if hasattr(response, flag):
                setattr(response, flag, False)
        if hasattr(response, 'message'):
            response.message = f'internal error: {exc!r}'
        return response

    if inspect.iscoroutinefunction(callback):

        @functools.wraps(callback)
        async def guarded_async(request: Any, response: Any) -> Any:
            try:
                return await callback(request, response)
            except Exception as exc:
                return fail(response, exc)

        return guarded_async

    @functools.wraps(callback)
    def guarded_sync(request: Any, response: Any) -> Any:
        try:
            return callback(request, response)
        except Exception as exc:
            return fail(response, exc)

    return guarded_sync


def guarded(
    callback: Callable[..., Any], logger: Any, what: str = '', *, every_s: float = 1.0
) -> Callable[..., Any]:
    """`callback` that logs what it raised instead of raising: at most once per `every_s`
    for this callback, with the count of the failures not logged in between."""
    name = what or getattr(callback, '__name__', 'callback')
    state = {'last': -math.inf, 'quiet': 0}

    @functools.wraps(callback)
    def wrapper(*args: Any) -> Any:
        try:
            return callback(*args)
        except Exception as exc:
            now = time.monotonic()
            if now - state['last'] < every_s:
                state['quiet'] += 1
                return None
            more = f' ({state["quiet"]} more since the last report)' if state['quiet'] else ''
            state['last'], state['quiet'] = now, 0
            logger.error(f'{name} failed: {exc!r}{more}')
            return None

    return wrapper


def refusing(callback: Callable[..., Any], logger: Any, refusal: Any) -> Callable[..., Any]:
    """`callback` that answers `refusal` (e.g. GoalResponse.REJECT) when it raises."""

    @functools.wraps(callback)
    def wrapper(*args: Any) -> Any:
        try:
            return callback(*args)
        except Exception as exc:
            logger.error(f'{getattr(callback, "__name__", "callback")} failed: {exc!r}')
            return refusal

    return wrapper
