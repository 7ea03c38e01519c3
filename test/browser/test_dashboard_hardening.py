"""The dashboard's gate (issue #31 item 3), as Jupyter and Grafana keep theirs: a token by
default on loopback too, no framing by another site, no websocket or event traffic from
another origin, and `--host ::1` served. Checked over HTTP with forged headers and in
Chromium."""

import contextlib
import http.client
import http.server
import socket
import threading
import urllib.error
import urllib.request

import pytest
from browser_rig import WAIT_MS
from playwright.sync_api import expect

from py_controllers.dashboard.browser import DashboardProcess

NOBODY = ('-c', '/nobody/controller_manager')  # no robot needed: the gate is checked
FRAMING = {'content-security-policy': "frame-ancestors 'none'", 'x-frame-options': 'DENY'}
POLLING = '/_nicegui_ws/socket.io/?EIO=4&transport=polling'


@pytest.fixture(scope='module')
def dash():
    with DashboardProcess(*NOBODY) as d:
        yield d
        assert d.stop() == 0, d.output()
        assert 'Traceback' not in d.output(), d.output()


def get(url: str, **headers: str) -> tuple[int, dict[str, str]]:
    """(status, headers in lower case) of a GET."""
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=10) as r:
            return r.status, {k.lower(): v for k, v in r.headers.items()}
    except urllib.error.HTTPError as e:
        return e.code, {k.lower(): v for k, v in e.headers.items()}


@contextlib.contextmanager
def other_site(html: str):
    """Another origin (a server on another port) serving `html`; yields its address."""

    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            body = html.encode()
            self.send_response(200)
            self.send_header('Content-Type', 'text/html')
            self.send_header('Content-Length', str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Page)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f'http://127.0.0.1:{server.server_address[1]}/'
    finally:
        server.shutdown()
        thread.join()


def test_a_token_is_required_by_default_on_loopback(dash):
    assert dash.token and len(dash.token) >= 16
    assert any(f'?token={dash.token}' in line for line in dash.lines)
    assert get(f'{dash.url}/')[0] == 403
    assert get(f'{dash.url}/?token=wrong')[0] == 403
    assert get(dash.address('/'))[0] == 200


def test_no_token_turns_it_off():
    with DashboardProcess('--no-token', *NOBODY) as d:
        assert d.token is None
        assert get(f'{d.url}/')[0] == 200
        assert d.stop() == 0, d.output()


def test_every_answer_forbids_framing(dash):
    for url in (dash.address('/'), f'{dash.url}/steering', f'{dash.url}{POLLING}'):
        _, headers = get(url)
        for name, value in FRAMING.items():
            assert headers.get(name) == value, (url, headers)


def test_another_origin_is_refused(dash):
    host = dash.url.removeprefix('http://')
    assert get(f'{dash.url}{POLLING}', Origin=dash.url)[0] == 200  # its own page
    assert get(f'{dash.url}{POLLING}', Origin='http://evil.example')[0] == 403
    assert get(f'{dash.url}{POLLING}', Origin='null')[0] == 403
    # a websocket upgrade from another origin is refused before it is accepted
    for origin, expected in (('http://evil.example', 403), (dash.url, 101)):
        conn = http.client.HTTPConnection(host, timeout=10)
        conn.request(
            'GET',
            '/_nicegui_ws/socket.io/?EIO=4&transport=websocket',
            headers={
                'Origin': origin,
                'Connection': 'Upgrade',
                'Upgrade': 'websocket',
                'Sec-WebSocket-Version': '13',
                'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==',
            },
        )
        assert conn.getresponse().status == expected, origin
        conn.close()


def test_chromium_refuses_to_frame_it_and_another_site_cannot_open_its_socket(dash, browser):
    context = browser.new_context()
    context.set_default_timeout(WAIT_MS)
    page = context.new_page()
    try:
        # its own page: connected over the websocket
        page.goto(dash.address('/'))
        expect(page.get_by_test_id('manager-status')).to_contain_text('not available')
        socket_opens = """(url) => new Promise((done) => {
            const ws = new WebSocket(url);
            ws.onopen = () => { ws.close(); done(true); };
            ws.onerror = () => done(false);
        })"""
        ws_url = (
            dash.url.replace('http', 'ws') + '/_nicegui_ws/socket.io/?EIO=4&transport=websocket'
        )
        assert page.evaluate(socket_opens, ws_url) is True
        # another site (another origin: its own server) frames it and opens its socket
        with other_site(f'<iframe id="f" src="{dash.address("/")}"></iframe>') as evil:
            page.goto(evil)
            page.wait_for_function('() => window.frames.length === 1')
            assert page.evaluate(socket_opens, ws_url) is False
            frame = page.frames[1]
            frame.wait_for_load_state()
            assert frame.locator('[data-testid=manager-status]').count() == 0
    finally:
        context.close()


def test_ipv6_loopback_is_served(browser):
    probe = socket.socket(socket.AF_INET6)
    try:
        probe.bind(('::1', 0))
    except OSError:
        pytest.skip('no IPv6 loopback here')
    finally:
        probe.close()
    with DashboardProcess(*NOBODY, host='::1') as d:
        assert d.url.startswith('http://[::1]:')
        assert get(d.address('/'))[0] == 200
        assert get(f'{d.url}/', Host='attacker.example')[0] == 400
        context = browser.new_context()
        context.set_default_timeout(WAIT_MS)
        page = context.new_page()
        try:
            page.goto(d.address('/'))
            expect(page.get_by_test_id('manager-status')).to_contain_text('not available')
        finally:
            context.close()
        assert d.stop() == 0, d.output()
