"""The demos' on_init checks of a joint's interfaces, with upstream's FATAL wording."""

from __future__ import annotations

from typing import Any


def exact_interfaces(joint: Any, commands: list[str], states: list[str]) -> str:
    """Why `joint` does not have exactly `commands` and `states` (in that order), in the
    words of the demos' on_init; '' when it does."""
    name = joint.name
    got_commands = [itf.name for itf in joint.command_interfaces]
    got_states = [itf.name for itf in joint.state_interfaces]
    if len(got_commands) != len(commands):
        return (
            f"Joint '{name}' has {len(got_commands)} command interfaces found. "
            f'{len(commands)} expected.'
        )
    for got, want in zip(got_commands, commands):
        if got != want:
            return f"Joint '{name}' have {got} command interfaces found. '{want}' expected."
    if len(got_states) != len(states):
        return f"Joint '{name}' has {len(got_states)} state interface. {len(states)} expected."
    for got, want in zip(got_states, states):
        if got != want:
            return f"Joint '{name}' have {got} state interface. '{want}' expected."
    return ''
