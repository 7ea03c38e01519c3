"""`spawner`: load, configure and activate controllers on a running controller manager.

Arguments follow ros2_control's spawner; it waits for the manager instead of failing
when it starts slowly. Exit status 0 when every controller reached its target state.

Namespaces work as upstream's (kilted, rolling): the spawner's own namespace, set the ROS 2
way with `--ros-args -r __ns:=/robot1` (launch does this for a namespaced Node), is where a
relative `-c/--controller-manager` name lives (`/robot1/controller_manager`); an absolute
`-c /x/controller_manager` is used as given. `-n/--namespace` is gone upstream (deprecated in
jazzy, removed in kilted): it is an unrecognized argument, exit status 2, with a hint.
In a namespace, a `-p` file must name the controller with that namespace or a wildcard
(`/robot1/ctrl`, `/**/ctrl`), as the controller node will only take those sections.

Parameter files given to the spawner node itself (`--ros-args --params-file f`, what launch
passes for `parameters=[...]` of a spawner Node) are added to every controller's `-p` files,
as upstream's spawner does since rolling (ros2_control #3136).

SIGINT and SIGTERM are honoured at any point, within about 0.1 s (waits are sliced,
see client.POLL_S):
- without --unload-on-kill: one line saying what was interrupted, exit 128 + signal
  number (130 for SIGINT, 143 for SIGTERM);
- with --unload-on-kill: the controllers this run loaded are deactivated and unloaded
  (those loaded before it are left alone), then exit 0 when the signal came after
  spawning completed (as upstream), 128 + signal number when it interrupted spawning,
  1 when unloading failed. While unloading, a further SIGINT is ignored (a terminal and
  ros2 launch often both deliver Ctrl-C) and SIGTERM aborts.
"""

from __future__ import annotations

import argparse
import signal
import sys
import time
from pathlib import Path
from typing import Any

import rclpy
from rclpy.node import Node
from rclpy.signals import SignalHandlerOptions

from py_controllers import yaml_loading
from py_controllers.controller_manager.client import (
    POLL_S,
    STRICT,
    ControllerManagerClient,
    Interrupted,
    ServiceError,
    SignalStop,
    Stop,
    split_command_line,
    tear_down,
)
from py_controllers.controller_manager.manager_log import ManagerLog

CLEANUP_WAIT_S = 2.0
"""How long --unload-on-kill waits for a manager service that is missing (the manager was
there while spawning: a missing service means it is going or gone)."""


def build_parser() -> argparse.ArgumentParser:
    """The command line of `spawner` (upstream's names and defaults)."""
    p = argparse.ArgumentParser(prog='spawner', description=__doc__.splitlines()[0])
    p.add_argument('controller_names', nargs='+', help='controllers to spawn')
    p.add_argument(
        '-c',
        '--controller-manager',
        default='controller_manager',
        help='name of the controller manager node',
    )
    p.add_argument(
        '-p',
        '--param-file',
        action='append',
        default=[],
        help='controller parameter file (may be repeated)',
    )
    p.add_argument('--load-only', action='store_true', help='only load the controllers')
    p.add_argument('--inactive', action='store_true', help='load and configure, do not activate')
    p.add_argument('--stopped', action='store_true', help='(deprecated) same as --inactive')
    p.add_argument(
        '-t',
        '--controller-type',
        default=None,
        help='controller type, if not set on the manager or in the param file',
    )
    p.add_argument(
        '-u',
        '--unload-on-kill',
        action='store_true',
        help='wait for SIGINT/SIGTERM, then deactivate and unload',
    )
    p.add_argument(
        '--controller-manager-timeout',
        type=float,
        default=0.0,
        help='seconds to wait for the manager (0: forever)',
    )
    p.add_argument(
        '--switch-timeout',
        type=float,
        default=5.0,
        help='timeout of the switch_controller call, seconds',
    )
    p.add_argument(
        '--service-call-timeout',
        type=float,
        default=10.0,
        help='timeout of each service call, seconds',
    )
    p.add_argument(
        '--activate-as-group',
        action='store_true',
        help='activate all controllers in one switch request',
    )
    p.add_argument(
        '--switch-asap',
        action=argparse.BooleanOptionalAction,
        default=False,
        help='ask for the switch in the next control cycle',
    )
    p.add_argument(
        '--controller-ros-args',
        action='append',
        default=[],
        help='extra --ros-args for the controller nodes',
    )
    return p


WILDCARD = '/**'
PARAMS_KEY = 'ros__parameters'
FALLBACKS = 'fallback_controllers'


class MissingNamespaceError(ValueError):
    """A parameter file names a controller without the namespace it is spawned in."""


class ParameterFileError(ValueError):
    """A parameter file gives a value the manager cannot take (the message says which)."""


def _controller_names(value: Any, where: str) -> list[str]:
    """`fallback_controllers` from a parameter file: a list of names, as the manager
    declares it (upstream: a string array); anything else raises ParameterFileError."""
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    raise ParameterFileError(
        f"{where}: '{FALLBACKS}' must be a list of controller names (e.g. [name]), got {value!r}"
    )


def _sections_for(data: dict, controller: str, namespace: str = '/') -> list[dict]:
    """The ros__parameters sections for `controller` (spawned in `namespace`) in a
    parameter file, in the order upstream's spawner looks a parameter up in them (empty
    when the file has none): for each key `ctrl`, `/ns/ctrl`, `/**/ctrl`, `/**/ns/ctrl`,
    the top-level section, else the one nested under `/**`, else a global
    `/**: ros__parameters`. A bare `ctrl` outside the root namespace raises
    MissingNamespaceError: the controller node (`/ns/ctrl`) would not take it."""
    namespaced = f'/{controller}' if namespace == '/' else f'{namespace}/{controller}'
    wildcard = data.get(WILDCARD)
    wildcard = wildcard if isinstance(wildcard, dict) else {}
    sections = []
    for key in (controller, namespaced, f'{WILDCARD}/{controller}', f'{WILDCARD}{namespaced}'):
        if key in data:
            if key == controller and namespace != '/':
                raise MissingNamespaceError(key)
            section = data[key]
        elif key in wildcard:
            section = wildcard[key]
        elif PARAMS_KEY in wildcard:
            section = wildcard
        else:
            continue
        params = section.get(PARAMS_KEY) if isinstance(section, dict) else None
        sections.append(params if isinstance(params, dict) else {})
    return sections


def manager_parameters(
    controller: str, args: argparse.Namespace, namespace: str = '/', log: Any = None
) -> dict[str, Any]:
    """Parameters to set on the manager before loading `controller` (spawned in
    `namespace`): `params_file` lists the `-p` files that have a section for it."""
    values: dict[str, Any] = {}
    files = []
    for path in (str(Path(f).resolve()) for f in args.param_file):
        if not Path(path).is_file():
            raise FileNotFoundError(f"parameter file '{path}' does not exist")
        data = yaml_loading.safe_load(Path(path).read_text()) or {}
        try:
            sections = _sections_for(data, controller, namespace)
        except MissingNamespaceError:
            if log is not None:
                log.error(
                    f"parameter file '{path}' names '{controller}' without the namespace "
                    f"'{namespace}' the controller runs in: use '{namespace}/{controller}' "
                    f"or '{WILDCARD}/{controller}' (file not used for '{controller}')"
                )
            continue
        if not sections:
            continue
        files.append(path)
        type_name = next((sec['type'] for sec in sections if 'type' in sec), None)
        if type_name is not None:
            values[f'{controller}.type'] = str(type_name)
        fallbacks = next((sec[FALLBACKS] for sec in sections if FALLBACKS in sec), None)
        if fallbacks is not None:
            values[f'{controller}.{FALLBACKS}'] = _controller_names(
                fallbacks, f"parameter file '{path}', controller '{controller}'"
            )
    if files:
        values[f'{controller}.params_file'] = files
    if args.controller_type:
        values[f'{controller}.type'] = args.controller_type
    if args.controller_ros_args:
        values[f'{controller}.node_options_args'] = ' '.join(args.controller_ros_args).split()
    return values


class Spawner:
    """Drives one spawner run against a manager; logs what it does."""

    def __init__(self, node: Node, args: argparse.Namespace, stop: Stop | None = None) -> None:
        self.node = node
        self.args = args
        self.log = node.get_logger()
        self.cm = ControllerManagerClient(
            node,
            args.controller_manager,
            wait_timeout_s=args.controller_manager_timeout,
            call_timeout_s=args.service_call_timeout,
            stop=stop,
        )
        self.loaded: list[str] = []
        """Controllers this run loaded (or asked to load when it was interrupted), in order."""
        self.manager_log = ManagerLog(node, self.cm.manager)

    def _failed(self, what: str, name: str) -> None:
        """Log that `what` (load, configure) failed for `name`, with the manager's reason."""
        reasons = self.manager_log.wait_for_reasons(name, self.cm.spin_until)
        why = ': ' + ' | '.join(reasons) if reasons else " (see the controller manager's log)"
        self.log.error(f"failed to {what} controller '{name}'{why}")

    def _state(self, name: str) -> str | None:
        for c in self.cm.list_controllers():
            if c.name == name:
                return c.state
        return None

    def _landed(self, name: str, what: str) -> bool:
        """After a refused `what` (load, configure): True when `name` is nevertheless in the
        state that call leads to. A call the manager was slow to answer (a busy host) is sent
        again by the client, and the repeat is refused because the first one did its work."""
        state = self._state(name)
        done = state is not None if what == 'load' else state == 'inactive'
        if done:
            self.log.warning(
                f"'{what}' of '{name}' was refused, but '{name}' is {state}: an earlier try "
                'that timed out did it'
            )
        return done

    def prepare(self, name: str) -> bool:
        """Load and (unless --load-only) configure `name`; True on success."""
        state = self._state(name)
        if state is None:
            values = manager_parameters(name, self.args, self.node.get_namespace(), self.log)
            if values:
                self.cm.set_parameters(values)
            # noted before the call: when a signal interrupts it, the manager may still load it
            self.loaded.append(name)
            self.manager_log.start()
            if not self.cm.load_controller(name) and not self._landed(name, 'load'):
                self.loaded.remove(name)
                self._failed('load', name)
                return False
            self.log.info(f"loaded '{name}'")
            state = 'unconfigured'
        else:
            self.log.warning(f"controller '{name}' is already loaded ({state}): not loading")
        if self.args.load_only or state in ('inactive', 'active'):
            return True
        self.manager_log.start()
        if not self.cm.configure_controller(name) and not self._landed(name, 'configure'):
            self._failed('configure', name)
            return False
        self.log.info(f"configured '{name}'")
        return True

    def activate(self, names: list[str]) -> bool:
        """Activate `names` (already active ones are skipped) in one STRICT request."""
        todo = [n for n in names if self._state(n) != 'active']
        if not todo:
            return True
        ok, message = self.cm.switch_controllers(
            todo,
            [],
            strictness=STRICT,
            activate_asap=self.args.switch_asap,
            timeout_s=self.args.switch_timeout,
        )
        if not ok:
            self.log.error(f'failed to activate {todo}: {message}')
            return False
        self.log.info(f'activated {todo}')
        return True

    def run(self) -> bool:
        """Spawn every controller named on the command line."""
        names = self.args.controller_names
        self.cm.wait_for_manager()
        inactive = self.args.inactive or self.args.stopped
        if self.args.activate_as_group:
            if not all(self.prepare(n) for n in names):
                return False
            return self.args.load_only or inactive or self.activate(names)
        for name in names:
            if not self.prepare(name):
                return False
            if not (self.args.load_only or inactive) and not self.activate([name]):
                return False
        return True

    def unload(self) -> bool:
        """Deactivate and unload what this run loaded (for --unload-on-kill); True when done."""
        if not self.loaded:
            return True
        states = {c.name: c.state for c in self.cm.list_controllers()}
        mine = [n for n in reversed(self.loaded) if n in states]
        active = [n for n in mine if states[n] == 'active']
        if active:
            ok, message = self.cm.switch_controllers(
                [], active, strictness=STRICT, timeout_s=self.args.switch_timeout
            )
            if not ok:
                self.log.error(f'failed to deactivate {active}: {message}')
                return False
            self.log.info(f'deactivated {active}')
        failed = [n for n in mine if not self.cm.unload_controller(n)]
        if failed:
            self.log.error(f'failed to unload {failed}')
            return False
        self.log.info(f'unloaded {mine}')
        return True


def _cleanup(spawner: Spawner) -> bool:
    """--unload-on-kill after a signal: unload what this run loaded; True when done."""
    # Ctrl-C often arrives twice (from the terminal and from ros2 launch): ignore it now;
    # SIGTERM (launch's next step) aborts
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    abort = SignalStop().install([signal.SIGTERM])
    cm = spawner.cm
    cm.stop, cm.wait_timeout_s, cm.retries = abort, CLEANUP_WAIT_S, 1
    try:
        return spawner.unload()
    except Interrupted as exc:
        spawner.log.error(f'{abort.name} received {exc}: unloading {spawner.loaded} aborted')
    except ServiceError as exc:
        spawner.log.error(f'unloading {spawner.loaded} failed: {exc}')
    return False


def spawn(spawner: Spawner, stop: SignalStop) -> int:
    """Run `spawner` and, for --unload-on-kill, wait for a signal; the exit status."""
    args, log = spawner.args, spawner.log
    try:
        if not spawner.run():
            return 1
    except (ServiceError, FileNotFoundError, ParameterFileError) as exc:
        log.error(str(exc))
        return 1
    except Interrupted as exc:
        assert stop.signum is not None
        if not args.unload_on_kill or not spawner.loaded:
            log.warning(f'{stop.name} received {exc}: exiting before spawning completed')
            return 128 + stop.signum
        log.warning(f'{stop.name} received {exc}: unloading {spawner.loaded}')
        return 128 + stop.signum if _cleanup(spawner) else 1
    if not args.unload_on_kill:
        return 0
    spawner.manager_log.close()
    log.info('waiting for SIGINT/SIGTERM to unload the controllers')
    while not stop.is_set():
        time.sleep(POLL_S)
    log.info(f'{stop.name} received: deactivating and unloading {spawner.loaded}')
    return 0 if _cleanup(spawner) else 1


def _is_namespace_option(arg: str) -> bool:
    return arg in ('-n', '--namespace') or arg.startswith(('--namespace=', '-n=', '-n/'))


def parse_args(argv: list[str]) -> argparse.Namespace:
    """The spawner's own arguments; exits with status 2 on an unknown one (as argparse),
    with a hint for upstream's removed -n/--namespace."""
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        hint = ''
        if any(_is_namespace_option(a) for a in unknown):
            hint = (
                ' (-n/--namespace was removed, as in ros2_control since kilted: set the '
                "namespace the ROS 2 way, '--ros-args -r __ns:=/<namespace>')"
            )
        parser.error(f'unrecognized arguments: {" ".join(unknown)}{hint}')
    return args


def ros_params_files(ros_argv: list[str]) -> list[str]:
    """The `--params-file` paths among the ROS arguments (`--ros-args ... [--]`), in order:
    what launch passes for a spawner Node's `parameters=` (a dict or a ParameterFile)."""
    files: list[str] = []
    in_ros_args = False
    tokens = iter(ros_argv)
    for token in tokens:
        if token == '--ros-args':
            in_ros_args = True
        elif token == '--':
            in_ros_args = False
        elif in_ros_args and token == '--params-file':
            path = next(tokens, None)
            if path is not None:
                files.append(path)
    return files


def main(argv: list[str] | None = None) -> int:
    """Entry point of `spawner`."""
    own, ros_argv = split_command_line('spawner', sys.argv[1:] if argv is None else argv)
    args = parse_args(own)
    # as upstream (rolling): the spawner's own parameter files go to every controller too,
    # after its --param-file ones
    args.param_file += [f for f in ros_params_files(ros_argv) if f not in args.param_file]
    # before anything waits: from now on a signal only sets the flag that every wait polls
    stop = SignalStop().install()
    rclpy.init(args=ros_argv, signal_handler_options=SignalHandlerOptions.NO)
    node = Node(f'spawner_{args.controller_names[0]}'.replace('/', '_'))
    status = 1
    try:
        status = spawn(Spawner(node, args, stop), stop)
    finally:
        tear_down(node, status)
    return status


if __name__ == '__main__':
    sys.exit(main())
