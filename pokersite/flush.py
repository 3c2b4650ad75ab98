"""Daphne's connections send what they were given at the end of the event loop's turn.

Twisted writes through the reactor: each write registers the socket as a writer
(``epoll_ctl``), the next turn of the loop finds it writable, sends, and removes it
again (``epoll_ctl``), each step through Twisted's logging context. A live table's
commit answers hundreds of connections in one turn, so that was three system calls
and two loop callbacks per connection per turn. Here a connection that has nothing
queued and is not registered asks the loop for one callback at the end of the
current turn instead (``call_soon``): what it was given in the turn goes out in one
``send``, as before, and the socket is registered as a writer only when the kernel
did not take everything (a slow client), exactly as Twisted would. Every outcome of
the send (an error, a close that waited for the buffer to empty, a paused producer)
goes through Twisted's own ``doWrite`` and the reactor's handling of its result.

Only Twisted's accepted TCP connections (``twisted.internet.tcp.Server``: Daphne's)
on the asyncio reactor change; anything else writes as Twisted does.
``DAPHNE_WRITES=selector`` keeps Twisted's way (to measure against; the default is
``soon``). Measured in docs/benchmarks.md ("Scale", twelfth session).
"""

from __future__ import annotations

import os
from typing import Any

CHOICES = ("soon", "selector")


def install() -> None:
    """Patch Twisted's accepted TCP connections (once), unless ``DAPHNE_WRITES`` says
    ``selector``; any other value than the two is refused."""
    from twisted.internet import tcp

    choice = os.environ.get("DAPHNE_WRITES", "soon")
    if choice not in CHOICES:
        raise SystemExit(f"DAPHNE_WRITES={choice!r}: expected one of {', '.join(CHOICES)}")
    if choice == "selector" or getattr(tcp.Server, "flush_installed", False):
        return
    start_writing = tcp.Server.startWriting

    def flush(connection: Any) -> None:
        connection.flush_soon = False
        if not connection.connected:  # closed meanwhile: nothing to send to
            return
        reactor = connection.reactor
        reactor._readOrWrite(connection, False)  # doWrite; a failure disconnects
        if connection.connected and (connection.offset < len(connection.dataBuffer)
                                     or connection._tempDataLen):
            start_writing(connection)  # the kernel's buffer is full: wait until writable

    def start_writing_soon(self: Any) -> None:
        if getattr(self, "flush_soon", False):
            return
        reactor = self.reactor
        loop = getattr(reactor, "_asyncioEventloop", None)
        if loop is None or self in reactor._writers:  # (another reactor; registered)
            start_writing(self)
            return
        self.flush_soon = True
        loop.call_soon(flush, self)

    tcp.Server.startWriting = start_writing_soon  # type: ignore[method-assign]
    tcp.Server.flush_installed = True  # type: ignore[attr-defined]
