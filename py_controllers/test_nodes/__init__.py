"""ros2_controllers_test_nodes: the two publisher nodes ros2_control_demos' launch files start."""
