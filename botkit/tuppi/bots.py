"""Tuppi agents: random, the greedy reference, a rule-based player and the strong one.

Each is a :class:`botkit.bot.Bot` that reads only the ``decision_view`` JSON the
server sends (``view["moves"]``, ``view["round"]``, ``view["score"]``; see
docs/tuppi.md) and answers ``{"kind": "rami" | "nolo"}`` or ``{"kind": "play",
"card": "As"}``. None keeps state between calls: the view holds every trick.

>>> import random
>>> from engine.game import decision_view
>>> from engine.tuppi import TuppiGame
>>> game = TuppiGame()
>>> state = game.create(game.validate_settings({}))
>>> for seat, name in enumerate("abcd"):
...     _ = game.seat(state, seat, name, {})
>>> _ = game.start_round(state, game.draw_chance(state, random.Random(3)))
>>> view = decision_view(game, state, 1)
>>> view["round"]["players"][1]["cards"]
'2c4c8cJcQc3d5d8d9d5hQh4sKs'
>>> GreedyBot().act(view)  # J, Q, Q, K: 8 face points, under 14
{'kind': 'nolo'}
>>> StrongBot(random.Random(1)).act(view)["kind"] in ("rami", "nolo")
True
"""

from __future__ import annotations

import random
import time

from botkit.bot import Bot, Json
from botkit.tuppi.cards import BIT, RANKS, SUIT_MASK, TEXT, lowest_text, split
from botkit.tuppi.knowledge import Seen, read
from botkit.tuppi.search import (
    face_points,
    pick,
    rami_chance,
    rollout,
    sample_deal,
    utility,
)
from engine.game import random_move
from engine.tuppi.rules import decided

__all__ = ["GreedyBot", "RandomBot", "RulesBot", "StrongBot", "greedy_card"]

RAMI_AT = 14
"""The assignment's rule of thumb: bid rami at 14 or more face-card points."""


def _rank(text: str) -> int:
    return RANKS.index(text[0])


def _bid_move(view: Json) -> bool:
    return any(m["kind"] == "rami" for m in view["moves"])


def _own_cards(view: Json) -> list[str]:
    return split(view["round"]["players"][view["seat"]]["cards"])


class RandomBot(Bot):
    """A uniformly random legal move (rami or nolo half the time each; any legal card).
    (Like ``botkit.house.uniform``, which this package does not import: the house-bot
    registry may import this one.)"""

    name = "tuppi-random"

    def __init__(self, rng: random.Random | None = None) -> None:
        self.rng = rng or random.Random()

    def act(self, view: Json) -> Json:
        return random_move(view["moves"], self.rng)


def greedy_card(options: list[str], trick: list[Json]) -> str:
    """The greedy reference's card: the lowest card that wins the trick so far, if any
    (leading, every card does: the lowest), otherwise the lowest card.

    >>> greedy_card(["2h", "9h", "Kh"], [{"player": 0, "card": "Th"}])
    'Kh'
    >>> greedy_card(["2h", "9h"], [{"player": 0, "card": "Th"}]), greedy_card(["5s", "3d"], [])
    ('2h', '3d')
    """
    if trick:
        led = trick[0]["card"][1]
        best = max(_rank(t["card"]) for t in trick if t["card"][1] == led)
        winners = [c for c in options if c[1] == led and _rank(c) > best]
        if winners:
            return lowest_text(winners)
    return lowest_text(options)


class GreedyBot(Bot):
    """The assignment's greedy reference: rami at 14+ face points (A=4, K=3, Q=2, J=1),
    then always the cheapest card that wins the trick, else the lowest card (in rami
    and nolo alike)."""

    name = "tuppi-greedy"

    def __init__(self, rng: random.Random | None = None) -> None:
        self.rng = rng

    def act(self, view: Json) -> Json:
        if _bid_move(view):
            points = sum({"A": 4, "K": 3, "Q": 2, "J": 1}.get(c[0], 0) for c in _own_cards(view))
            return {"kind": "rami" if points >= RAMI_AT else "nolo"}
        options = view["moves"][0]["params"]["card"]["options"]
        return {"kind": "play", "card": greedy_card(options, view["round"]["trick"])}


def _trick_state(seen: Seen) -> tuple[int, int, int, int]:
    """(cards in the trick, led suit, winning bit, winning seat)."""
    if not seen.trick:
        return 0, 0, 0, 0
    led = seen.trick[0][1] // 13
    win_seat, win_bit = seen.trick[0]
    for seat, bit in seen.trick[1:]:
        if bit // 13 == led and bit > win_bit:
            win_seat, win_bit = seat, bit
    return len(seen.trick), led, win_bit, win_seat


def _length_points(hand: int) -> int:
    """Face points plus one for every card beyond four in a suit (long suits take tricks
    in rami once the top cards are gone)."""
    extra = sum(max(0, (hand & SUIT_MASK[s]).bit_count() - 4) for s in range(4))
    return face_points(hand) + extra


class RulesBot(Bot):
    """The rollout policy of :mod:`botkit.tuppi.search` as a player (no search): the
    seed assignment's advice, and rami at 15+ face-and-length points."""

    name = "tuppi-rules"

    def __init__(self, rng: random.Random | None = None) -> None:
        self.rng = rng

    def act(self, view: Json) -> Json:
        seen = read(view)
        if _bid_move(view):
            return {"kind": "rami" if _length_points(seen.hand) >= 15 else "nolo"}
        n, led, win_bit, win_seat = _trick_state(seen)
        bit = pick(seen.seat, seen.hand, n, led, win_bit, win_seat, seen.mode == "rami",
                   seen.played)
        return {"kind": "play", "card": TEXT[bit]}


class StrongBot(Bot):
    """Determinised Monte-Carlo search (docs/tuppi.md, "The strong agent").

    **Play**: the legal cards, less those equivalent to a lower one (touching cards:
    nothing unseen between them); for each of up to ``samples`` deals of the unseen
    cards that fit what is known (card counts, the suits each player showed out of),
    weighted by how well they explain the revealed bids, every candidate is played and
    the round finished with the rule-based rollout policy for all four players; the
    candidate with the best average value wins. A value is the chance to win the tuppi
    from the board the round leaves (:func:`botkit.tuppi.search.win_chance`), so the
    bot plays for what matters on the up/down board (seven tricks to reset a rising
    opponent, the points that reach 52). It stops sampling at ``budget`` seconds
    (after at least ``min_samples`` deals; bidding: 1.5 x ``budget``, at least
    ``min_bid_samples``).

    **Bidding**: ``bid_samples`` random deals of the other hands; the others' bids
    drawn from a face-point model; for each deal where its own bid changes the game
    (rami or nolo, and who declares), both games are played out with the rollout
    policy and valued the same way.
    """

    name = "tuppi-strong"

    def __init__(self, rng: random.Random | None = None, samples: int = 40,
                 min_samples: int = 6, bid_samples: int = 48, min_bid_samples: int = 16,
                 budget: float = 0.010) -> None:
        self.rng = rng or random.Random()
        self.samples, self.min_samples = samples, min_samples
        self.bid_samples, self.min_bid_samples = bid_samples, min_bid_samples
        self.budget = budget

    def act(self, view: Json) -> Json:
        seen = read(view)
        if _bid_move(view):
            return {"kind": self._bid(seen)}
        return {"kind": "play", "card": TEXT[self._card(seen)]}

    # -- bidding
    def _bid(self, seen: Seen) -> str:
        rng = self.rng
        seat, dealer, score = seen.seat, seen.dealer, seen.score
        us = seat & 1
        order = [(dealer + i) & 3 for i in range(1, 5)]
        unknown = [b for b in range(52) if not seen.hand >> b & 1]
        others = [q for q in range(4) if q != seat]
        diff = 0.0
        deadline = time.perf_counter() + 1.5 * self.budget
        for k in range(self.bid_samples):
            if k >= self.min_bid_samples and time.perf_counter() > deadline:
                break
            rng.shuffle(unknown)
            hands = [0, 0, 0, 0]
            hands[seat] = seen.hand
            for i, q in enumerate(others):
                for bit in unknown[13 * i:13 * i + 13]:
                    hands[q] |= 1 << bit
            bids = {q: rng.random() < rami_chance(face_points(hands[q])) for q in others}
            values = []
            for mine in (True, False):
                bids[seat] = mine
                declarer = next((q for q in order if bids[q]), None)
                values.append(declarer)
            if values[0] == values[1]:
                continue  # my bid changes nothing here
            results = []
            for declarer in values:
                rami = declarer is not None
                team = None if declarer is None else declarer & 1
                leader = (declarer + 3) & 3 if declarer is not None else (dealer + 1) & 3
                tricks = rollout(list(hands), leader, 0, [0, 0], rami, team, score, ())
                results.append(utility("rami" if rami else "nolo", team, tricks, score, us))
            diff += results[0] - results[1]
        return "rami" if diff > 0 else "nolo"

    # -- play
    def _candidates(self, seen: Seen) -> list[int]:
        options = sorted(BIT[t] for t in seen.options)
        before = seen.played
        for _, bit in seen.trick:  # cards on the table still count for following
            before &= ~(1 << bit)
        out: list[int] = []
        for bit in options:
            if out and out[-1] // 13 == bit // 13:
                between = ((1 << bit) - 1) & ~((1 << (out[-1] + 1)) - 1)
                if not between & ~(before | seen.hand):
                    continue  # touching the lower one: the same card for the game
            out.append(bit)
        return out

    def _weight(self, seen: Seen, hands: list[int]) -> float:
        weight = 1.0
        for q in range(4):
            bid = seen.bids[q]
            if q == seen.seat or bid is None:
                continue
            chance = rami_chance(face_points(hands[q] | seen.played_by[q]))
            weight *= chance if bid == "rami" else 1.0 - chance
        return weight

    def _card(self, seen: Seen) -> int:
        candidates = self._candidates(seen)
        if len(candidates) == 1:
            return candidates[0]
        rng = self.rng
        seat, score = seen.seat, seen.score
        us = seat & 1
        mode = seen.mode or "nolo"
        rami = mode == "rami"
        team = None if seen.declarer is None else seen.declarer & 1
        unknown = seen.unknown()
        counts = list(seen.counts)
        counts[seat] = 0
        totals = [0.0] * len(candidates)
        deadline = time.perf_counter() + self.budget
        for k in range(self.samples):
            if k >= self.min_samples and time.perf_counter() > deadline:
                break
            hands = sample_deal(rng, seat, seen.hand, unknown, counts, seen.voids)
            weight = self._weight(seen, hands) + 1e-6
            for i, bit in enumerate(candidates):
                totals[i] += weight * self._play_out(seen, hands, bit, rami, mode, team, us,
                                                     score)
        best = max(range(len(candidates)), key=lambda i: (totals[i], -i))
        return candidates[best]

    @staticmethod
    def _play_out(seen: Seen, hands: list[int], bit: int, rami: bool, mode: str,
                  team: int | None, us: int, score: tuple[int, int]) -> float:
        seat = seen.seat
        h = list(hands)
        h[seat] ^= 1 << bit
        gone = seen.played | 1 << bit
        played = [*seen.trick, (seat, bit)]
        tricks = [seen.tricks[0], seen.tricks[1]]
        leader = seen.leader
        if len(played) == 4:
            led = played[0][1] // 13
            winner = max(played, key=lambda p: p[1] if p[1] // 13 == led else -1)[0]
            tricks[winner & 1] += 1
            if decided(mode, team, tricks, score) or not h[winner]:
                return utility(mode, team, tricks, score, us)
            leader, played = winner, []
        result = rollout(h, leader, gone, tricks, rami, team, score, played)
        return utility(mode, team, result, score, us)

