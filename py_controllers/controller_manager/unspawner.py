"""`unspawner`: deactivate and unload controllers (ros2_control's unspawner).

SIGINT or SIGTERM stops it within about 0.1 s, at any point: one line saying what was
interrupted, exit status 128 + signal number.

As upstream's, the default `-c` is the absolute `/controller_manager`; a relative name lives
in the unspawner's namespace (`--ros-args -r __ns:=/robot1`).
"""

from __future__ import annotations

import argparse
import sys

from rclpy.node import Node

from py_controllers.controller_manager.client import (
    STRICT,
    ControllerManagerClient,
    SignalStop,
    run_command_line_tool,
    split_command_line,
)


def main(argv: list[str] | None = None) -> int:
    """Entry point of `unspawner`."""
    own, ros_argv = split_command_line('unspawner', sys.argv[1:] if argv is None else argv)
    p = argparse.ArgumentParser(prog='unspawner', description=__doc__)
    p.add_argument('controller_names', nargs='+')
    p.add_argument('-c', '--controller-manager', default='/controller_manager')
    p.add_argument('--switch-timeout', type=float, default=5.0)
    p.add_argument('--controller-manager-timeout', type=float, default=0.0)
    args = p.parse_args(own)
    # a signal only sets the flag that every wait of the client polls
    stop = SignalStop().install()

    def work(node: Node) -> bool:
        cm = ControllerManagerClient(
            node, args.controller_manager, wait_timeout_s=args.controller_manager_timeout, stop=stop
        )
        states = {c.name: c.state for c in cm.list_controllers()}
        active = [n for n in args.controller_names if states.get(n) == 'active']
        if active:
            switched, message = cm.switch_controllers(
                [], active, strictness=STRICT, timeout_s=args.switch_timeout
            )
            if not switched:
                node.get_logger().error(f'failed to deactivate {active}: {message}')
                return False
        for name in args.controller_names:
            if not cm.unload_controller(name):
                node.get_logger().error(f"failed to unload '{name}'")
                return False
        return True

    name = f'unspawner_{args.controller_names[0]}'.replace('/', '_')
    return run_command_line_tool(name, ros_argv, stop, work)


if __name__ == '__main__':
    sys.exit(main())
