"""`chained_filter_controller/ChainedFilter`: state interfaces through filter chains, exported
as new state interfaces for other controllers.

Each input state interface (``input_interfaces``) goes through a filter chain every update;
the result is exported as ``<controller>/<output_interface>`` (the output at the same
index). The chains are laid out by parameters as ros/filters' FilterChain reads them
(py_controllers.filters): ``filter_chain.filterN.{name,type,params}`` for every input, or
``<input_interface>.filter_chain.filterN...`` per input when ``filter_chain`` is not set.

As upstream: the exported values are NaN from activation until the first finite input; a
non-finite input is not fed to the chain (the exported value keeps the last filtered one);
an input without any filter passes through unchanged.

Differences from upstream (ros2_controllers master):

* upstream uses per-input chains only with two inputs or more (one input always reads
  ``filter_chain``); here one input may have its own chain too.
* the filter parameters are declared read-only: changing them at run time is refused
  (upstream's control_filters re-read some of them each update). Reconfigure to change them.
* when a chain has no output (a filter refused its input) the exported value is kept;
  upstream writes its uninitialised output variable.
* filter types: filters/MeanFilterDouble and control_filters' LowPassFilterDouble,
  ExponentialFilterDouble and RateLimiterDouble (GravityCompensation filters wrenches,
  not doubles, so it cannot be in a chain of this controller).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from rcl_interfaces.msg import ParameterDescriptor

from py_controllers.controller_interface.chainable_controller import ChainableControllerInterface
from py_controllers.controller_interface.controller_interface import (
    CallbackReturn,
    InterfaceConfiguration,
    ReturnType,
)
from py_controllers.filters import FilterChain, FilterConfigError
from py_controllers.hardware_interface.handle import StateInterface
from py_controllers.hardware_interface.types import RETURN_OK
from py_controllers.parameters.controller_parameters import ControllerParameters

GLOBAL_CHAIN = 'filter_chain'


def node_parameter_getter(node: Any) -> Any:
    """A FilterChain getter reading `node`'s parameters: each name is declared read-only
    (dynamically typed, from the parameter file's value) on first use; None if unset."""

    def get(name: str) -> Any:
        if not node.has_parameter(name):
            descriptor = ParameterDescriptor(name=name, dynamic_typing=True, read_only=True)
            node.declare_parameter(name, None, descriptor)
        return node.get_parameter(name).value

    return get


def split_output(controller: str, output: str) -> tuple[str, str]:
    """(prefix, interface) of an exported interface: `wheel/filtered` of controller `cf`
    gives ('cf/wheel', 'filtered'); a name without '/' gives ('cf', name)."""
    head, slash, tail = output.rpartition('/')
    return (f'{controller}/{head}', tail) if slash else (controller, output)


class ChainedFilter(ChainableControllerInterface):
    """Filters state interfaces and exports the results as state interfaces."""

    SCHEMA = Path(__file__).parent / 'chained_filter_parameters.yaml'

    def on_init(self) -> CallbackReturn:
        self.parameters = ControllerParameters(self.get_node(), self.SCHEMA)
        self.inputs: list[str] = []
        self.outputs: list[str] = []
        self.chains: list[FilterChain] = []
        return CallbackReturn.SUCCESS

    def command_interface_configuration(self) -> InterfaceConfiguration:
        return InterfaceConfiguration.none()

    def state_interface_configuration(self) -> InterfaceConfiguration:
        return InterfaceConfiguration.individual(list(self.inputs))

    def on_configure(self, previous_state: Any) -> CallbackReturn:
        params = self.parameters.load()
        if params is None:
            return CallbackReturn.ERROR
        log = self.get_node().get_logger()
        inputs, outputs = list(params.input_interfaces), list(params.output_interfaces)
        if len(inputs) != len(outputs):
            log.error(
                f"'input_interfaces' ({len(inputs)}) and 'output_interfaces' ({len(outputs)}) "
                'must have the same size'
            )
            return CallbackReturn.FAILURE
        get = node_parameter_getter(self.get_node())
        shared = get(f'{GLOBAL_CHAIN}.filter1.name') is not None
        shared = shared or get(f'{GLOBAL_CHAIN}.filter1.type') is not None
        chains = []
        for name in inputs:
            prefix = GLOBAL_CHAIN if shared else f'{name}.{GLOBAL_CHAIN}'
            try:
                chain = FilterChain.from_parameters(prefix, get)
            except FilterConfigError as exc:
                log.error(f"filter chain for '{name}' ('{prefix}'): {exc}")
                return CallbackReturn.FAILURE
            if not chain.filters:
                log.warning(
                    f"no filters for '{name}' (neither '{prefix}' is set): it passes through"
                )
            chains.append(chain)
        self.inputs, self.outputs, self.chains = inputs, outputs, chains
        return CallbackReturn.SUCCESS

    def on_export_state_interfaces(self) -> list[StateInterface]:
        return [StateInterface(*split_output(self.name, out), math.nan) for out in self.outputs]

    def on_activate(self, previous_state: Any) -> CallbackReturn:
        self._states = list(self.state_interfaces)
        for handle in self.exported_state_interfaces:
            handle.value = math.nan
        return CallbackReturn.SUCCESS

    def update_and_write_commands(self, time: Any, period: Any) -> ReturnType:
        for state, chain, exported in zip(
            self._states, self.chains, self.exported_state_interfaces
        ):
            value = state.value
            if math.isfinite(value):
                filtered = chain.update(value)
                if filtered is not None:
                    exported.value = filtered
        return RETURN_OK
