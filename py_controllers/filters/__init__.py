"""Filter chains on doubles (ros/filters' FilterChain and control_toolbox's control_filters),
in plain Python without rclpy: used by chained_filter_controller/ChainedFilter."""

from py_controllers.filters.base import Filter, FilterConfigError, ParamSpec
from py_controllers.filters.chain import FILTER_TYPES, FilterChain, required_parameters

__all__ = [
    'FILTER_TYPES',
    'Filter',
    'FilterChain',
    'FilterConfigError',
    'ParamSpec',
    'required_parameters',
]
