"""The SDK's REST client waits as the server says (429, 503 ``server_busy``) and tries
again with the same request; other refusals are raised at once (botkit/client.py)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from botkit.client import RestClient, ServerError


class Script:
    """The answers the server gives, in order, and what it was asked."""

    def __init__(self, answers: list[tuple[int, dict[str, Any], dict[str, str]]]) -> None:
        self.answers = answers
        self.requests: list[tuple[str, dict[str, str], bytes]] = []


@pytest.fixture
def server() -> Iterator[tuple[str, Script]]:
    script = Script([])

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            script.requests.append((self.path, dict(self.headers), body))
            status, payload, headers = script.answers.pop(0)
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", script
    finally:
        httpd.shutdown()
        httpd.server_close()


def busy(wait: float) -> tuple[int, dict[str, Any], dict[str, str]]:
    return (503, {"error": {"code": "server_busy", "message": "At capacity.",
                            "details": {"wait_seconds": wait}}}, {"Retry-After": "1"})


def test_server_busy_is_waited_out_and_the_same_request_sent_again(
        server: tuple[str, Script]) -> None:
    url, script = server
    script.answers = [busy(0.01), busy(0.01), (200, {"table": 7, "version": 3}, {})]
    client = RestClient(url, "token")
    answer = client.command(7, {"type": "sit", "seat": 1, "buy_in": 100}, key="sit-7")
    assert answer == {"table": 7, "version": 3}
    assert len(script.requests) == 3
    bodies = {body for _, _, body in script.requests}
    keys = {headers["Idempotency-Key"] for _, headers, _ in script.requests}
    assert len(bodies) == 1 and keys == {"sit-7"}  # the same command, the same key


def test_a_503_without_a_time_to_wait_is_raised(server: tuple[str, Script]) -> None:
    url, script = server
    script.answers = [(503, {"error": {"code": "unavailable", "message": "Moving.",
                                       "details": {}}}, {})]
    with pytest.raises(ServerError) as refused:
        RestClient(url, "token").command(7, {"type": "sit", "seat": 1, "buy_in": 100})
    assert refused.value.code == "unavailable" and refused.value.status == 503
    assert len(script.requests) == 1


def test_a_refusal_is_raised_at_once(server: tuple[str, Script]) -> None:
    url, script = server
    script.answers = [(409, {"error": {"code": "seat_taken", "message": "Taken.",
                                       "details": {}}}, {})]
    with pytest.raises(ServerError) as refused:
        RestClient(url, "token").command(7, {"type": "sit", "seat": 1, "buy_in": 100})
    assert refused.value.code == "seat_taken" and len(script.requests) == 1


def test_busy_for_ever_ends_in_an_error(server: tuple[str, Script]) -> None:
    url, script = server
    script.answers = [busy(0.001) for _ in range(20)]
    with pytest.raises(ServerError) as refused:
        RestClient(url, "token").command(7, {"type": "sit", "seat": 1, "buy_in": 100})
    assert refused.value.code == "throttled" and len(script.requests) == 20
