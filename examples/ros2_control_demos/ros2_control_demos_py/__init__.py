"""ros2_control_demos' hardware components and controllers in Python, under their upstream
plugin names (`ros2_control_demo_example_1/RRBotSystemPositionOnlyHardware`, ...), so the
examples' URDFs, YAML and launch files run unchanged with py_controllers' ros2_control_node.
See docs/ros2_control_demos.md."""
