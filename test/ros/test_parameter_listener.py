"""ParamListener on real rclpy nodes: declaration, descriptors, maps, set requests, errors."""

import math
import os

import pytest
import rclpy
from rclpy.context import Context
from rclpy.executors import SingleThreadedExecutor
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.parameter_client import AsyncParameterClient

from py_controllers.parameters.controller_parameters import ControllerParameters
from py_controllers.parameters.errors import ParameterError, SchemaError
from py_controllers.parameters.listener import ParamListener
from py_controllers.parameters.schema import Schema

# This module's own ROS domain (outside conftest's per-process range 1..200, one per session's
# domain so that two suites at once stay apart); passed to rclpy.init so that the rest of
# the test session keeps its own domain.
DOMAIN_ID = 215 + int(os.environ.get('ROS_DOMAIN_ID', '0')) % 18
os.environ['ROS_AUTOMATIC_DISCOVERY_RANGE'] = 'LOCALHOST'
INT64_MAX = 2**63 - 1

SCHEMA = """
test_controller:
  joints:
    type: string_array
    default_value: []
    description: "Joints to control"
    read_only: true
    validation:
      not_empty<>: null
      unique<>: null
  mode:
    type: string
    default_value: "position"
    description: "Command mode"
    validation:
      one_of<>: [["position", "velocity"]]
  gain:
    type: double
    default_value: 1.0
    description: "Overall gain"
    validation:
      bounds<>: [0.0, 10.0]
  rate:
    type: int
    default_value: 50
    read_only: true
    additional_constraints: "Hz"
    validation:
      gt<>: [0]
  names:
    type: string_array
    default_value: []
  limits:
    max_velocity:
      type: double
      default_value: 2.0
      validation:
        gt<>: [0.0]
  gains:
    __map_joints:
      p:
        type: double
        default_value: 0.0
        description: "Proportional gain"
        validation:
          gt_eq<>: [0.0]
"""


@pytest.fixture
def schema_path(tmp_path):
    path = tmp_path / 'test_controller_parameters.yaml'
    path.write_text(SCHEMA)
    return path


@pytest.fixture
def make_node():
    """make_node(*overrides, auto=False): a node in its own context with `-p` overrides."""
    made = []

    def make(*overrides, auto=False, name='param_listener_test'):
        context = Context()
        args = ['--ros-args']
        for override in overrides:
            args += ['-p', override]
        rclpy.init(context=context, args=args, domain_id=DOMAIN_ID)
        node = Node(name, context=context, automatically_declare_parameters_from_overrides=auto)
        made.append((context, node))
        return node

    yield make
    for context, node in made:
        node.destroy_node()
        rclpy.shutdown(context=context)


def set_one(node, name, value):
    """Set one parameter as `ros2 param set` would (the value's own type); the result."""
    return node.set_parameters([Parameter(name, value=value)])[0]


@pytest.mark.parametrize('auto_declare', [False, True], ids=['declared', 'auto-declared'])
def test_values_from_overrides_and_defaults(make_node, schema_path, auto_declare):
    node = make_node('joints:=[a, b]', 'gain:=2', 'gains.a.p:=5.0', auto=auto_declare)
    params = ParamListener(node, schema_path).get_params()
    assert params.joints == ('a', 'b')
    assert params.gain == 2.0  # an int override for a double
    assert params.mode == 'position'
    assert params.rate == 50
    assert params.names == ()
    assert params.limits.max_velocity == 2.0
    assert params.gains['a'].p == 5.0
    assert params.gains['b'].p == 0.0
    gain = node.get_parameter('gain')
    assert (gain.type_, gain.value) == (Parameter.Type.DOUBLE, 2.0)
    names = node.get_parameter('names')
    assert (names.type_, list(names.value)) == (Parameter.Type.STRING_ARRAY, [])
    assert node.get_parameter('gains.b.p').value == 0.0


@pytest.mark.parametrize('auto_declare', [False, True], ids=['declared', 'auto-declared'])
def test_descriptors(make_node, schema_path, auto_declare):
    node = make_node('joints:=[a]', 'gain:=2.0', auto=auto_declare)
    ParamListener(node, schema_path)
    joints = node.describe_parameter('joints')
    assert joints.read_only
    assert joints.description == 'Joints to control'
    assert joints.additional_constraints == 'Validation: not_empty<>; unique<>'
    assert joints.type == Parameter.Type.STRING_ARRAY.value
    gain = node.describe_parameter('gain')
    assert not gain.read_only
    assert gain.description == 'Overall gain'
    assert [(r.from_value, r.to_value) for r in gain.floating_point_range] == [(0.0, 10.0)]
    rate = node.describe_parameter('rate')
    assert rate.read_only
    assert rate.additional_constraints == 'Hz\nValidation: gt<>: [0]'
    assert [(r.from_value, r.to_value) for r in rate.integer_range] == [(0, INT64_MAX)]
    velocity = node.describe_parameter('limits.max_velocity')
    assert [(r.from_value, r.to_value) for r in velocity.floating_point_range] == [(0.0, math.inf)]
    assert node.describe_parameter('gains.a.p').description == 'Proportional gain'


def test_rejected_sets_leave_the_snapshot_alone(make_node, schema_path):
    node = make_node('joints:=[a]')
    listener = ParamListener(node, schema_path)
    params = listener.get_params()

    result = set_one(node, 'mode', 'torque')
    assert not result.successful
    assert result.reason == (
        "Parameter 'mode' with the value 'torque' is not in the set '{position, velocity}'"
    )
    result = set_one(node, 'limits.max_velocity', 0.0)  # inside the range, breaks gt
    assert not result.successful
    assert result.reason == (
        "Parameter 'limits.max_velocity' with the value '0' must be greater than '0'"
    )
    # the descriptor ranges are checked by rclpy before any callback, as rclcpp does
    assert set_one(node, 'gain', 20.0).reason == (
        'Parameter gain out of range Min: 0.0, Max: 10.0, value: 20.0'
    )
    assert 'out of range' in set_one(node, 'gains.a.p', -0.5).reason
    assert 'read-only' in set_one(node, 'joints', ['b']).reason
    assert 'Wrong parameter type' in set_one(node, 'gain', 'high').reason

    assert not listener.is_old(params)
    assert listener.get_params() is params
    assert node.get_parameter('mode').value == 'position'


def test_accepted_set_swaps_in_a_new_snapshot(make_node, schema_path):
    node = make_node('joints:=[a, b]', 'gain:=2.0')
    listener = ParamListener(node, schema_path)
    old = listener.get_params()

    result = node.set_parameters_atomically(
        [Parameter('gain', value=3), Parameter('gains.b.p', value=1.5)]
    )
    assert result.successful
    assert listener.is_old(old)
    new = listener.get_params()
    assert not listener.is_old(new)
    assert listener.try_get_params() is new
    assert new.gain == 3.0
    assert new.gains['b'].p == 1.5
    assert new.gains['a'].p == 0.0
    assert node.get_parameter('gain').type_ == Parameter.Type.DOUBLE
    assert (old.gain, old.gains['b'].p) == (2.0, 0.0)  # the old snapshot never changes

    assert set_one(node, 'mode', 'velocity').successful
    assert listener.get_params().mode == 'velocity'
    assert listener.get_params().gain == 3.0


class _Logger:
    def __init__(self):
        self.errors = []

    def error(self, text):
        self.errors.append(text)


def test_controller_parameters_hand_each_accepted_snapshot_to_the_loop_once(make_node, schema_path):
    """The shared runtime mechanism: load() at configure, try_update_rt() in the loop."""
    node = make_node('joints:=[a]')
    parameters = ControllerParameters(node, schema_path)
    configured = parameters.load()
    assert configured is not None and parameters.params is configured
    assert parameters.try_update_rt() is None  # nothing new since configure

    assert set_one(node, 'gain', 2.0).successful
    assert parameters.latest().gain == 2.0  # callbacks see it at once ...
    assert parameters.params is configured  # ... the loop at its next try_update_rt()
    new = parameters.try_update_rt()
    assert new is not None and new.gain == 2.0
    assert parameters.params is new
    assert parameters.try_update_rt() is None  # once

    # refused sets (a rule, a read-only parameter) give the loop nothing
    assert not set_one(node, 'mode', 'torque').successful
    assert not set_one(node, 'rate', 10).successful
    assert parameters.try_update_rt() is None
    assert (parameters.params.mode, parameters.params.rate) == ('position', 50)

    # two sets between cycles: one snapshot with both
    assert set_one(node, 'mode', 'velocity').successful
    assert set_one(node, 'gain', 3.0).successful
    newest = parameters.try_update_rt()
    assert (newest.mode, newest.gain) == ('velocity', 3.0)
    assert parameters.try_update_rt() is None

    # a configure takes what was set before it: the loop is not told again
    assert set_one(node, 'gain', 4.0).successful
    assert parameters.load().gain == 4.0
    assert parameters.try_update_rt() is None


def test_controller_parameters_load_logs_and_returns_none_when_invalid(make_node, schema_path):
    node = make_node()  # joints left empty: not_empty<> fails
    logger = _Logger()
    node.get_logger = lambda: logger
    parameters = ControllerParameters(node, schema_path)
    assert parameters.load() is None
    assert parameters.params is None
    assert "Parameter 'joints' cannot be empty" in logger.errors[0]


def test_an_out_of_bounds_override_is_not_replaced_by_the_default(make_node, schema_path):
    # a refused value leaves the parameter declared unset; the listener made again by load()
    # must not take that for "not given" and fall back to the default (gain 1.0)
    node = make_node('joints:=[j1]', 'gain:=42.0')
    logger = _Logger()
    node.get_logger = lambda: logger
    parameters = ControllerParameters(node, schema_path)
    assert parameters.load() is None
    assert parameters.params is None
    assert "'gain'" in logger.errors[0] and 'bounds' in logger.errors[0], logger.errors


def test_parameter_services_show_descriptors_and_apply_sets(make_node, schema_path):
    node = make_node('joints:=[a]', name='param_listener_target')
    listener = ParamListener(node, schema_path)
    tool = Node('param_listener_tool', context=node.context)
    executor = SingleThreadedExecutor(context=node.context)
    executor.add_node(node)
    executor.add_node(tool)
    try:
        client = AsyncParameterClient(tool, 'param_listener_target')
        assert client.wait_for_services(timeout_sec=20.0)

        future = client.describe_parameters(['gain', 'joints'])
        executor.spin_until_future_complete(future, timeout_sec=20.0)
        gain, joints = future.result().descriptors
        assert [(r.from_value, r.to_value) for r in gain.floating_point_range] == [(0.0, 10.0)]
        assert joints.read_only

        # `ros2 param set /param_listener_target gain 4` sends an integer
        future = client.set_parameters(
            [Parameter('gain', value=4), Parameter('mode', value='torque')]
        )
        executor.spin_until_future_complete(future, timeout_sec=20.0)
        accepted, rejected = future.result().results
        assert accepted.successful
        assert not rejected.successful
        assert rejected.reason == (
            "Parameter 'mode' with the value 'torque' is not in the set '{position, velocity}'"
        )
        assert listener.get_params().gain == 4.0
        assert listener.get_params().mode == 'position'
    finally:
        executor.shutdown()
        tool.destroy_node()


def test_missing_required_parameter_raises(make_node, tmp_path):
    path = tmp_path / 'required.yaml'
    path.write_text('ctl:\n  robot: {type: string, description: "Robot name"}\n')
    node = make_node()
    with pytest.raises(ParameterError) as info:
        ParamListener(node, path)
    assert str(info.value) == (
        "Parameter 'robot' is required (it has no default_value) but was not set"
    )
    # declared all the same, typed and unset, as upstream does
    assert node.has_parameter('robot')
    assert node.describe_parameter('robot').type == Parameter.Type.STRING.value

    node = make_node('robot:=r2d2')
    assert ParamListener(node, path).get_params().robot == 'r2d2'


def test_invalid_initial_values_raise_naming_every_parameter(make_node, schema_path):
    node = make_node('joints:=[a, a]', 'mode:=torque', 'rate:=fast')
    with pytest.raises(ParameterError) as info:
        ParamListener(node, schema_path)
    assert info.value.problems == (
        "Invalid value set during initialization for parameter 'joints': "
        "Parameter 'joints' must only contain unique values",
        "Invalid value set during initialization for parameter 'mode': "
        "Parameter 'mode' with the value 'torque' is not in the set '{position, velocity}'",
        "Wrong type for parameter 'rate': expected int, got string 'fast'",
    )


def test_empty_joints_fail_validation(make_node, schema_path):
    with pytest.raises(ParameterError) as info:
        ParamListener(make_node(), schema_path)
    assert str(info.value) == (
        "Invalid value set during initialization for parameter 'joints': "
        "Parameter 'joints' cannot be empty"
    )


def test_refresh_follows_dynamic_map_keys(make_node, tmp_path):
    path = tmp_path / 'dynamic.yaml'
    path.write_text(
        """
        ctl:
          names: {type: string_array, default_value: []}
          weights:
            __map_names:
              w: {type: double, default_value: 1.0}
          offsets:
            __map_names:
              o: {type: double}
        """
    )
    node = make_node('weights.y.w:=2.5', 'offsets.y.o:=0.25')
    listener = ParamListener(node, path)
    assert len(listener.get_params().weights) == 0

    assert set_one(node, 'names', ['x', 'y']).successful
    params = listener.get_params()
    assert list(params.weights) == ['x', 'y']
    assert params.weights['y'].w == 1.0  # not declared yet: the default
    assert not node.has_parameter('weights.x.w')

    with pytest.raises(ParameterError) as info:
        listener.refresh_dynamic_parameters()
    assert info.value.problems == (
        "Parameter 'offsets.x.o' is required (it has no default_value) but was not set",
    )
    params = listener.get_params()
    assert node.get_parameter('weights.x.w').value == 1.0
    assert params.weights['y'].w == 2.5  # from the override
    assert params.offsets['y'].o == 0.25
    assert params.offsets['x'].o is None
    with pytest.raises(ParameterError, match=r"'offsets\.x\.o' is required"):
        listener.validate_all()

    assert set_one(node, 'offsets.x.o', -1).successful
    listener.validate_all()
    assert listener.get_params().offsets['x'].o == -1.0

    assert set_one(node, 'names', ['y']).successful
    listener.refresh_dynamic_parameters()
    assert not node.has_parameter('weights.x.w')
    assert not node.has_parameter('offsets.x.o')
    assert list(listener.get_params().offsets) == ['y']


def test_prefix_and_custom_validators(make_node, tmp_path):
    path = tmp_path / 'custom.yaml'
    path.write_text(
        'ctl:\n  count: {type: int, default_value: 2, validation: {"ctl::even": null}}\n'
    )

    def even(param):
        return '' if param.value % 2 == 0 else f"'{param.name}' must be even, got {param.value}"

    node = make_node('arm.count:=4')
    with pytest.raises(SchemaError, match="Unknown validator 'ctl::even'"):
        ParamListener(node, path, prefix='arm')
    listener = ParamListener(node, path, prefix='arm', custom_validators={'even': even})
    assert listener.get_params().count == 4
    assert not node.has_parameter('count')
    result = set_one(node, 'arm.count', 3)
    assert (result.successful, result.reason) == (False, "'arm.count' must be even, got 3")
    assert set_one(node, 'arm.count', 6).successful
    assert listener.get_params().count == 6


def test_close_stops_following_the_node(make_node, schema_path):
    node = make_node('joints:=[a]')
    listener = ParamListener(node, Schema.from_yaml(SCHEMA))
    params = listener.get_params()
    listener.close()
    listener.close()  # twice is fine
    assert set_one(node, 'mode', 'torque').successful  # nobody validates any more
    assert listener.get_params() is params


def test_empty_arrays_keep_their_type_and_read_only_flag(make_node, schema_path):
    node = make_node('names:=[]')  # given, untyped; `joints` takes its default []
    with pytest.raises(ParameterError):  # joints: [] breaks not_empty, declared all the same
        ParamListener(node, schema_path)
    string_array = Parameter.Type.STRING_ARRAY
    for name, read_only in (('joints', True), ('names', False)):
        parameter, descriptor = node.get_parameter(name), node.describe_parameter(name)
        assert (parameter.type_, list(parameter.value)) == (string_array, [])
        assert (descriptor.type, descriptor.read_only) == (string_array.value, read_only)
    assert not node.set_parameters([Parameter('joints', string_array, ['a'])])[0].successful
    assert node.set_parameters([Parameter('names', string_array, ['a'])])[0].successful
