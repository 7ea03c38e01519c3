"""`py-controllers dashboard` / `python -m py_controllers.dashboard`: the web dashboard.

Binds to 127.0.0.1 unless told otherwise and needs a token wherever it is bound, as
Jupyter does (`--token`, or one is made and printed in the address; `--no-token` turns the
check off); every page and action asks for it.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import os
import shutil
import sys
import tempfile

from py_controllers.dashboard.model import resolve_token


def build_parser(prog: str = 'py-controllers dashboard') -> argparse.ArgumentParser:
    """The dashboard's command line."""
    p = argparse.ArgumentParser(prog=prog, description=__doc__.splitlines()[0])
    p.add_argument(
        '-c', '--controller-manager', default='/controller_manager', help='manager node name'
    )
    p.add_argument('--host', default='127.0.0.1', help='address to bind (default 127.0.0.1)')
    p.add_argument('--port', type=int, default=8080, help='port (default 8080)')
    p.add_argument(
        '--token',
        default=None,
        help='required in the address (?token=...); made up and printed when not given',
    )
    p.add_argument(
        '--no-token',
        action='store_true',
        help='no token: anyone who can reach the address (every user of this machine, on '
        'loopback) can steer the robot',
    )
    return p


def private_storage() -> str:
    """A fresh directory only this user can read (0700, unpredictable name) for NiceGUI's
    storage, removed at exit."""
    path = tempfile.mkdtemp(prefix='py_controllers_dashboard_')
    atexit.register(shutil.rmtree, path, ignore_errors=True)
    return path


def main(argv: list[str] | None = None) -> int:
    """Run the dashboard until Ctrl-C; the exit status."""
    from py_controllers.controller_manager.client import split_command_line

    own, ros_argv = split_command_line('dashboard', list(sys.argv[1:] if argv is None else argv))
    args = build_parser().parse_args(own)
    if args.no_token and args.token:
        print('dashboard: --token and --no-token contradict each other', file=sys.stderr)
        return 2
    token, generated = resolve_token(args.token, no_token=args.no_token)
    shown_host = f'[{args.host}]' if ':' in args.host else args.host
    url = f'http://{shown_host}:{args.port}/' + (f'?token={token}' if token else '')
    if generated:
        print('dashboard: generated a token; open the address below', flush=True)
    # NiceGUI takes a process started from a pytest test for its own test mode (another
    # port, no reload): this is a program, whoever started it
    os.environ.pop('PYTEST_CURRENT_TEST', None)
    # NiceGUI keeps its storage in ./.nicegui unless told otherwise: not in the user's
    # tree, nor in a predictable /tmp path another user could make first
    os.environ.setdefault('NICEGUI_STORAGE_PATH', private_storage())
    from py_controllers.dashboard.app import serve

    with contextlib.suppress(KeyboardInterrupt):  # uvicorn re-raises Ctrl-C after shutdown
        serve(
            manager=args.controller_manager,
            host=args.host,
            port=args.port,
            token=token,
            url=url,
            ros_args=ros_argv,
        )
    return 0


if __name__ == '__main__':
    sys.exit(main())
