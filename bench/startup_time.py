"""Startup: from starting ros2_control_node to every demo controller active, the way a
launch file does it (the node and the spawner started together)."""

from __future__ import annotations

import subprocess
import time

from bench.common import DEMO_CONTROLLERS, MANAGER_PARAMS, WAIT_S
from py_controllers.testing import BIN, CONFIG, ManagerProcess


def startup_run() -> tuple[float, float]:
    """(seconds to the spawner's exit with all controllers active, of which the spawner
    process's own Python start-up is part)."""
    start = time.monotonic()
    with ManagerProcess(
        [CONFIG / 'demo_controllers.yaml'], CONFIG / 'demo_robot.urdf', params=MANAGER_PARAMS
    ) as proc:
        spawner = subprocess.run(
            [str(BIN / 'spawner'), *DEMO_CONTROLLERS, '--controller-manager-timeout', str(WAIT_S)],
            capture_output=True,
            text=True,
            timeout=5 * WAIT_S,
        )
        elapsed = time.monotonic() - start
        if spawner.returncode != 0:
            raise RuntimeError(spawner.stderr + proc.output()[-2000:])
    t0 = time.monotonic()
    subprocess.run([str(BIN / 'spawner'), '--help'], capture_output=True, timeout=60)
    return elapsed, time.monotonic() - t0
