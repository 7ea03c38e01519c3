"""The console scripts of the command-line tools and of the test nodes. Each runs its
program's `main()` in a child process (tool_process), forked before anything of ROS is
imported, so that the exit status is the work's whatever rclpy's teardown does."""

from __future__ import annotations

import importlib

from py_controllers.controller_manager.tool_process import run_in_child


def _run(module: str) -> int:
    return run_in_child(lambda: importlib.import_module(module).main())


def spawner() -> int:
    """`spawner` (controller_manager/spawner.py)."""
    return _run('py_controllers.controller_manager.spawner')


def unspawner() -> int:
    """`unspawner` (controller_manager/unspawner.py)."""
    return _run('py_controllers.controller_manager.unspawner')


def hardware_spawner() -> int:
    """`hardware_spawner` (controller_manager/hardware_spawner.py)."""
    return _run('py_controllers.controller_manager.hardware_spawner')


def py_controllers_cli() -> int:
    """`py-controllers` (cli.py)."""
    return _run('py_controllers.cli')


def publisher_forward_position_controller() -> int:
    """`publisher_forward_position_controller` (test_nodes/)."""
    return _run('py_controllers.test_nodes.publisher_forward_position_controller')


def publisher_joint_trajectory_controller() -> int:
    """`publisher_joint_trajectory_controller` (test_nodes/)."""
    return _run('py_controllers.test_nodes.publisher_joint_trajectory_controller')
