"""``botkit.acpc.AcpcMatchBot`` driven turn by turn (``start_turn`` / ``answer``), as the
listener's ``MATCH:<id>`` sessions drive it (acpc/match_join.py), against the engine's
own matches (``botkit.match.play_match``)."""

from __future__ import annotations

import random
from typing import Any

from botkit.acpc import AcpcMatchBot
from botkit.house import make_bot
from botkit.match import MatchSettings, play_match
from tests.acpc.client import Game, read_state

GAME = Game(limit=False, players=2, blinds=[100, 50], stacks=[20_000, 20_000])


class Driven:
    """A bot of ``play_match`` whose turns go through ``start_turn``/``answer`` with a
    scripted client: a stray line first, a bad action, then a random valid answer."""

    name = "driven"

    def __init__(self) -> None:
        self.sent: list[str] = []
        self.adapter = AcpcMatchBot(self.sent.append, limit=False, stack=20_000)
        self.rng = random.Random(3)
        self.turns = 0

    def observe(self, event: dict[str, Any]) -> None:
        self.adapter.observe(event)

    def act(self, view: dict[str, Any]) -> dict[str, Any]:
        move = self.adapter.start_turn(view)
        if move is not None:
            return move
        assert self.adapter.waiting
        self.turns += 1
        state = self.sent[-1]
        viewer, _, parsed = read_state(GAME, state)
        assert parsed.current() == viewer and not parsed.finished
        if self.turns == 1:
            assert self.adapter.answer("# a comment") is None
            assert self.adapter.answer(f"{state}:x") is None
            assert self.sent[-2].startswith("# ERROR bad_action") and self.sent[-1] == state
        options = ["c"] + (["f"] if parsed.can_fold() else [])
        bounds = parsed.raise_range()
        if bounds is not None and self.rng.random() < 0.3:
            options = [f"r{bounds[0]}"]
        move = self.adapter.answer(f"{state}:{self.rng.choice(options)}")
        assert move is not None and not self.adapter.waiting
        return move


def test_turn_by_turn_plays_a_match() -> None:
    driven = Driven()
    config = MatchSettings(structure="NL", small_blind=50, big_blind=100, stack=20_000)
    result = play_match({"driven": driven, "house": make_bot("calling_station")}, config,
                        hands=40, seed=4, record=False)
    assert result.bots["driven"].illegal == 0 and driven.turns > 40
    finals = [line for line in driven.sent if line.startswith("MATCHSTATE")
              and read_state(GAME, line)[2].finished]
    assert len({line.split(":")[2] for line in finals}) == 40  # each hand's final state
    driven.adapter.answer("MATCHSTATE:0:1::|:c")  # no turn now
    assert driven.sent[-1] == "# WARNING ignoring un-requested response (not your turn)"


def test_a_turn_of_a_hand_it_did_not_see_start() -> None:
    """A client that joins during a hand (a reconnect) cannot be sent that hand's state:
    the turn is checked or folded for it with a warning, the next hand is its own."""
    sent: list[str] = []
    adapter = AcpcMatchBot(sent.append, limit=False, stack=20_000)
    move = adapter.start_turn({"seat": 1, "moves": [{"kind": "fold"}, {"kind": "call"}]})
    assert move == {"kind": "fold"} and not adapter.waiting
    assert sent == ["# WARNING joined during a hand: checked or folded for you until the "
                    "next one"]
    assert adapter.start_turn({"seat": 1, "moves": [{"kind": "check"}]}) == {"kind": "check"}


class Wired:
    """``AcpcMatchBot`` (the server's side) wired to ``AcpcPlayer`` (an ACPC client
    playing a house bot) without a socket: every state line goes to the client, every
    answer back."""

    name = "wired"

    def __init__(self, bot: str, structure: str) -> None:
        from botkit.acpc_bot import AcpcPlayer

        self.lines: list[str] = []
        self.adapter = AcpcMatchBot(self.lines.append, limit=structure == "FL", stack=20_000)
        self.player = AcpcPlayer(make_bot(bot, random.Random(1)), structure=structure)
        self.answers = 0

    def observe(self, event: dict[str, Any]) -> None:
        self.adapter.observe(event)

    def act(self, view: dict[str, Any]) -> dict[str, Any]:
        move = self.adapter.start_turn(view)
        while move is None:
            line = self.lines[-1]
            assert line.startswith("MATCHSTATE"), self.lines[-3:]
            answer = self.player.respond(line)
            assert answer is not None, line
            self.answers += 1
            move = self.adapter.answer(answer)
        return move


def test_a_house_bot_plays_over_acpc() -> None:
    """``python -m botkit.acpc play``'s player: a house bot's moves survive the trip
    through ACPC lines (no refusal, no warning) in NL, FL and PL with 2, 3 and 6 players,
    and the bot plays exactly as it does directly (the same results)."""
    import time

    for structure, players in (("NL", 2), ("FL", 2), ("PL", 3), ("NL", 6)):
        config = MatchSettings(structure=structure, small_blind=50, big_blind=100,
                               stack=20_000)

        def others(n: int = players) -> dict[str, Any]:
            return {f"house{i}": make_bot("ehs" if n == 2 else "rule_based", random.Random(i))
                    for i in range(n - 1)}

        wired = Wired("rule_based", structure)
        started = time.perf_counter()
        result = play_match({"wired": wired, **others()}, config, hands=150, seed=9,
                            record=False)
        seconds = time.perf_counter() - started
        print(f"{structure} {players} players: 150 hands over ACPC lines in {seconds:.2f} s, "
              f"{wired.answers} answers")
        assert not [line for line in wired.lines if line.startswith("#")], wired.lines[:5]
        assert result.bots["wired"].illegal == 0 and wired.answers > 100
        direct = play_match({"wired": make_bot("rule_based", random.Random(1)), **others()},
                            config, hands=150, seed=9, record=False)
        assert direct.bots["wired"].net == result.bots["wired"].net
