"""What the dashboard's browser tests share: Debian's Chromium and a fresh page per test."""

import pytest
from browser_rig import WAIT_MS
from playwright.sync_api import sync_playwright

from py_controllers.dashboard.browser import chromium_path, launch_chromium


def pytest_collection_modifyitems(items):
    if chromium_path() is None:
        skip = pytest.mark.skip(
            reason='no Chromium at /usr/bin/chromium: scripts/setup_browser.sh installs it'
        )
        for item in items:
            if 'test/browser' in str(item.fspath):
                item.add_marker(skip)


@pytest.fixture(scope='module')
def browser():
    with sync_playwright() as playwright:
        chromium = launch_chromium(playwright)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={'width': 1280, 'height': 900})
    context.set_default_timeout(WAIT_MS)
    page = context.new_page()
    yield page
    context.close()
