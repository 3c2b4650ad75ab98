"""The Tuppi agents: legal moves only, the greedy reference's rules, the strong bot's speed."""

from __future__ import annotations

import json
import random
import time
from typing import Any

import pytest

from botkit.bot import Bot
from botkit.tuppi import AGENTS, BOTS, GreedyBot, StrongBot
from botkit.tuppi.bots import greedy_card
from botkit.tuppi.cards import BIT, mask_of, split
from botkit.tuppi.knowledge import read
from botkit.tuppi.search import sample_deal
from engine.game import check_move, decision_view
from tests.tuppi.helpers import GAME, SPLIT, bid, start, table

Json = dict[str, Any]


def play(bots: list[Bot], seed: int, rounds: int) -> list[float]:
    """Play ``rounds`` rounds (new games as needed); every answer is checked
    against the moves offered. Returns the seconds of each decision."""
    rng = random.Random(seed)
    state = table()
    spent = []
    for _ in range(rounds):
        if state["over"]:
            state = table()
        GAME.start_round(state, GAME.draw_chance(state, rng))
        while to_act := GAME.to_act(state):
            seat = to_act[-1]
            view = decision_view(GAME, state, seat)
            json.dumps(view)  # plain JSON, as the server sends it
            started = time.perf_counter()
            action = bots[seat].act(view)
            spent.append(time.perf_counter() - started)
            check_move(view["moves"], action)
            GAME.apply(state, seat, action)
    return spent


def test_the_house_bots() -> None:
    assert list(BOTS) == ["random", "greedy", "strong"]
    for name, factory in AGENTS.items():
        bot = factory(random.Random(1))
        assert isinstance(bot, Bot), name
        assert factory(None).act is not None


@pytest.mark.parametrize("name", ["random", "greedy", "rules"])
def test_cheap_bots_only_make_legal_moves(name: str) -> None:
    play([AGENTS[name](random.Random(seat)) for seat in range(4)], seed=1, rounds=150)


def test_the_strong_bot_makes_legal_moves_quickly() -> None:
    bots: list[Bot] = [StrongBot(random.Random(1)), BOTS["greedy"](None),
                       StrongBot(random.Random(2)), BOTS["random"](random.Random(3))]
    spent = play(bots, seed=2, rounds=12)
    # Aimed at <= 20 ms a decision (docs/tuppi.md); generous here for busy machines.
    assert sum(spent) / len(spent) < 0.05


def test_greedy_bids_by_face_points() -> None:
    state = table(dealer=0)
    start(state, ["AsKsQsJsAhKh2c3c4c5c6c7c8c",  # 4+3+2+1+4+3 = 17: rami
                  "2s3s4s5s6s7s8s9sTs2h3h4h5h",  # 0: nolo
                  "AdKdQdJd2d3d4d5d6d7d8d9dTd",  # 10: nolo
                  "9cTcJcQcKcAc6h7h8h9hThJhQh"])  # 4+3+2+1+2+1 = 13: nolo
    greedy = GreedyBot()
    assert [greedy.act(decision_view(GAME, state, seat))["kind"] for seat in range(4)] == [
        "rami", "nolo", "nolo", "nolo"]


def test_greedy_wins_cheaply_or_plays_its_lowest_card() -> None:
    trick = [{"player": 0, "card": "9h"}, {"player": 1, "card": "Jh"}]
    assert greedy_card(["2h", "Qh", "Ah"], trick) == "Qh"  # the cheapest winner
    assert greedy_card(["2h", "8h"], trick) == "2h"  # cannot win: lowest
    assert greedy_card(["Ac", "3s", "2d"], trick) == "2d"  # void: the lowest card
    assert greedy_card(["Ac", "3s", "2d", "2c"], []) == "2c"  # leading: the lowest
    state = table(dealer=3)
    start(state, SPLIT)
    bid(state, {s: "nolo" for s in range(4)})
    GAME.apply(state, 0, {"kind": "play", "card": "2c"})
    assert GreedyBot().act(decision_view(GAME, state, 1)) == {"kind": "play", "card": "8c"}


def test_knowledge_from_the_view_and_deals_that_fit_it() -> None:
    state = table(dealer=3)
    start(state, SPLIT)
    bid(state, {s: "nolo" for s in range(4)})
    for seat, card in [(0, "2c"), (1, "8c"), (2, "2d"), (3, "2s"), (1, "9c")]:
        GAME.apply(state, seat, {"kind": "play", "card": card})
    seen = read(decision_view(GAME, state, 2))
    assert seen.voids == [0, 0, 1, 1]  # seats 2 and 3 showed out of clubs
    assert seen.trick == [(1, BIT["9c"])] and seen.leader == 1
    assert seen.counts == [12, 11, 12, 12] and seen.hand == mask_of(split(SPLIT[2])[1:])
    rng = random.Random(1)
    for _ in range(200):
        hands = sample_deal(rng, 2, seen.hand, seen.unknown(), seen.counts, seen.voids)
        assert hands[2] == seen.hand
        assert [h.bit_count() for h in hands] == seen.counts
        assert hands[3] & 0x1FFF == 0  # no clubs for seat 3
        assert hands[0] | hands[1] | hands[3] == seen.unknown()


def test_the_strong_bot_bids_rami_on_strength_and_nolo_on_small_cards() -> None:
    state = table(dealer=0)
    start(state, ["AsKsQsJsTsAhKhQhAdKdAc2c3c",  # every ace and most honours
                  "2s3s4s5s2h3h4h5h2d3d4d5d4c",  # nothing above a five
                  "6s7s8s9s6h7h8h9h6d7d8d9d5c",
                  "6cKcQcJcTc9c8c7cThJhTdJdQd"])
    strong = StrongBot(random.Random(7))
    assert strong.act(decision_view(GAME, state, 0)) == {"kind": "rami"}
    assert strong.act(decision_view(GAME, state, 1)) == {"kind": "nolo"}


def test_win_chances_follow_the_board() -> None:
    from botkit.tuppi.search import win_chance

    ups = [win_chance(points, 0) for points in range(0, 56, 4)]
    assert ups == sorted(ups) and abs(ups[0] - 0.5) < 1e-9 and ups[-1] == 1.0
    for points in range(0, 52, 4):  # the game is symmetric
        assert abs(win_chance(points, 0) + win_chance(0, points) - 1) < 1e-9
