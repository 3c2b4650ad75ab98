"""A bot speaking the match websocket directly (no SDK runner), for ``--bot-cmd``.

``python -m tests.conformance.raw_bot WS_URL [--crash-on-duplicate]`` (the token from
``$POKERBOT_TOKEN``, as ``pokerbot conformance --bot-cmd`` sets it): checks or
calls (mucks at a show-or-muck); with ``--crash-on-duplicate`` it exits with an
error when a turn comes a second time (a deliberately broken bot).
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any

from botkit.client import ConnectionLost, WebsocketClient


def answer(view: dict[str, Any]) -> dict[str, Any]:
    kinds = [move["kind"] for move in view["moves"]]
    for kind in ("muck", "check", "call", "fold"):
        if kind in kinds:
            return {"kind": kind}
    return {"kind": kinds[0]}


def main() -> int:
    url, token = sys.argv[1], os.environ["POKERBOT_TOKEN"]
    crash = "--crash-on-duplicate" in sys.argv
    seen: set[str] = set()
    give_up = time.monotonic() + 60
    while time.monotonic() < give_up:
        socket = WebsocketClient(url.split("/ws/")[0].replace("ws://", "http://"), token,
                                 path="/ws/" + url.split("/ws/", 1)[1])
        try:
            socket.connect()
            for message in socket.messages(idle=5.0):
                if message is None:
                    continue
                if message["type"] == "match_over":
                    return 0
                if message["type"] == "error" and message.get("code") in (
                        "match_over", "not_a_participant", "not_authenticated"):
                    return 1
                if message["type"] != "match_turn":
                    continue
                request = str(message["request_id"])
                if request in seen:
                    if crash:
                        raise SystemExit(f"turn {request} again!")
                    continue
                seen.add(request)
                socket.send({"type": "match_action", "request_id": request,
                             "action": answer(message["view"])})
        except ConnectionLost:
            time.sleep(0.2)  # dropped (the reconnect check): connect again
        finally:
            socket.close()
    return 1


if __name__ == "__main__":
    sys.exit(main())
