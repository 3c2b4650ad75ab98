"""The Origin check of session websockets: scheme, host and port (tables/middleware.py).

A browser sends the page's origin in ``Origin`` and the address it connects to in
``Host``. A session socket is accepted only when the two are the same origin (the host
in ``ALLOWED_HOSTS``) or the Origin is listed in ``CSRF_TRUSTED_ORIGINS``; anything else
is closed before it is accepted. Bearer-token sockets carry no cookie and need no Origin.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from pokersite.asgi import application

from .ws import _session_cookie

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


def app_with(scheme: str) -> Any:
    """The ASGI app, called with the scope's ``scheme`` (``ws`` or ``wss``) set."""

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> Any:
        return await application(dict(scope, scheme=scheme), receive, send)

    return app


async def connect(table: Any, user: Any, *, origin: str | None, host: str | None,
                  scheme: str = "ws", extra: list[tuple[bytes, bytes]] | None = None,
                  token: str | None = None) -> tuple[bool, list[dict[str, Any]]]:
    """Open ``/ws/tables/<id>/``; (accepted, the first messages when it was)."""
    headers = list(extra or [])
    if user is not None:
        headers.append((b"cookie", await database_sync_to_async(_session_cookie)(user)))
    if token is not None:
        headers.append((b"authorization", f"Bearer {token}".encode()))
    if host is not None:
        headers.append((b"host", host.encode()))
    if origin is not None:
        headers.append((b"origin", origin.encode()))
    communicator = WebsocketCommunicator(app_with(scheme), f"/ws/tables/{table.pk}/",
                                         headers=headers)
    connected, _ = await communicator.connect()
    if not connected:
        # Refused before the handshake was accepted (Daphne answers HTTP 403), and
        # nothing else arrives.
        assert await communicator.receive_nothing(timeout=0.1)
        await communicator.disconnect()
        return False, []
    messages = []
    while not await communicator.receive_nothing(timeout=0.15, interval=0.005):
        messages.append(json.loads((await communicator.receive_output(timeout=1))["text"]))
    await communicator.disconnect()
    return True, messages


def snapshot_for(messages: list[dict[str, Any]]) -> dict[str, Any]:
    return next(m for m in messages if m["type"] == "snapshot")


async def test_same_origin_is_accepted(table: Any, alice: Any) -> None:
    ok, messages = await connect(table, alice, origin="http://localhost:8000",
                                 host="localhost:8000")
    assert ok
    assert snapshot_for(messages)["info"]["name"] == "Test NL"  # the session authenticated
    # Default ports: no port in either means 80 for ws/http and 443 for wss/https;
    # an explicit default port is the same origin; host names compare case-insensitively.
    assert (await connect(table, alice, origin="http://localhost", host="localhost"))[0]
    assert (await connect(table, alice, origin="http://127.0.0.1:80", host="127.0.0.1"))[0]
    assert (await connect(table, alice, origin="http://LOCALHOST:8000", host="localhost:8000"))[0]
    assert (await connect(table, alice, origin="https://localhost", host="localhost",
                          scheme="wss"))[0]
    assert (await connect(table, alice, origin="http://[::1]:8000", host="[::1]:8000"))[0]


async def test_other_port_is_refused(table: Any, alice: Any) -> None:
    assert not (await connect(table, alice, origin="http://localhost:8001",
                              host="localhost:8000"))[0]
    assert not (await connect(table, alice, origin="http://localhost", host="localhost:8000"))[0]
    assert not (await connect(table, alice, origin="http://localhost:8000", host="localhost"))[0]


async def test_other_scheme_is_refused(table: Any, alice: Any) -> None:
    # A page over https may not open a plain-ws socket with the cookie, and the reverse.
    assert not (await connect(table, alice, origin="https://localhost:8000",
                              host="localhost:8000", scheme="ws"))[0]
    assert not (await connect(table, alice, origin="http://localhost:8000",
                              host="localhost:8000", scheme="wss"))[0]
    assert not (await connect(table, alice, origin="ftp://localhost:8000",
                              host="localhost:8000"))[0]


async def test_scheme_from_the_proxy_header(table: Any, alice: Any, settings: Any) -> None:
    """Behind a TLS-terminating proxy the socket is plain ws; SECURE_PROXY_SSL_HEADER says
    https, as for Django's request.is_secure()."""
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    settings.ALLOWED_HOSTS = ["poker.example.com"]
    https = [(b"x-forwarded-proto", b"https")]
    assert (await connect(table, alice, origin="https://poker.example.com",
                          host="poker.example.com", extra=https))[0]
    assert not (await connect(table, alice, origin="http://poker.example.com",
                              host="poker.example.com", extra=https))[0]
    # The header saying http, or no header: the socket's own scheme.
    assert (await connect(table, alice, origin="http://poker.example.com",
                          host="poker.example.com", extra=[(b"x-forwarded-proto", b"http")]))[0]
    assert not (await connect(table, alice, origin="https://poker.example.com",
                              host="poker.example.com"))[0]


async def test_other_host_is_refused(table: Any, alice: Any, settings: Any) -> None:
    assert not (await connect(table, alice, origin="http://evil.example",
                              host="localhost"))[0]
    assert not (await connect(table, alice, origin="http://evil.localhost",
                              host="localhost"))[0]
    # Origin and Host agree, but the host is not ours (e.g. DNS rebinding): refused.
    assert not (await connect(table, alice, origin="http://evil.example",
                              host="evil.example"))[0]
    # No Host header: no page origin to compare with.
    assert not (await connect(table, alice, origin="http://localhost", host=None))[0]


async def test_csrf_trusted_origin_is_accepted(table: Any, alice: Any, settings: Any) -> None:
    settings.CSRF_TRUSTED_ORIGINS = ["https://poker.example.com", "https://*.example.org"]
    assert (await connect(table, alice, origin="https://poker.example.com",
                          host="localhost:8000"))[0]
    assert (await connect(table, alice, origin="https://app.example.org",
                          host="localhost:8000"))[0]
    # Only as listed: another scheme or port of a trusted origin is not trusted.
    assert not (await connect(table, alice, origin="http://poker.example.com",
                              host="localhost:8000"))[0]
    assert not (await connect(table, alice, origin="https://poker.example.com:8443",
                              host="localhost:8000"))[0]
    assert not (await connect(table, alice, origin="http://app.example.org",
                              host="localhost:8000"))[0]


async def test_no_origin_is_refused(table: Any, alice: Any) -> None:
    assert not (await connect(table, alice, origin=None, host="localhost:8000"))[0]
    assert not (await connect(table, alice, origin="", host="localhost:8000"))[0]
    assert not (await connect(table, alice, origin="null", host="localhost:8000"))[0]
    # Anonymous sockets are checked the same way (before the session is read).
    assert not (await connect(table, None, origin=None, host="localhost:8000"))[0]


async def test_bearer_token_needs_no_origin(table: Any, bob: Any) -> None:
    from accounts.services import create_bot

    _, token = await database_sync_to_async(create_bot)(owner=bob, name="Skynet")
    for origin, host in ((None, None), ("http://evil.example", "localhost:8000")):
        ok, messages = await connect(table, None, origin=origin, host=host, token=token)
        assert ok and snapshot_for(messages)["you"]["bot"] is not None
