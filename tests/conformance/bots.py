"""Deliberately broken bots for the conformance tests, each with a defect that one
check must name (``--bot tests.conformance.bots:BelowMinRaiser``)."""

from __future__ import annotations

import time
from typing import Any

from botkit.house import make_bot

Json = dict[str, Any]


class _Base:
    def __init__(self) -> None:
        self.inner = make_bot("calling_station")

    def act(self, view: Json) -> Json:
        answer: Json = self.inner.act(view)
        return answer


class BelowMinRaiser(_Base):
    """Raises one chip below the smallest legal raise whenever it may raise (as if the
    smallest raise were the bet plus one big blind, not plus the last raise)."""

    def act(self, view: Json) -> Json:
        legal = view["legal"]
        if legal.get("sized_kind") == "raise" and legal["min_raise_to"] < legal["max_raise_to"]:
            return {"kind": "raise", "amount": legal["min_raise_to"] - 1}
        return super().act(view)


class AboveMaxRaiser(_Base):
    """Raises to the table's maximum buy-in (200), whatever its own stack."""

    def act(self, view: Json) -> Json:
        if view["legal"].get("sized_kind") == "raise":
            return {"kind": "raise", "amount": 200}
        return super().act(view)


class CallsForFree(_Base):
    """Answers ``call`` when it could check (there is nothing to call)."""

    def act(self, view: Json) -> Json:
        if view["legal"].get("can_check"):
            return {"kind": "call"}
        return super().act(view)


class DoubleLimitRaiser(_Base):
    """Fixed limit: raises to twice the fixed amount."""

    def act(self, view: Json) -> Json:
        legal = view["legal"]
        if view["settings"]["structure"] == "FL" and legal.get("sized_kind") == "raise":
            return {"kind": "raise", "amount": 2 * legal["min_raise_to"]}
        return super().act(view)


class SlowShower(_Base):
    """Thinks too long at a show-or-muck decision (``SLOW_SECONDS``)."""

    SLOW_SECONDS = 0.3

    def act(self, view: Json) -> Json:
        if view["legal"].get("can_show"):
            time.sleep(self.SLOW_SECONDS)
        return super().act(view)


class RawHandler:
    """A bot on the wire without the SDK's runner: answers every ``match_turn`` it is
    sent (``twice``: a repeated turn is answered again) or crashes on a repeated one
    (``crash``)."""

    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.seen: set[str] = set()
        self.inner = make_bot("calling_station")

    def handle(self, socket: Any, message: Json) -> None:
        if message.get("type") != "match_turn":
            return
        request = str(message["request_id"])
        if request in self.seen and self.mode == "crash":
            raise KeyError(f"turn {request} again")
        self.seen.add(request)
        socket.send({"type": "match_action", "request_id": request,
                     "action": self.inner.act(message["view"])})


class RaisesRegardless(_Base):
    """Facing a bet it raises to twice the bet, offered or not (its own arithmetic)."""

    def act(self, view: Json) -> Json:
        legal = view["legal"]
        if legal.get("call_amount"):
            bet = max(p["bet"] for p in view["hand"]["players"])
            return {"kind": "raise", "amount": 2 * bet}
        return super().act(view)


class Folder(_Base):
    """Folds whenever folding is offered (legal, if hopeless)."""

    def act(self, view: Json) -> Json:
        if view["legal"].get("can_fold"):
            return {"kind": "fold"}
        return super().act(view)
