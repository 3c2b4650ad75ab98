"""``random``: a uniformly random legal action kind, then a uniformly random legal amount
(in a draw: each card discarded with probability one half).

With ``send_policy`` (set by :func:`botkit.match.play_match` with ``aivat=True``) a
betting answer carries its exact policy (docs/aivat.md): every legal kind with
probability ``1/k``, a bet or raise as a uniform range of amounts.

>>> bot = RandomBot(random.Random(1))
>>> bot.send_policy = True
>>> legal = {"can_show": False, "can_muck": False, "can_fold": True, "can_check": False,
...          "call_amount": 1, "sized_kind": "raise", "min_raise_to": 4, "max_raise_to": 400}
>>> bot.act({"legal": legal})["policy"]  # doctest: +NORMALIZE_WHITESPACE
[{'move': {'kind': 'fold'}, 'p': 0.3333333333333333},
 {'move': {'kind': 'call'}, 'p': 0.3333333333333333},
 {'move': {'kind': 'raise'}, 'p': 0.3333333333333333, 'range': {'amount': [4, 400]}}]
"""

from __future__ import annotations

import random

from botkit.bot import Bot, Json


class RandomBot(Bot):
    """The sanity baseline: every legal kind is equally likely (fold included)."""

    name = "random"

    def __init__(self, rng: random.Random | None = None) -> None:
        self.rng = rng or random.Random()
        self.send_policy = False  # attach the policy to betting answers (botkit.aivat)

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
        answer: Json = {"kind": kind}
        if kind in ("bet", "raise"):
            answer["amount"] = self.rng.randint(legal["min_raise_to"], legal["max_raise_to"])
        if self.send_policy:
            answer["policy"] = self._policy(kinds, legal)
        return answer

    @staticmethod
    def _policy(kinds: list[str], legal: Json) -> list[Json]:
        p = 1 / len(kinds)
        policy: list[Json] = []
        for kind in kinds:
            if kind not in ("bet", "raise"):
                policy.append({"move": {"kind": kind}, "p": p})
            elif legal["min_raise_to"] == legal["max_raise_to"]:
                policy.append({"move": {"kind": kind, "amount": legal["min_raise_to"]}, "p": p})
            else:
                policy.append({"move": {"kind": kind}, "p": p,
                               "range": {"amount": [legal["min_raise_to"],
                                                    legal["max_raise_to"]]}})
        return policy
