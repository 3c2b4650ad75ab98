"""Ports for the scale-out processes a test starts (``bin/scaleout``'s PORT_BASE).

Below the kernel's ephemeral range: a port picked from that range (``bind(0)``) can be
taken by any outgoing connection in the moment before the server binds it (a Daphne
of the scale-out test once failed with "Address already in use" that way).
"""

from __future__ import annotations

import random
import socket
from pathlib import Path


def _ephemeral_start() -> int:
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def free_port_base(count: int = 2) -> int:
    """A base port B with B+1 .. B+count free (B+1 and B+2: two Daphne processes),
    all below the ephemeral range."""
    top = _ephemeral_start() - count - 1
    for _ in range(200):
        base = random.randrange(min(20000, top - 1000), top)
        try:
            for port in range(base + 1, base + count + 1):
                with socket.socket() as sock:
                    sock.bind(("127.0.0.1", port))
        except OSError:
            continue
        return base
    raise AssertionError("no two free consecutive ports below the ephemeral range")
