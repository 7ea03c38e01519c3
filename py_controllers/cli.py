"""`py-controllers`: the `ros2 control` verbs users reach for, without a ROS installation.

py-controllers list                  controllers, state, type, claimed interfaces
py-controllers types                 available controller types
py-controllers hardware              hardware components and their interfaces
py-controllers switch --activate a --deactivate b [--best-effort]
py-controllers stats                 loop statistics of the manager
py-controllers dashboard [-c /controller_manager] [--port 8080] [--host 127.0.0.1]
                         [--token T | --no-token]
                                     the web dashboard (its own options: dashboard -h)
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import rclpy
from rclpy.node import Node

from py_controllers.controller_manager.client import (
    BEST_EFFORT,
    STRICT,
    ControllerManagerClient,
    ServiceError,
    tear_down,
)


def _list(cm: ControllerManagerClient, args: argparse.Namespace) -> int:
    controllers = cm.list_controllers()
    if not controllers:
        print('no controllers loaded')
    for c in controllers:
        print(f'{c.name:<32} {c.type:<56} {c.state}')
        if args.verbose or c.claimed_interfaces:
            for itf in c.claimed_interfaces:
                print(f'    claimed: {itf}')
        if args.verbose:
            for itf in c.required_state_interfaces:
                print(f'    state:   {itf}')
            for link in c.chain_connections:
                print(f'    chained to {link.name}: {list(link.reference_interfaces)}')
    return 0


def _types(cm: ControllerManagerClient, args: argparse.Namespace) -> int:
    for name, base in cm.list_controller_types():
        print(f'{name:<64} {base}')
    return 0


def _hardware(cm: ControllerManagerClient, args: argparse.Namespace) -> int:
    for comp in cm.list_hardware_components():
        print(f'{comp.name} ({comp.type}, {comp.plugin_name}): {comp.state.label}')
        for kind, interfaces in (
            ('command', comp.command_interfaces),
            ('state', comp.state_interfaces),
        ):
            for itf in interfaces:
                flags = ('available' if itf.is_available else 'unavailable') + (
                    ', claimed' if itf.is_claimed else ''
                )
                print(f'    {kind:<8}{itf.name:<40} [{flags}]')
    return 0


def _switch(cm: ControllerManagerClient, args: argparse.Namespace) -> int:
    ok, message = cm.switch_controllers(
        args.activate,
        args.deactivate,
        strictness=BEST_EFFORT if args.best_effort else STRICT,
        timeout_s=args.timeout,
    )
    print(message)
    return 0 if ok else 1


def _stats(cm: ControllerManagerClient, args: argparse.Namespace) -> int:
    s = cm.statistics()
    print(
        f'rate: {s["measured_rate_hz"]:.2f} Hz measured of {s["update_rate_hz"]} Hz, '
        f'{s["cycles"]} cycles, {s["overruns"]} overruns ({s["missed_periods"]} missed periods)'
    )
    print(f'hot path: {s.get("hot_path", "unknown (an older manager)")}')
    if s.get('spin_us') is not None:
        print(f'final spin before each deadline: {s["spin_us"]:.0f} us')
    collector = s.get('cycle_collector')
    if collector is not None:
        young, middle, full = collector['collections']
        print(
            f'cycle collector: {collector["frozen_objects"]} start-up objects left out; '
            f'collections so far: {young} young, {middle} middle, {full} full'
        )
    print(f'{"":<28}{"mean":>9}{"stddev":>9}{"p99":>9}{"max":>9}  (us)')

    def line(label: str, d: dict[str, Any]) -> None:
        print(
            f'{label:<28}{d["mean_us"]:9.1f}{d["stddev_us"]:9.1f}{d["p99_us"]:9.1f}'
            f'{d["max_us"]:9.1f}'
        )

    for key in ('period', 'lateness', 'execution', 'read', 'write'):
        line(key, s[key])
    for name, d in s.get('controllers', {}).items():
        line(f'update {name}', d)
    return 0


COMMANDS = {
    'list': _list,
    'types': _types,
    'hardware': _hardware,
    'switch': _switch,
    'stats': _stats,
}


def build_parser() -> argparse.ArgumentParser:
    """The command line of `py-controllers`."""
    p = argparse.ArgumentParser(
        prog='py-controllers', description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    p.add_argument('-c', '--controller-manager', default='/controller_manager')
    p.add_argument('--timeout', type=float, default=5.0, help='seconds to wait for the manager')
    sub = p.add_subparsers(dest='command', required=True)
    ls = sub.add_parser('list', help='controllers and their state')
    ls.add_argument('-v', '--verbose', action='store_true')
    sub.add_parser('types', help='available controller types')
    sub.add_parser('hardware', help='hardware components and interfaces')
    sw = sub.add_parser('switch', help='activate/deactivate controllers')
    sw.add_argument('--activate', nargs='*', default=[])
    sw.add_argument('--deactivate', nargs='*', default=[])
    sw.add_argument('--best-effort', action='store_true')
    sub.add_parser('stats', help='loop statistics')
    sub.add_parser('dashboard', add_help=False, help='web dashboard (py-controllers dashboard -h)')
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point of `py-controllers`."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ['dashboard']:  # a web server with its own ROS context and options
        from py_controllers.dashboard.__main__ import main as dashboard_main

        return dashboard_main(argv[1:])
    args = build_parser().parse_args(argv)
    rclpy.init()
    node = Node('py_controllers_cli')
    status = 1
    try:
        cm = ControllerManagerClient(
            node, args.controller_manager, wait_timeout_s=args.timeout, call_timeout_s=args.timeout
        )
        status = COMMANDS[args.command](cm, args)
    except ServiceError as exc:
        print(
            f'error: {exc}\n(is ros2_control_node running, with the same ROS_DOMAIN_ID?)',
            file=sys.stderr,
        )
        status = 2
    finally:
        tear_down(node, status)
    return status


if __name__ == '__main__':
    sys.exit(main())
