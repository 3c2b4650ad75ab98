"""Autobahn's debug messages cost nothing unless they are logged (pokersite/wslog.py)."""

from __future__ import annotations

import autobahn.util
import click
import pytest
from autobahn.twisted import websocket as twisted_websocket
from autobahn.websocket import protocol
from daphne.ws_protocol import WebSocketFactory
from twisted.internet.address import IPv4Address
from twisted.internet.testing import StringTransport
from twisted.logger import formatEvent

import pokersite.asgi  # noqa: F401  (installs the patch, as Daphne's import of the app does)
from pokersite import wslog

from .test_nodelay import Server


def test_the_frame_modules_format_lazily_to_the_same_text() -> None:
    peer = "tcp4:127.0.0.1:50000"
    for module in (protocol, twisted_websocket):
        assert module.hltype.__wrapped__ is autobahn.util.hltype
        assert module.hlval.__wrapped__ is autobahn.util.hlval
        func, value = module.hltype(protocol.WebSocketProtocol.sendData), module.hlval(peer)
        assert isinstance(func, wslog.Deferred) and isinstance(value, wslog.Deferred)
        assert str(func) == autobahn.util.hltype(protocol.WebSocketProtocol.sendData)
        assert f"{value}" == autobahn.util.hlval(peer) != peer  # click's colours kept
    event = {"log_format": "{func} sent {data_len} bytes for peer {peer}",
             "func": protocol.hltype(protocol.WebSocketProtocol.sendData),
             "peer": protocol.hlval(peer), "data_len": protocol.hlval(12)}
    assert formatEvent(event) == (f"{autobahn.util.hltype(protocol.WebSocketProtocol.sendData)}"
                                  f" sent {autobahn.util.hlval(12)} bytes for peer "
                                  f"{autobahn.util.hlval(peer)}")
    assert str(protocol.pformat([("a", 1)])) == "[('a', 1)]"
    timings = protocol.Timings()
    timings.track("x")
    assert isinstance(str(timings), str) and "'x'" in str(timings)
    wslog.install()  # twice: still one layer
    assert protocol.hltype.__wrapped__ is autobahn.util.hltype


def test_frames_sent_and_received_colour_nothing_when_debug_is_off(
        monkeypatch: pytest.MonkeyPatch) -> None:
    styled: list[str] = []
    style = click.style
    monkeypatch.setattr(click, "style", lambda text, **kw: styled.append(text) or style(text, **kw))
    factory = WebSocketFactory(Server(), server="test")
    connection = factory.buildProtocol(IPv4Address("TCP", "127.0.0.1", 50000))
    connection.makeConnection(StringTransport())
    connection.dataReceived(b"GET /ws/ HTTP/1.1\r\n")  # a frame in: hltype, hlval per call
    connection.sendData(b"x")  # a frame out
    assert styled == []
    assert protocol.hltype(connection.sendData).__str__()  # formatting on demand still styles
    assert styled
