"""``rule_based``: tight-aggressive by Sklansky group and position, then by made hand and draws.

Cheap by design: pre-flop is one table lookup; post-flop is two eval7 calls and
some bit tricks (:func:`botkit.strength.classify`).  Sizing: NL/PL open to 3 BB
(+1 BB per limper), re-raise to 3× the bet, bet ½–¾ of the pot (PL clamps to the
pot, FL to the fixed size).

Its only random choices are post-flop (a semi-bluff or continuation bet half the
time, a raise with a strong hand 30 % of the time); with ``send_policy`` (set by
:func:`botkit.match.play_match` with ``aivat=True``) those answers carry their
policy (docs/aivat.md), e.g. ``[{"move": {"kind": "bet", "amount": 6}, "p": 0.75},
{"move": {"kind": "check"}, "p": 0.25}]``.
"""

from __future__ import annotations

import random

from botkit.bot import Bot, Json
from botkit.preflop import sklansky_group
from botkit.strength import MONSTER, STRONG, TOP_PAIR, WEAK_PAIR, classify
from botkit.view import View

_OPEN_LIMIT = {"early": 3, "middle": 4, "late": 5, "button": 6, "sb": 5, "bb": 4}
"""Worst Sklansky group opened from each position at a full table."""


def raises_so_far(view: View) -> int:
    """How many raises the pre-flop betting has seen (0 = only blinds and limps)."""
    level = view.current_bet / view.big_blind
    if view.structure == "FL":
        return max(0, round(level) - 1)
    if level <= 1:
        return 0
    if level <= 4.5:
        return 1
    return 2 if level <= 13 else 3


class RuleBasedBot(Bot):
    """A tight-aggressive rule player for FL, NL and PL, 2–10 players."""

    name = "rule_based"

    def __init__(self, rng: random.Random | None = None) -> None:
        self.rng = rng or random.Random()
        self._raised_preflop: tuple[object, object] | None = None
        self.send_policy = False  # attach the policy to mixed answers (botkit.aivat)

    def new_match(self) -> None:
        self._raised_preflop = None

    def act(self, view: Json) -> Json:
        legal = view["legal"]
        if legal["can_show"] or legal["can_muck"]:
            return {"kind": "muck"}
        v = View(view)
        if v.hand["street"] == "preflop":
            return self._preflop(v)
        return self._postflop(v)

    # ------------------------------------------------------------ pre-flop
    def _sized(self, v: View, to: int) -> Json:
        """Bet/raise to ``to``; in big-bet games commit fully once most of the stack goes in."""
        total = v.my_bet + v.stack
        if v.structure != "FL" and to >= 0.6 * total:
            to = total
        return v.bet_or_raise(to)

    def _preflop(self, v: View, looseness: int = 0) -> Json:
        """Open, call and re-raise by group and position; ``looseness`` widens (+) or
        narrows (−) the opening and calling ranges by that many groups."""
        hole = v.hole_cards
        group = sklansky_group(hole[0], hole[1])
        bb = v.big_blind
        n = v.n_players
        position = v.position
        raises = raises_so_far(v)
        stack = v.stack + v.my_bet
        to_call = v.to_call
        short_handed = 2 if n == 2 else 1 if n <= 4 else 0
        fixed = v.structure == "FL"
        if raises == 0:
            if group <= _OPEN_LIMIT[position] + short_handed + looseness and v.can_raise:
                limpers = sum(1 for p in v.players if p["bet"] >= bb) - 1
                self._raised_preflop = (v.data["name"], v.data["hand_number"])
                return self._sized(v, 3 * bb + bb * max(0, limpers))
            if v.can_check:
                return {"kind": "check"}
            if fixed and position == "sb" and group <= 8:
                return {"kind": "call"}
            return {"kind": "fold"}
        if raises == 1:
            if group <= 2 + (short_handed > 1) and v.can_raise:
                self._raised_preflop = (v.data["name"], v.data["hand_number"])
                return self._sized(v, 3 * v.current_bet)
            call_limit = (4 + (position in ("late", "button", "bb")) + (short_handed > 1) + fixed
                          + looseness)
            if group <= call_limit and (fixed or to_call <= 0.15 * stack):
                return {"kind": "call"}
            return v.check_or_fold()
        if group == 1 and v.can_raise:
            return self._sized(v, 5 * v.current_bet // 2)
        if group == 1 or (group <= 2 and (fixed or to_call <= 0.3 * stack)):
            return {"kind": "call"}
        return v.check_or_fold()

    # ------------------------------------------------------------ post-flop
    def _postflop(self, v: View) -> Json:
        strength = classify(v.hole_cards, v.board)
        tier = strength.tier
        pot = v.pot
        to_call = v.to_call
        opponents = v.active_opponents
        street = v.hand["street"]
        rng = self.rng
        outs = (9 if strength.flush_draw else 0) + (0, 4, 8)[strength.straight_draw]
        outs = min(outs, 15)
        draw_equity = outs * (0.04 if street == "flop" else 0.02) if street != "river" else 0.0
        if to_call == 0:
            if tier == MONSTER:
                return self._sized(v, 3 * pot // 4)
            if tier == STRONG:
                return self._sized(v, 2 * pot // 3)
            if tier == TOP_PAIR and opponents <= 2:
                return self._sized(v, pot // 2)
            semi_bluff = outs >= 8 and opponents <= 2
            aggressor = self._raised_preflop == (v.data["name"], v.data["hand_number"])
            c_bet = street == "flop" and aggressor and opponents == 1
            bet, passive = self._sized(v, pot // 2), v.check_or_fold()
            if (semi_bluff and rng.random() < 0.5) or (c_bet and rng.random() < 0.5):
                answer = bet
            else:
                answer = passive
            p_bet = 1 - (1 - 0.5 * semi_bluff) * (1 - 0.5 * c_bet)
            return self._mixed(answer, [(bet, p_bet), (passive, 1 - p_bet)])
        odds = to_call / (pot + to_call)
        if tier == MONSTER:
            if v.can_raise:
                return self._sized(v, 3 * v.current_bet)
            return {"kind": "call"}
        if tier == STRONG:
            if odds <= 0.2 and v.can_raise:
                calm = {"kind": "call"} if odds <= max(0.4, draw_equity) else {"kind": "fold"}
                raised = self._sized(v, 3 * v.current_bet)
                answer = raised if rng.random() < 0.3 else calm
                return self._mixed(answer, [(raised, 0.3), (calm, 0.7)])
            limit = 0.4
        elif tier == TOP_PAIR:
            limit = 0.3
        elif tier == WEAK_PAIR:
            limit = 0.2 if street != "river" else 0.15
        else:
            limit = 0.0
        if odds <= max(limit, draw_equity):
            return {"kind": "call"}
        return {"kind": "fold"}

    def _mixed(self, answer: Json, options: list[tuple[Json, float]]) -> Json:
        """``answer`` with its policy (``options``: move, probability; equal moves
        merged) when ``send_policy`` is on and the choice was really mixed."""
        if not self.send_policy:
            return answer
        policy: list[Json] = []
        for move, p in options:
            same = next((e for e in policy if e["move"] == move), None)
            if same is not None:
                same["p"] += p
            elif p > 0:
                policy.append({"move": move, "p": p})
        if len(policy) < 2:
            return answer
        return {**answer, "policy": policy}
