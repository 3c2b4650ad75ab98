"""A reply that meets a socket the client has just closed is dropped, not an error.

At the end of a load run, clients closed their sockets while their last commands were
answered: Daphne raised ``Disconnected`` inside the consumer, which ended with
"Exception inside application" and a traceback in the log for each. The consumers'
``send`` (tables.wire.LoopDispatch) now drops such a send; the disconnect handler runs
next as usual.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from autobahn.exception import Disconnected

from lobby.consumers import LobbyConsumer
from research.consumers import MatchConsumer
from tables.consumers import TableConsumer


@pytest.mark.parametrize("consumer_class", [TableConsumer, LobbyConsumer, MatchConsumer])
def test_a_send_to_a_socket_the_client_closed_is_dropped(consumer_class: type) -> None:
    consumer = consumer_class()
    sent: list[dict[str, Any]] = []

    async def closed(message: dict[str, Any]) -> None:
        sent.append(message)
        raise Disconnected("Attempt to send on a closed protocol")

    consumer.base_send = closed
    asyncio.run(consumer.send(text_data='{"type":"pong"}'))
    assert sent == [{"type": "websocket.send", "text": '{"type":"pong"}'}]


def test_any_other_failure_of_a_send_still_raises() -> None:
    consumer = TableConsumer()

    async def broken(message: dict[str, Any]) -> None:
        raise RuntimeError("the server is broken")

    consumer.base_send = broken
    with pytest.raises(RuntimeError, match="broken"):
        asyncio.run(consumer.send_json({"type": "pong"}))
