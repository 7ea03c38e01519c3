"""Test-wide isolation: every pytest process gets its own ROS domain, localhost only."""

import os

# Set before any rclpy context exists; subprocesses started by tests inherit it.
os.environ.setdefault('ROS_DOMAIN_ID', str(1 + os.getpid() % 200))
os.environ['ROS_AUTOMATIC_DISCOVERY_RANGE'] = 'LOCALHOST'
os.environ.setdefault('RCUTILS_LOGGING_BUFFERED_STREAM', '1')
