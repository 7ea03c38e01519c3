"""Parameter validators of generate_parameter_library schemas: every built-in one with a good
and a bad value and upstream's message, their spellings and order, custom validators."""

import pytest
from schema_samples import one_leaf

from py_controllers.parameters.errors import SchemaError
from py_controllers.parameters.schema import BUILTIN_VALIDATORS, Schema, coerce, validate

VALIDATOR_CASES = [
    # (type, validator, args, valid value, invalid value, message for the invalid value)
    (
        'double',
        'gt<>',
        [0.0],
        0.5,
        0.0,
        "Parameter 'x' with the value '0' must be greater than '0'",
    ),
    (
        'double',
        'gt_eq<>',
        [0.1],
        0.1,
        0.05,
        "Parameter 'x' with the value '0.05' must be greater than or equal to '0.1'",
    ),
    ('int', 'lt<>', [10], 9, 10, "Parameter 'x' with the value '10' must be less than '10'"),
    (
        'double',
        'lt_eq<>',
        [1.5],
        1.5,
        2.0,
        "Parameter 'x' with the value '2' must be less than or equal to '1.5'",
    ),
    (
        'double',
        'lower_bounds<>',
        [-1.0],
        -1.0,
        -1.5,
        "Parameter 'x' with the value '-1.5' must be above lower bound of '-1'",
    ),
    (
        'int',
        'upper_bounds<>',
        [5],
        5,
        6,
        "Parameter 'x' with the value '6' must be below upper bound of '5'",
    ),
    (
        'double',
        'bounds<>',
        [0.0, 1.0],
        1.0,
        1.25,
        "Parameter 'x' with the value '1.25' must be within bounds '[0, 1]'",
    ),
    (
        'string',
        'one_of<>',
        [['splines', 'none']],
        'none',
        'cubic',
        "Parameter 'x' with the value 'cubic' is not in the set '{splines, none}'",
    ),
    (
        'int',
        'one_of<>',
        [[1, 2]],
        2,
        3,
        "Parameter 'x' with the value '3' is not in the set '{1, 2}'",
    ),
    ('string_array', 'not_empty<>', None, ['a'], [], "Parameter 'x' cannot be empty"),
    ('string', 'not_empty<>', [], 'a', '', "Parameter 'x' cannot be empty"),
    (
        'string_array',
        'unique<>',
        None,
        ['a', 'b'],
        ['a', 'a'],
        "Parameter 'x' must only contain unique values",
    ),
    (
        'string_array',
        'size_gt<>',
        [0],
        ['a'],
        [],
        "Length of parameter 'x' is '0' but must be greater than '0'",
    ),
    (
        'string_array',
        'size_lt<>',
        [3],
        ['a', 'b'],
        ['a', 'b', 'c'],
        "Length of parameter 'x' is '3' but must be less than '3'",
    ),
    (
        'double_array',
        'fixed_size<>',
        [2],
        [1.0, 2.0],
        [1.0],
        "Length of parameter 'x' is '1' but must be equal to '2'",
    ),
    (
        'string',
        'fixed_size<>',
        2,
        'ab',
        'abc',
        "Length of parameter 'x' is '3' but must be equal to '2'",
    ),
    (
        'string_array',
        'subset_of<>',
        [['position', 'velocity']],
        ['velocity'],
        ['position', 'effort'],
        "Entry 'effort' in parameter 'x' is not in the set '{position, velocity}'",
    ),
    (
        'double_array',
        'element_bounds<>',
        [0.0, 10.0],
        [0.0, 10.0],
        [1.0, 11.5],
        "Value '11.5' in parameter 'x' must be within bounds '[0, 10]'",
    ),
    (
        'int_array',
        'lower_element_bounds<>',
        [0],
        [0, 3],
        [1, -2],
        "Value '-2' in parameter 'x' must be above lower bound of '0'",
    ),
    (
        'double_array',
        'upper_element_bounds<>',
        [1.0],
        [0.5, 1.0],
        [0.5, 1.5],
        "Value '1.5' in parameter 'x' must be below upper bound of '1'",
    ),
]


@pytest.mark.parametrize(
    ('type_', 'name', 'args', 'good', 'bad', 'message'),
    VALIDATOR_CASES,
    ids=[f'{c[1]}-{c[0]}' for c in VALIDATOR_CASES],
)
def test_builtin_validator(type_, name, args, good, bad, message):
    leaf = one_leaf(type_, {name: args})
    assert validate(leaf, 'x', coerce(type_, 'x', good)) == ''
    assert validate(leaf, 'x', coerce(type_, 'x', bad)) == message


def test_every_builtin_validator_is_covered():
    assert {c[1].removesuffix('<>') for c in VALIDATOR_CASES} == set(BUILTIN_VALIDATORS)


@pytest.mark.parametrize('name', ['gt_eq', 'gt_eq<>', 'rsl::gt_eq<>', 'parameter_traits::gt_eq'])
def test_builtin_validator_spellings(name):
    leaf = one_leaf('double', {name: [0.0]})
    assert leaf.validators[0].is_builtin
    assert validate(leaf, 'rate', -0.5) == (
        "Parameter 'rate' with the value '-0.5' must be greater than or equal to '0'"
    )


def test_validators_run_in_order_and_the_first_failure_is_reported():
    leaf = one_leaf('string_array', {'unique<>': None, 'size_gt<>': [2]})
    assert validate(leaf, 'j', ('a', 'a')) == "Parameter 'j' must only contain unique values"
    assert validate(leaf, 'j', ('a', 'b')) == (
        "Length of parameter 'j' is '2' but must be greater than '2'"
    )


# --- custom validators -----------------------------------------------------------------------
def equal_to(param, expected):
    """Upstream's example custom validator: '' when valid, else the reason."""
    if param.value != expected:
        return f'Invalid value {param.value} for parameter {param.name}. Expected {expected}'
    return ''


def test_custom_validator_by_full_and_by_bare_name():
    schema = Schema.from_yaml(
        'ns:\n  x: {type: int, default_value: 3, validation: {"my_pkg::equal_to": [3]}}'
    )
    leaf = schema.static_parameters()[0].leaf
    assert not leaf.validators[0].is_builtin
    for custom in ({'my_pkg::equal_to': equal_to}, {'equal_to': equal_to}):
        schema.check_validators(custom)
        assert validate(leaf, 'x', 3, custom) == ''
        assert validate(leaf, 'x', 4, custom) == 'Invalid value 4 for parameter x. Expected 3'


def test_unknown_custom_validator_is_a_schema_error():
    schema = Schema.from_yaml(
        'ns:\n  g:\n    __map_joints:\n      x: {type: int, validation: {"pkg::check": null}}\n'
        '  joints: {type: string_array, default_value: []}'
    )
    with pytest.raises(SchemaError) as info:
        schema.check_validators({'other': equal_to})
    assert "Unknown validator 'pkg::check' (parameter 'g.<joints>.x')" in str(info.value)


def test_a_raising_custom_validator_becomes_a_message():
    def broken(param):
        raise RuntimeError('boom')

    leaf = one_leaf('int', {'broken': None})
    assert validate(leaf, 'x', 1, {'broken': broken}) == (
        "Validator 'broken' failed on parameter 'x': RuntimeError('boom')"
    )
