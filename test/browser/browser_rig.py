"""Helpers of the dashboard's browser tests: reading numbers off a page, parameter files
for namespaced managers."""

from pathlib import Path

import yaml
from playwright.sync_api import expect

WAIT_MS = 30_000  # a guard for slow machines, never a duration anything depends on
expect.set_options(timeout=WAIT_MS)


def number(locator) -> float:
    """The number a label shows."""
    return float(locator.inner_text().strip())


def wait_for_number(page, test_id: str, value: float, tolerance: float) -> None:
    """Wait until the label `test_id` shows `value` within `tolerance`."""
    page.wait_for_function(
        """([id, value, tolerance]) => {
            const e = document.querySelector(`[data-testid="${id}"]`);
            return e !== null && Math.abs(parseFloat(e.innerText) - value) < tolerance;
        }""",
        arg=[test_id, value, tolerance],
    )


def namespaced_params(params_file: Path, ns: str, folder: Path) -> str:
    """`params_file` with every node name put in `ns` (`/r1/diff_drive_controller`), as a
    launch file's namespace gives it; the new file's path."""
    params = yaml.safe_load(params_file.read_text())
    path = folder / f'{ns.strip("/")}_{params_file.name}'
    path.write_text(yaml.safe_dump({f'{ns}/{node}': value for node, value in params.items()}))
    return str(path)
