"""Exceptions of the parameters package."""

from __future__ import annotations

from collections.abc import Sequence


class SchemaError(ValueError):
    """A parameter schema (generate_parameter_library YAML) is malformed.

    A programming error of the controller that ships the schema, so it is raised at load
    time and never turned into a configure failure.
    """


class ParameterError(ValueError):
    """Parameter values are missing, of the wrong type, or break a validation rule.

    ``problems`` holds one message per offending parameter, each naming the parameter and
    the rule; ``str()`` joins them with newlines.
    """

    def __init__(self, problems: str | Sequence[str]) -> None:
        self.problems: tuple[str, ...] = (
            (problems,) if isinstance(problems, str) else tuple(problems)
        )
        super().__init__('\n'.join(self.problems))
