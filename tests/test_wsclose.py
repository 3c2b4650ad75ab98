"""A slow client has time to read the server's refusal before the socket is dropped
(pokersite/wsclose.py)."""

from __future__ import annotations

from daphne.ws_protocol import WebSocketFactory
from twisted.internet.address import IPv4Address
from twisted.internet.testing import StringTransport

import pokersite.asgi  # noqa: F401  (installs the patch, as Daphne's import of the app does)
from pokersite import wsclose

from .test_nodelay import Server


def test_the_close_handshake_waits_ten_seconds_not_one() -> None:
    factory = WebSocketFactory(Server(), server="test")
    factory.setProtocolOptions(openHandshakeTimeout=5)  # as Daphne's run() does next
    protocol = factory.buildProtocol(IPv4Address("TCP", "127.0.0.1", 50000))
    protocol.makeConnection(StringTransport())
    assert wsclose.CLOSE_HANDSHAKE_SECONDS == 10
    assert protocol.closeHandshakeTimeout == 10  # autobahn's own: 1 s, then an abort
    assert protocol.openHandshakeTimeout == 5  # the other options stay Daphne's
