"""Remote SDK bots in batch matches, end to end: a real Daphne in one process, the SDK
runner (``python -m botkit.runner --match ID``) in another.

* 200 hands duplicate, house ``random`` against a remote ``rule_based``: results stored with CIs,
  the remote bot's turns counted, the duplicate deals checked from the stored PHH;
* a remote bot that sleeps through one turn: the default action is played and
  counted (``timeouts``, ``illegal``), the match finishes;
* a remote bot that never connects: the match fails with ``remote_bots_not_connected``;
* another user's bot token is refused on the match's websocket (``not_a_participant``).
"""

from __future__ import annotations

import json
import re
import subprocess
import time
from collections import defaultdict
from typing import Any

import pytest

from botkit.client import RestClient, ServerError, WebsocketClient
from engine.phh.notation import loads_all
from tests.sdk.conftest import PYTHON, ROOT, Server


def run_bot(server: Server, token: str, match: int, bot: str,
            **env: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [PYTHON, "-m", "botkit.runner", "--server", f"http://127.0.0.1:{server.port}",
         "--token", token, "--match", str(match), "--bot", bot],
        cwd=ROOT, env={**server.env, **env}, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True)


def wait_for(client: RestClient, match: int, statuses: set[str], seconds: float = 30) -> Any:
    deadline = time.monotonic() + seconds
    while True:
        data = client.match(match)
        if data["status"] in statuses or time.monotonic() > deadline:
            return data
        time.sleep(0.1)


def first_message(server: Server, token: str, match: int) -> dict[str, Any]:
    socket = WebsocketClient.for_match(f"http://127.0.0.1:{server.port}", token, match)
    socket.connect()
    try:
        message = next(m for m in socket.messages(idle=5) if m is not None)
        assert message is not None
        return message
    finally:
        socket.close()


def duplicate_pairs_hold_swapped_cards(phh: str, deals: int) -> None:
    hands = [history for _, history in loads_all(phh)]
    assert len(hands) == 2 * deals
    for first, second in zip(hands[:deals], hands[deals:], strict=True):
        cards: list[dict[str, str]] = []
        for history in (first, second):
            assert not isinstance(history, Exception)
            players = history.fields["players"]
            dealt: dict[str, str] = defaultdict(str)
            board = ""
            for line in history.fields["actions"]:
                parts = line.split()
                if parts[:2] == ["d", "dh"]:
                    dealt[players[int(parts[2][1:]) - 1]] = parts[3]
                elif parts[:2] == ["d", "db"]:
                    board += parts[2]
            cards.append({"board": board, **dealt})
        a, b = cards
        # the same deal, seats swapped: each bot holds what the other held
        names = [n for n in a if n != "board"]
        assert set(names) == {"random", "Skynet"}
        if a["board"] and b["board"]:
            common = min(len(a["board"]), len(b["board"]))
            assert a["board"][:common] == b["board"][:common]
        assert a["random"] == b["Skynet"] and a["Skynet"] == b["random"]


def test_remote_bot_plays_a_duplicate_match(server: Server) -> None:
    tokens = json.loads(server.manage("-m", "tests.sdk.server", "match_setup"))
    url = f"http://127.0.0.1:{server.port}"
    pekka, olli = RestClient(url, tokens["Skynet"]), RestClient(url, tokens["Intruder"])

    # Nobody connects this one: it fails after its one-second wait.
    lonely = pekka.create_match(bots=["random", {"remote": "Intruder"}], hands=10,
                                connect_seconds=1)
    # The main match: a house bot against pekka's remote bot, 200 hands duplicate.
    match = pekka.create_match(bots=["random", {"remote": "Skynet"}], hands=200, seed=7,
                               duplicate=True, turn_seconds=5, connect_seconds=30)
    assert match["status"] == "queued"
    assert [p["kind"] for p in match["participants"]] == ["house", "remote"]
    with pytest.raises(ServerError) as error:
        olli.create_match(bots=["rule_based", {"remote": "Nobody"}])
    assert error.value.code == "bad_match"

    # Another user's token cannot play (or answer) for Skynet; no token, no entry.
    refused = first_message(server, tokens["Intruder"], match["id"])
    assert refused["type"] == "error" and refused["code"] == "not_a_participant"
    assert first_message(server, "nonsense", match["id"])["code"] == "not_authenticated"

    started = time.monotonic()
    runner = run_bot(server, tokens["Skynet"], match["id"], "house:rule_based")
    out, err = runner.communicate(timeout=60)
    seconds = time.monotonic() - started
    assert runner.returncode == 0, out + err
    assert re.search(rf"Match {match['id']} done: 200 hands as Skynet", out), out + err
    assert "Skynet (you)" in out and "mbb/hand (95 % CI)" in out
    assert "200/200" in err and "bb100=" in err  # the progress bar
    print(f"\nremote bot match: 200 hands in {seconds:.1f} s (runner included)\n{out}")

    data = pekka.match(match["id"])
    assert data["status"] == "done", data
    results = data["results"]
    skynet, house = results["bots"]["Skynet"], results["bots"]["random"]
    assert skynet["kind"] == "remote" and house["kind"] == "house"
    assert skynet["hands"] == house["hands"] == 200 and results["deals"] == 100
    assert skynet["net"] + house["net"] == 0
    assert skynet["ci95"] > 0 and house["ci95"] > 0
    assert skynet["turns"] > 200 and skynet["timeouts"] == 0 and skynet["illegal"] == 0
    duplicate_pairs_hold_swapped_cards(pekka.request("GET", f"matches/{match['id']}/phh",
                                                     raw=True), deals=100)
    print(f"server: {results['hands_per_second']:.1f} hands/s, {skynet['turns']} remote turns, "
          f"{skynet['seconds_waiting']:.2f} s waiting for the remote bot")

    failed = wait_for(pekka, lonely["id"], {"failed", "done"})
    assert failed["status"] == "failed" and failed["error_code"] == "remote_bots_not_connected"
    assert "Intruder" in failed["error"]
    assert first_message(server, tokens["Intruder"], lonely["id"])["code"] == "match_over"


def test_remote_bot_timeout_plays_the_default_action(server: Server) -> None:
    tokens = json.loads(server.manage("-m", "tests.sdk.server", "match_setup"))
    pekka = RestClient(f"http://127.0.0.1:{server.port}", tokens["Skynet"])
    match = pekka.create_match(bots=[{"remote": "Skynet"}, "calling_station"], hands=20,
                               seed=3, turn_seconds=0.5, connect_seconds=30)
    runner = run_bot(server, tokens["Skynet"], match["id"], "tests.sdk.bots:SlowOnce",
                     SLOW_BOT_SLEEP="0.8")
    out, err = runner.communicate(timeout=60)
    assert runner.returncode == 0, out + err
    data = pekka.match(match["id"])
    assert data["status"] == "done"
    skynet = data["results"]["bots"]["Skynet"]
    # The sleep outlasts one turn (maybe the next one too on a busy machine): each expired
    # turn got the default action and was counted; the late answers were ignored.
    assert 1 <= skynet["timeouts"] <= 2 and skynet["illegal"] == skynet["timeouts"]
    assert skynet["hands"] == 20 and f"{skynet['timeouts']} timeouts" in out
