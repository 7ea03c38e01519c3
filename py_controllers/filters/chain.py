"""FilterChain: filters run one after the other, laid out by parameters as `filters` does.

The layout under a prefix (e.g. ``filter_chain``)::

    filter_chain.filter1.name: low_pass          # any name, unique in the chain
    filter_chain.filter1.type: control_filters/LowPassFilterDouble
    filter_chain.filter1.params.sampling_frequency: 100.0
    filter_chain.filter2.name: ...

Filters are read from ``filter1`` on until the first N with neither name nor type. The
parameters come through a getter (`name -> value or None`) so that a plain dict and a ROS
node's parameters are read the same way; `required_parameters()` tells a node which
names to declare for a filter type. A chain without filters passes its input through.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from py_controllers.filters.base import Filter, FilterConfigError, ParamSpec
from py_controllers.filters.exponential import ExponentialFilter
from py_controllers.filters.low_pass import LowPassFilter
from py_controllers.filters.mean import MeanFilter
from py_controllers.filters.rate_limiter import RateLimiterFilter

#: The filter types a chain of doubles can hold, by upstream's plugin names.
FILTER_TYPES: dict[str, type[Filter]] = {
    cls.TYPE: cls for cls in (MeanFilter, LowPassFilter, ExponentialFilter, RateLimiterFilter)
}

Getter = Callable[[str], Any]


def normalize_prefix(prefix: str) -> str:
    """`prefix` with a trailing dot, '' staying '' (filters' normalize_param_prefix)."""
    return prefix if not prefix or prefix.endswith('.') else prefix + '.'


def filter_class(type_name: str, where: str) -> type[Filter]:
    """The class of `type_name`; FilterConfigError naming the known types otherwise."""
    if type_name.count('/') != 1:
        raise FilterConfigError(f"{where}: '{type_name}' must be of form <package>/<filter>")
    cls = FILTER_TYPES.get(type_name)
    if cls is None:
        known = ', '.join(sorted(FILTER_TYPES))
        raise FilterConfigError(f"{where}: unknown filter type '{type_name}' (known: {known})")
    return cls


def required_parameters(type_name: str) -> tuple[ParamSpec, ...]:
    """The parameter specs of a filter type (FilterConfigError if unknown)."""
    return filter_class(type_name, 'filter').PARAMS


class FilterChain:
    """A configured sequence of filters on doubles."""

    def __init__(self, filters: list[Filter]) -> None:
        self.filters = filters

    @classmethod
    def from_parameters(cls, prefix: str, get: Getter) -> FilterChain:
        """Build the chain laid out under `prefix`, reading values through `get`.

        Raises FilterConfigError (naming the parameter) for a name without a type or the
        reverse, a non-string name or type, a repeated name, an unknown type, or a filter
        parameter that is missing or invalid.
        """
        base = normalize_prefix(prefix)
        filters: list[Filter] = []
        n = 1
        while True:
            key = f'{base}filter{n}'
            name, type_name = get(f'{key}.name'), get(f'{key}.type')
            if name is None and type_name is None:
                break
            if name is None or type_name is None:
                raise FilterConfigError(f'{key}.name and {key}.type are both required')
            for field, value in (('name', name), ('type', type_name)):
                if not isinstance(value, str):
                    raise FilterConfigError(f'{key}.{field} must be a string, got {value!r}')
            if any(f.name == name for f in filters):
                raise FilterConfigError(f"{key}: a filter named '{name}' is already in the chain")
            filter_type = filter_class(type_name, key)
            params = {}
            for spec in filter_type.PARAMS:
                value = get(f'{key}.params.{spec.name}')
                if value is not None:
                    params[spec.name] = value
            filters.append(filter_type(name, params))
            n += 1
        return cls(filters)

    @classmethod
    def from_dict(cls, prefix: str, values: Mapping[str, Any]) -> FilterChain:
        """Build from a flat `{'filter_chain.filter1.name': ..., ...}` mapping.

        A key under `prefix` that no filter reads (a typo, a filter number after a gap, a
        parameter the filter does not take) is an error.
        """
        read: set[str] = set()

        def get(name: str) -> Any:
            read.add(name)
            return values.get(name)

        chain = cls.from_parameters(prefix, get)
        base = normalize_prefix(prefix)
        unused = sorted(k for k in values if k.startswith(base) and k not in read)
        if unused:
            raise FilterConfigError(f'parameters not used by the filter chain: {", ".join(unused)}')
        return chain

    def update(self, value: float) -> float | None:
        """`value` through every filter in order; None as soon as one has no output."""
        for f in self.filters:
            value = f.update(value)
            if value is None:
                return None
        return value
