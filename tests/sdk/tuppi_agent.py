"""A Tuppi agent as a student would write it against the server: one class with
``act(view)``, reading only the ``your_turn`` view (docs/tuppi.md, "Moves and
views"); run with ``python -m botkit.runner ... --bot tests.sdk.tuppi_agent:StudentAgent``.

It bids rami with 14 or more face points (A 4, K 3, Q 2, J 1) and otherwise nolo;
in play it takes the trick with its cheapest winning card when it can, else it
plays its lowest legal card.
"""

from __future__ import annotations

from typing import Any

RANKS = "23456789TJQKA"
POINTS = {"A": 4, "K": 3, "Q": 2, "J": 1}


class StudentAgent:
    def __init__(self) -> None:
        self.decisions = 0

    def act(self, view: dict[str, Any]) -> dict[str, Any]:
        self.decisions += 1
        kinds = {move["kind"]: move for move in view["moves"]}
        me = view["seat"]
        hand = view["round"]["players"][me]["cards"]
        if "rami" in kinds:
            points = sum(POINTS.get(hand[i], 0) for i in range(0, len(hand), 2))
            return {"kind": "rami" if points >= 14 else "nolo"}
        legal = kinds["play"]["params"]["card"]["options"]
        trick = view["round"]["trick"]
        if trick:
            led = trick[0]["card"][1]
            best = max((t["card"] for t in trick if t["card"][1] == led),
                       key=lambda card: RANKS.index(card[0]))
            winners = [c for c in legal if c[1] == led and RANKS.index(c[0]) > RANKS.index(best[0])]
            if winners:
                return {"kind": "play", "card": min(winners, key=lambda c: RANKS.index(c[0]))}
        return {"kind": "play", "card": min(legal, key=lambda c: RANKS.index(c[0]))}
