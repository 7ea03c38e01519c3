"""The console scripts of the command-line tools and of the test nodes. Each runs its
program's `main()` in a child process (tool_process), forked before anything of ROS is
imported, so that the exit status is the work's whatever rclpy's teardown does."""

from __future__ import annotations

import importlib
from collections.abc import Callable

from py_controllers.controller_manager.tool_process import run_in_child


def _console_script(module: str) -> Callable[[], int]:
    """An entry point that runs `module.main()` in a child process."""

    def run() -> int:
        return run_in_child(lambda: importlib.import_module(module).main())

    run.__doc__ = f'`{module}.main()` in a child process.'
    return run


spawner = _console_script('py_controllers.controller_manager.spawner')
unspawner = _console_script('py_controllers.controller_manager.unspawner')
hardware_spawner = _console_script('py_controllers.controller_manager.hardware_spawner')
py_controllers_cli = _console_script('py_controllers.cli')
publisher_forward_position_controller = _console_script(
    'py_controllers.test_nodes.publisher_forward_position_controller'
)
publisher_joint_trajectory_controller = _console_script(
    'py_controllers.test_nodes.publisher_joint_trajectory_controller'
)
