"""Parameter schemas (generate_parameter_library YAML): parsing, types, maps, snapshots,
descriptors (the validators: test_parameter_validators.py)."""

import array
import math
from pathlib import Path

import pytest
from schema_samples import one_leaf

from py_controllers.parameters.errors import ParameterError, SchemaError
from py_controllers.parameters.schema import (
    ParamGroup,
    Schema,
    build_params,
    check_values,
    coerce,
    constraints_text,
    load_schema,
    validate,
    value_range,
)

REPO = Path(__file__).resolve().parents[2]

JTC_LIKE = """
joint_trajectory_controller:
  joints: {type: string_array, default_value: [], read_only: true,
           description: "Joint names", validation: {unique<>: null, size_gt<>: [0]}}
  interpolation_method:
    type: string
    default_value: splines
    validation:
      one_of<>: [["splines", "none"]]
  action_monitor_rate: {type: double, default_value: 20.0, read_only: true,
                        validation: {gt_eq: [0.1]}}
  gains:
    __map_joints:
      p: {type: double, default_value: 0.0, description: "Proportional gain"}
      i_clamp_max: {type: double, default_value: .inf}
  constraints:
    stopped_velocity_tolerance: {type: double, default_value: 0.01}
    goal_time: {type: double, default_value: 0.0, validation: {gt_eq: [0.0]}}
    __map_joints:
      trajectory: {type: double, default_value: 0.0}
      goal: {type: double, default_value: 0.0}
"""


# --- parsing ---------------------------------------------------------------------------------
def test_parse_namespace_groups_and_leaf_fields():
    schema = Schema.from_yaml(
        """
        my_controller:
          rate: {type: int, default_value: 100, read_only: true, description: "Hz",
                 additional_constraints: "{ type: 'number' }"}
          limits:
            velocity:
              max: {type: double, default_value: 1.5}
            enabled: {type: bool, default_value: true}
          note: {type: none, description: "documentation only"}
        """
    )
    assert schema.namespace == 'my_controller'
    specs = schema.static_parameters()
    assert [s.name for s in specs] == ['rate', 'limits.velocity.max', 'limits.enabled']
    rate = specs[0].leaf
    assert (rate.type, rate.default, rate.read_only, rate.description) == ('int', 100, True, 'Hz')
    assert rate.additional_constraints == "{ type: 'number' }"
    assert rate.has_default
    assert specs[1].leaf.default == 1.5
    assert not specs[1].leaf.read_only


def test_default_values_are_coerced_and_scientific_floats_parse():
    schema = Schema.from_yaml(
        """
        ns:
          a: {type: double, default_value: 1}
          b: {type: double, default_value: 1e-16}
          c: {type: double_array, default_value: [1, 2.5]}
          d: {type: string_array, default_value: []}
          e: {type: double, default_value: -.inf}
        """
    )
    defaults = {s.name: s.leaf.default for s in schema.static_parameters()}
    assert defaults['a'] == 1.0 and isinstance(defaults['a'], float)
    assert defaults['b'] == pytest.approx(1e-16, rel=1e-12)
    assert defaults['c'] == (1.0, 2.5)
    assert defaults['d'] == ()
    assert defaults['e'] == -math.inf


def test_parameter_without_default_is_required():
    schema = Schema.from_yaml('ns:\n  robot: {type: string}\n  k: {type: int, default_value: 1}')
    leaf = schema.static_parameters()[0].leaf
    assert not leaf.has_default
    assert leaf.default is None
    assert check_values(schema, {}) == [
        "Parameter 'robot' is required (it has no default_value) but was not set"
    ]
    assert check_values(schema, {'robot': 'r2'}) == []


def test_fixed_size_type_adds_size_lt():
    leaf = one_leaf('string_fixed_5', default_value='abc')
    assert (leaf.type, leaf.type_name) == ('string', 'string_fixed_5')
    assert validate(leaf, 'x', 'abcde') == ''
    assert (
        validate(leaf, 'x', 'abcdef') == "Length of parameter 'x' is '6' but must be less than '6'"
    )


@pytest.mark.parametrize(
    ('text', 'message'),
    [
        ('a: {type: int}\nb: {type: int}', 'exactly one root element'),
        ('ns:\n  x: {type: float}', "Invalid parameter type 'float' for parameter 'x'"),
        ('ns:\n  x: {type: int, min: 3}', "Invalid syntax in parameter 'x': 'min' is not valid"),
        ('ns:\n  x: {type: double, default_value: abc}', 'default_value of the wrong type'),
        ('ns:\n  x: {type: int, default_value: true}', 'expected int, got bool True'),
        ('ns:\n  x: {type: bool, read_only: 1}', "'read_only' of parameter 'x'"),
        ('ns:\n  x: {type: string, validation: {bounds<>: [0, 1]}}', "cannot check parameter 'x'"),
        ('ns:\n  x: {type: double, validation: {bounds<>: [0]}}', 'takes 2 argument(s), got 1'),
        ('ns:\n  x: {type: string, validation: {one_of<>: [a, b]}}', 'takes 1 argument(s)'),
        ('ns:\n  x: {type: string, validation: {one_of<>: [a]}}', 'expects list arguments'),
        ('ns:\n  x: {type: double, validation: {gt<>: [a]}}', 'expects number arguments'),
        (
            'ns:\n  g:\n    __map_joints:\n      p: {type: double}',
            "string_array parameter 'joints'",
        ),
        (
            'ns:\n  joints: {type: string}\n  g:\n    __map_joints:\n      p: {type: int}',
            "keyed by 'joints', which is of type string",
        ),
        ('ns:\n  x: 3', "Invalid syntax at 'x'"),
        ('ns:\n  x: {type: int\n', 'Invalid YAML'),
    ],
)
def test_schema_errors(text, message):
    with pytest.raises(SchemaError) as info:
        Schema.from_yaml(text)
    assert message in str(info.value)


def test_load_schema_names_the_file_and_caches(tmp_path):
    good = tmp_path / 'good.yaml'
    good.write_text('ns:\n  x: {type: int, default_value: 1}\n')
    assert load_schema(good) is load_schema(str(good))
    bad = tmp_path / 'bad.yaml'
    bad.write_text('ns:\n  x: {type: complex}\n')
    with pytest.raises(SchemaError, match=r'bad\.yaml: Invalid parameter type'):
        load_schema(bad)
    with pytest.raises(SchemaError, match='Cannot read parameter schema'):
        load_schema(tmp_path / 'missing.yaml')


def test_every_schema_shipped_in_the_repository_parses():
    files = sorted(REPO.glob('py_controllers/**/*.yaml')) + sorted(
        REPO.glob('examples/**/*_parameters.yaml')
    )
    assert files
    for path in files:
        schema = load_schema(path)
        assert schema.static_parameters(), path


# --- types -----------------------------------------------------------------------------------
def test_coerce_accepts_int_for_double_and_makes_arrays_tuples():
    assert coerce('double', 'x', 2) == 2.0
    assert isinstance(coerce('double', 'x', 2), float)
    assert coerce('double_array', 'x', [1, 2.5]) == (1.0, 2.5)
    assert coerce('double_array', 'x', array.array('d', [0.5])) == (0.5,)
    assert coerce('int_array', 'x', array.array('q', [3, 4])) == (3, 4)
    assert coerce('string_array', 'x', []) == ()
    assert coerce('bool_array', 'x', [True, False]) == (True, False)
    assert coerce('int', 'x', 7) == 7
    assert coerce('string', 'x', 'a') == 'a'


@pytest.mark.parametrize(
    ('type_', 'value', 'message'),
    [
        ('double', 'abc', "Wrong type for parameter 'x': expected double, got string 'abc'"),
        ('int', 1.5, "Wrong type for parameter 'x': expected int, got double 1.5"),
        ('int', True, "Wrong type for parameter 'x': expected int, got bool True"),
        ('bool', 1, "Wrong type for parameter 'x': expected bool, got int 1"),
        ('string', None, "Wrong type for parameter 'x': expected string, got nothing None"),
        ('string_array', 'ab', "Wrong type for parameter 'x': expected string_array, got string"),
        ('int_array', [1, 2.0], "Wrong type for parameter 'x': expected int_array, got array"),
        ('double', [1.0], "Wrong type for parameter 'x': expected double, got array [1.0]"),
    ],
)
def test_coerce_rejects_wrong_types(type_, value, message):
    with pytest.raises(ParameterError) as info:
        coerce(type_, 'x', value)
    assert str(info.value).startswith(message)


# --- maps, groups, snapshots -----------------------------------------------------------------
def test_map_parameters_follow_the_keys():
    schema = Schema.from_yaml(JTC_LIKE)
    assert [s.name for s in schema.static_parameters()] == [
        'joints',
        'interpolation_method',
        'action_monitor_rate',
        'constraints.stopped_velocity_tolerance',
        'constraints.goal_time',
    ]
    assert schema.key_parameters == {'joints'}
    assert schema.mapped_parameters({}) == []  # default joints: []
    mapped = schema.mapped_parameters({'joints': ('j1', 'j2')})
    assert [s.name for s in mapped] == [
        'gains.j1.p',
        'gains.j1.i_clamp_max',
        'gains.j2.p',
        'gains.j2.i_clamp_max',
        'constraints.j1.trajectory',
        'constraints.j1.goal',
        'constraints.j2.trajectory',
        'constraints.j2.goal',
    ]
    assert all(s.mapped for s in mapped)
    # a repeated key gives one entry
    assert len(schema.mapped_parameters({'joints': ('j1', 'j1')})) == 4


def test_snapshot_groups_maps_and_defaults():
    schema = Schema.from_yaml(JTC_LIKE)
    params = build_params(
        schema,
        {'joints': ('j1', 'j2'), 'gains.j1.p': 5.0, 'constraints.j2.goal': 0.05},
    )
    assert params.joints == ('j1', 'j2')
    assert params.interpolation_method == 'splines'
    assert params.constraints.goal_time == 0.0
    assert params.constraints.stopped_velocity_tolerance == 0.01
    assert params.gains['j1'].p == 5.0
    assert params.gains['j2'].p == 0.0
    assert params.gains['j2'].i_clamp_max == math.inf
    assert params.constraints['j2'].goal == 0.05
    assert params.constraints.joints_map['j1'].trajectory == 0.0
    assert params.gains.get_entry('j1') is params.gains['j1']
    assert list(params.gains) == ['j1', 'j2']
    assert len(params.gains) == 2
    assert 'j2' in params.gains and 'j3' not in params.gains
    assert [k for k, _ in params.gains.items()] == ['j1', 'j2']
    with pytest.raises(KeyError, match="no map entry 'j3'"):
        params.gains['j3']


def test_nested_maps_and_sibling_key_scope():
    schema = Schema.from_yaml(
        """
        ns:
          joints: {type: string_array, default_value: [a, b]}
          interfaces: {type: string_array, default_value: [position]}
          gain:
            __map_joints:
              __map_interfaces:
                value: {type: double, default_value: 1.0}
          nested_map:
            entries: {type: string_array, default_value: [e1]}
            __map_entries:
              value: {type: int, default_value: 2}
        """
    )
    names = [s.name for s in schema.mapped_parameters({})]
    assert names == [
        'gain.a.position.value',
        'gain.b.position.value',
        'nested_map.e1.value',
    ]
    assert schema.key_parameters == {'joints', 'interfaces', 'nested_map.entries'}
    params = build_params(schema, {'gain.b.position.value': 3.0})
    assert params.gain['a']['position'].value == 1.0
    assert params.gain['b']['position'].value == 3.0
    assert params.nested_map['e1'].value == 2
    assert params.nested_map.entries == ('e1',)


def test_snapshots_are_immutable():
    params = build_params(Schema.from_yaml(JTC_LIKE), {'joints': ('j1',)})
    with pytest.raises(AttributeError, match='read-only'):
        params.joints = ('x',)
    with pytest.raises(AttributeError, match='read-only'):
        params.constraints.goal_time = 1.0
    with pytest.raises(AttributeError, match='read-only'):
        del params.joints
    with pytest.raises(TypeError):
        params.gains.joints_map['j2'] = params.gains['j1']
    assert isinstance(params.joints, tuple)


def test_snapshot_truthiness_equality_and_repr():
    schema = Schema.from_yaml(JTC_LIKE)
    empty = build_params(schema, {})
    assert bool(empty) and bool(empty.gains)  # no entries, still a group
    assert len(empty.gains) == 0
    assert build_params(schema, {'joints': ('j1',)}) == build_params(schema, {'joints': ('j1',)})
    assert build_params(schema, {'joints': ('j1',)}) != empty
    assert repr(ParamGroup({'a': 1}, {'k': ParamGroup({'p': 0.5})}, 'keys')) == (
        "ParamGroup(a=1, entries={'k': ParamGroup(p=0.5)})"
    )


def test_check_values_covers_map_entries_and_names_the_parameter():
    schema = Schema.from_yaml(
        """
        ns:
          joints: {type: string_array, default_value: [], validation: {not_empty<>: null}}
          gains:
            __map_joints:
              p: {type: double, validation: {gt_eq<>: [0.0]}}
        """
    )
    assert check_values(schema, {}, prefix='ctl.', during_init=True) == [
        "Invalid value set during initialization for parameter 'ctl.joints': "
        "Parameter 'ctl.joints' cannot be empty"
    ]
    assert check_values(schema, {'joints': ('a', 'b'), 'gains.a.p': -1.0}) == [
        "Invalid value for parameter 'gains.a.p': "
        "Parameter 'gains.a.p' with the value '-1' must be greater than or equal to '0'",
        "Parameter 'gains.b.p' is required (it has no default_value) but was not set",
    ]


# --- descriptor helpers ----------------------------------------------------------------------
@pytest.mark.parametrize(
    ('type_', 'validation', 'expected'),
    [
        ('double', {'bounds<>': [0.0, 10.0]}, (0.0, 10.0)),
        ('double', {'gt_eq<>': [0.1]}, (0.1, math.inf)),
        ('int', {'lt<>': [5]}, (-math.inf, 5)),
        ('double', {'gt<>': [0.0], 'lt_eq<>': [2.0], 'bounds<>': [-1.0, 1.5]}, (0.0, 1.5)),
        ('double', {'one_of<>': [[1.0, 2.0]]}, None),
        ('double_array', {'element_bounds<>': [0.0, 1.0]}, None),
        ('string', None, None),
    ],
)
def test_value_range(type_, validation, expected):
    assert value_range(one_leaf(type_, validation)) == expected


def test_constraints_text_lists_the_rules_after_the_schema_text():
    leaf = one_leaf(
        'string_array',
        {'unique<>': None, 'subset_of<>': [['position', 'velocity']]},
        additional_constraints='see docs',
    )
    assert constraints_text(leaf) == (
        'see docs\nValidation: unique<>; subset_of<>: [["position", "velocity"]]'
    )
    assert constraints_text(one_leaf('bool')) == ''
