"""House bots always answer with a legal action: FL/NL/PL, 2–10 players, odd stacks."""

from __future__ import annotations

import random

import pytest

from botkit.house import HOUSE_BOTS, make_bot
from botkit.view import make_view
from engine.actions import Action
from engine.cards import seeded_deck
from engine.table import TableSettings, TableState


def play_random_tables(names: list[str], tables: int, hands: int, seed: int) -> int:
    """Play mixed tables with random settings and stacks; assert every action is legal."""
    rng = random.Random(seed)
    decisions = 0
    for _ in range(tables):
        players = rng.randint(2, 10)
        structure = rng.choice(["NL", "PL", "FL"])
        ante = rng.choice([0, 0, 1])
        table = TableState(TableSettings(structure=structure, small_blind=1, big_blind=2,
                                         ante=ante, seats=players, min_buy_in=2,
                                         max_buy_in=None))
        bots = [make_bot(rng.choice(names), random.Random(rng.random())) for _ in range(players)]
        for seat in range(players):
            table.sit(seat, f"p{seat}", 2)  # stacks are set per hand below
        for _ in range(hands):
            for seat in range(players):
                occupant = table.seats[seat]
                assert occupant is not None
                # short stacks (below the blinds) to deep ones
                occupant.stack = rng.choice([1, 2, 3, rng.randint(4, 60), rng.randint(100, 800)])
                occupant.status = "playing"
            table.start_hand(seeded_deck(rng.randrange(10**9)))
            while (seat := table.to_act_seat) is not None:
                view = make_view(table, seat)
                answer = bots[seat].act(view)
                action = Action.from_json(answer)
                assert action in table.legal_actions(seat), (answer, view["legal"])
                table.act(seat, action)
                decisions += 1
    return decisions


@pytest.mark.parametrize(("name", "seed"), [("random", 1), ("calling_station", 2),
                                           ("rule_based", 3), ("uniform", 4)])
def test_cheap_bots_always_legal(name: str, seed: int) -> None:
    assert play_random_tables([name], tables=40, hands=25, seed=seed) > 3000


def test_ehs_bot_always_legal() -> None:
    assert play_random_tables(["ehs"], tables=12, hands=8, seed=5) > 300


def test_mixed_tables_always_legal() -> None:
    assert play_random_tables(sorted(HOUSE_BOTS), tables=30, hands=10, seed=11) > 1000


def test_unknown_bot() -> None:
    with pytest.raises(KeyError, match="known: calling_station"):
        make_bot("nobody")


def test_bots_are_reproducible_with_a_seeded_rng() -> None:
    view_log: list[str] = []
    for _ in range(2):
        bot = make_bot("random", random.Random(9))
        table = TableState(TableSettings(structure="NL", seats=3))
        for seat in range(3):
            table.sit(seat, f"p{seat}", 200)
        table.start_hand(seeded_deck(2))
        answers = []
        while (seat := table.to_act_seat) is not None:
            answer = bot.act(make_view(table, seat))
            answers.append(str(Action.from_json(answer)))
            table.act(seat, Action.from_json(answer))
        view_log.append(",".join(answers))
    assert view_log[0] == view_log[1]
