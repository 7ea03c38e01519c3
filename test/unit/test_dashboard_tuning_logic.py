"""The tuning page's pure pieces: the window, downsampling, CSV, signals, schema rows."""

from importlib.metadata import entry_points
from types import SimpleNamespace as Msg

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from py_controllers.dashboard.tuning import (
    Recorder,
    band,
    chart_data,
    csv_text,
    downsample,
    merged,
    names_of,
    series,
    window,
)
from py_controllers.dashboard.tuning_schema import (
    ParameterError,
    PrefixedSchema,
    key_parameters,
    param_rows,
    parse_value,
    schema_of,
    schema_paths,
    value_text,
)
from py_controllers.dashboard.tuning_signals import (
    DIFF_DRIVE,
    JTC,
    PID,
    charts_for,
    jtc_values,
    pid_values,
)
from py_controllers.parameters.errors import SchemaError


def test_recorder_keeps_only_the_last_seconds():
    rec = Recorder(keep_s=2.0)
    for i in range(11):  # t = 0.0, 0.5, ..., 5.0
        rec.add(i * 0.5, {'x': float(i)})
    assert [t for t, _ in rec.snapshot()] == [3.0, 3.5, 4.0, 4.5, 5.0]
    assert rec.count == 11


def test_window_is_the_last_n_seconds_before_now():
    samples = [(t, {'x': t}) for t in (0.0, 1.0, 2.0, 3.0, 4.0)]
    assert [t for t, _ in window(samples, now=3.5, window_s=2.0)] == [2.0, 3.0]
    assert [t for t, _ in window(samples, now=4.0, window_s=2.0)] == [2.0, 3.0, 4.0]
    assert window(samples, now=10.0, window_s=2.0) == []


def test_downsample_keeps_each_runs_extremes_and_a_spike_and_ends_on_the_newest():
    points = [(float(i), 0.0) for i in range(100)]
    points[37] = (37.0, 100.0)
    points[80] = (80.0, -5.0)
    points[99] = (99.0, 1.0)
    # 10 points at most: the 99 older samples in 4 runs (24, 25, 25, 25 samples), each gives
    # its lowest and highest sample (one when they are the same sample), in time order;
    # then the newest sample, whatever it is
    assert downsample(points, 10) == [
        (0.0, 0.0),  # 0..23 flat
        (24.0, 0.0),  # 24..48: the first lowest, then the spike
        (37.0, 100.0),
        (49.0, 0.0),  # 49..73 flat
        (74.0, 0.0),  # 74..98: the first highest, then the dip
        (80.0, -5.0),
        (99.0, 1.0),  # the newest
    ]
    # an odd size: 3 runs of 33 samples and the newest
    ramp = [(float(i), float(i)) for i in range(100)]
    assert downsample(ramp, 7) == [
        (0.0, 0.0),
        (32.0, 32.0),
        (33.0, 33.0),
        (65.0, 65.0),
        (66.0, 66.0),
        (98.0, 98.0),
        (99.0, 99.0),
    ]
    # a noisy flat line: the chart's last value is the newest sample, not a run's extreme
    noisy = [(float(i), 0.3 + (0.01 if i % 2 else -0.01)) for i in range(1000)]
    noisy[-1] = (999.0, 0.3)
    assert downsample(noisy, 400)[-1] == (999.0, 0.3)


def runs_extremes(points, max_points):
    """downsample's rule written out run by run: the reference its table form must match."""
    if len(points) <= max_points:
        return list(points)
    runs, older = (max_points - 1) // 2, len(points) - 1
    out = []
    for k in range(runs):
        run = points[k * older // runs : (k + 1) * older // runs]
        lo = min(range(len(run)), key=lambda i: run[i][1])
        hi = max(range(len(run)), key=lambda i: run[i][1])
        out.extend(run[i] for i in sorted({lo, hi}))
    return [*out, points[-1]]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from([-1.0, 0.0, 0.5, 2.0]) | st.floats(-1e6, 1e6), max_size=300),
    st.integers(3, 40),
)
def test_downsample_picks_what_the_run_by_run_rule_picks(values, max_points):
    points = [(float(i), v) for i, v in enumerate(values)]
    assert downsample(points, max_points) == runs_extremes(points, max_points)


def test_downsample_short_series_unchanged_and_bad_size_refused():
    points = [(0.0, 1.0), (1.0, 2.0), (2.0, 3.0)]
    assert downsample(points, 3) == points
    with pytest.raises(ValueError):
        downsample(points, 2)


def test_series_skips_what_cannot_be_drawn_and_chart_data_is_relative_to_now():
    samples = merged(
        [(1.0, {'a': 1.0}), (3.0, {'a': float('nan')})],
        [(2.0, {'b': 5.0}), (4.0, {'a': 4.0, 'b': float('inf')})],
    )
    assert [t for t, _ in samples] == [1.0, 2.0, 3.0, 4.0]
    assert names_of(samples) == ['a', 'b']
    assert series(samples, 'a') == [(1.0, 1.0), (4.0, 4.0)]
    assert series(samples, 'b') == [(2.0, 5.0)]
    assert chart_data(samples, ['a', 'b'], now=5.0, max_points=10) == {
        'a': [[-4.0, 1.0], [-1.0, 4.0]],
        'b': [[-3.0, 5.0]],
    }
    # every sample with every name (taken in one pass), and a name alone
    full = [(1.0, {'a': 1.0, 'b': 2.0}), (2.0, {'a': float('nan'), 'b': 3.0})]
    assert chart_data(full, ['b', 'a'], now=2.5, max_points=10) == {
        'b': [[-1.5, 2.0], [-0.5, 3.0]],
        'a': [[-1.5, 1.0]],
    }
    assert chart_data(full, ['b'], now=2.0, max_points=10) == {'b': [[-1.0, 2.0], [0.0, 3.0]]}
    assert chart_data(full, [], now=2.0, max_points=10) == {}


def test_band_is_the_tolerance_around_the_reference():
    upper, lower = band([(0.0, 1.0), (1.0, 2.0)], 0.25)
    assert upper == [(0.0, 1.25), (1.0, 2.25)]
    assert lower == [(0.0, 0.75), (1.0, 1.75)]


def test_csv_has_time_from_the_first_sample_and_empty_cells_for_absent_signals():
    samples = [(10.0, {'a': 1.0}), (10.5, {'b': 2.5}), (11.25, {'a': float('nan'), 'b': -1})]
    assert csv_text(samples) == 't,a,b\n0.0,1.0,\n0.5,,2.5\n1.25,nan,-1.0\n'
    assert csv_text(samples, ['b']) == 't,b\n0.0,\n0.5,2.5\n1.25,-1.0\n'
    assert csv_text([]) == 't\n'


def test_pid_and_jtc_signals_and_their_charts():
    pid = Msg(dof_states=[Msg(name='j', reference=1.0, feedback=0.25, error=0.75, output=3.0)])
    assert pid_values(pid) == {
        'j reference': 1.0,
        'j state': 0.25,
        'j error': 0.75,
        'j output': 3.0,
    }
    assert [c.signals for c in charts_for(PID, list(pid_values(pid)))] == [
        ('j reference', 'j state'),
        ('j error', 'j output'),
    ]
    point = Msg
    jtc = Msg(
        joint_names=['a', 'b'],
        reference=point(positions=[0.5, 1.0]),
        feedback=point(positions=[0.25]),  # no feedback for b
    )
    assert jtc_values(jtc) == {'a desired': 0.5, 'a actual': 0.25, 'b desired': 1.0}
    charts = charts_for(JTC, list(jtc_values(jtc)), {'constraints.a.trajectory': 0.1})
    assert [(c.around, c.half_width) for c in charts] == [('a desired', 0.1), ('', 0.0)]
    assert [c.signals for c in charts_for(DIFF_DRIVE, [])] == [
        ('commanded linear', 'measured linear'),
        ('commanded angular', 'measured angular'),
    ]
    assert charts_for('other', ['x']) == []


NO_PARAMETERS_FILE = {
    'example_controllers/SineController',
    'ros2_control_demo_example_7/RobotController',  # declares them in code, as upstream's
}
"""Registered types that declare their parameters in code, with no schema file."""


def _names(paths):
    return [p.name for p in paths]


def test_schemas_are_the_ones_each_class_names():
    assert _names(schema_paths('pid_controller/PidController')) == [
        'pid_controller_parameters.yaml'
    ]
    # several schemas in one folder: the class names its own
    assert _names(schema_paths('position_controllers/JointPositionController')) == [
        'single_joint_parameters.yaml'
    ]
    for type_, name in (
        ('battery_state_broadcaster/BatteryStateBroadcaster', 'battery_state_broadcaster'),
        ('gps_sensor_broadcaster/GPSSensorBroadcaster', 'gps_sensor_broadcaster'),
        ('magnetometer_broadcaster/MagnetometerBroadcaster', 'magnetometer_broadcaster'),
    ):
        assert _names(schema_paths(type_)) == [f'{name}_parameters.yaml']
    # a steering controller: the library's parameters, then its own geometry
    assert _names(schema_paths('bicycle_steering_controller/BicycleSteeringController')) == [
        'steering_controllers_library_parameters.yaml',
        'bicycle_steering_controller_parameters.yaml',
    ]
    assert schema_paths('no_such/Type') == []
    assert schema_of('no_such/Type') == ([], "no parameter schema found for type 'no_such/Type'")


def test_every_registered_controller_type_has_its_schema():
    types = sorted(e.name for e in entry_points(group='py_controllers.controllers'))
    assert 'mecanum_drive_controller/MecanumDriveController' in types
    without = set()
    for type_ in types:
        schemas, problem = schema_of(type_)
        if not schemas:
            without.add(type_)
            assert problem == f"no parameter schema found for type '{type_}'"
        for path in schema_paths(type_):  # beside the class's module, as the loader reads it
            assert path.is_file(), path
    assert without == NO_PARAMETERS_FILE


def test_a_steering_controller_shows_the_library_and_its_own_parameters():
    schemas, problem = schema_of('ackermann_steering_controller/AckermannSteeringController')
    assert problem == ''
    rows = {r.name: r for r in param_rows(schemas, {})}
    assert rows['traction_joints_names'].read_only  # the library's
    assert rows['wheelbase'].rules == 'Validation: gt<>: [0.0]'  # its own geometry
    assert rows['wheelbase'].description == 'Distance between the front and rear axles, m.'
    assert list(rows).index('reference_timeout') < list(rows).index('wheelbase')


def test_parameter_rows_of_the_pid_schema():
    schemas, problem = schema_of('pid_controller/PidController')
    assert problem == ''
    rows = {r.name: r for r in param_rows(schemas, {'dof_names': ['j1'], 'gains.j1.p': 4.0})}
    assert rows['dof_names'].read_only and rows['dof_names'].value == ['j1']
    assert rows['gains.j1.p'].value == 4.0 and not rows['gains.j1.p'].read_only
    assert rows['gains.j1.p'].description == 'Proportional gain'
    assert rows['gains.j1.tracking_time_constant'].range == (0.0, float('inf'))
    assert rows['gains.j1.tracking_time_constant'].range_text == '[0.0, inf]'
    assert rows['gains.j1.tracking_time_constant'].rules == 'Validation: gt_eq<>: [0.0]'
    assert 'gains.j2.p' not in rows  # the map follows dof_names


def test_typed_text_becomes_a_value_of_the_parameters_type():
    assert parse_value('double', 'p', '8') == 8.0
    assert isinstance(parse_value('double', 'p', '8'), float)
    assert parse_value('double', 'p', '1e-3') == 0.001
    assert parse_value('double', 'p', '-inf') == float('-inf')
    assert parse_value('int', 'n', ' 3 ') == 3
    assert parse_value('bool', 'b', 'false') is False
    assert parse_value('string', 's', ' a b ') == ' a b '
    assert parse_value('string_array', 's', '[a, 1]') == ('a', '1')
    assert parse_value('double_array', 'd', '[1, 2.5]') == (1.0, 2.5)
    for type_, text in (('double', 'abc'), ('int', '2.5'), ('bool', 'yes please'), ('int', '')):
        with pytest.raises(ParameterError):
            parse_value(type_, 'x', text)
    assert value_text(float('inf')) == 'inf' and value_text([1.0, 2.0]) == '[1.0, 2.0]'
    assert value_text(True) == 'true' and value_text(None) == ''


def test_the_effort_grippers_gains_are_shown_under_its_joint():
    schemas, problem = schema_of('effort_controllers/GripperActionController')
    assert problem == ''
    assert 'joint' in key_parameters(schemas)  # read first: it makes the gains' names
    values = {'joint': 'gripper_joint', 'gains.gripper_joint.p': 50.0}
    rows = {r.name: r for r in param_rows(schemas, values)}
    gains = [n for n in rows if n.startswith('gains.')]
    assert gains == [f'gains.gripper_joint.{g}' for g in ('p', 'i', 'd', 'i_clamp')]
    assert rows['gains.gripper_joint.p'].value == 50.0
    assert rows['gains.gripper_joint.p'].description.startswith('Proportional gain')
    assert (
        rows['gains.gripper_joint.i'].value is None and not rows['gains.gripper_joint.i'].read_only
    )
    assert rows['max_effort'].type == 'double'  # the gripper's own parameters are there too
    # no joint yet: nothing is declared under gains
    assert not [r for r in param_rows(schemas, {}) if r.name.startswith('gains.')]
    # the position gripper declares no gains
    position, _ = schema_of('position_controllers/GripperActionController')
    assert not [r for r in param_rows(position, {'joint': 'g'}) if r.name.startswith('gains.')]


def test_a_prefix_must_name_one_parameter():
    schema = schema_of('pid_controller/PidController')[0][0]
    with pytest.raises(SchemaError, match='must name exactly one parameter'):
        PrefixedSchema(schema, 'gains.')
