"""Daphne's connections send a turn's writes at its end, not through the selector
(pokersite/flush.py).

The case runs in a fresh interpreter with Twisted's asyncio reactor on uvloop, as the
launcher starts Daphne (pokersite/serve.py): a Twisted TCP server whose connections
write what the test asks, and plain sockets as clients. Every page and websocket of
tests/test_site.py, tests/browser/ and tests/scale/ goes through the patch as well.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PROBE = r"""
import json, socket, struct, threading
from pokersite.serve import choose_loop
choose_loop()
import daphne.server  # installs Twisted's asyncio reactor on uvloop's loop
from twisted.internet import protocol, reactor, tcp
from pokersite import flush

flush.install()
flush.install()  # (twice: once in effect)
registered = []
add_writer = reactor.addWriter
def counting_add_writer(writer):
    registered.append(type(writer).__name__)
    add_writer(writer)
reactor.addWriter = counting_add_writer

BIG = bytes(range(256)) * (16 * 1024 * 4)  # 16 MiB: more than the kernel takes at once
results = {}
lost = []

class Writer(protocol.Protocol):
    def dataReceived(self, data):
        for command in data.decode().split():
            if command == "small":  # three writes in one turn
                for part in (b"one,", b"two,", b"three\n"):
                    self.transport.write(part)
            elif command == "big":
                self.transport.write(BIG)
            elif command == "close":
                self.transport.write(b"last words\n")
                self.transport.loseConnection()

    def connectionLost(self, reason):
        lost.append(reason.type.__name__)

port = reactor.listenTCP(0, protocol.Factory.forProtocol(Writer), interface="127.0.0.1")
address = ("127.0.0.1", port.getHost().port)

def read_exactly(sock, count):
    data = b""
    while len(data) < count:
        chunk = sock.recv(count - len(data))
        if not chunk:
            break
        data += chunk
    return data

def client():
    try:
        with socket.create_connection(address, timeout=20) as sock:
            sock.sendall(b"small ")
            results["small"] = read_exactly(sock, 14).decode()
            results["registered_after_small"] = list(registered)
            sock.sendall(b"big ")
            import time
            time.sleep(0.5)  # not reading: the server's send cannot finish at once
            results["registered_while_big"] = list(registered)
            results["big_intact"] = read_exactly(sock, len(BIG)) == BIG
            sock.sendall(b"close ")
            rest = b""
            while chunk := sock.recv(4096):
                rest += chunk
            results["close"] = rest.decode()
        with socket.create_connection(address, timeout=20) as sock:
            # the peer resets while the server writes much: the server's connection ends
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            sock.sendall(b"big ")
        import time
        for _ in range(100):
            if len(lost) == 2:
                break
            time.sleep(0.05)
        results["lost"] = list(lost)
        results["writers_left"] = len(reactor.getWriters())
    finally:
        reactor.callFromThread(reactor.stop)

threading.Thread(target=client, daemon=True).start()
reactor.run(installSignalHandlers=False)
results["patched"] = tcp.Server.startWriting.__name__
print(json.dumps(results))
"""


def probe(**env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if k != "DAPHNE_WRITES"}
    return subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, env={**environ, **env},
                          capture_output=True, text=True, timeout=120)


def test_a_turns_writes_go_out_at_its_end_and_a_full_socket_waits_for_the_selector() -> None:
    done = probe()
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout.strip().splitlines()[-1])
    assert results["patched"] == "start_writing_soon"
    # Three small writes arrive whole and in order without registering the socket.
    assert results["small"] == "one,two,three\n"
    assert results["registered_after_small"] == []
    # 16 MiB the kernel cannot take at once: the rest waits for the selector, as in Twisted.
    assert results["registered_while_big"] == ["Server"]
    assert results["big_intact"] is True
    # A close after a write sends the write first.
    assert results["close"] == "last words\n"
    # A peer that resets mid-write ends the server's connection; nothing stays registered.
    assert results["lost"] == ["ConnectionDone", "ConnectionLost"]
    assert results["writers_left"] == 0


def test_daphne_writes_selector_keeps_twisteds_way() -> None:
    done = probe(DAPHNE_WRITES="selector")
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout.strip().splitlines()[-1])
    assert results["patched"] == "startWriting"
    assert results["small"] == "one,two,three\n"
    assert results["registered_after_small"] == ["Server"] * 3  # each write: the selector
    assert results["big_intact"] is True and results["close"] == "last words\n"


def test_an_unknown_way_to_write_is_refused() -> None:
    done = probe(DAPHNE_WRITES="eager")
    assert done.returncode != 0
    assert "DAPHNE_WRITES='eager': expected one of soon, selector" in done.stderr
