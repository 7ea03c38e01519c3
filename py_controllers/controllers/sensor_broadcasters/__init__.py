"""Sensor broadcasters: IMU, force-torque, range and pose state interfaces to ROS topics.

ros2_controllers' imu_sensor_broadcaster, force_torque_sensor_broadcaster,
range_sensor_broadcaster and pose_broadcaster, each a thin ROS layer around a semantic
component (``py_controllers.semantic_components``).
"""
