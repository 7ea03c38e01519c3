"""Helpers of the dashboard's browser tests: reading numbers off a page, parameter files
for namespaced managers."""

import threading
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

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


SERIES = """([id, name]) => {
    const el = document.querySelector(`[data-testid="${id}"]`);
    const chart = el && getElement(el) && getElement(el).chart;
    if (!chart) return null;
    const line = (chart.getOption().series || []).find(s => s.name === name);
    return line ? line.data : null;
}"""
"""The points [[seconds before now, value], ...] of the line `name` in the chart `id`, as
the page's echarts instance holds them (null until drawn)."""

LAST_POINT = f"""(args) => {{
    const data = ({SERIES})(args);
    return data && data.length ? data[data.length - 1][1] : null;
}}"""
"""The value of the newest point of a chart's line (null until there is one)."""


def chart_series(page, chart: str, name: str) -> list[tuple[float, float]]:
    """The points of line `name` in the chart with data-testid `chart` (waits for them)."""
    page.wait_for_function(f'(args) => ({SERIES})(args) !== null', arg=[chart, name])
    return [(t, v) for t, v in page.evaluate(SERIES, [chart, name])]


def wait_for_last_point(page, chart: str, name: str, value: float, tolerance: float) -> None:
    """Wait until the newest point of line `name` in `chart` is `value` within `tolerance`
    (0: exactly)."""
    try:
        page.wait_for_function(
            f"""([chart, name, value, tolerance]) => {{
                const last = ({LAST_POINT})([chart, name]);
                return last !== null && Math.abs(last - value) <= tolerance;
            }}""",
            arg=[chart, name, value, tolerance],
        )
    except Exception as exc:
        points = page.evaluate(SERIES, [chart, name])
        raise AssertionError(
            f'{chart}: {name} never within {tolerance} of {value}; its last points: '
            f'{points[-10:] if points else points}; {page_state(page)}'
        ) from exc


PAGE_STATE = """() => ({
    charts: Array.from(document.querySelectorAll('[data-testid^="chart-"]'),
                       e => e.dataset.testid),
    status: (document.querySelector('[data-testid="plot-status"]') || {}).innerText,
    heading: (document.querySelector('[data-testid="tuning-type"]') || {}).innerText,
    loaded_s_ago: (Date.now() - performance.timeOrigin) / 1000,
})"""


def page_state(page) -> str:
    """What a failed wait on the tuning page says of it: its address, its charts, its status
    lines and how long ago it was loaded (less than the test's wait: it reloaded)."""
    try:
        return f'page {page.url}: {page.evaluate(PAGE_STATE)}'
    except Exception as exc:  # the page itself is gone: say so, not a second error
        return f'page {page.url} unreadable: {exc}'


def until_shown(page, act: Callable[[], None], shown: Callable[[], None], what: str) -> None:
    """Do `act` on the tuning page until `shown` (an expect) passes, at most three times.

    A starved host can lose an action two ways: the page reloads (its connection dropped; it
    comes back with its plot window, which is in the address, but unpaused), or the page
    stays and shows nothing of it for the expect's 30 s (q35, two busy loops: the window
    choice, not in the address either, so the server never had it). Either gets the action
    again, with a warning that says which and what the page showed; three losses fail."""
    lost = []
    for _ in range(3):
        page.evaluate('window.__beforeAction = true')
        act()
        try:
            shown()
        except AssertionError as exc:
            same = page.evaluate('window.__beforeAction === true')
            lost.append(f'{"ignored by the page" if same else "the page reloaded"}: {exc}')
            lost.append(page_state(page))
            continue
        if lost:
            warnings.warn(f'{what} was lost and done again: ' + '; '.join(lost), stacklevel=2)
        return
    raise AssertionError(f'{what} was lost three times: ' + '; '.join(lost))


def pause_plots(page) -> None:
    """Click the tuning page's pause and wait until the page says it is paused."""
    status = page.get_by_test_id('plot-status')
    until_shown(
        page,
        lambda: page.get_by_test_id('plot-pause').click(),
        lambda: expect(status).to_contain_text('(paused)'),
        'the click on pause',
    )


def choose_plot_window(page, label: str) -> None:
    """Choose the tuning page's plot window `label` ('last 60 s') and wait until the page
    shows it."""
    field = page.get_by_test_id('plot-window')

    def choose() -> None:
        field.click()
        page.get_by_role('option', name=label).click()

    until_shown(
        page, choose, lambda: expect(field).to_contain_text(label), f'the choice of {label!r}'
    )


@contextmanager
def streaming(publisher: Any, message: Callable[[], Any], period_s: float = 0.05) -> Iterator[None]:
    """Publish `message()` every `period_s` from a thread of its own while the block runs.

    A timer of the test's node fires only while the test spins, and a test waiting on the
    page (`wait_for_last_point`) does not: a cmd_vel stream from a timer would stop during
    the wait, and the controller's cmd_vel_timeout would stop the robot the page is
    watching."""
    stop = threading.Event()

    def run() -> None:
        while not stop.is_set():
            publisher.publish(message())
            stop.wait(period_s)

    thread = threading.Thread(target=run, name='stream', daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
