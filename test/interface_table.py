"""Upstream shape of every interface built from interfaces/, as rosidl's Python reports it.

Keys are 'pkg/kind/Name' (plus '/Request', '/Response', '/Goal', '/Result', '/Feedback').
EXPECTED gives `get_fields_and_field_types()` (field order included); CONSTANTS gives the
constant values. Transcribed from control_msgs master, ros2_control master
(controller_manager_msgs) and geometry2 rolling (tf2_msgs), not from interfaces/, so a
test comparing the built classes with this table catches a drift on either side.
"""

EXPECTED: dict[str, dict[str, str]] = {
    'control_msgs/msg/DynamicInterfaceGroupValues': {
        'header': 'std_msgs/Header',
        'interface_groups': 'sequence<string>',
        'interface_values': 'sequence<control_msgs/InterfaceValue>',
    },
    'control_msgs/msg/DynamicJointState': {
        'header': 'std_msgs/Header',
        'joint_names': 'sequence<string>',
        'interface_values': 'sequence<control_msgs/InterfaceValue>',
    },
    'control_msgs/msg/GripperCommand': {
        'position': 'double',
        'max_effort': 'double',
    },
    'control_msgs/msg/InterfaceValue': {
        'interface_names': 'sequence<string>',
        'values': 'sequence<double>',
    },
    'control_msgs/msg/JointComponentTolerance': {
        'joint_name': 'string',
        'component': 'uint16',
        'position': 'double',
        'velocity': 'double',
        'acceleration': 'double',
    },
    'control_msgs/msg/JointControllerState': {
        'header': 'std_msgs/Header',
        'set_point': 'double',
        'process_value': 'double',
        'process_value_dot': 'double',
        'error': 'double',
        'time_step': 'double',
        'command': 'double',
        'p': 'double',
        'i': 'double',
        'd': 'double',
        'i_clamp': 'double',
        'antiwindup': 'boolean',
    },
    'control_msgs/msg/JointTolerance': {
        'name': 'string',
        'position': 'double',
        'velocity': 'double',
        'acceleration': 'double',
    },
    'control_msgs/msg/JointTrajectoryControllerState': {
        'header': 'std_msgs/Header',
        'joint_names': 'sequence<string>',
        'reference': 'trajectory_msgs/JointTrajectoryPoint',
        'feedback': 'trajectory_msgs/JointTrajectoryPoint',
        'error': 'trajectory_msgs/JointTrajectoryPoint',
        'output': 'trajectory_msgs/JointTrajectoryPoint',
        'multi_dof_joint_names': 'sequence<string>',
        'multi_dof_reference': 'trajectory_msgs/MultiDOFJointTrajectoryPoint',
        'multi_dof_feedback': 'trajectory_msgs/MultiDOFJointTrajectoryPoint',
        'multi_dof_error': 'trajectory_msgs/MultiDOFJointTrajectoryPoint',
        'multi_dof_output': 'trajectory_msgs/MultiDOFJointTrajectoryPoint',
        'speed_scaling_factor': 'double',
    },
    'control_msgs/msg/MultiDOFCommand': {
        'dof_names': 'sequence<string>',
        'values': 'sequence<double>',
        'values_dot': 'sequence<double>',
    },
    'control_msgs/msg/MultiDOFStateStamped': {
        'header': 'std_msgs/Header',
        'dof_states': 'sequence<control_msgs/SingleDOFState>',
    },
    'control_msgs/msg/PidState': {
        'header': 'std_msgs/Header',
        'timestep': 'builtin_interfaces/Duration',
        'error': 'double',
        'error_dot': 'double',
        'i_term': 'double',
        'p_gain': 'double',
        'i_gain': 'double',
        'd_gain': 'double',
        'output': 'double',
    },
    'control_msgs/msg/SingleDOFState': {
        'name': 'string',
        'reference': 'double',
        'feedback': 'double',
        'feedback_dot': 'double',
        'error': 'double',
        'error_dot': 'double',
        'time_step': 'double',
        'output': 'double',
    },
    'control_msgs/msg/SingleDOFStateStamped': {
        'header': 'std_msgs/Header',
        'dof_state': 'control_msgs/SingleDOFState',
    },
    'control_msgs/msg/SpeedScalingFactor': {
        'factor': 'double',
    },
    'control_msgs/srv/QueryTrajectoryState/Request': {
        'time': 'builtin_interfaces/Time',
    },
    'control_msgs/srv/QueryTrajectoryState/Response': {
        'success': 'boolean',
        'message': 'string',
        'name': 'sequence<string>',
        'position': 'sequence<double>',
        'velocity': 'sequence<double>',
        'acceleration': 'sequence<double>',
    },
    'control_msgs/srv/SetOdometry/Request': {
        'x': 'double',
        'y': 'double',
        'z': 'double',
        'roll': 'double',
        'pitch': 'double',
        'yaw': 'double',
    },
    'control_msgs/srv/SetOdometry/Response': {
        'success': 'boolean',
        'message': 'string',
    },
    'control_msgs/action/FollowJointTrajectory/Goal': {
        'trajectory': 'trajectory_msgs/JointTrajectory',
        'multi_dof_trajectory': 'trajectory_msgs/MultiDOFJointTrajectory',
        'path_tolerance': 'sequence<control_msgs/JointTolerance>',
        'component_path_tolerance': 'sequence<control_msgs/JointComponentTolerance>',
        'goal_tolerance': 'sequence<control_msgs/JointTolerance>',
        'component_goal_tolerance': 'sequence<control_msgs/JointComponentTolerance>',
        'goal_time_tolerance': 'builtin_interfaces/Duration',
    },
    'control_msgs/action/FollowJointTrajectory/Result': {
        'error_code': 'int32',
        'error_string': 'string',
    },
    'control_msgs/action/FollowJointTrajectory/Feedback': {
        'header': 'std_msgs/Header',
        'joint_names': 'sequence<string>',
        'desired': 'trajectory_msgs/JointTrajectoryPoint',
        'actual': 'trajectory_msgs/JointTrajectoryPoint',
        'error': 'trajectory_msgs/JointTrajectoryPoint',
        'index': 'int32',
        'multi_dof_joint_names': 'sequence<string>',
        'multi_dof_desired': 'trajectory_msgs/MultiDOFJointTrajectoryPoint',
        'multi_dof_actual': 'trajectory_msgs/MultiDOFJointTrajectoryPoint',
        'multi_dof_error': 'trajectory_msgs/MultiDOFJointTrajectoryPoint',
        'multi_dof_index': 'int32',
    },
    'control_msgs/action/GripperCommand/Goal': {
        'command': 'control_msgs/GripperCommand',
    },
    'control_msgs/action/GripperCommand/Result': {
        'position': 'double',
        'effort': 'double',
        'stalled': 'boolean',
        'reached_goal': 'boolean',
    },
    'control_msgs/action/GripperCommand/Feedback': {
        'position': 'double',
        'effort': 'double',
        'stalled': 'boolean',
        'reached_goal': 'boolean',
    },
    'control_msgs/action/ParallelGripperCommand/Goal': {
        'command': 'sensor_msgs/JointState',
    },
    'control_msgs/action/ParallelGripperCommand/Result': {
        'state': 'sensor_msgs/JointState',
        'stalled': 'boolean',
        'reached_goal': 'boolean',
    },
    'control_msgs/action/ParallelGripperCommand/Feedback': {
        'state': 'sensor_msgs/JointState',
    },
    'controller_manager_msgs/msg/ChainConnection': {
        'name': 'string',
        'reference_interfaces': 'sequence<string>',
    },
    'controller_manager_msgs/msg/ControllerManagerActivity': {
        'header': 'std_msgs/Header',
        'controllers': 'sequence<controller_manager_msgs/NamedLifecycleState>',
        'hardware_components': 'sequence<controller_manager_msgs/NamedLifecycleState>',
    },
    'controller_manager_msgs/msg/ControllerState': {
        'name': 'string',
        'state': 'string',
        'type': 'string',
        'is_async': 'boolean',
        'update_rate': 'uint16',
        'claimed_interfaces': 'sequence<string>',
        'required_command_interfaces': 'sequence<string>',
        'required_state_interfaces': 'sequence<string>',
        'is_chainable': 'boolean',
        'is_chained': 'boolean',
        'exported_state_interfaces': 'sequence<string>',
        'reference_interfaces': 'sequence<string>',
        'chain_connections': 'sequence<controller_manager_msgs/ChainConnection>',
    },
    'controller_manager_msgs/msg/HardwareComponentState': {
        'name': 'string',
        'type': 'string',
        'is_async': 'boolean',
        'rw_rate': 'uint16',
        'plugin_name': 'string',
        'state': 'lifecycle_msgs/State',
        'command_interfaces': 'sequence<controller_manager_msgs/HardwareInterface>',
        'state_interfaces': 'sequence<controller_manager_msgs/HardwareInterface>',
    },
    'controller_manager_msgs/msg/HardwareInterface': {
        'name': 'string',
        'data_type': 'string',
        'is_available': 'boolean',
        'is_claimed': 'boolean',
    },
    'controller_manager_msgs/msg/NamedLifecycleState': {
        'name': 'string',
        'state': 'lifecycle_msgs/State',
    },
    'controller_manager_msgs/srv/CleanupController/Request': {
        'name': 'string',
    },
    'controller_manager_msgs/srv/CleanupController/Response': {
        'ok': 'boolean',
    },
    'controller_manager_msgs/srv/ConfigureController/Request': {
        'name': 'string',
    },
    'controller_manager_msgs/srv/ConfigureController/Response': {
        'ok': 'boolean',
    },
    'controller_manager_msgs/srv/ListControllerTypes/Request': {},
    'controller_manager_msgs/srv/ListControllerTypes/Response': {
        'types': 'sequence<string>',
        'base_classes': 'sequence<string>',
    },
    'controller_manager_msgs/srv/ListControllers/Request': {},
    'controller_manager_msgs/srv/ListControllers/Response': {
        'controller': 'sequence<controller_manager_msgs/ControllerState>',
    },
    'controller_manager_msgs/srv/ListHardwareComponents/Request': {},
    'controller_manager_msgs/srv/ListHardwareComponents/Response': {
        'component': 'sequence<controller_manager_msgs/HardwareComponentState>',
    },
    'controller_manager_msgs/srv/ListHardwareInterfaces/Request': {},
    'controller_manager_msgs/srv/ListHardwareInterfaces/Response': {
        'command_interfaces': 'sequence<controller_manager_msgs/HardwareInterface>',
        'state_interfaces': 'sequence<controller_manager_msgs/HardwareInterface>',
    },
    'controller_manager_msgs/srv/LoadController/Request': {
        'name': 'string',
    },
    'controller_manager_msgs/srv/LoadController/Response': {
        'ok': 'boolean',
    },
    'controller_manager_msgs/srv/ReloadControllerLibraries/Request': {
        'force_kill': 'boolean',
    },
    'controller_manager_msgs/srv/ReloadControllerLibraries/Response': {
        'ok': 'boolean',
    },
    'controller_manager_msgs/srv/SetHardwareComponentState/Request': {
        'name': 'string',
        'target_state': 'lifecycle_msgs/State',
    },
    'controller_manager_msgs/srv/SetHardwareComponentState/Response': {
        'ok': 'boolean',
        'state': 'lifecycle_msgs/State',
    },
    'controller_manager_msgs/srv/SwitchController/Request': {
        'activate_controllers': 'sequence<string>',
        'deactivate_controllers': 'sequence<string>',
        'strictness': 'int32',
        'activate_asap': 'boolean',
        'timeout': 'builtin_interfaces/Duration',
    },
    'controller_manager_msgs/srv/SwitchController/Response': {
        'ok': 'boolean',
        'message': 'string',
    },
    'controller_manager_msgs/srv/UnloadController/Request': {
        'name': 'string',
    },
    'controller_manager_msgs/srv/UnloadController/Response': {
        'ok': 'boolean',
    },
    'tf2_msgs/msg/TF2Error': {
        'error': 'uint8',
        'error_string': 'string',
    },
    'tf2_msgs/msg/TFMessage': {
        'transforms': 'sequence<geometry_msgs/TransformStamped>',
    },
    'tf2_msgs/srv/FrameGraph/Request': {},
    'tf2_msgs/srv/FrameGraph/Response': {
        'frame_yaml': 'string',
    },
    'tf2_msgs/action/LookupTransform/Goal': {
        'target_frame': 'string',
        'source_frame': 'string',
        'source_time': 'builtin_interfaces/Time',
        'timeout': 'builtin_interfaces/Duration',
        'target_time': 'builtin_interfaces/Time',
        'fixed_frame': 'string',
        'advanced': 'boolean',
    },
    'tf2_msgs/action/LookupTransform/Result': {
        'transform': 'geometry_msgs/TransformStamped',
        'error': 'tf2_msgs/TF2Error',
    },
    'tf2_msgs/action/LookupTransform/Feedback': {},
}

CONSTANTS: dict[str, dict[str, int]] = {
    'control_msgs/msg/JointComponentTolerance': {
        'X_AXIS': 1,
        'Y_AXIS': 2,
        'Z_AXIS': 3,
        'TRANSLATION': 4,
        'ROTATION': 5,
    },
    'control_msgs/action/FollowJointTrajectory/Result': {
        'SUCCESSFUL': 0,
        'INVALID_GOAL': -1,
        'INVALID_JOINTS': -2,
        'OLD_HEADER_TIMESTAMP': -3,
        'PATH_TOLERANCE_VIOLATED': -4,
        'GOAL_TOLERANCE_VIOLATED': -5,
    },
    'controller_manager_msgs/srv/SwitchController/Request': {
        'BEST_EFFORT': 1,
        'STRICT': 2,
        'AUTO': 3,
        'FORCE_AUTO': 4,
    },
    'tf2_msgs/msg/TF2Error': {
        'NO_ERROR': 0,
        'LOOKUP_ERROR': 1,
        'CONNECTIVITY_ERROR': 2,
        'EXTRAPOLATION_ERROR': 3,
        'INVALID_ARGUMENT_ERROR': 4,
        'TIMEOUT_ERROR': 5,
        'TRANSFORM_ERROR': 6,
    },
}
