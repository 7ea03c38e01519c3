"""`hardware_spawner`: configure or activate hardware components of a running manager.

The command line of ros2_control's hardware_spawner:

    hardware_spawner <component> [<component> ...] (--activate | --configure)
                     [-c CONTROLLER_MANAGER] [--controller-manager-timeout SECONDS]

`--configure` drives each component to `inactive`, `--activate` to `active` (the manager
configures an unconfigured component first). Components are handled one after the other,
in the order given; one that fails does not stop the others. A relative `-c` name lives in
the tool's namespace (`--ros-args -r __ns:=/robot1` -> `/robot1/controller_manager`).

Exit status: 0 when every component reached its target state; 1 when one is not known to
the manager, the manager refused or failed the transition, or the manager is not there
(within --controller-manager-timeout; 0 waits for ever); 2 for a wrong command line.
Upstream logs the first two as warnings and exits 0 all the same: a script or launch file
could not tell that the robot is not up.

SIGINT and SIGTERM stop it within about 0.1 s at any point, as `spawner`: one line saying
what was interrupted, exit status 128 + signal number. A transition the manager already
started runs to its end there.
"""

from __future__ import annotations

import argparse
import sys

from rclpy.node import Node

from py_controllers.controller_manager.client import (
    ControllerManagerClient,
    SignalStop,
    run_command_line_tool,
    split_command_line,
)

NODE_NAME = 'hardware_spawner'
"""Upstream's node name (a `-r __node:=...` ROS argument renames it)."""


def build_parser() -> argparse.ArgumentParser:
    """The command line of `hardware_spawner` (upstream's names and defaults)."""
    p = argparse.ArgumentParser(prog='hardware_spawner', description=__doc__.splitlines()[0])
    p.add_argument(
        'hardware_component_names',
        nargs='+',
        help='names of the hardware components to configure or activate',
    )
    p.add_argument(
        '-c',
        '--controller-manager',
        default='controller_manager',
        help="name of the controller manager node (relative: in this node's namespace)",
    )
    p.add_argument(
        '--controller-manager-timeout',
        type=float,
        default=0.0,
        help='seconds to wait for the controller manager (0: for ever)',
    )
    target = p.add_mutually_exclusive_group(required=True)
    target.add_argument(
        '--activate',
        action='store_true',
        help='activate the components (unconfigured ones are configured first)',
    )
    target.add_argument(
        '--configure',
        action='store_true',
        help='configure the components (they end up inactive)',
    )
    return p


class HardwareSpawner:
    """Drives each named component to the target state; logs what happens."""

    def __init__(self, cm: ControllerManagerClient, activate: bool) -> None:
        self.cm = cm
        self.log = cm.node.get_logger()
        self.target = 'active' if activate else 'inactive'
        self.verb = 'activate' if activate else 'configure'

    def set_state(self, name: str) -> bool:
        """Drive component `name` to the target state; True when it got there."""
        known = [c.name for c in self.cm.list_hardware_components()]
        if name not in known:
            self.log.error(
                f"Hardware Component '{name}' is not loaded - state can not be changed "
                f"(components of '{self.cm.manager}': {', '.join(known) or 'none'})"
            )
            return False
        self.log.info(f"{self.verb[:-1]}ing component '{name}'...")
        ok, state = self.cm.set_hardware_component_state(name, self.target)
        if ok and state == self.target:
            self.log.info(f"{self.verb}d component '{name}'. Hardware now in state: {state}.")
            return True
        if ok:
            self.log.error(
                f"Could not {self.verb} component '{name}'. Service call returned ok=True, "
                f"but state: {state} is not equal to target state '{self.target}'."
            )
        else:
            self.log.error(
                f"Could not {self.verb} component '{name}': the manager refused or failed "
                f'the transition (component state: {state or "unknown"}; see its log).'
            )
        return False

    def run(self, names: list[str]) -> bool:
        """Every component in turn, all of them even after a failure; True if all got there."""
        results = [self.set_state(name) for name in names]
        return all(results)


def main(argv: list[str] | None = None) -> int:
    """Entry point of `hardware_spawner`."""
    own, ros_argv = split_command_line(NODE_NAME, sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(own)
    # before anything waits: from now on a signal only sets the flag that every wait polls
    stop = SignalStop().install()

    def work(node: Node) -> bool:
        cm = ControllerManagerClient(
            node,
            args.controller_manager,
            wait_timeout_s=args.controller_manager_timeout,
            stop=stop,
        )
        return HardwareSpawner(cm, args.activate).run(args.hardware_component_names)

    return run_command_line_tool(NODE_NAME, ros_argv, stop, work)


if __name__ == '__main__':
    sys.exit(main())
