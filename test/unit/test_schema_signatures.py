"""Parameter schemas whose descriptions were rewritten in our words: every parameter's name,
type, default, read_only and validation stay as frozen here (users' YAML must carry over)."""

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from py_controllers.parameters.schema import Schema

CONTROLLERS = Path(__file__).resolve().parents[2] / 'py_controllers' / 'controllers'


def _leaves(node: Any, path: str) -> list[tuple[str, dict]]:
    if isinstance(node, dict) and isinstance(node.get('type'), str):
        return [(path, node)]
    if not isinstance(node, dict):
        return []
    out: list[tuple[str, dict]] = []
    for key, child in node.items():
        out += _leaves(child, f'{path}.{key}' if path else str(key))
    return out


def _compact(value: Any) -> str:
    if isinstance(value, float):
        return format(value, 'g')  # 0.0 -> 0, nan -> nan (the type is on the line)
    if isinstance(value, list):
        return '[' + ','.join(_compact(v) for v in value) + ']'
    return json.dumps(value)


def signature(relative: str) -> list[str]:
    """One line per parameter, in file order: name, type, default, read_only, validation."""
    ((_, body),) = yaml.safe_load((CONTROLLERS / relative).read_text(encoding='utf-8')).items()
    lines = []
    for name, leaf in _leaves(body, ''):
        line = f'{name}: {leaf["type"]}'
        if 'default_value' in leaf:
            line += f' = {_compact(leaf["default_value"])}'
        if leaf.get('read_only'):
            line += ' ro'
        for rule, args in sorted((leaf.get('validation') or {}).items()):
            line += f' {rule}{_compact(args)}'
        lines.append(line)
    return lines


# Frozen from the files as they were before the rewrite (tricycle, mecanum, omni: upstream's
# schemas as first copied); regenerate only on purpose, for a real interface change.
FROZEN = {
    'tricycle/tricycle_controller_parameters.yaml': (
        'traction_joint_name: string = "" not_empty<>[]',
        'steering_joint_name: string = "" not_empty<>[]',
        'wheelbase: double = 0 gt<>[0]',
        'wheel_radius: double = 0 gt<>[0]',
        'odom_frame_id: string = "odom"',
        'base_frame_id: string = "base_link"',
        'pose_covariance_diagonal: double_array = [0,0,0,0,0,0]',
        'twist_covariance_diagonal: double_array = [0,0,0,0,0,0]',
        'open_loop: bool = false',
        'enable_odom_tf: bool = false',
        'odom_only_twist: bool = false',
        'cmd_vel_timeout: int = 500',
        'publish_ackermann_command: bool = false',
        'velocity_rolling_window_size: int = 10 gt<>[0]',
        'traction.max_velocity: double = nan',
        'traction.min_velocity: double = nan',
        'traction.max_acceleration: double = nan',
        'traction.min_acceleration: double = nan',
        'traction.max_deceleration: double = nan',
        'traction.min_deceleration: double = nan',
        'traction.max_jerk: double = nan',
        'traction.min_jerk: double = nan',
        'steering.max_position: double = nan',
        'steering.min_position: double = nan',
        'steering.max_velocity: double = nan',
        'steering.min_velocity: double = nan',
        'steering.max_acceleration: double = nan',
        'steering.min_acceleration: double = nan',
    ),
    'mecanum_drive/mecanum_drive_controller_parameters.yaml': (
        'reference_timeout: double = 0',
        'front_left_wheel_command_joint_name: string = "" ro not_empty<>null',
        'front_right_wheel_command_joint_name: string = "" ro not_empty<>null',
        'rear_right_wheel_command_joint_name: string = "" ro not_empty<>null',
        'rear_left_wheel_command_joint_name: string = "" ro not_empty<>null',
        'front_left_wheel_state_joint_name: string = "" ro',
        'front_right_wheel_state_joint_name: string = "" ro',
        'rear_right_wheel_state_joint_name: string = "" ro',
        'rear_left_wheel_state_joint_name: string = "" ro',
        'kinematics.base_frame_offset.x: double = 0 ro',
        'kinematics.base_frame_offset.y: double = 0 ro',
        'kinematics.base_frame_offset.theta: double = 0 ro',
        'kinematics.wheels_radius: double = 0 ro gt<>[0]',
        'kinematics.sum_of_robot_center_projection_on_X_Y_axis: double = 0 ro',
        'tf_frame_prefix_enable: bool = true ro',
        'tf_frame_prefix: string = "" ro',
        'base_frame_id: string = "base_link" ro',
        'odom_frame_id: string = "odom" ro',
        'enable_odom_tf: bool = true',
        'twist_covariance_diagonal: double_array = [0.1,0.1,0.1,0.1,0.1,0.1] ro',
        'pose_covariance_diagonal: double_array = [0.1,0.1,0.1,0.1,0.1,0.1] ro',
        'linear.x.max_velocity: double = nan control_filters::gt_eq_or_nan<>[0]',
        'linear.x.min_velocity: double = nan control_filters::lt_eq_or_nan<>[0]',
        'linear.x.max_acceleration: double = nan control_filters::gt_eq_or_nan<>[0]',
        'linear.x.max_deceleration: double = nan control_filters::lt_eq_or_nan<>[0]',
        'linear.x.max_acceleration_reverse: double = nan control_filters::lt_eq_or_nan<>[0]',
        'linear.x.max_deceleration_reverse: double = nan control_filters::gt_eq_or_nan<>[0]',
        'linear.x.max_jerk: double = nan control_filters::gt_eq_or_nan<>[0]',
        'linear.x.min_jerk: double = nan control_filters::lt_eq_or_nan<>[0]',
        'linear.y.max_velocity: double = nan control_filters::gt_eq_or_nan<>[0]',
        'linear.y.min_velocity: double = nan control_filters::lt_eq_or_nan<>[0]',
        'linear.y.max_acceleration: double = nan control_filters::gt_eq_or_nan<>[0]',
        'linear.y.max_deceleration: double = nan control_filters::lt_eq_or_nan<>[0]',
        'linear.y.max_acceleration_reverse: double = nan control_filters::lt_eq_or_nan<>[0]',
        'linear.y.max_deceleration_reverse: double = nan control_filters::gt_eq_or_nan<>[0]',
        'linear.y.max_jerk: double = nan control_filters::gt_eq_or_nan<>[0]',
        'linear.y.min_jerk: double = nan control_filters::lt_eq_or_nan<>[0]',
        'angular.z.max_velocity: double = nan control_filters::gt_eq_or_nan<>[0]',
        'angular.z.min_velocity: double = nan control_filters::lt_eq_or_nan<>[0]',
        'angular.z.max_acceleration: double = nan control_filters::gt_eq_or_nan<>[0]',
        'angular.z.max_deceleration: double = nan control_filters::lt_eq_or_nan<>[0]',
        'angular.z.max_acceleration_reverse: double = nan control_filters::lt_eq_or_nan<>[0]',
        'angular.z.max_deceleration_reverse: double = nan control_filters::gt_eq_or_nan<>[0]',
        'angular.z.max_jerk: double = nan control_filters::gt_eq_or_nan<>[0]',
        'angular.z.min_jerk: double = nan control_filters::lt_eq_or_nan<>[0]',
    ),
    'omni_wheel_drive/omni_wheel_drive_controller_parameters.yaml': (
        'wheel_offset: double ro',
        'wheel_names: string_array ro not_empty<>[]',
        'robot_radius: double ro gt<>[0]',
        'wheel_radius: double ro gt<>[0]',
        'tf_frame_prefix_enable: bool = true ro',
        'tf_frame_prefix: string = "" ro',
        'odom_frame_id: string = "odom" ro',
        'base_frame_id: string = "base_link" ro',
        'diagonal_covariance.pose: double_array = [0,0,0,0,0,0] ro',
        'diagonal_covariance.twist: double_array = [0,0,0,0,0,0] ro',
        'open_loop: bool = false ro',
        'position_feedback: bool = true ro',
        'enable_odom_tf: bool = true ro',
        'cmd_vel_timeout: double = 0.5 ro',
    ),
    'steering/steering_controllers_library_parameters.yaml': (
        'reference_timeout: double = 1',
        'traction_joints_names: string_array = [] ro not_empty<>null size_lt<>[5] unique<>null',
        'steering_joints_names: string_array = [] ro not_empty<>null size_lt<>[5] unique<>null',
        'traction_joints_state_names: string_array = [] ro size_lt<>[5] unique<>null',
        'steering_joints_state_names: string_array = [] ro size_lt<>[5] unique<>null',
        'open_loop: bool = false',
        'reduce_wheel_speed_until_steering_reached: bool = false',
        'velocity_rolling_window_size: int = 10 gt<>[0]',
        'base_frame_id: string = "base_link"',
        'odom_frame_id: string = "odom"',
        'enable_odom_tf: bool = true',
        'tf_frame_prefix: string = "" ro',
        'twist_covariance_diagonal: double_array = [0,7,14,21,28,35] fixed_size<>[6]',
        'pose_covariance_diagonal: double_array = [0,7,14,21,28,35] fixed_size<>[6]',
        'position_feedback: bool = false',
    ),
    'steering/ackermann_steering_controller_parameters.yaml': (
        'steering_track_width: double = 0',
        'traction_track_width: double = 0 gt<>[0]',
        'wheelbase: double = 0 gt<>[0]',
        'traction_wheels_radius: double = 0 gt<>[0]',
    ),
    'steering/bicycle_steering_controller_parameters.yaml': (
        'wheelbase: double = 0 gt<>[0]',
        'traction_wheel_radius: double = 0 gt<>[0]',
    ),
    'steering/tricycle_steering_controller_parameters.yaml': (
        'traction_track_width: double = 0 gt<>[0]',
        'wheelbase: double = 0 gt<>[0]',
        'traction_wheels_radius: double = 0 gt<>[0]',
    ),
    'chained_filter/chained_filter_parameters.yaml': (
        'input_interfaces: string_array = [] ro not_empty<>null',
        'output_interfaces: string_array = [] ro not_empty<>null',
        'filter_chain: none',
        '__map_input_interfaces.filter_chain: none',
    ),
    'sensor_broadcasters/battery_state_broadcaster_parameters.yaml': (
        'batteries: string_array = [] ro unique<>null',
        'interfaces.__map_batteries.battery_temperature: bool = false ro',
        'interfaces.__map_batteries.battery_current: bool = false ro',
        'interfaces.__map_batteries.battery_charge: bool = false ro',
        'interfaces.__map_batteries.battery_percentage: bool = false ro',
        'interfaces.__map_batteries.battery_power_supply_status: bool = false ro',
        'interfaces.__map_batteries.battery_power_supply_health: bool = false ro',
        'interfaces.__map_batteries.battery_present: bool = false ro',
        '__map_batteries.minimum_voltage: double = nan ro',
        '__map_batteries.maximum_voltage: double = nan ro',
        '__map_batteries.capacity: double = nan ro',
        '__map_batteries.design_capacity: double = nan ro',
        '__map_batteries.power_supply_technology: int = 0 ro bounds<>[0,8]',
        '__map_batteries.location: string = "" ro',
        '__map_batteries.serial_number: string = "" ro',
        'sensor_name: string = "" ro',
        'design_capacity: double = nan ro',
        'power_supply_technology: int = 0 ro bounds<>[0,8]',
    ),
    'sensor_broadcasters/gps_sensor_broadcaster_parameters.yaml': (
        'sensor_name: string = "" not_empty<>null',
        'frame_id: string = "" not_empty<>null',
        'static_position_covariance: double_array = [0,0,0,0,0,0,0,0,0] fixed_size<>[9]',
        'read_covariance_from_interface: bool = false',
    ),
    'sensor_broadcasters/magnetometer_broadcaster_parameters.yaml': (
        'sensor_name: string = "" ro not_empty<>null',
        'frame_id: string = "" ro not_empty<>null',
        'static_covariance: double_array = [0,0,0,0,0,0,0,0,0] ro fixed_size<>[9]',
    ),
    'state_interfaces_broadcaster/state_interfaces_broadcaster_parameters.yaml': (
        'interfaces: string_array = [] ro not_empty<>null',
    ),
    'motion_primitives/motion_primitives_forward_controller_parameters.yaml': (
        'tf_prefix: string = "" ro',
    ),
}


@pytest.mark.parametrize('relative', sorted(FROZEN))
def test_schema_signature_unchanged(relative):
    assert signature(relative) == list(FROZEN[relative])


@pytest.mark.parametrize('relative', sorted(FROZEN))
def test_schema_parses_and_every_parameter_is_described(relative):
    schema = Schema.from_file(CONTROLLERS / relative)
    assert schema.static_parameters()
    ((_, body),) = yaml.safe_load((CONTROLLERS / relative).read_text(encoding='utf-8')).items()
    undescribed = [name for name, leaf in _leaves(body, '') if not leaf.get('description')]
    assert undescribed == []
