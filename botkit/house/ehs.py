"""``ehs``: the thesis's heuristic bot — effective hand strength against a per-opponent
weight table, the E(t) action evaluation, a randomised selector and continued
aggression.

**Opponent model** (:mod:`botkit.house.opponent_model`).  For every opponent the bot
keeps a weight table over its 1,326 possible hole-card pairs (1,081 once the flop and
the bot's own cards are known: those pairs get weight 0) and re-weights it by every
action it observes: pre-flop by the hand-rank percentile against the opponent's own
VPIP and PFR (from a :class:`~botkit.stats.StatsAccumulator` over the hands seen,
shrunk towards a prior), post-flop by each pair's strength on the board against the
opponent's observed betting, folding and raising frequencies
(:class:`~botkit.house.opponent_model.ActionStats`), with a noise band and a floor so
no pair is ever ruled out.

**Hand strength.**  HS_i = the weighted share of opponent i's table this hand beats
(exact over the table); for several opponents HS_n = Π HS_i.  PPOT and NPOT by
one-card look-ahead with ``samples`` Monte-Carlo (opponent pair drawn by weight, next
card) draws.  EHS = HS_n × (1 − NPOT) + (1 − HS_n) × PPOT.

**Action evaluation**, the thesis's E(t) = (P_w·ES_w − EB_w) + P_vf·(ES_vf − EB_vf) −
P_hf·EB_hf, in chips relative to folding now (S = the pot, B = the amount to call):

* E(call)  = EHS × (S + B) − B;   E(check) = EHS × S;
* E(bet or raise adding a, the opponents adding c to call)
  = P_vf × S + P_call × (EHS_called × (S + a + c) − a) + P_raised × E_raised,
  where P_vf = Π (each opponent's observed fold rate for that bet size), EHS_called
  is the EHS against only the part of each table that continues (its strongest
  1 − fold-rate share), and E_raised = max(−a, EHS_raised × (pot after a re-raise) −
  a − x) is what a re-raise of x costs (the bot folds unless the call pays).

**Selector.**  The best positive-EV action is played with probability 0.8 on the flop,
0.85 on the turn and 0.9 on the river (the thesis: most random on the second street,
least on the last), otherwise another positive one, weighted by EV; with nothing
positive it checks or folds.  **Continued aggression**: after betting or raising on
the previous street — pre-flop raises included — it bets again with probability 0.6
when the best bet is worth no less than checking minus a tenth of the pot.

Bet sizes tried: FL the fixed bet; NL/PL the minimum, ½, ¾, 1 and 2 pots and all-in;
after a bet and two raises on a street only all-in (NL/PL), FL stops at four bets.

**Pre-flop** by hand-rank percentile (:data:`~botkit.house.opponent_model.PREFLOP_PERCENTILE`):
open the top share for the position (heads-up button 80 %), widened or narrowed by how
often the players behind fold to raises; defend against a raise in proportion to the
raiser's PFR and re-raise its top share; against re-raises only the top of a tight
raiser's range continues.  (Sizing and the all-in commitment rule are
:class:`RuleBasedBot`'s.)

Measured against ``rule_based`` (duplicate, seed 2026): FL heads-up +305 ± 23, NL
heads-up +410 ± 102, FL six-max (against five) +166 ± 27, NL six-max +189 ± 112
mbb/hand; cost
~4–6 ms per post-flop decision on a loaded 2-core machine with the default 300
samples, ~0.1 ms pre-flop (``docs/bots.md``, "The ``ehs`` bot").
"""

from __future__ import annotations

import math
import random
from typing import Any

from botkit.bot import Json
from botkit.house.opponent_model import (
    FIRST_BET,
    PREFLOP_PERCENTILE,
    RE_RAISE,
    ActionStats,
    BoardInfo,
    WeightTable,
    board_info,
    pair_index,
    size_bucket,
    weighted_hand_strength,
    weighted_potentials,
)
from botkit.house.rule_based import RuleBasedBot, raises_so_far
from botkit.stats import StatsAccumulator
from botkit.view import View
from engine.cards import parse_cards

BEST_SHARE = {"flop": 0.8, "turn": 0.85, "river": 0.9}
CONTINUE_AGGRESSION = 0.6
CONTINUE_MARGIN = 0.1
PRIOR_HANDS = 10
PRIOR_VPIP, PRIOR_PFR, PRIOR_AF = 0.35, 0.2, 1.0
OPEN_SHARE = {"early": 0.16, "middle": 0.2, "late": 0.28, "button": 0.42, "sb": 0.36,
              "bb": 0.4}
"""Share of starting hands opened (raised first in) per position, 3–10 players."""
OPEN_HEADS_UP = {"button": 0.8, "bb": 0.5}
"""Heads-up: the button's opening share, the big blind's raise over a limp."""
STEAL_WEIGHT = 0.5
"""How much the opponents' observed folding to raises widens (or narrows) the opening."""
BIG_BET_CAP = 3
"""NL/PL: after a bet and two raises on a street the bot raises only all-in (two bots that
each think they are ahead would otherwise min-raise each other a hundred times)."""
FIXED_CAP = 4
"""FL: a bet and three raises per street, the usual cap (also heads-up, as in AI research)."""
BET_FRACTIONS = (0.5, 0.75, 1.0, 2.0)
"""NL/PL bet sizes tried, as fractions of the pot after calling (plus the minimum and
all-in): the E(t) estimate picks the size; against a player who never folds the largest
bet with the best hand is worth most."""


class _Hand:
    """What the bot tracks while a hand is played: the opponents' weight tables and the
    betting so far, from the observed events."""

    def __init__(self, players: dict[int, str], seats: list[int]) -> None:
        self.players = players
        self.me: int | None = None
        self.tables: dict[int, WeightTable] = {seat: WeightTable() for seat in seats}
        self.street = 0
        self.board: list[int] = []
        self.info: BoardInfo | None = None
        self.pot = 0
        self.bets: dict[int, int] = {}
        self.current = 0
        self.raises = 0  # pre-flop raises so far
        self.raiser: int | None = None  # the last pre-flop raiser
        self.street_bets = 0  # bets and raises on the current street (post-flop)
        self.version = 0  # bumps whenever a table changes


class EHSBot(RuleBasedBot):
    """Effective hand strength against weighted opponent ranges, with E(t) selection."""

    name = "ehs"

    def __init__(self, rng: random.Random | None = None, samples: int = 300) -> None:
        super().__init__(rng)
        self.samples = samples
        self.new_match()

    def new_match(self) -> None:
        super().new_match()
        self.model = StatsAccumulator()
        self.actions: dict[str, ActionStats] = {}
        self._events: list[Json] = []
        self._players: dict[int, str] = {}
        self._big_blind = 2
        self._hand: _Hand | None = None
        self._cache: dict[tuple[Any, ...], tuple[float, float]] = {}
        self._aggressed: tuple[Any, ...] | None = None

    # ------------------------------------------------------------ modelling
    def opponent(self, player_id: str) -> tuple[float, float, float]:
        """(VPIP, PFR, AF) of an opponent, shrunk towards the prior over ``PRIOR_HANDS``."""
        stats = self.model.players.get(player_id)
        if stats is None:
            return PRIOR_VPIP, PRIOR_PFR, PRIOR_AF
        n = stats.hands + PRIOR_HANDS
        vpip = (stats.vpip + PRIOR_VPIP * PRIOR_HANDS) / n
        pfr = (stats.pfr + PRIOR_PFR * PRIOR_HANDS) / n
        af = ((stats.postflop_aggressive + PRIOR_AF * PRIOR_HANDS)
              / (stats.postflop_calls + PRIOR_HANDS))
        return vpip, pfr, af

    def action_stats(self, player_id: str) -> ActionStats:
        """The opponent's post-flop frequencies (created on first use)."""
        stats = self.actions.get(player_id)
        if stats is None:
            stats = self.actions[player_id] = ActionStats()
        return stats

    def table(self, seat: int) -> WeightTable | None:
        """The current hand's weight table of the opponent in ``seat``."""
        return None if self._hand is None else self._hand.tables.get(seat)

    def observe(self, event: Json) -> None:
        kind = event["type"]
        if kind == "HandStarted":
            self._events = []
            self._cache.clear()
            ids = event.get("player_ids") or ()
            if ids:  # else (a log stored without them) the seats the last view showed
                self._players = dict(zip(event["seats"], ids, strict=False))
            self._hand = _Hand(self._players, list(event["seats"]))
        self._events.append(event)
        hand = self._hand
        if hand is not None:
            self._track(hand, event)
        if kind == "HandEnded":
            self.model.add_hand(self._events, self._players, self._big_blind)
            self._events = []

    def _track(self, hand: _Hand, event: Json) -> None:
        kind = event["type"]
        seat: int = event.get("player", -1)
        if kind == "HoleCardsDealt":
            if "?" not in event["cards"]:
                hand.me = seat
                hand.tables.pop(seat, None)
                cards = parse_cards(event["cards"])
                for table in hand.tables.values():
                    table.remove(cards)
            return
        if kind == "BoardDealt":
            cards = parse_cards(event["cards"])
            hand.board.extend(cards)
            hand.street += 1
            hand.info = board_info(hand.board)
            hand.bets = {}
            hand.current = 0
            hand.street_bets = 0
            for table in hand.tables.values():
                table.remove(cards)
            hand.version += 1
            return
        if kind == "AntePosted":
            hand.pot += event["amount"]
            return
        if kind == "BlindPosted":
            hand.pot += event["amount"]
            if not event.get("dead"):
                hand.bets[seat] = hand.bets.get(seat, 0) + event["amount"]
                hand.current = max(hand.current, hand.bets[seat])
            return
        if kind not in ("PlayerCalled", "BetPlaced", "RaisePlaced", "PlayerChecked",
                        "PlayerFolded"):
            return
        before = hand.bets.get(seat, 0)
        owed = hand.current - before
        pot_before = hand.pot
        if kind == "PlayerCalled":
            hand.pot += event["amount"]
            hand.bets[seat] = before + event["amount"]
        elif kind in ("BetPlaced", "RaisePlaced"):
            hand.pot += event["to"] - before
            hand.bets[seat] = event["to"]
            hand.current = max(hand.current, event["to"])
            if hand.street > 0:
                hand.street_bets += 1
        opp_table = hand.tables.get(seat)
        if seat == hand.me or opp_table is None:
            if hand.street == 0 and kind in ("BetPlaced", "RaisePlaced"):
                hand.raises += 1
                hand.raiser = seat
            return
        name = hand.players.get(seat, f"seat {seat}")
        if hand.street == 0:
            facing = hand.raises > 0
            vpip, pfr, _ = self.opponent(name)
            if facing:
                self.action_stats(name).faced_preflop_raise(kind == "PlayerFolded")
            if kind in ("BetPlaced", "RaisePlaced"):
                opp_table.preflop_action("raise", vpip, pfr, facing)
                hand.raises += 1
                hand.raiser = seat
            elif kind == "PlayerCalled":
                opp_table.preflop_action("call", vpip, pfr, facing)
            elif kind == "PlayerChecked":
                opp_table.preflop_action("check", vpip, pfr)
            hand.version += 1
            return
        info = hand.info
        if info is None:
            return
        stats = self.action_stats(name)
        if owed > 0:
            bucket = size_bucket(owed, pot_before)
            context = RE_RAISE if before > 0 else FIRST_BET
            answer = {"PlayerCalled": "call", "PlayerFolded": "fold"}.get(kind, "raise")
            stats.faced_bet(bucket, answer, context)
            if answer != "fold":
                opp_table.postflop_action(info, answer, stats, bucket, context)
        elif kind != "PlayerFolded":
            bet = kind in ("BetPlaced", "RaisePlaced")
            stats.may_open(bet)
            opp_table.postflop_action(info, "bet" if bet else "check", stats)
        hand.version += 1

    # ------------------------------------------------------------ acting
    def act(self, view: Json) -> Json:
        legal = view["legal"]
        if legal["can_show"] or legal["can_muck"]:
            return {"kind": "muck"}
        self._big_blind = int(view["settings"]["big_blind"])
        self._players.update(
            (s["seat"], s["player_id"]) for s in view["seats"] if s is not None)
        v = View(view)
        if v.hand["street"] == "preflop":
            action = self._preflop_play(v)
            if action["kind"] in ("bet", "raise"):
                self._aggressed = (view["name"], view["hand_number"], "preflop")
            return action
        action = self._choose(v)
        if action["kind"] in ("bet", "raise"):
            self._aggressed = (view["name"], view["hand_number"], v.hand["street"])
        return action

    # ------------------------------------------------------------ pre-flop
    def _preflop_play(self, v: View) -> Json:
        """Percentile rules against the opponents' observed PFR and folds to raises:
        open wider the more the players behind fold, defend against a raise in
        proportion to the raiser's PFR, re-raise its top share."""
        hole = v.hole_cards
        pct = PREFLOP_PERCENTILE[pair_index(hole[0], hole[1])]
        hand = self._hand
        raises = hand.raises if hand is not None else raises_so_far(v)
        bb, fixed = v.big_blind, v.structure == "FL"
        heads_up = v.n_players == 2
        position = v.position
        stack = v.stack + v.my_bet
        to_call = v.to_call
        names = [self._players.get(p["player"], "") for p in v.opponents]
        if raises == 0:
            folds = math.prod(self.action_stats(n).preflop_fold_rate() for n in names)
            share = OPEN_HEADS_UP.get(position, 0.5) if heads_up else OPEN_SHARE[position]
            share += STEAL_WEIGHT * (folds ** (1 / max(1, len(names))) - 0.5)
            limpers = sum(1 for p in v.players if p["bet"] >= bb) - 1
            if limpers > 0:
                share *= 0.7
            if pct >= 1 - min(0.95, max(0.08, share)) and v.can_raise:
                return self._sized(v, 3 * bb + bb * max(0, limpers))
            if v.can_check:
                return {"kind": "check"}
            if fixed and position == "sb" and pct >= 0.4:
                return {"kind": "call"}
            return {"kind": "fold"}
        raiser = None if hand is None else hand.raiser
        _, pfr, _ = self.opponent(self._players.get(raiser, "") if raiser is not None else "")
        if raises == 1:
            three_bet = max(0.03, (0.3 if heads_up else 0.2) * pfr)
            defend = pfr * (1.3 if heads_up else 0.7)
            if position in ("button", "bb", "late"):
                defend += 0.08
            if not fixed and to_call > 0.15 * stack:
                defend *= 0.5
            if pct >= 1 - three_bet and v.can_raise:
                return self._sized(v, 3 * v.current_bet)
            if pct >= 1 - min(0.9, defend):
                return {"kind": "call"}
            return v.check_or_fold()
        if raises == 2:
            # Facing a re-raise: a tight raiser's range is its top ~PFR/4.
            top = max(0.15, 0.4 * pfr) if fixed else max(0.04, 0.25 * pfr)
            if pct >= 0.99 and v.can_raise:
                return self._sized(v, 5 * v.current_bet // 2)
            if pct >= 1 - top and (fixed or to_call <= 0.35 * stack):
                return {"kind": "call"}
            return v.check_or_fold()
        # A third raise or more: only the very top continues (big bets: AA, KK).
        if pct >= 0.99 and v.can_raise:
            return self._sized(v, 5 * v.current_bet // 2)
        if pct >= (0.94 if fixed else 0.99):
            return {"kind": "call"}
        return v.check_or_fold()

    def _tables(self, v: View) -> list[tuple[int, WeightTable]]:
        """The weight tables of the opponents still in (a fresh one for any unknown)."""
        known = (*v.hole_cards, *v.board)
        hand = self._hand
        result = []
        for p in v.opponents:
            seat = p["player"]
            found = None if hand is None else hand.tables.get(seat)
            if found is None:
                found = WeightTable(known)
                if hand is not None:
                    hand.tables[seat] = found
            result.append((seat, found))
        return result

    def strength(self, v: View) -> float:
        """EHS of this bot's hand against the weighted tables of the opponents still in."""
        info = board_info(v.board)
        tables = [t for _, t in self._tables(v)]
        hs = math.prod(weighted_hand_strength(v.hole_cards, info, t) for t in tables)
        ppot, npot = self._potentials(v, tables)
        return hs * (1 - npot) + (1 - hs) * ppot

    def _potentials(self, v: View, tables: list[WeightTable]) -> tuple[float, float]:
        version = -1 if self._hand is None else self._hand.version
        key = (v.hole_cards, v.board, len(tables), version)
        cached = self._cache.get(key)
        if cached is None:
            cached = self._cache[key] = weighted_potentials(
                v.hole_cards, v.board, tables, self.samples, self.rng)
        return cached

    def _choose(self, v: View) -> Json:
        hole, street = v.hole_cards, v.hand["street"]
        info = board_info(v.board)
        seats_tables = self._tables(v)
        tables = [t for _, t in seats_tables]
        stats = [self.action_stats(self._players.get(seat, f"seat {seat}"))
                 for seat, _ in seats_tables]
        ppot, npot = self._potentials(v, tables)

        def ehs_of(hs: float) -> float:
            return hs * (1 - npot) + (1 - hs) * ppot

        hs_now = math.prod(weighted_hand_strength(hole, info, t) for t in tables)
        ehs = ehs_of(hs_now)
        pot, to_call = v.pot, v.to_call
        candidates: list[tuple[float, Json]] = []
        if to_call:
            candidates.append((ehs * (pot + to_call) - to_call, {"kind": "call"}))
        else:
            candidates.append((ehs * pot, {"kind": "check"}))
        check_ev = candidates[0][0]
        bets: list[tuple[float, Json]] = []
        sized = v.legal["sized_kind"]
        if sized is not None:
            current = v.current_bet
            low, high = v.min_raise_to, v.max_raise_to
            assert low is not None and high is not None
            street_bets = 0 if self._hand is None else self._hand.street_bets
            targets = {low}
            if v.structure != "FL":
                for fraction in BET_FRACTIONS:
                    targets.add(int(current + fraction * (pot + to_call)))
                targets.add(high)
                if street_bets >= BIG_BET_CAP:  # no raising wars: all-in or nothing
                    targets = {high}
            elif street_bets >= FIXED_CAP:
                targets = set()
            bets_in = self._hand.bets if self._hand is not None else {}
            contexts = [RE_RAISE if bets_in.get(seat, 0) > 0 else FIRST_BET
                        for seat, _ in seats_tables]
            raise_rates = [s.raise_rate(c) for s, c in zip(stats, contexts, strict=True)]
            hs_raised = math.prod(
                weighted_hand_strength(hole, info, t, t.quantile(info, max(0.05, r)))
                for t, r in zip(tables, raise_rates, strict=True))
            p_no_raise = math.prod(1 - r for r in raise_rates)
            for target in sorted({max(low, min(t, high)) for t in targets}):
                added = target - v.my_bet
                their_call = target - current
                bucket = size_bucket(their_call, pot + added)
                folds = [s.fold_rate(bucket, c) for s, c in zip(stats, contexts, strict=True)]
                p_fold = math.prod(folds)
                hs_called = math.prod(
                    weighted_hand_strength(hole, info, t, t.quantile(info, 1 - f))
                    for t, f in zip(tables, folds, strict=True))
                p_raised = (1 - p_fold) * (1 - p_no_raise)
                p_called = 1 - p_fold - p_raised
                called = ehs_of(hs_called) * (pot + added + their_call) - added
                extra = added if v.structure != "FL" else max(low - current, v.big_blind)
                raised = max(-added, ehs_of(hs_raised) * (pot + added + their_call + 2 * extra)
                             - added - extra)
                ev = p_fold * pot + p_called * called + p_raised * raised
                bets.append((ev, {"kind": sized, "amount": target}))
        candidates.extend(bets)
        hand_key = (v.data["name"], v.data["hand_number"])
        if (bets and sized == "bet" and self._aggressed is not None
                and self._aggressed[:2] == hand_key and self._aggressed[2] != street
                and self.rng.random() < CONTINUE_AGGRESSION):
            best_bet = max(bets, key=lambda c: c[0])
            if best_bet[0] >= check_ev - CONTINUE_MARGIN * pot:
                return best_bet[1]
        positive = sorted((c for c in candidates if c[0] > 0), key=lambda c: -c[0])
        if not positive:
            return v.check_or_fold()
        if len(positive) == 1 or self.rng.random() < BEST_SHARE.get(street, 0.85):
            return positive[0][1]
        rest = positive[1:]
        return self.rng.choices([c[1] for c in rest], weights=[c[0] for c in rest])[0]
