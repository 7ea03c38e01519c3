"""ROS 1 style PID joint controllers (velocity_controllers / effort_controllers)."""
