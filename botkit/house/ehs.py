"""``ehs``: the thesis's heuristic bot — effective hand strength, pot odds, expected
values per action, a randomised selector, continued aggression and opponent modelling.

Post-flop it computes HS exactly against every opponent hole pair, raised to the
number of opponents still in (HS^n); PPOT and NPOT by one-card look-ahead with a
fixed Monte-Carlo budget (exact enumeration takes ~50 ms on the flop, 500 samples
~1.5 ms; see ``docs/bots.md``); EHS = HS^n × (1 − NPOT) + (1 − HS^n) × PPOT.

Each candidate action gets an expected value in chips relative to folding now
(S = pot, B = amount to call, P_win ≈ EHS adjusted for the opponents):

* E(call)  = P_win × S − (1 − P_win) × B           (call when P_win > B / (S + B));
* E(check) = P_win × S;
* E(bet/raise adding B') = P_fold × S + (1 − P_fold) × (P_win,called × (S + B' + C) − B'),
  C being what the opponent adds to call.

It plays the best positive-EV action 80 % of the time, otherwise another positive
one; with nothing positive it checks or folds.  After betting or raising on a
street it keeps betting on the next with probability 0.6 ("continued
aggression").  Every opponent's VPIP, PFR and AF come from the events it observes
(a :class:`~botkit.stats.StatsAccumulator` shrunk towards a prior): loose
opponents widen its calling (pre-flop ranges, P_win when facing a bet), tight ones
narrow it; calling stations (high VPIP, low AF) fold less often to its bets.
"""

from __future__ import annotations

import random
from typing import Any

from botkit.bot import Json
from botkit.house.rule_based import RuleBasedBot
from botkit.stats import StatsAccumulator
from botkit.strength import effective_strength, hand_strength, potentials
from botkit.view import View

BEST_SHARE = 0.8
CONTINUE_AGGRESSION = 0.6
PRIOR_HANDS = 10
PRIOR_VPIP, PRIOR_AF = 0.35, 1.0


class EHSBot(RuleBasedBot):
    """Effective-hand-strength player; pre-flop it uses the rule-based Sklansky play,
    widened or narrowed by the opponents' VPIP."""

    name = "ehs"

    def __init__(self, rng: random.Random | None = None, samples: int = 500) -> None:
        super().__init__(rng)
        self.samples = samples
        self.new_match()

    def new_match(self) -> None:
        super().new_match()
        self.model = StatsAccumulator()
        self._events: list[Json] = []
        self._players: dict[int, str] = {}
        self._big_blind = 2
        self._cache: dict[tuple[Any, ...], float] = {}
        self._aggressed: tuple[Any, ...] | None = None

    # ------------------------------------------------------------ modelling
    def observe(self, event: Json) -> None:
        kind = event["type"]
        if kind == "HandStarted":
            self._events = []
            self._cache.clear()
        self._events.append(event)
        if kind == "HandEnded":
            self.model.add_hand(self._events, self._players, self._big_blind)
            self._events = []

    def opponent(self, player_id: str) -> tuple[float, float]:
        """(VPIP, AF) of an opponent, shrunk towards the prior over ``PRIOR_HANDS`` hands."""
        stats = self.model.players.get(player_id)
        if stats is None:
            return PRIOR_VPIP, PRIOR_AF
        vpip = (stats.vpip + PRIOR_VPIP * PRIOR_HANDS) / (stats.hands + PRIOR_HANDS)
        af = ((stats.postflop_aggressive + PRIOR_AF * PRIOR_HANDS)
              / (stats.postflop_calls + PRIOR_HANDS))
        return vpip, af

    # ------------------------------------------------------------ acting
    def act(self, view: Json) -> Json:
        legal = view["legal"]
        if legal["can_show"] or legal["can_muck"]:
            return {"kind": "muck"}
        self._players = {s["seat"]: s["player_id"] for s in view["seats"] if s is not None}
        self._big_blind = int(view["settings"]["big_blind"])
        v = View(view)
        opponents = [self.opponent(self._players.get(p["player"], "")) for p in v.opponents]
        vpip = sum(o[0] for o in opponents) / len(opponents)
        if v.hand["street"] == "preflop":
            looseness = 1 if vpip > 0.5 else -1 if vpip < 0.2 else 0
            return self._preflop(v, looseness)
        action = self._choose(v, opponents)
        if action["kind"] in ("bet", "raise"):
            self._aggressed = (view["name"], view["hand_number"], v.hand["street"])
        return action

    def strength(self, v: View) -> float:
        """EHS of this bot's hand against the opponents still in (cached per street)."""
        hole, board, n = v.hole_cards, v.board, v.active_opponents
        key = (hole, board, n)
        cached = self._cache.get(key)
        if cached is None:
            hs = hand_strength(hole, board)
            ppot, npot = potentials(hole, board, self.samples, self.rng)
            cached = self._cache[key] = effective_strength(hs, ppot, npot, n)
        return cached

    def _choose(self, v: View, opponents: list[tuple[float, float]]) -> Json:
        ehs = self.strength(v)
        pot, to_call = v.pot, v.to_call
        vpip = sum(o[0] for o in opponents) / len(opponents)
        af = sum(o[1] for o in opponents) / len(opponents)
        p_fold = 1.0
        for o_vpip, o_af in opponents:
            p_fold *= min(0.6, max(0.05, 0.55 - 0.5 * o_vpip - 0.05 * (1 - min(o_af, 2))))
        # Facing a bet: loose or aggressive bettors hold less, tight or passive ones more.
        p_win = ehs
        if to_call:
            p_win += 0.05 * ((vpip > 0.5) - (vpip < 0.2) + (af > 2) - (af < 0.7))
        p_win = min(1.0, max(0.0, p_win))
        p_win_called = max(0.0, p_win - 0.1 * (1 - vpip))
        candidates: list[tuple[float, Json]] = []
        if to_call:
            candidates.append((p_win * pot - (1 - p_win) * to_call, {"kind": "call"}))
        else:
            candidates.append((p_win * pot, {"kind": "check"}))
        sized = v.legal["sized_kind"]
        if sized is not None:
            current = v.current_bet
            low, high = v.min_raise_to, v.max_raise_to
            assert low is not None and high is not None
            targets = {low, high}
            if v.structure != "FL":
                for fraction in (0.5, 1.0):
                    targets.add(int(current + fraction * (pot + to_call)))
            for target in sorted(targets):
                to = max(low, min(target, high))
                added = to - v.my_bet
                their_call = to - current
                called = p_win_called * (pot + added + their_call) - added
                ev = p_fold * pot + (1 - p_fold) * called
                candidates.append((ev, {"kind": sized, "amount": to}))
        hand_key = (v.data["name"], v.data["hand_number"])
        if (sized == "bet" and self._aggressed is not None
                and self._aggressed[:2] == hand_key and self._aggressed[2] != v.street
                and ehs >= 0.35 and self.rng.random() < CONTINUE_AGGRESSION):
            return v.bet_or_raise(int(pot // 2))
        positive = sorted((c for c in candidates if c[0] > 0), key=lambda c: -c[0])
        if not positive:
            return v.check_or_fold()
        if len(positive) == 1 or self.rng.random() < BEST_SHARE:
            return positive[0][1]
        return self.rng.choice(positive[1:])[1]
