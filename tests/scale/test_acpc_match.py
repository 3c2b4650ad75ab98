"""``MATCH:<id>`` (docs/acpc.md, "Batch matches"): an ACPC bot as the remote participant
of a batch match created through the API, with the real scale-out parts — PostgreSQL,
Redis, the match runner and the ACPC listener in processes of their own.

The match is created with ``POST /api/v1/matches/`` (its background launch is switched
off: the runner is ``research.services.run_match`` in a subprocess, as in another server
process); ``manage.py acpc_server`` listens in another; the client is the spec-written
``tests/acpc/client.py``. Checked: the stored match (done, hand count, zero-sum, the
remote bot's turns), its ``acpc_log --match`` export re-imported by ``python -m
botkit.acpc import``, the documented treatment of invalid lines, a client that goes
away (``bye``: the match fails once ``connect_seconds`` ran out) or connects again, the
refusals (Redis out of reach included), and two ACPC bots (``python -m botkit.acpc
play``) as the two remote participants of one match (with and without lanes).

This module lives in tests/scale, not tests/acpc: bin/test runs tests/acpc once, in the
SQLite stage (``-m "not postgres"``), and leaves it out of the PostgreSQL + Redis stage;
marked ``postgres`` it runs in that stage, and fails (never skips) without Redis.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from io import StringIO
from pathlib import Path
from typing import Any

import pytest

from botkit.acpc import GameDef
from tests.acpc.client import Game, play, read_state

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]
ROOT = Path(__file__).resolve().parents[2]
GAME = Game(limit=False, players=2, blinds=[100, 50], stacks=[20_000, 20_000])


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _database_url() -> str:
    from django.db import connection

    s = connection.settings_dict
    password = f":{s['PASSWORD']}" if s.get("PASSWORD") else ""
    return (f"postgres://{s['USER']}{password}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}"
            f"/{s['NAME']}")


class Parts:
    """The listener process, and runners started one per match."""

    def __init__(self, directory: Path, redis_url: str) -> None:
        self.directory = directory
        self.port = _free_port()
        self.env = {**os.environ, "DATABASE_URL": _database_url(), "REDIS_URL": redis_url,
                    "CHANNELS_PREFIX": f"acpcm{os.getpid()}", "PYTHONUNBUFFERED": "1",
                    "DJANGO_SETTINGS_MODULE": "pokersite.settings"}
        self.runners: list[subprocess.Popen[bytes]] = []
        with (directory / "acpc.log").open("ab") as log:
            self.listener = subprocess.Popen(
                [sys.executable, "manage.py", "acpc_server", "--port", str(self.port)],
                cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                if time.monotonic() > deadline or self.listener.poll() is not None:
                    raise AssertionError("the ACPC listener did not start:\n"
                                         + self.logs()) from None
                time.sleep(0.1)

    def run_match(self, match_id: int) -> subprocess.Popen[bytes]:
        """The match runner in a process of its own (the Redis channel layer between)."""
        code = ("import django; django.setup(); from research.services import run_match; "
                f"m = run_match({match_id}); print('runner:', m.status, m.error)")
        with (self.directory / f"runner-{match_id}.log").open("ab") as log:
            runner = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, env=self.env,
                                      stdout=log, stderr=subprocess.STDOUT)
        self.runners.append(runner)
        return runner

    def logs(self) -> str:
        return "".join(f"--- {p.name}\n{p.read_text(errors='replace')[-3000:]}"
                       for p in sorted(self.directory.glob("*.log")))

    def stop(self) -> None:
        for process in [*self.runners, self.listener]:
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()


@pytest.fixture(scope="module")
def listener(tmp_path_factory: pytest.TempPathFactory, django_db_setup: None,
             django_db_blocker: Any) -> Iterator[Parts]:
    """One listener for the module (the tests' data is theirs: matches, bots)."""
    redis_url = os.environ.get("REDIS_URL")
    if not redis_url:
        pytest.fail("this test needs Redis: run it with REDIS_URL=redis://... (bin/test does)")
    with django_db_blocker.unblock():
        started = Parts(tmp_path_factory.mktemp("acpc-match"), redis_url)
    yield started
    started.stop()


@pytest.fixture
def parts(listener: Parts, monkeypatch: pytest.MonkeyPatch) -> Parts:
    from research import services

    # The API's background launch is off: each match's runner is a process of its own.
    monkeypatch.setattr(services, "launch", lambda match_id: None)
    return listener


def _lines(port: int, header: list[str], limit: int = 5) -> list[str]:
    got: list[str] = []
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        reader = sock.makefile("r", encoding="ascii", newline="\n")
        sock.sendall("".join(f"{line}\n" for line in [*header, "VERSION:2.0.0"]).encode())
        for raw in reader:
            got.append(raw.rstrip("\r\n"))
            if len(got) >= limit:
                break
    return got


def _create(api: Any, **settings: Any) -> int:
    body = {"bots": [{"remote": "AcpcBot"}, "rule_based"], "structure": "NL",
            "small_blind": 50, "big_blind": 100, "stack_bb": 200, "aivat": False,
            "connect_seconds": 30, "turn_seconds": 10, **settings}
    response = api.post("/api/v1/matches/", body, format="json")
    assert response.status_code == 202, response.content
    return int(response.json()["id"])


def _stored(match_id: int) -> Any:
    from research.models import MatchRun

    return MatchRun.objects.get(pk=match_id)


def test_acpc_bot_plays_a_match_created_elsewhere(parts: Parts, tmp_path: Path) -> None:
    from django.core.management import call_command
    from rest_framework.test import APIClient

    from accounts.models import Player, PlayerKind, Role, User
    from accounts.services import create_bot

    owner = User.objects.create_user("acpc-owner", role=Role.TESTER)
    Player.objects.create(owner=owner, name="acpc-owner", kind=PlayerKind.HUMAN)
    _, token = create_bot(owner=owner, name="AcpcBot")
    other = User.objects.create_user("other-owner", role=Role.TESTER)
    Player.objects.create(owner=other, name="other-owner", kind=PlayerKind.HUMAN)
    _, other_token = create_bot(owner=other, name="OtherBot")
    api = APIClient()
    api.force_login(owner)
    header = [f"TOKEN:{token}"]

    # A duplicate match of 100 hands, the house rule_based bot against the ACPC bot.
    match_id = _create(api, hands=100, duplicate=True, seed=5)
    refused = _lines(parts.port, [f"TOKEN:{other_token}", f"MATCH:{match_id}"])
    assert refused == [f"# ERROR not_a_participant: OtherBot is not a remote participant "
                       f"of match {match_id}."]
    assert _lines(parts.port, [*header, "MATCH:999999"]) == [
        "# ERROR match_not_found: There is no match 999999."]
    assert _lines(parts.port, ["TOKEN:pkb_nonsense", f"MATCH:{match_id}"]) == [
        "# ERROR invalid_token: This bot token is not valid."]
    runner = parts.run_match(match_id)
    started = time.monotonic()
    played = play(parts.port, [*header, f"MATCH:{match_id}"], GAME, seed=11, fold=0.3,
                  shove=0.3)
    seconds = time.monotonic() - started
    assert runner.wait(timeout=60) == 0, parts.logs()
    print(f"MATCH:{match_id} over ACPC: 100 hands in {seconds:.1f} s, {played.answers} "
          f"answers, {played.states} states")
    comments = played.comments
    assert comments[0] == (f"# JOINED match {match_id} as AcpcBot: NL 50/100, stack 20000, "
                           "100 hands (duplicate); waiting for the match"), comments
    assert comments[1] == f"# MATCH {match_id}: AcpcBot against rule_based, 100 hands " \
                          "(duplicate)"
    assert comments[-1].startswith(f"# DONE match {match_id}: 100 hands, "), comments
    assert not [c for c in comments if "ERROR" in c or "WARNING" in c], comments
    assert len(played.hands) == 100

    match = _stored(match_id)
    assert match.status == "done", (match.error, parts.logs())
    results = match.results
    assert results["hands"] == 100
    rows = results["bots"]
    assert set(rows) == {"AcpcBot", "rule_based"}
    assert sum(row["net"] for row in rows.values()) == 0  # chips: zero-sum
    mine = rows["AcpcBot"]
    assert mine["kind"] == "remote" and mine["turns"] >= played.answers > 100
    assert mine["timeouts"] == 0 and mine["illegal"] == 0
    assert comments[-1] == f"# DONE match {match_id}: 100 hands, {mine['net']} chips"

    # The STATE export re-imports (the dealer's tools' way) to the stored results.
    out = StringIO()
    call_command("acpc_log", "--match", str(match_id), stdout=out)
    (tmp_path / "match.log").write_text(out.getvalue())
    (tmp_path / "nl.game").write_text(GameDef.holdem("NL", 50, 100, 2, 20_000).text())
    replayed = subprocess.run(
        [sys.executable, "-m", "botkit.acpc", "import", "--game", str(tmp_path / "nl.game"),
         str(tmp_path / "match.log")], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    assert f"{tmp_path / 'match.log'}: 100 hands" in replayed.stdout
    for name, row in rows.items():
        assert f"  {name}: {row['net']}\n" in replayed.stdout, replayed.stdout

    # A finished match is refused.
    assert _lines(parts.port, [*header, f"MATCH:{match_id}"]) == [
        f"# ERROR match_over: Match {match_id} is over (done)."]


def test_invalid_lines_and_a_client_that_goes_away(parts: Parts) -> None:
    """Invalid answers are refused as in the listener's own matches (nothing played; the
    third refusal of a turn is a call); a client that goes away says ``bye``: the runner
    waits ``connect_seconds`` for it, then the match fails."""
    from rest_framework.test import APIClient

    from accounts.models import Player, PlayerKind, Role, User
    from accounts.services import create_bot

    owner = User.objects.create_user("acpc-owner", role=Role.TESTER)
    Player.objects.create(owner=owner, name="acpc-owner", kind=PlayerKind.HUMAN)
    _, token = create_bot(owner=owner, name="AcpcBot")
    api = APIClient()
    api.force_login(owner)
    match_id = _create(api, hands=20, seed=2, connect_seconds=2, turn_seconds=2)
    runner = parts.run_match(match_id)
    with socket.create_connection(("127.0.0.1", parts.port), timeout=30) as sock:
        reader = sock.makefile("r", encoding="ascii", newline="\n")
        sock.sendall(f"TOKEN:{token}\nMATCH:{match_id}\nVERSION:2.0.0\n".encode())

        def next_line(prefix: str) -> str:
            for raw in reader:
                line = raw.rstrip("\r\n")
                if line.startswith(prefix):
                    return line
            raise AssertionError(f"closed before {prefix!r}\n" + parts.logs())

        assert next_line("#").startswith(f"# JOINED match {match_id}")
        sock.sendall(b"MATCHSTATE:0:0::|:c\r\n")  # before the match: not its turn
        assert next_line("#") == "# WARNING ignoring un-requested response (not your turn)"
        while True:  # the bot's first turn
            state = next_line("MATCHSTATE")
            viewer, _, parsed = read_state(GAME, state)
            if not parsed.finished and parsed.current() == viewer:
                break
        sock.sendall(b"hello dealer\r\n")
        assert next_line("#").startswith("# ERROR bad_state")
        stale = state.replace(f":{state.split(':')[2]}:",
                              f":{int(state.split(':')[2]) + 7}:", 1)
        sock.sendall(f"{stale}:c\r\n".encode())
        assert next_line("#") == "# WARNING ignoring un-requested response (not the " \
                                 "current state)"
        sock.sendall(f"{state}:r\r\n".encode())  # a no-limit raise without its size
        assert next_line("#").startswith("# ERROR bad_action")
        assert next_line("MATCHSTATE") == state  # the same state again
        sock.sendall(f"{state}:r1\r\n".encode())  # below the least: moved up, played
        assert next_line("#").startswith("# WARNING raise to 1 is less than the least")
        after = next_line("MATCHSTATE")
        assert after != state and after.split(":")[3].startswith(state.split(":")[3] + "r")
        sock.shutdown(socket.SHUT_RDWR)  # then the client goes away in the middle
    assert runner.wait(timeout=60) == 0, parts.logs()
    match = _stored(match_id)
    assert match.status == "failed" and match.error_code == "remote_bot_disconnected", \
        (match.status, match.error, match.results, parts.logs())
    assert _lines(parts.port, [f"TOKEN:{token}", f"MATCH:{match_id}"]) == [
        f"# ERROR match_over: Match {match_id} is over (failed)."]


@pytest.mark.parametrize("lanes", [1, 4])
def test_two_acpc_bots_play_one_match(parts: Parts, lanes: int) -> None:
    """Both remote participants are ACPC clients: ``python -m botkit.acpc play`` with
    house bots, which learn the game (NL 1/2, 100 big blinds) from ``# JOINED``. With
    lanes (several deals at once) each client gets the states of several hands in
    turn; the listener sends each answer to the turn whose state it echoes."""
    from accounts.models import Player, PlayerKind, Role, User
    from accounts.services import create_bot
    from research import services

    tokens = {}
    for name in ("AcpcBot", "OtherBot"):
        owner = User.objects.create_user(f"{name}-owner", role=Role.TESTER)
        Player.objects.create(owner=owner, name=f"{name}-owner", kind=PlayerKind.HUMAN)
        tokens[name] = create_bot(owner=owner, name=name)[1]
    settings = {"bots": [{"remote": "AcpcBot"}, {"remote": "OtherBot"}], "hands": 100,
                "duplicate": True, "seed": 8, "structure": "NL", "small_blind": 1,
                "big_blind": 2, "stack_bb": 100, "aivat": False, "connect_seconds": 30,
                "turn_seconds": 10}
    if lanes > 1:  # not (yet) a field of POST /api/v1/matches/
        settings["lanes"] = lanes
    match_id = services.create_match(settings_data=settings, user=owner).pk
    runner = parts.run_match(match_id)
    clients = {name: subprocess.Popen(
        [sys.executable, "-m", "botkit.acpc", "play", "--server", f"127.0.0.1:{parts.port}",
         "--header", f"MATCH:{match_id}", "--bot", bot],
        cwd=ROOT, env={**os.environ, "ACPC_TOKEN": tokens[name]}, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True)
        for name, bot in (("AcpcBot", "rule_based"), ("OtherBot", "ehs"))}
    outputs = {name: client.communicate(timeout=120)[0] for name, client in clients.items()}
    assert runner.wait(timeout=60) == 0, parts.logs()
    for name, output in outputs.items():
        assert clients[name].returncode == 0, output
        assert f"# DONE match {match_id}: 100 hands" in output, output
        assert "WARNING" not in output and "ERROR" not in output, output
        assert output.strip().splitlines()[-1].startswith("100 hands, "), output  # numbers
    match = _stored(match_id)
    assert match.status == "done", (match.error, parts.logs())
    rows = match.results["bots"]
    assert sum(row["net"] for row in rows.values()) == 0
    for name in ("AcpcBot", "OtherBot"):
        assert rows[name]["kind"] == "remote" and rows[name]["turns"] > 100
        assert rows[name]["illegal"] == rows[name]["timeouts"] == 0
    print(f"two ACPC bots, MATCH:{match_id}, {lanes} lane(s): 100 hands, "
          f"{match.results['hands_per_second']:.0f} hands/s in the runner; "
          + "; ".join(o.strip().splitlines()[-1] for o in outputs.values()))


def test_redis_out_of_reach(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A listener whose Redis cannot be reached refuses MATCH with ``unavailable``."""
    from rest_framework.test import APIClient

    from accounts.models import Player, PlayerKind, Role, User
    from accounts.services import create_bot
    from research import services

    if not os.environ.get("REDIS_URL"):
        pytest.fail("this test needs Redis: run it with REDIS_URL=redis://... (bin/test does)")
    monkeypatch.setattr(services, "launch", lambda match_id: None)
    owner = User.objects.create_user("acpc-owner", role=Role.TESTER)
    Player.objects.create(owner=owner, name="acpc-owner", kind=PlayerKind.HUMAN)
    _, token = create_bot(owner=owner, name="AcpcBot")
    api = APIClient()
    api.force_login(owner)
    match_id = _create(api, hands=10)
    parts = Parts(tmp_path, f"redis://127.0.0.1:{_free_port()}/0")  # nothing listens there
    try:
        lines = _lines(parts.port, [f"TOKEN:{token}", f"MATCH:{match_id}"])
    finally:
        parts.stop()
    assert lines == ["# ERROR unavailable: The channel layer (Redis) cannot be reached; "
                     "connect again in a moment."], parts.logs()


def test_a_client_that_connects_again(parts: Parts) -> None:
    """A client that goes away and connects again within ``connect_seconds`` goes on with
    the match (its runner tells the new connection ``match_started`` again); a turn of the
    hand it missed the start of is checked or folded for it, a turn sent while it was
    away times out."""
    from rest_framework.test import APIClient

    from accounts.models import Player, PlayerKind, Role, User
    from accounts.services import create_bot

    owner = User.objects.create_user("acpc-owner", role=Role.TESTER)
    Player.objects.create(owner=owner, name="acpc-owner", kind=PlayerKind.HUMAN)
    _, token = create_bot(owner=owner, name="AcpcBot")
    api = APIClient()
    api.force_login(owner)
    match_id = _create(api, hands=30, seed=4, connect_seconds=20, turn_seconds=2)
    runner = parts.run_match(match_id)
    header = [f"TOKEN:{token}", f"MATCH:{match_id}"]
    with socket.create_connection(("127.0.0.1", parts.port), timeout=30) as sock:
        reader = sock.makefile("r", encoding="ascii", newline="\n")
        sock.sendall("".join(f"{line}\n" for line in [*header, "VERSION:2.0.0"]).encode())
        for raw in reader:  # the first turn: answered, then the client goes away
            line = raw.rstrip("\r\n")
            if line.startswith("MATCHSTATE"):
                viewer, _, parsed = read_state(GAME, line)
                if not parsed.finished and parsed.current() == viewer:
                    sock.sendall(f"{line}:c\r\n".encode())
                    break
        sock.shutdown(socket.SHUT_RDWR)
    played = play(parts.port, header, GAME, seed=3)
    assert runner.wait(timeout=60) == 0, parts.logs()
    comments = played.comments
    started = f"# MATCH {match_id}: AcpcBot against rule_based, 30 hands"
    joined_late = ("# WARNING joined during a hand: checked or folded for you until the "
                   "next one")
    assert comments[0].startswith(f"# JOINED match {match_id}")
    # The runner tells the new connection that the match is on when it sees its hello
    # (sent with the first message it gets); turns may reach the new connection first.
    assert started in comments, comments
    assert comments[-1].startswith(f"# DONE match {match_id}: 30 hands, ")
    assert not [c for c in comments[1:-1] if c not in (started, joined_late)], comments
    assert len(played.hands) >= 25
    match = _stored(match_id)
    assert match.status == "done", (match.error, parts.logs())
    mine = match.results["bots"]["AcpcBot"]
    # A turn sent while the client was away times out (counted as illegal too).
    assert mine["illegal"] == mine["timeouts"] <= 1, mine


def test_a_regenerated_token_ends_the_session(parts: Parts) -> None:
    """The token is checked again with the answers (at most once a second): once it is
    regenerated the connection ends with ``session_ended``."""
    from rest_framework.test import APIClient

    from accounts.models import Player, PlayerKind, Role, User
    from accounts.services import create_bot, regenerate_bot_token

    owner = User.objects.create_user("acpc-owner", role=Role.TESTER)
    Player.objects.create(owner=owner, name="acpc-owner", kind=PlayerKind.HUMAN)
    bot, token = create_bot(owner=owner, name="AcpcBot")
    api = APIClient()
    api.force_login(owner)
    match_id = _create(api, hands=50, seed=6, connect_seconds=1, turn_seconds=2)
    runner = parts.run_match(match_id)
    got: list[str] = []
    with socket.create_connection(("127.0.0.1", parts.port), timeout=30) as sock:
        reader = sock.makefile("r", encoding="ascii", newline="\n")
        sock.sendall(f"TOKEN:{token}\nMATCH:{match_id}\nVERSION:2.0.0\n".encode())
        turns = 0
        for raw in reader:
            line = raw.rstrip("\r\n")
            got.append(line)
            if not line.startswith("MATCHSTATE"):
                continue
            viewer, _, parsed = read_state(GAME, line)
            if parsed.finished or parsed.current() != viewer:
                continue
            turns += 1
            if turns == 2:
                regenerate_bot_token(bot)
                time.sleep(1.1)
            sock.sendall(f"{line}:c\r\n".encode())
    assert got[-1].startswith("# ERROR session_ended"), got[-5:]
    assert turns == 2, got
    assert runner.wait(timeout=60) == 0, parts.logs()
    assert _stored(match_id).error_code == "remote_bot_disconnected"
