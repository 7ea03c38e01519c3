"""`make faults`: malformed input and injected faults against ros2_control_node, in a table."""
