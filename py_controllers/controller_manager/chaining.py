"""Chained controllers: the update order and each chainable controller's chained mode.

A controller that claims another one's reference interfaces feeds it: it is updated first,
and the one it feeds is in chained mode (it takes its references from those interfaces, not
from its topics) exactly while one of its reference interfaces is claimed.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from py_controllers.controller_interface.chainable_controller import (
        ChainableControllerInterface,
    )
    from py_controllers.controller_manager.manager_tables import ManagerTables


def update_order(cm: ManagerTables) -> list[str]:
    """Loaded controllers, every controller before the ones it feeds (stable)."""
    names = list(cm.controllers)
    feeds = {n: set(cm.following(n)) for n in names}
    order: list[str] = []
    placed: set[str] = set()
    while len(order) < len(names):
        progress = False
        for n in names:
            # n can go once every controller feeding n is placed
            if n not in placed and all(p in placed for p in names if n in feeds[p]):
                order.append(n)
                placed.add(n)
                progress = True
        if not progress:  # a cycle: keep load order for the rest
            order += [n for n in names if n not in placed]
            break
    return order


def chain_followers(cm: ManagerTables, claimed: Iterable[str]) -> str:
    """Put the controllers whose references `claimed` holds into chained mode; the name of
    the first that refuses ('' if none). Upstream only logs a refusal and goes on with a
    chain that "will probably not work": here the activation fails (and is released)."""
    for follower in dict.fromkeys(filter(None, map(cm.exporter_of, claimed))):
        ctrl: ChainableControllerInterface = cm.controllers[follower].controller  # type: ignore[assignment]
        try:
            accepted = ctrl.set_chained_mode(True)
        except Exception as exc:
            cm.log('error', f"controller '{follower}': set_chained_mode raised {exc!r}")
            accepted = False
        if not accepted:
            cm.log('error', f"controller '{follower}' refused chained mode")
            return follower
    return ''


def update_chained_modes(cm: ManagerTables) -> None:
    """Each chainable controller in chained mode exactly while a reference of it is claimed
    (a refusal is logged: the manager's claims are what counts)."""
    claimed = cm.rm.claimed
    for spec in cm.controllers.values():
        if not spec.is_chainable:
            continue
        ctrl: ChainableControllerInterface = spec.controller  # type: ignore[assignment]
        chained = any(h.name in claimed for h in ctrl.reference_interfaces)
        try:
            accepted = ctrl.set_chained_mode(chained)
        except Exception as exc:
            cm.log('error', f"controller '{spec.name}': set_chained_mode raised {exc!r}")
            accepted = False
        if not accepted:
            cm.log('error', f"controller '{spec.name}' refused chained mode {chained}")
