"""Tables and deals for the Tuppi tests."""

from __future__ import annotations

from typing import Any

from engine.game import Event
from engine.tuppi import TuppiGame, chance_of

Json = dict[str, Any]
GAME = TuppiGame()

SUITED = ["2s3s4s5s6s7s8s9sTsJsQsKsAs", "2h3h4h5h6h7h8h9hThJhQhKhAh",
          "2d3d4d5d6d7d8d9dTdJdQdKdAd", "2c3c4c5c6c7c8c9cTcJcQcKcAc"]
"""Seat 0 all spades, 1 all hearts, 2 all diamonds, 3 all clubs: whoever leads wins
every trick (nobody else can follow)."""

SPLIT = ["2c3c4c5c6c7c2h3h4h5h6h7h8h", "8c9cTcJcQcKcAc9hThJhQhKhAh",
         "2d3d4d5d6d7d8d9dTdJdQdKdAd", "2s3s4s5s6s7s8s9sTsJsQsKsAs"]
"""Seat 0 has the low clubs and hearts, seat 1 the high ones; 2 diamonds, 3 spades.
Played by the timeout default (the lowest legal card) from seat 0's lead, seat 1
wins every trick (worked out in test_rules.py)."""


def table(score: tuple[int, int] = (0, 0), dealer: int = 0, limit: int = 0,
          number: int = 0, rising: tuple[int, int] | None = None) -> Json:
    """Four players a, b, c, d in seats 0..3, the board at ``score``, ``dealer``
    to deal the next round (a position: ``number`` rounds already played)."""
    state: Json = GAME.create(GAME.validate_settings({"round_limit": limit}))
    for seat, name in enumerate("abcd"):
        GAME.seat(state, seat, name, {})
    state["score"] = list(score)
    state["rising"] = list(rising if rising is not None else score)
    state["dealer"] = dealer
    state["number"] = number
    return state


def start(state: Json, hands: list[str]) -> list[Event]:
    """Deal ``hands`` (by seat)."""
    return GAME.start_round(state, chance_of(hands, state["dealer"]))


def bid(state: Json, bids: dict[int, str]) -> list[Event]:
    """Every seat's bid (in seat order); the events of the last one."""
    events: list[Event] = []
    for seat in sorted(bids):
        events = GAME.apply(state, seat, {"kind": bids[seat]})
    return events


def play_lowest(state: Json) -> list[Event]:
    """Play the round out with the timeout default (the lowest legal card)."""
    events: list[Event] = []
    while GAME.to_act(state):
        events += GAME.timeout(state)
    return events


def types(events: list[Event]) -> list[str]:
    return [e.type for e in events]


def of_type(events: list[Event], name: str) -> list[Json]:
    return [e.to_json() for e in events if e.type == name]
