"""Daphne's connections send small frames at once (TCP_NODELAY, pokersite/nodelay.py)."""

from __future__ import annotations

from typing import Any

from daphne.http_protocol import HTTPFactory
from twisted.internet.address import IPv4Address
from twisted.internet.testing import StringTransport

import pokersite.asgi  # noqa: F401  (installs the patch, as Daphne's import of the app does)


class Transport(StringTransport):
    nodelay: bool | None = None

    def setTcpNoDelay(self, enabled: bool) -> None:  # Twisted's name
        self.nodelay = enabled


class Server:
    """What HTTPFactory reads of Daphne's server while a connection is made."""

    http_timeout = websocket_timeout = 60
    ping_interval = ping_timeout = 20
    websocket_connect_timeout = 5
    application_close_timeout = 10
    root_path = ""
    proxy_forwarded_address_header = proxy_forwarded_port_header = None
    proxy_forwarded_proto_header = None
    server_name = "test"

    def __getattr__(self, name: str) -> Any:
        return None


def test_every_accepted_connection_gets_tcp_nodelay() -> None:
    protocol = HTTPFactory(Server()).buildProtocol(IPv4Address("TCP", "127.0.0.1", 50000))
    transport = Transport()
    protocol.makeConnection(transport)
    assert transport.nodelay is True
