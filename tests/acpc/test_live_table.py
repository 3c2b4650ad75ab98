"""ACPC clients at a live table, through ``manage.py acpc_server`` in a subprocess.

The server (tests/acpc/server.py: own SQLite file, the table worker in the same process)
plays a house ``random`` bot; the client (tests/acpc/client.py) is written from
the protocol document only.
"""

from __future__ import annotations

import json
import socket
import time

from botkit.acpc import GameDef, import_state_lines
from tests.acpc.client import Game, play, read_state
from tests.acpc.conftest import AcpcServer

# Live tables: the client's game has a huge stack (docs/acpc.md, "Stacks").
NL = Game(limit=False, players=2, blinds=[100, 50], stacks=[10**9, 10**9])
FL = Game(limit=True, players=2, blinds=[100, 50], stacks=[20_000, 20_000],
          raise_sizes=[100, 100, 200, 200], max_raises=[3, 4, 4, 4])


def _lines(port: int, header: list[str], answers: dict[int, str] | None = None,
           limit: int = 40) -> list[str]:
    """A raw session: send ``header`` + VERSION, record lines; ``answers[i]`` is sent
    after the i-th MATCHSTATE line (``{state}`` is replaced by it)."""
    got: list[str] = []
    states = 0
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        reader = sock.makefile("r", encoding="ascii", newline="\n")
        for line in [*header, "VERSION:2.0.0"]:
            sock.sendall(line.encode() + b"\n")
        for raw in reader:
            line = raw.rstrip("\r\n")
            got.append(line)
            if line.startswith("MATCHSTATE"):
                states += 1
                if answers and states in answers:
                    sock.sendall(answers[states].format(state=line).encode() + b"\r\n")
            if len(got) >= limit or (answers and states > max(answers)):
                break
    return got


HANDS = 400  # (1,000 by hand: docs/acpc.md; the suite keeps to its time)


def test_spec_client_plays_hundreds_of_hands(acpc_server: AcpcServer) -> None:
    chips = acpc_server.chips()
    table = acpc_server.setup["table"]
    before = acpc_server.hands(table)["hands"]
    started = time.monotonic()
    played = play(acpc_server.port, [f"TOKEN:{acpc_server.setup['token']}", f"TABLE:{table}",
                                     "BUYIN:20000", f"HANDS:{HANDS}"], NL, seed=7, fold=0.5,
                  shove=0.5)
    seconds = time.monotonic() - started
    print(f"ACPC live table: {HANDS} hands in {seconds:.1f} s ({HANDS / seconds:.1f} hands/s), "
          f"{played.answers} answers, {played.states} states")
    assert len(played.seen) >= HANDS
    assert played.comments[-1] == f"# DONE {HANDS} hands"
    # The client's huge stack (docs/acpc.md, "Stacks") may see a raise where the opponent
    # is really all-in: refused, and the client answers again.
    assert not [c for c in played.comments if "ERROR" in c
                and c != "# ERROR invalid_action: no raise is possible now"]
    assert acpc_server.hands(table)["hands"] - before >= HANDS
    assert acpc_server.chips() == chips  # buy-in, top-ups and leaving book every chip


def test_spec_client_plays_limit(acpc_server: AcpcServer) -> None:
    table = acpc_server.setup["limit_table"]
    played = play(acpc_server.port, [f"TOKEN:{acpc_server.setup['token']}", f"TABLE:{table}",
                                     "BUYIN:20000", "HANDS:60"], FL, seed=3)
    assert len(played.hands) >= 60 and played.comments[-1] == "# DONE 60 hands"
    assert not [c for c in played.comments if "ERROR" in c or "WARNING" in c]


def test_bad_token_is_refused(acpc_server: AcpcServer) -> None:
    lines = _lines(acpc_server.port, ["TOKEN:pkb_nonsense", f"TABLE:{acpc_server.setup['table']}"])
    assert lines == ["# ERROR invalid_token: This bot token is not valid."]
    lines = _lines(acpc_server.port, [])  # an unmodified client: no header lines
    assert lines[0].startswith("# ERROR invalid_token")
    lines = _lines(acpc_server.port, [f"TOKEN:{acpc_server.setup['token']}"])
    assert lines[0].startswith("# ERROR bad_header: Say TABLE:<id>, OPPONENT:")
    lines = _lines(acpc_server.port, [f"TOKEN:{acpc_server.setup['token']}", "TABLE:999"])
    assert lines[0].startswith("# ERROR table_not_found")
    lines = _lines(acpc_server.port, [f"TOKEN:{acpc_server.setup['token']}", "COLOR:blue"])
    assert lines[0].startswith("# ERROR bad_header")


def test_match_needs_the_redis_layer(acpc_server: AcpcServer) -> None:
    """MATCH:<id> joins a match whose runner is in another process through the channel
    layer: with the in-memory layer (plain bin/serve, this server) a clear refusal, at
    once (tests/scale/test_acpc_match.py plays it with Redis)."""
    started = time.monotonic()
    lines = _lines(acpc_server.port, [f"TOKEN:{acpc_server.setup['token']}", "MATCH:1"])
    assert lines == ["# ERROR not_supported: MATCH needs the Redis channel layer "
                     "(bin/scaleout): with the in-memory layer the listener cannot reach "
                     "the match runner (docs/acpc.md)."]
    assert time.monotonic() - started < 5
    lines = _lines(acpc_server.port, ["TOKEN:pkb_nonsense", "MATCH:1"])
    assert lines == ["# ERROR invalid_token: This bot token is not valid."]


def test_malformed_and_illegal_lines_change_nothing(acpc_server: AcpcServer) -> None:
    """Until the bot's turn, then: garbage, a stale echo, a raise without size, a fold
    with nothing to call... each answered by a comment (and the state again); the
    table's version does not move; then a valid call is played."""
    table = acpc_server.setup["table"]
    token = acpc_server.setup["token"]
    with socket.create_connection(("127.0.0.1", acpc_server.port), timeout=30) as sock:
        reader = sock.makefile("r", encoding="ascii", newline="\n")
        for line in [f"TOKEN:{token}", f"TABLE:{table}", "BUYIN:20000", "HANDS:2",
                     "VERSION:2.0.0"]:
            sock.sendall(line.encode() + b"\n")

        def next_state() -> str:
            for raw in reader:
                line = raw.rstrip("\r\n")
                if line.startswith("MATCHSTATE"):
                    return line
            raise AssertionError("closed")

        def until_comment() -> str:
            for raw in reader:
                line = raw.rstrip("\r\n")
                if line.startswith("#"):
                    return line
            raise AssertionError("closed")

        while True:  # the bot's first turn
            state = next_state()
            viewer, _, parsed = read_state(NL, state)
            if not parsed.finished and parsed.current() == viewer:
                break
        version = acpc_server.hands(table)["version"]
        sock.sendall(b"hello dealer\r\n")
        assert until_comment().startswith("# ERROR bad_state")
        stale = state.replace(f":{state.split(':')[2]}:", f":{int(state.split(':')[2]) + 7}:", 1)
        sock.sendall(f"{stale}:c\r\n".encode())
        assert until_comment() == "# WARNING ignoring un-requested response (not the current " \
                                  "state)"
        sock.sendall(f"{state}:r\r\n".encode())  # no-limit raise without its size
        assert until_comment().startswith("# ERROR bad_action")
        assert next_state() == state  # the same state again: answer it anew
        sock.sendall(f"{state}:x\r\n".encode())
        assert until_comment().startswith("# ERROR bad_action")
        assert next_state() == state
        if not parsed.can_fold():
            sock.sendall(f"{state}:f\r\n".encode())
            assert until_comment().startswith("# ERROR invalid_action")
            assert next_state() == state
        assert acpc_server.hands(table)["version"] == version  # nothing changed
        sock.sendall(f"{state}:c\r\n".encode())
        after = next_state()
        assert after != state and after.split(":")[3].startswith(state.split(":")[3] + "c")
    assert acpc_server.hands(table)["version"] > version


def test_spec_client_plays_a_duplicate_batch_match(acpc_server: AcpcServer) -> None:
    """OPPONENT:… — a duplicate batch match against a house bot, stored as a research
    match; its STATE export replays to the stored results."""
    game = Game(limit=False, players=2, blinds=[100, 50], stacks=[20_000, 20_000])
    played = play(acpc_server.port, [f"TOKEN:{acpc_server.setup['token']}",
                                     "OPPONENT:calling_station", "HANDS:100", "DUPLICATE:1",
                                     "SEED:5"], game, seed=11, fold=0.3, shove=0.3)
    assert played.comments[0].startswith("# MATCH ")
    assert played.comments[-1].startswith("# DONE match ")
    assert not [c for c in played.comments if "ERROR" in c or "WARNING" in c], played.comments
    assert len(played.hands) == 100
    match_id = played.comments[0].split()[2].rstrip(":")
    stored = json.loads(acpc_server.run("-m", "tests.acpc.server", "match", match_id))
    assert stored["status"] == "done"
    nets = {name: row["net"] for name, row in stored["results"]["bots"].items()}
    assert set(nets) == {"AcpcBot", "calling_station"} and sum(nets.values()) == 0
    found = import_state_lines(stored["log"], GameDef.holdem("NL", 50, 100, 2, 20_000))
    assert found.hands == 100 and not found.mismatches
    assert found.totals == {name: float(net) for name, net in nets.items()}
