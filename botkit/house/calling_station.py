"""``calling_station``: always checks or calls (loose-passive); mucks a beaten hand."""

from __future__ import annotations

import random

from botkit.bot import Bot, Json


class CallingStation(Bot):
    """Never bets, never folds; at a show-or-muck decision it mucks (the engine's default)."""

    name = "calling_station"

    def __init__(self, rng: random.Random | None = None) -> None:
        self.rng = rng or random.Random()  # unused: the strategy is deterministic

    def act(self, view: Json) -> Json:
        legal = view["legal"]
        if legal.get("draw") is not None:
            return {"kind": "draw", "cards": []}  # stands pat
        if legal.get("bring_in") is not None:
            return {"kind": "bring_in"}
        if legal["can_muck"]:
            return {"kind": "muck"}
        if legal["can_check"]:
            return {"kind": "check"}
        if legal["call_amount"] is not None:
            return {"kind": "call"}
        return {"kind": "fold"}
