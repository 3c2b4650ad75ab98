"""AIVAT-style variance reduction for Texas Hold'em results (Burch et al. 2018).

A hand's result ``u_i(z)`` (chips won or lost by player ``i``) is mostly luck: the
cards.  AIVAT adds to it, at every node ``h`` of the hand where the distribution
of what happens next is *known*, a correction term with expectation zero::

    corrected_i(z) = u_i(z) + Σ_{chance h ⊏ z} ( E_{c~chance(h)}[V_i(h·c)] − V_i(h·c_z) )
                            + Σ_{decisions h ⊏ z with a policy π} ( Σ_a π(a)·V_i(h·a) − V_i(h·a_z) )

Each term has conditional expectation zero given the history ``h`` before it (the
chance outcome ``c_z`` is drawn from ``chance(h)``, the action ``a_z`` from the
policy ``π`` the bot reported), so ``E[corrected] = E[u]`` whatever ``V`` is
(unbiased), provided ``V`` does not depend on the outcomes being evaluated: it is
**fixed before the data**.  A good ``V`` makes the terms cancel the luck: the
closer ``V_i(h)`` is to the expected result from ``h``, the smaller the variance.

**The value function** (fixed, no parameters learnt from any match):
``V_i(h)`` is player ``i``'s *all-in equity* value of the hand as it stands — every
player still in checks it down from here with the chips already in the middle:
``V_i(h) = Σ_pots share_i(pot) − contributed_i``, where the pots are the side pots of
the current contributions (uncalled chips go back to their owner; folded players'
chips are dead money), and ``share_i`` is the expected share of the pot over every
way the board can be completed, with **every** player's hole cards known (the
estimator runs after the hand with the whole deck; ties split).  It sums to zero
over the players, so the corrected results do too.

**The chance nodes** of a hand and what their expectation is over:

* *hole cards* — over every deal of the private cards: by symmetry (the deal is
  exchangeable among the players) each player's expected share of a pot is
  ``1/len(eligible)``, so ``E[V_i] = Σ_pots amount/len(eligible) − contributed_i``
  exactly (only the blinds and antes are in);
* *flop, turn, river* — over the public cards, given every hole card dealt (also the
  folded players': they are out of the deck).  ``E_c[V(h·c)]`` is the equity before
  the cards came: exact for the turn (every turn and river card) and the river
  (every river card); for the flop (``C(48, 5)`` = 1.7 M boards heads-up) it is a
  Monte-Carlo estimate from boards drawn by the estimator's own generator, seeded
  from the estimator's seed and the hole cards, never from the match's deck.  An
  unbiased estimate keeps the corrected result unbiased (its expectation is the
  exact value; the samples are independent of the bots' and the deck's chance);
  the same sample gives ``V`` at the pre-flop nodes.  The number of samples grows
  with the pre-flop pot (``samples_for``: under 0.5 BB of noise up to a 30-BB
  pot, at most 1,000 boards).

**Decisions with a policy**: a bot may send, with its action, the probability of
every move it might have made (:func:`validate_policy`).  The term is
``Σ_a π(a)·V_i(h·a) − V_i(h·a_z)`` for every player ``i``; ``V_i(h·a)`` applies the
move to the contributions (fold: out of the pot; call: the call, capped by the
stack; bet/raise to ``x``: ``x`` minus the street's bet so far; check, show, muck:
nothing).  A policy entry may give an amount *range* (``"range": {"amount": [lo,
hi]}``: every whole amount equally likely, e.g. the ``random`` bot); its mean value
is exact (``V`` is piecewise linear in the amount).  Decisions without a policy get
no term.

**A value model learnt beforehand** (:class:`ValueModel`, optional): a pre-flop
table (mean result per position and starting-hand class) values the deal node, and
per street ``V_i += (q_i − 1/k)·(β₁·S + β₂·pot)`` (``q_i`` the chance to win a pot
of the ``k`` live players, ``S`` the effective stack behind); ``q_i`` is a martingale
and ``S``, ``pot`` do not change at a chance node, so every expectation stays exact.
It must be learnt on *other* hands (``botkit.match.learn_value_model``: another
seed): fitted to the evaluated hands, ``V`` would depend on their outcomes and the
terms would no longer have mean zero (Kim and Sandholm, arXiv:2605.14261).

What is not corrected: the private cards of a bot whose strategy is known (the
paper's strongest term evaluates the bot's policy for the hands it could have held;
a policy sent with one action says nothing about the other hands), and the
decisions of bots without a policy.

>>> est = Aivat(big_blind=2)
>>> events = [{"type": "BlindPosted", "player": 0, "amount": 1},
...           {"type": "BlindPosted", "player": 1, "amount": 2},
...           {"type": "HoleCardsDealt", "player": 0, "cards": "AsAh"},
...           {"type": "HoleCardsDealt", "player": 1, "cards": "7c2d"},
...           {"type": "PlayerFolded", "player": 0}]
>>> c = est.hand(events, stacks=[400, 400], nets=[-1, 1])
>>> [round(x, 1) for x in c.corrected]  # folding aces gives away their equity too
[-1.8, 1.8]
>>> c.nodes
['deal']
"""

from __future__ import annotations

import itertools
import json
import math
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import eval7

__all__ = [
    "MAX_POLICY",
    "Aivat",
    "HandCorrection",
    "Outlook",
    "PolicyError",
    "ValueModel",
    "hand_class",
    "policy_matches",
    "samples_for",
    "validate_policy",
]

Json = dict[str, Any]

MAX_POLICY = 64
"""The most entries a policy may have."""
POLICY_TOLERANCE = 1e-3
"""How far the probabilities' sum may be from 1 (they are then scaled to sum to 1)."""

_RANKS, _SUITS = "23456789TJQKA", "cdhs"
_CARD = {r + s: eval7.Card(r + s) for r in _RANKS for s in _SUITS}
_DECK = tuple(_CARD)
_evaluate = eval7.evaluate


# ------------------------------------------------------------------ policies


class PolicyError(ValueError):
    """A malformed policy; ``code`` is the protocol's error code (``invalid_policy``)."""

    code = "invalid_policy"


def _check_move(moves: Sequence[Json], move: Any) -> None:
    from engine.errors import EngineError
    from engine.game import check_move

    try:
        check_move(moves, move)
    except EngineError as error:
        raise PolicyError(f"policy: {json.dumps(move)[:80]} is refused: {error.reason}"
                          ) from None


def validate_policy(moves: Sequence[Json], policy: Any, action: Json | None = None
                    ) -> list[Json]:
    """The checked policy (probabilities scaled to sum to exactly 1), or PolicyError.

    ``moves`` are the turn's legal moves (``view["moves"]``); ``policy`` is a list of
    1 to :data:`MAX_POLICY` entries ``{"move": <answer>, "p": <probability>}``, each
    move legal now (as an answer: bet/raise with its amount) and listed once, each
    ``p`` a number in [0, 1], their sum 1 (± :data:`POLICY_TOLERANCE`).  An entry may
    instead give a uniform range for a number parameter: ``{"move": {"kind": "raise"},
    "range": {"amount": [lo, hi]}, "p": 0.25}`` — every whole amount from ``lo`` to
    ``hi`` (both legal) with probability ``p / (hi − lo + 1)``.  With ``action`` (the
    move played), it must have a positive probability in the policy.

    >>> moves = [{"kind": "fold", "label": "Fold"}, {"kind": "call", "label": "Call 1"},
    ...          {"kind": "raise", "label": "Raise to",
    ...           "params": {"amount": {"type": "number", "min": 4, "max": 400}}}]
    >>> validate_policy(moves, [{"move": {"kind": "fold"}, "p": 0.5},
    ...                         {"move": {"kind": "raise", "amount": 6}, "p": 0.5}])
    [{'move': {'kind': 'fold'}, 'p': 0.5}, {'move': {'kind': 'raise', 'amount': 6}, 'p': 0.5}]
    >>> try:
    ...     validate_policy(moves, [{"move": {"kind": "check"}, "p": 1}])
    ... except PolicyError as error:
    ...     print(error.code, error)
    invalid_policy policy: {"kind": "check"} is refused: 'check' is not a legal move now.
    """
    if not isinstance(policy, list):
        raise PolicyError("policy must be a list of {\"move\", \"p\"} entries.")
    if not 1 <= len(policy) <= MAX_POLICY:
        raise PolicyError(f"policy has 1 to {MAX_POLICY} entries, not {len(policy)}.")
    checked: list[Json] = []
    seen: set[str] = set()
    total = 0.0
    for entry in policy:
        if not isinstance(entry, dict) or not {"move", "p"} <= set(entry) \
                or set(entry) - {"move", "p", "range"}:
            raise PolicyError('Each policy entry is {"move": {...}, "p": number} '
                              '(optionally "range").')
        move, p = entry["move"], entry["p"]
        if type(p) not in (int, float) or not math.isfinite(p) or not 0 <= p <= 1:
            raise PolicyError(f"policy: p must be a number from 0 to 1, not {p!r}.")
        if not isinstance(move, dict):
            raise PolicyError("policy: each move is an object {\"kind\": ...}.")
        out: Json = {"move": dict(move), "p": float(p)}
        if "range" in entry:
            spans = entry["range"]
            if not isinstance(spans, dict) or len(spans) != 1:
                raise PolicyError('policy: "range" is {"<parameter>": [low, high]}.')
            (name, span), = spans.items()
            if (name in move or not isinstance(span, list) or len(span) != 2
                    or any(type(x) is not int for x in span) or span[0] > span[1]):
                raise PolicyError(f"policy: range {name!r} must be [low, high], whole numbers "
                                  "with low <= high, for a parameter the move leaves out.")
            for bound in span:
                _check_move(moves, {**move, name: bound})
            out["range"] = {name: [span[0], span[1]]}
            key = json.dumps([move, out["range"]], sort_keys=True)
        else:
            _check_move(moves, move)
            key = json.dumps(move, sort_keys=True)
        if key in seen:
            raise PolicyError(f"policy: {json.dumps(move)[:80]} is listed twice.")
        seen.add(key)
        total += p
        checked.append(out)
    if abs(total - 1.0) > POLICY_TOLERANCE:
        raise PolicyError(f"policy: the probabilities sum to {total:.6g}, not 1.")
    for out in checked:
        out["p"] /= total
    if action is not None and not any(
            e["p"] > 0 and policy_matches(e, action) for e in checked):
        raise PolicyError("policy: the action played has no positive probability in it.")
    return checked


def policy_matches(entry: Json, action: Json) -> bool:
    """True if ``action`` is the entry's move (or in its range)."""
    move = entry["move"]
    spans = entry.get("range")
    if not spans:
        return bool(move == action)
    (name, (low, high)), = spans.items()
    value = action.get(name)
    return ({k: v for k, v in action.items() if k != name} == move
            and type(value) is int and low <= value <= high)


# ------------------------------------------------------------------ equities


def _pattern2(a: int, b: int) -> tuple[int, ...]:
    return (1, 0) if a > b else (0, 1) if b > a else (0, 0)


def _pattern(values: Sequence[int]) -> tuple[int, ...]:
    """Each value's count of strictly smaller ones: the same order, ties equal."""
    return tuple([sum([v > w for w in values]) for v in values])


@dataclass(slots=True)
class Outlook:
    """How the hands of ``live`` (positions) rank when the board is completed: the
    rank pattern of every completion (``counts``: pattern -> number of boards; a
    pattern gives each live player's rank among them, higher wins) out of ``total``."""

    live: tuple[int, ...]
    counts: dict[tuple[int, ...], int]
    total: int

    @classmethod
    def of(cls, holes: Sequence[str], live: Sequence[int], board: str,
           samples: int | None = None, rng: random.Random | None = None) -> Outlook:
        """Every completion of ``board`` (``samples`` None), or ``samples`` random ones
        drawn with ``rng``; ``holes`` are every dealt player's cards (all are dead)."""
        dead = set(board[i:i + 2] for i in range(0, len(board), 2))
        for cards in holes:
            dead.update(cards[i:i + 2] for i in range(0, len(cards), 2))
        rest = [_CARD[c] for c in _DECK if c not in dead]
        known = [_CARD[board[i:i + 2]] for i in range(0, len(board), 2)]
        hands = [[_CARD[holes[p][i:i + 2]] for i in range(0, len(holes[p]), 2)] + known
                 for p in live]
        need = 5 - len(known)
        boards: Iterable[Sequence[eval7.Card]]
        if samples is None:
            boards = itertools.combinations(rest, need)
        else:
            boards = _sampled(rest, need, samples, rng or random.Random(0))
        counts: dict[tuple[int, ...], int] = {}
        total = 0
        if len(hands) == 2:
            first, second = hands
            for extra in boards:
                key = _pattern2(_evaluate(first + list(extra)), _evaluate(second + list(extra)))
                counts[key] = counts.get(key, 0) + 1
                total += 1
        elif len(hands) == 3:
            h0, h1, h2 = hands
            for extra in boards:
                tail = list(extra)
                a, b, c = _evaluate(h0 + tail), _evaluate(h1 + tail), _evaluate(h2 + tail)
                key = ((a > b) + (a > c), (b > a) + (b > c), (c > a) + (c > b))
                counts[key] = counts.get(key, 0) + 1
                total += 1
        else:
            for extra in boards:
                tail = list(extra)
                key = _pattern([_evaluate(h + tail) for h in hands])
                counts[key] = counts.get(key, 0) + 1
                total += 1
        return cls(tuple(live), counts, total)

    def shares(self, alive: Sequence[bool]) -> list[float]:
        """Each live player's chance to win a pot all the live players contest (ties
        split); 0 for the others."""
        out = [0.0] * len(alive)
        players = [p for p in self.live if alive[p]]
        if len(players) == 1:
            out[players[0]] = 1.0
            return out
        index = [(p, self.live.index(p)) for p in players]
        total = self.total
        for pattern, count in self.counts.items():
            best = max(pattern[i] for _, i in index)
            winners = [p for p, i in index if pattern[i] == best]
            share = count / total / len(winners)
            for p in winners:
                out[p] += share
        return out

    def values(self, contributed: Sequence[float], alive: Sequence[bool]) -> list[float]:
        """Each player's expected net (chips) if the players in ``alive`` checked the
        hand down with ``contributed`` in the middle: side pots, dead chips of
        folded players, uncalled chips back to their owner, ties split."""
        out = [-float(c) for c in contributed]
        players = [p for p in self.live if alive[p]]
        if len(players) == 1:
            out[players[0]] += float(sum(contributed))
            return out
        shared: list[tuple[float, list[int]]] = []
        for amount, eligible in _layers(contributed, players):
            if len(eligible) == 1:
                out[eligible[0]] += amount
            elif amount:
                shared.append((amount, eligible))
        if not shared:
            return out
        index = {p: i for i, p in enumerate(self.live)}
        total = self.total
        for pattern, count in self.counts.items():
            weight = count / total
            for amount, eligible in shared:
                best = max(pattern[index[p]] for p in eligible)
                winners = [p for p in eligible if pattern[index[p]] == best]
                share = amount * weight / len(winners)
                for p in winners:
                    out[p] += share
        return out


def _sampled(cards: list[eval7.Card], need: int, samples: int, rng: random.Random
             ) -> Iterable[list[eval7.Card]]:
    """``samples`` uniform draws of ``need`` distinct cards (a partial Fisher-Yates
    shuffle of ``cards`` each time: faster than ``random.sample``)."""
    pool = list(cards)
    size = len(pool)
    uniform = rng.random
    for _ in range(samples):
        for j in range(need):
            k = j + int(uniform() * (size - j))
            pool[j], pool[k] = pool[k], pool[j]
        yield pool[:need]


def _effective_stack(stacks: Sequence[float], alive: Sequence[bool]) -> float:
    """Chips that can still go in: the second-largest stack behind among the live
    players (heads-up: the shorter)."""
    behind = sorted((stacks[p] for p in range(len(stacks)) if alive[p]), reverse=True)
    return max(0.0, behind[1]) if len(behind) > 1 else 0.0


def _layers(contributed: Sequence[float], players: Sequence[int]
            ) -> list[tuple[float, list[int]]]:
    """The pots of ``contributed`` among the live ``players``: (amount, eligible).
    Chips of folded players above the highest live contribution join the last pot."""
    levels = sorted({contributed[p] for p in players})
    layers: list[tuple[float, list[int]]] = []
    previous = 0.0
    for level in levels:
        amount = sum(min(c, level) - min(c, previous) for c in contributed)
        layers.append((amount, [p for p in players if contributed[p] >= level]))
        previous = level
    extra = sum(max(0.0, c - previous) for c in contributed)
    if extra and layers:
        amount, eligible = layers[-1]
        layers[-1] = (amount + extra, eligible)
    return layers


def expected_deal_values(contributed: Sequence[float], alive: Sequence[bool]) -> list[float]:
    """``E[V]`` over the deal of the hole cards: every eligible player's share of a pot
    is equal by symmetry."""
    out = [-float(c) for c in contributed]
    players = [p for p in range(len(contributed)) if alive[p]]
    for amount, eligible in _layers(contributed, players):
        for p in eligible:
            out[p] += amount / len(eligible)
    return out


def samples_for(pot_bb: float, low: int = 64, high: int = 1000) -> int:
    """Monte-Carlo boards for the pre-flop equity of a hand whose pre-flop pot reached
    ``pot_bb`` big blinds: the standard error of a share is at most 0.5/√n of the pot,
    so pot² boards keep it under 0.5 BB up to a pot of 30 BB (``high`` boards beyond:
    about 6 BB of noise on a 400-BB all-in pot, whose raw result varies by ±200 BB);
    ``low`` at least.

    >>> samples_for(1.5), samples_for(20), samples_for(400)
    (64, 400, 1000)
    """
    return max(low, min(high, math.ceil(pot_bb * pot_bb)))


# ------------------------------------------------------------------ hands

_ACTIONS = frozenset({"PlayerChecked", "PlayerCalled", "BetPlaced", "RaisePlaced",
                      "PlayerFolded", "CardsShown", "CardsMucked"})


@dataclass(slots=True)
class _State:
    contributed: list[float]
    bets: list[float]
    stacks: list[float]
    alive: list[bool]

    def copy(self) -> _State:
        return _State(list(self.contributed), list(self.bets), list(self.stacks),
                      list(self.alive))

    def put(self, player: int, chips: float) -> None:
        self.contributed[player] += chips
        self.bets[player] += chips
        self.stacks[player] -= chips

    def event(self, e: Json) -> None:
        kind, player = e["type"], e.get("player", -1)
        if kind == "BlindPosted":
            if e.get("dead"):
                self.contributed[player] += e["amount"]
                self.stacks[player] -= e["amount"]
            else:
                self.put(player, e["amount"])
        elif kind in ("AntePosted", "BringInPosted"):
            self.contributed[player] += e["amount"]
            self.stacks[player] -= e["amount"]
        elif kind == "PlayerCalled":
            self.put(player, e["amount"])
        elif kind in ("BetPlaced", "RaisePlaced"):
            self.put(player, e["to"] - self.bets[player])
        elif kind == "PlayerFolded":
            self.alive[player] = False
        elif kind == "UncalledBetReturned":
            self.put(player, -e["amount"])
        elif kind == "BoardDealt":
            self.bets = [0.0] * len(self.bets)

    def move(self, player: int, move: Json) -> _State:
        """The state after ``player`` makes ``move`` (an answer)."""
        after = self.copy()
        kind = move.get("kind")
        if kind == "fold":
            after.alive[player] = False
        elif kind == "call":
            after.put(player, min(max(self.bets) - self.bets[player], self.stacks[player]))
        elif kind in ("bet", "raise"):
            after.put(player, min(move["amount"] - self.bets[player], self.stacks[player]))
        return after


@dataclass(slots=True)
class HandCorrection:
    """One hand's AIVAT: per position the raw result, the corrected one, and every
    correction term (``chance[k]`` belongs to ``nodes[k]``: deal, flop, turn, river;
    ``action[k]`` to the decision at event ``decisions[k]``)."""

    raw: list[int]
    corrected: list[float]
    nodes: list[str] = field(default_factory=list)
    chance: list[list[float]] = field(default_factory=list)
    decisions: list[int] = field(default_factory=list)
    action: list[list[float]] = field(default_factory=list)


def hand_class(cards: str) -> str:
    """The starting-hand class of two hole cards (169 classes).

    >>> hand_class("AsKs"), hand_class("9cTd"), hand_class("7h7d")
    ('AKs', 'T9o', '77')
    """
    high, low = cards[0], cards[2]
    if _RANKS.index(high) < _RANKS.index(low):
        high, low = low, high
    if high == low:
        return high + low
    return high + low + ("s" if cards[1] == cards[3] else "o")


CLASS_WEIGHT: dict[str, float] = {}
"""The probability of each starting-hand class: 6, 4 or 12 combinations of 1,326."""
for _i, _a in enumerate(_RANKS):
    for _b in _RANKS[: _i + 1]:
        if _a == _b:
            CLASS_WEIGHT[_a + _b] = 6 / 1326
        else:
            CLASS_WEIGHT[_a + _b + "s"] = 4 / 1326
            CLASS_WEIGHT[_a + _b + "o"] = 12 / 1326


@dataclass(slots=True)
class ValueModel:
    """A value model learnt beforehand and frozen (from matches *other* than the one
    evaluated): a pre-flop table, ``values[position][class]``, the mean result (big
    blinds) of the player at that position holding that starting-hand class
    (:meth:`learn`), and per street a weight ``betas[street]`` of the equity edge on
    the chips still behind (:meth:`Aivat.fit`; see the module's docstring).

    With a table the deal node's value is ``V_i = t_i − mean_{j≠i} t_j`` (``t_j``:
    the table's value of player ``j``'s position and class; zero-sum), and its
    expectation over the deal is exact, ``E[t_i] = Σ_c P(c)·values[i][c]`` (every
    player's hand is uniform over the 1,326 pairs).  The table is only as good as
    the matches it was learnt from are like the evaluated one (the same bots); it
    never makes the estimate biased.
    """

    players: int
    values: list[dict[str, float]]
    hands: int = 0
    source: str = ""
    betas: dict[str, list[float]] = field(default_factory=dict)

    def _t(self, position: int, cards: str) -> float:
        return self.values[position].get(hand_class(cards), 0.0)

    def _spread(self, t: Sequence[float]) -> list[float]:
        n = len(t)
        total = math.fsum(t)
        return [t[i] - (total - t[i]) / (n - 1) for i in range(n)]

    def deal_values(self, holes: Sequence[str], big_blind: float) -> list[float]:
        """``V`` of the dealt hole cards, chips per position."""
        return [big_blind * v for v in self._spread(
            [self._t(p, holes[p]) for p in range(len(holes))])]

    def expected_values(self, big_blind: float) -> list[float]:
        """``E[V]`` over the deal, chips per position."""
        means = [math.fsum(CLASS_WEIGHT[c] * row.get(c, 0.0) for c in CLASS_WEIGHT)
                 for row in self.values]
        return [big_blind * v for v in self._spread(means)]

    @classmethod
    def learn(cls, hands: Iterable[tuple[Sequence[str], Sequence[float]]], players: int,
              big_blind: float, shrink: float = 10.0, source: str = "") -> ValueModel:
        """From ``(hole cards by position, result in chips by position)`` of other
        hands: per position and class the mean result, shrunk towards the position's
        mean as if ``shrink`` more hands had that mean (few hands of a class)."""
        sums = [dict.fromkeys(CLASS_WEIGHT, 0.0) for _ in range(players)]
        counts = [dict.fromkeys(CLASS_WEIGHT, 0) for _ in range(players)]
        count = 0
        for holes, nets in hands:
            count += 1
            for p in range(players):
                c = hand_class(holes[p])
                sums[p][c] += nets[p] / big_blind
                counts[p][c] += 1
        values = []
        for p in range(players):
            mean = math.fsum(sums[p].values()) / max(1, count)
            values.append({c: (sums[p][c] + shrink * mean) / (counts[p][c] + shrink)
                           for c in CLASS_WEIGHT})
        return cls(players, values, count, source)

    @classmethod
    def from_records(cls, records: Iterable[Json], big_blind: float, players: int,
                     source: str = "") -> ValueModel:
        """From :func:`botkit.match.play_match`'s ``records`` (``record=True``,
        Hold'em): position ``(seat − button − 1) mod n``, the button last."""
        hands = []
        for r in records:
            seats, button = r["seats"], r["button"]
            holes, nets = [""] * players, [0.0] * players
            for seat, name in enumerate(seats):
                position = (seat - button - 1) % players
                holes[position] = r["cards"][name]
                nets[position] = r["net"][name]
            hands.append((holes, nets))
        return cls.learn(hands, players, big_blind, source=source)

    def to_json(self) -> Json:
        return {"players": self.players, "values": self.values, "hands": self.hands,
                "source": self.source, "betas": self.betas}

    @classmethod
    def from_json(cls, data: Json) -> ValueModel:
        return cls(int(data["players"]), [dict(v) for v in data["values"]],
                   int(data.get("hands", 0)), str(data.get("source", "")),
                   {str(k): [float(x) for x in v]
                    for k, v in (data.get("betas") or {}).items()})


class Aivat:
    """The estimator for hold'em hands (any number of players, any structure).

    ``big_blind`` scales the number of Monte-Carlo boards (:func:`samples_for`);
    ``seed`` seeds the estimator's own boards (with the hole cards, so the replays
    of a duplicate deal share them); ``samples`` fixes their number instead.  A
    ``model`` (:class:`ValueModel`, learnt from other matches) values the deal node
    with its table (instead of the all-in equity of the blinds) and adds its
    ``betas``; ``learn`` gathers what :meth:`fit` needs from the hands it corrects.
    """

    def __init__(self, big_blind: int = 2, seed: int = 0, samples: int | None = None,
                 cache_size: int = 4096, model: ValueModel | None = None,
                 learn: bool = False) -> None:
        self.big_blind, self.seed, self.samples = big_blind, seed, samples
        self.table = model if model is not None and model.values else None
        self.betas = dict(model.betas) if model is not None else {}
        self.sums: dict[str, list[float]] | None = {} if learn else None  # street -> sums
        self.cache: dict[Any, Outlook] = {}
        self.cache_size = cache_size
        self.decisions = 0  # decisions corrected with a policy, over every hand

    def _v(self, outlook: Outlook, state: _State, street: str) -> list[float]:
        """``V``: the all-in equity value, plus with a model
        ``(q_i − 1/k)·(β₁·S + β₂·pot)`` for the street (``q_i`` the chance to win a pot
        of the ``k`` live players, ``S`` the effective stack behind, ``pot`` the chips
        in the middle)."""
        values = outlook.values(state.contributed, state.alive)
        beta = self.betas.get(street)
        if beta:
            weight = (beta[0] * _effective_stack(state.stacks, state.alive)
                      + beta[1] * sum(state.contributed))
            shares = outlook.shares(state.alive)
            k = sum(state.alive)
            if k > 1:
                for p in range(len(values)):
                    if state.alive[p]:
                        values[p] += (shares[p] - 1 / k) * weight
        return values

    def _observe(self, pending: list[tuple[str, int, float, float, float]],
                 outlook: Outlook, state: _State, street: str) -> None:
        """Learning: the features ``(q_i − 1/k)·S``, ``(q_i − 1/k)·pot`` and the equity
        value at a node."""
        k = sum(state.alive)
        if k < 2:
            return
        behind = _effective_stack(state.stacks, state.alive)
        pot = sum(state.contributed)
        shares = outlook.shares(state.alive)
        values = outlook.values(state.contributed, state.alive)
        for p in range(len(values)):
            if state.alive[p]:
                edge = shares[p] - 1 / k
                pending.append((street, p, edge * behind, edge * pot, values[p]))

    def fit(self, model: ValueModel | None = None) -> ValueModel:
        """The ``betas`` that best predict, on the hands seen with ``learn``, the rest of
        a hand's result from each chance node (least squares of ``u_i − EqV_i`` on the
        two features, per street), in ``model`` (or a model without a table)."""
        betas: dict[str, list[float]] = {}
        for street, (a11, a12, a22, b1, b2) in (self.sums or {}).items():
            det = a11 * a22 - a12 * a12
            if det > 1e-9 * max(1.0, a11 * a22):
                betas[street] = [(b1 * a22 - b2 * a12) / det, (a11 * b2 - a12 * b1) / det]
            elif a11:
                betas[street] = [b1 / a11, 0.0]
        if model is None:
            return ValueModel(0, [], 0, "", betas)
        return ValueModel(model.players, model.values, model.hands, model.source, betas)

    def _outlook(self, holes: list[str], live: tuple[int, ...], board: str,
                 samples: int | None) -> Outlook:
        key = (tuple(holes), live, board, samples)
        found = self.cache.get(key)
        if found is None:
            if len(self.cache) >= self.cache_size:
                self.cache.clear()
            rng = random.Random(f"aivat:{self.seed}:{''.join(holes)}") if samples else None
            found = self.cache[key] = Outlook.of(holes, live, board, samples, rng)
        return found

    def _preflop_samples(self, events: Sequence[Json], stacks: Sequence[int]) -> int:
        if self.samples is not None:
            return self.samples
        state = _State([0.0] * len(stacks), [0.0] * len(stacks), [float(s) for s in stacks],
                       [True] * len(stacks))
        pot = 0.0
        for e in events:
            if e["type"] == "BoardDealt":
                break
            state.event(e)
            pot = max(pot, sum(state.contributed))
        return samples_for(pot / self.big_blind)

    def hand(self, events: Sequence[Json], stacks: Sequence[int], nets: Sequence[int],
             policies: Mapping[int, Sequence[Json]] | None = None) -> HandCorrection:
        """Correct one finished hold'em hand.

        ``events`` are the hand's events as JSON with every card (``player`` is the
        position), ``stacks`` the starting stacks by position, ``nets`` each
        position's result, ``policies`` the checked policy (:func:`validate_policy`)
        of the decision whose action is ``events[index]``, by that index.
        """
        n = len(stacks)
        policies = policies or {}
        state = _State([0.0] * n, [0.0] * n, [float(s) for s in stacks], [True] * n)
        holes: list[str] = [""] * n
        board = ""
        result = HandCorrection(list(nets), [float(x) for x in nets])
        outlook: Outlook | None = None
        dealt = False
        street = "preflop"
        pending: list[tuple[str, int, float, float, float]] = []

        def add(terms: list[float], into: list[list[float]]) -> None:
            into.append(terms)
            for p in range(n):
                result.corrected[p] += terms[p]

        for index, e in enumerate(events):
            kind = e["type"]
            if kind == "HoleCardsDealt":
                holes[e["player"]] = e["cards"]
                continue
            if not dealt and any(holes):
                dealt = True
                if any(not h or "?" in h for h in holes):
                    raise ValueError("AIVAT needs every player's hole cards.")
                live = tuple(p for p in range(n) if state.alive[p])
                outlook = self._outlook(holes, live, "", self._preflop_samples(events, stacks))
                if self.table is not None and self.table.players == n:
                    expected = self.table.expected_values(self.big_blind)
                    actual = self.table.deal_values(holes, self.big_blind)
                else:  # E[q_i] = 1/k by symmetry: the betas' term has mean zero here
                    expected = expected_deal_values(state.contributed, state.alive)
                    actual = self._v(outlook, state, street)
                if self.sums is not None:
                    self._observe(pending, outlook, state, street)
                result.nodes.append("deal")
                add([expected[p] - actual[p] for p in range(n)], result.chance)
            if kind == "BoardDealt":
                assert outlook is not None
                street = str(e.get("street", "board"))
                # E over the cards of V after them: q and the equity are martingales, so
                # it is V of the outlook before them with the next street's beta.
                before = self._v(outlook, state, street)
                state.event(e)
                board += "".join(str(c) for c in e["cards"]) if not isinstance(
                    e["cards"], str) else e["cards"]
                live = tuple(p for p in range(n) if state.alive[p])
                outlook = self._outlook(holes, live, board, None)
                after = self._v(outlook, state, street)
                if self.sums is not None:
                    self._observe(pending, outlook, state, street)
                result.nodes.append(street)
                add([before[p] - after[p] for p in range(n)], result.chance)
                continue
            policy = policies.get(index)
            if policy and kind in _ACTIONS and outlook is not None:
                player = e["player"]
                expected = [0.0] * n
                for entry in policy:
                    mean = self._mean_value(outlook, state, player, entry, street)
                    for p in range(n):
                        expected[p] += entry["p"] * mean[p]
                state.event(e)
                actual = self._v(outlook, state, street)
                result.decisions.append(index)
                add([expected[p] - actual[p] for p in range(n)], result.action)
                self.decisions += 1
                continue
            state.event(e)
        if self.sums is not None:
            for node_street, p, x1, x2, equity in pending:
                sums = self.sums.setdefault(node_street, [0.0] * 5)
                y = nets[p] - equity
                sums[0] += x1 * x1
                sums[1] += x1 * x2
                sums[2] += x2 * x2
                sums[3] += x1 * y
                sums[4] += x2 * y
        return result

    def _mean_value(self, outlook: Outlook, state: _State, player: int, entry: Json,
                    street: str) -> list[float]:
        """``V`` after the entry's move, averaged over its range if it has one (exact:
        ``V`` is linear in the amount between the other players' contributions and
        where the stack behind crosses another live player's)."""
        move = entry["move"]
        spans = entry.get("range")
        if not spans:
            return self._v(outlook, state.move(player, move), street)
        (name, (low, high)), = spans.items()
        base = state.contributed[player] - state.bets[player]
        cap = state.bets[player] + state.stacks[player]  # the most the street bet can reach
        kinks = sorted({round(c - base) for q, c in enumerate(state.contributed) if q != player}
                       | {round(cap - state.stacks[q]) for q in range(len(state.stacks))
                          if q != player and state.alive[q]}
                       | {round(cap)})
        cuts = [low] + [k for k in kinks if low < k < high] + [high]
        total = [0.0] * len(state.contributed)

        def value(amount: int) -> list[float]:
            return self._v(outlook, state.move(player, {**move, name: amount}), street)

        # Whole amounts in [cuts[0], cuts[1]], then (cuts[i], cuts[i+1]] for the rest: V is
        # linear on each, so the sum is count × the mean of the ends.
        start = cuts[0]
        left = value(start)
        for i, end in enumerate(cuts[1:]):
            right = value(end)
            if i == 0:
                count, first = end - start + 1, left
            else:
                count = end - start
                first = value(start + 1) if count > 0 else right
            if count > 0:
                for p in range(len(total)):
                    total[p] += count * (first[p] + right[p]) / 2
            start, left = end, right
        width = high - low + 1
        return [t / width for t in total]


# ------------------------------------------------------------------ matches


def supported(game: str) -> bool:
    """The games the estimator corrects: Texas Hold'em (its events and evaluator)."""
    return game == "holdem"


def split_policy(answer: Any) -> tuple[Any, Any]:
    """A bot's answer without its ``"policy"``, and the policy (None if it sent none).

    >>> split_policy({"kind": "call", "policy": [{"move": {"kind": "call"}, "p": 1}]})
    ({'kind': 'call'}, [{'move': {'kind': 'call'}, 'p': 1}])
    >>> split_policy({"kind": "fold"})
    ({'kind': 'fold'}, None)
    """
    if isinstance(answer, dict) and "policy" in answer:
        answer = dict(answer)
        return answer, answer.pop("policy")
    return answer, None


class MatchTracker:
    """What the offline runner (:func:`botkit.match.play_match`) feeds the estimator:
    the checked policy of each decision (``decided`` before the action is applied,
    ``played`` once the engine accepted it) and, per finished hand, the hand's
    events; ``finish`` returns each seat's corrected result."""

    def __init__(self, big_blind: int, seed: int, samples: int | None = None,
                 model: ValueModel | None = None, learn: bool = False) -> None:
        self.estimator = Aivat(big_blind=big_blind, seed=seed, samples=samples, model=model,
                               learn=learn)
        self.policies: dict[int, list[Json]] = {}
        self.errors: dict[str, int] = {}
        self.last_error = ""
        self.seconds = 0.0
        self.failed = ""  # why the estimator stopped (a hand it could not read)

    def decided(self, name: str, state: Any, view: Json, answer: Any, policy: Any
                ) -> tuple[int, list[Json]] | None:
        """The policy checked against the view's moves, with the index its action's event
        will have; None (and counted per bot) if it is malformed."""
        if policy is None or state.hand is None:
            return None
        from engine.errors import EngineError
        from engine.game import check_move

        try:
            check_move(view.get("moves") or [], answer)
        except EngineError:
            return None  # an illegal answer is replaced (and counted): not its policy
        try:
            checked = validate_policy(view.get("moves") or [], policy,
                                      answer if isinstance(answer, dict) else None)
        except PolicyError as error:
            self.errors[name] = self.errors.get(name, 0) + 1
            self.last_error = str(error)
            return None
        return len(state.hand.events), checked

    def played(self, pending: tuple[int, list[Json]] | None) -> None:
        if pending is not None:
            self.policies[pending[0]] = pending[1]

    def finish(self, state: Any, nets: Sequence[int]) -> list[float]:
        """Each seat's corrected result of the hand just played (``nets`` by seat)."""
        import time

        started = time.perf_counter()
        hand = state.hand
        positions = state.positions
        events = [e.to_json() for e in hand.events]
        corrected = self.estimator.hand(events, hand.setup.stacks,
                                        [nets[seat] for seat in positions], self.policies)
        self.policies = {}
        out = [float(x) for x in nets]
        for position, seat in enumerate(positions):
            out[seat] = corrected.corrected[position]
        self.seconds += time.perf_counter() - started
        return out
