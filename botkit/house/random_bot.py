"""``random``: a uniformly random legal action kind, then a uniformly random legal amount
(in a draw: each card discarded with probability one half)."""

from __future__ import annotations

import random

from botkit.bot import Bot, Json


class RandomBot(Bot):
    """The sanity baseline: every legal kind is equally likely (fold included)."""

    name = "random"

    def __init__(self, rng: random.Random | None = None) -> None:
        self.rng = rng or random.Random()

    def act(self, view: Json) -> Json:
        legal = view["legal"]
        if legal.get("draw") is not None:  # a draw: each card discarded with probability 1/2
            mine = next(m for m in view["moves"] if m["kind"] == "draw")
            cards = mine["params"]["cards"]["items"]
            return {"kind": "draw", "cards": [c for c in cards if self.rng.random() < 0.5]}
        kinds: list[str] = []
        if legal.get("bring_in") is not None:
            kinds.append("bring_in")
        if legal["can_show"]:
            kinds.append("show")
        if legal["can_muck"]:
            kinds.append("muck")
        if legal["can_fold"]:
            kinds.append("fold")
        if legal["can_check"]:
            kinds.append("check")
        if legal["call_amount"] is not None:
            kinds.append("call")
        if legal["sized_kind"] is not None:
            kinds.append(legal["sized_kind"])
        kind = self.rng.choice(kinds)
        if kind in ("bet", "raise"):
            return {"kind": kind,
                    "amount": self.rng.randint(legal["min_raise_to"], legal["max_raise_to"])}
        return {"kind": kind}
