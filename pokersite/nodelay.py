"""TCP_NODELAY on every connection Daphne accepts.

Twisted, under Daphne, leaves Nagle's algorithm on: a small frame written while an
earlier one is not yet acknowledged waits for that acknowledgement, which the peer
may delay by up to 40 ms. A websocket sends many small frames — a match with lanes
sends several turns in a row, a table several events — so each such pair waited.
Browsers, the SDK (``websockets``) and asyncio set TCP_NODELAY on their side; this
sets it on the server's (docs/benchmarks.md, "Remote matches"). The ACPC listener
sets it itself.
"""

from __future__ import annotations

import contextlib
from typing import Any


def install() -> None:
    """Patch Daphne's protocol factory (once; a no-op outside Daphne)."""
    try:
        from daphne.http_protocol import HTTPFactory
    except ImportError:  # pragma: no cover - Daphne is a dependency
        return
    if getattr(HTTPFactory, "nodelay_installed", False):
        return
    build = HTTPFactory.buildProtocol

    def build_protocol(self: Any, addr: Any) -> Any:
        protocol = build(self, addr)
        # Twisted wraps the HTTP channel in a proxy that forwards makeConnection to it
        channel = getattr(protocol, "_channel", protocol)
        made = channel.connectionMade

        def connection_made() -> None:
            with contextlib.suppress(Exception):  # not a TCP socket (a UNIX one): fine
                channel.transport.setTcpNoDelay(True)
            made()

        channel.connectionMade = connection_made
        return protocol

    HTTPFactory.buildProtocol = build_protocol
    HTTPFactory.nodelay_installed = True
