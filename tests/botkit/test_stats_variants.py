"""Tracker statistics of the other poker variants: streets without a board, the bring-in."""

from __future__ import annotations

import random

from botkit.stats import StatsAccumulator
from engine.poker import PokerGame


def _hand_events(key: str, seed: int) -> tuple[list[dict[str, object]], dict[int, str]]:
    """One hand of ``key`` between three players who call or check everything."""
    game = PokerGame(key)
    state = game.create(game.validate_settings({"seats": 3}))
    names = {seat: f"p{seat}" for seat in range(3)}
    for seat, name in names.items():
        game.seat(state, seat, name, {"buy_in": 100})
    events = game.start_round(state, game.draw_chance(state, random.Random(seed)))
    while game.to_act(state):
        seat = game.to_act(state)[0]
        legal = game.legal_actions(state, seat)
        if legal.get("bring_in") is not None:
            move = {"kind": "bring_in"}
        elif legal.get("draw") is not None:
            move = {"kind": "draw", "cards": []}
        elif legal["can_check"]:
            move = {"kind": "check"}
        elif legal["call_amount"] is not None:
            move = {"kind": "call"}
        else:
            move = {"kind": "muck"}
        events += game.apply(state, seat, move)
    return [e.to_json() for e in events], names


def test_stud_and_draw_hands_count_chips_and_streets() -> None:
    for key in ("stud", "five_card_draw", "razz", "triple_draw", "soko"):
        acc = StatsAccumulator()
        nets = 0
        for seed in range(20):
            events, names = _hand_events(key, seed)
            acc.add_hand(events, names, big_blind=2)
        for name in ("p0", "p1", "p2"):
            summary = acc.summary(name)
            assert summary["hands"] == 20
            nets += summary["net"]
        assert nets == 0, key  # every chip put in (the bring-in included) is accounted for
        # Everyone calls: whoever called the bring-in or a blind put money in voluntarily
        # (in sökö everyone checks: nobody did).
        vpip = any(acc.summary(name)["vpip"] for name in ("p0", "p1", "p2"))
        assert vpip == (key != "soko"), key


def test_stud_and_draw_hands_count_the_new_counters_within_their_chances() -> None:
    """Games without a board: streets 2-4 are "flop", "turn", "river"; the bring-in
    is not a raise. Every counter stays within its chances."""
    for key in ("stud", "five_card_draw", "razz", "triple_draw", "omaha", "short_deck"):
        acc = StatsAccumulator()
        for seed in range(10):
            events, names = _hand_events(key, seed)
            acc.add_hand(events, names, big_blind=2)
        for stats in acc.players.values():
            assert 0 <= stats.three_bets <= stats.three_bet_chances <= stats.hands, key
            assert 0 <= stats.cbets <= stats.cbet_chances <= stats.hands, key
            for street in ("flop", "turn", "river"):
                faced = getattr(stats, f"{street}_bets_faced")
                assert 0 <= getattr(stats, f"{street}_bets_folded") <= faced <= stats.hands
