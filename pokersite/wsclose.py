"""Time for a slow client to answer the server's websocket close.

When the server closes a websocket (a refusal: ``server_busy``, ``session_ended``…),
it sends the error message and the close frame, then waits for the client's close
frame. Autobahn, under Daphne, waits 1 s and then aborts the TCP connection: a
client whose event loop or network was slower than that (a busy bot host, a phone)
loses, with the reset, whatever it had not read yet — the error message and the
close code — and sees only an abnormal closure (1006) with no reason. Measured in
the load runs' connection storms: a few seats per run closed 1006 while their
clients were being refused ``server_busy`` (docs/benchmarks.md). The wait here is
10 s (it only keeps a closing socket open longer).
"""

from __future__ import annotations

from typing import Any

CLOSE_HANDSHAKE_SECONDS = 10


def install() -> None:
    """Patch Daphne's websocket factory (once; a no-op outside Daphne)."""
    try:
        from daphne.ws_protocol import WebSocketFactory
    except ImportError:  # pragma: no cover - Daphne is a dependency
        return
    if getattr(WebSocketFactory, "close_wait_installed", False):
        return
    init = WebSocketFactory.__init__

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        self.setProtocolOptions(closeHandshakeTimeout=CLOSE_HANDSHAKE_SECONDS)

    WebSocketFactory.__init__ = __init__  # type: ignore[method-assign]
    WebSocketFactory.close_wait_installed = True
