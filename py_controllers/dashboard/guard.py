"""The web server's gate, as Jupyter and Grafana keep theirs: a request naming a host we
do not serve is refused (DNS rebinding, when bound to loopback), a request or websocket
whose Origin is another site is refused (cross-site websocket hijacking: the page's events
steer the robot), and every answer forbids being framed (clickjacking of the steering and
lifecycle buttons). And the log filter that keeps a client that left early out of the
server's error log.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterable
from typing import Any
from urllib.parse import urlsplit

FRAMING_HEADERS = (
    (b'content-security-policy', b"frame-ancestors 'none'"),
    (b'x-frame-options', b'DENY'),
)


def host_name(host_header: str) -> str:
    """The host of a Host header, without the port, lower case: `[::1]:8080` -> `::1`,
    `127.0.0.1:8080` -> `127.0.0.1`."""
    host = host_header.strip().lower()
    if host.startswith('['):
        end = host.find(']')
        return host[1:end] if end > 0 else ''
    if host.count(':') == 1:
        return host.split(':', 1)[0]
    return host  # a bare IPv6 address (not valid in a Host header), or no port


def same_origin(origin: str, host_header: str) -> bool:
    """True when the Origin header names the site the request was sent to (its Host)."""
    parts = urlsplit(origin.strip())
    if parts.scheme not in ('http', 'https') or not parts.netloc:
        return False  # 'null' (sandboxed frames, files) and anything odd
    return parts.netloc.lower() == host_header.strip().lower()


def refusal(
    host_header: str, origin: str | None, allowed_hosts: Iterable[str] | None
) -> tuple[int, str] | None:
    """(status, reason) when the request must be refused; None when it may pass.
    `allowed_hosts` None: any host (bound beyond loopback, the token guards)."""
    if allowed_hosts is not None and host_name(host_header) not in set(allowed_hosts):
        return 400, 'Invalid host header'
    if origin is not None and not same_origin(origin, host_header):
        return 403, 'Cross-origin request refused'
    return None


Receive = Callable[[], Awaitable[dict]]
Send = Callable[[dict], Awaitable[None]]


class GuardMiddleware:
    """ASGI middleware applying `refusal` to HTTP and websocket traffic and adding the
    framing headers to every HTTP answer."""

    def __init__(self, app: Any, allowed_hosts: Iterable[str] | None = None) -> None:
        self.app = app
        self.allowed_hosts = None if allowed_hosts is None else tuple(allowed_hosts)

    async def __call__(self, scope: dict, receive: Receive, send: Send) -> None:
        if scope['type'] not in ('http', 'websocket'):
            await self.app(scope, receive, send)
            return
        headers = {k.decode('latin-1').lower(): v.decode('latin-1') for k, v in scope['headers']}
        refused = refusal(headers.get('host', ''), headers.get('origin'), self.allowed_hosts)
        if scope['type'] == 'websocket':
            if refused is not None:  # closing before accepting: the server answers 403
                await send({'type': 'websocket.close', 'code': 1008})
                return
            await self.app(scope, receive, send)
            return

        async def framed(message: dict) -> None:
            if message['type'] == 'http.response.start':
                names = {k.lower() for k, _ in message.get('headers', [])}
                extra = [(k, v) for k, v in FRAMING_HEADERS if k not in names]
                message = {**message, 'headers': [*message.get('headers', []), *extra]}
            await send(message)

        if refused is not None:
            status, reason = refused
            body = reason.encode()
            await framed(
                {
                    'type': 'http.response.start',
                    'status': status,
                    'headers': [
                        (b'content-type', b'text/plain; charset=utf-8'),
                        (b'content-length', str(len(body)).encode()),
                    ],
                }
            )
            await send({'type': 'http.response.body', 'body': body})
            return
        await self.app(scope, receive, framed)


class ClientGoneFilter(logging.Filter):
    """Drops uvicorn's report of a request whose client left before its answer (a page
    closed while it loaded): starlette's middleware then raises 'No response returned.',
    logged as 'Exception in ASGI application' with a traceback, though nothing failed."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        return not (isinstance(exc, RuntimeError) and str(exc) == 'No response returned.')
