"""Sensor broadcasters: IMU, force-torque, range, pose, GPS, magnetometer and battery state
interfaces to ROS topics.

ros2_controllers' imu_sensor_broadcaster, force_torque_sensor_broadcaster,
range_sensor_broadcaster, pose_broadcaster, gps_sensor_broadcaster and
magnetometer_broadcaster, each a thin ROS layer around a semantic component
(``py_controllers.semantic_components``), and battery_state_broadcaster (its rules in
``battery_state``).
"""
