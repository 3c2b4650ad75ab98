"""``rule_based`` for every poker variant but hold'em: Monte-Carlo equity, pot odds, draw rules.

:class:`VariantRuleBot` reads the variant from ``view["settings"]["variant"]``
(:data:`engine.poker.variants.VARIANTS`; hold'em when absent) and plays it with
one set of rules:

**Strength** is a Monte-Carlo estimate of the share of the pot it wins at
showdown (:func:`estimate_equity`). The unseen cards are the variant's deck less
its own cards, the board and every visible up card (folded players' too); each
sample deals every opponent still in the hand their unknown cards (down cards,
and the cards still to come in stud) and completes the board, then evaluates all
hands with the variant's evaluator(s) (:data:`engine.poker.evaluators.EVALUATORS`).
In a hi-lo split each half goes to the best hand of its side (ties share), and the
high hand takes the whole pot when no low qualifies. In draw games the current
hands are compared (no future draws). The opponents' hands are random (no
modelling of their actions). The sample count (:func:`sample_count`) fits a
budget of about 2 ms of sampling by the measured cost of the variant's evaluators
and the number of players in the hand (between :data:`MIN_SAMPLES` and
:data:`MAX_SAMPLES`; measured means of 0.8-5 ms per decision on a loaded 2-CPU
machine), and the samples come from the bot's own ``rng``, so a seeded bot
replays exactly. In stud, when the deck cannot give everyone a card, the
shortfall is dealt as one community card, as the engine does.

**Betting**, with ``n`` players still in the hand and ``fair = 1 / n``:

* *high* equity is ``fair + 0.2 (1 - fair)`` (heads-up 0.6, three-way 0.47),
  *strong* equity ``fair + 0.5 (1 - fair)`` (heads-up 0.75, three-way 0.67);
* the bring-in (stud): post it, or complete when strong;
* nothing to call: bet (or raise the big blind's option) with high equity, else
  check; facing a bet: raise when strong, call when the equity beats the pot odds
  ``to_call / (pot + to_call)`` by :data:`CALL_MARGIN`, else fold;
* sizes: fixed limit the fixed size; pot and no limit half the pot (at the high
  threshold) up to three quarters (equity 1), a raise the same share of the pot
  after calling on top of the call, clamped to the legal range, all in once 60 %
  of the stack would go in;
* show or muck: muck (the engine shows the winning hands anyway).

**Draws** (:func:`choose_discards`):

* high (five-card draw, :func:`high_discards`): keep pairs, trips, two pair
  and quads, stand pat on a straight, flush or full house or better; else keep a
  four-flush, else an open-ended four-straight, else an ace, else the two highest;
* 2-7 lowball (:func:`lowball_discards`): stand pat on a made 9-low or better
  (no pair, straight or flush); else keep one card of each rank 8 or lower (aces
  are high: discarded) and discard the rest; when that would keep a straight or
  a flush of five low cards, discard its highest card;
* badugi (:func:`badugi_discards`): keep the best badugi subset (distinct suits
  and ranks, lowest ranks) and discard the rest; while it is not a four-card
  badugi, its jacks, queens and kings go too (its lowest card stays if all are);
  stand pat on a badugi ten-high or better (so on every 9-high badugi), and on
  any badugi at the last draw; before it, break a jack-high or worse badugi by
  discarding its top card;
* never more cards than ``legal["draw"]`` allows (the worst are discarded first).

Every answer is checked against ``view["moves"]`` (:func:`engine.game.check_move`;
``view["legal"]`` when there are no moves) and replaced by a safe legal one (stand
pat, muck, bring-in, check, fold, call) if it does not fit or the view cannot be
read; :attr:`VariantRuleBot.fallbacks` counts those.

>>> from engine.cards import parse_cards as p
>>> [str(c) for c in high_discards(p("AsKd7c7h2s"), 5)]
['As', 'Kd', '2s']
>>> [str(c) for c in lowball_discards(p("7s5d4c2hAc"), 5)], lowball_discards(p("9s6d4c3h2h"), 5)
(['Ac'], [])
>>> [str(c) for c in badugi_discards(p("Ac2d3hKh"), 3, last_draw=False)]
['Kh']
>>> equity = estimate_equity(VARIANTS["omaha"], p("AsAdKsKd"), p("AhAcKh"), [((), 4)],
...                          random.Random(1), samples=200)
>>> equity > 0.95
True
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from itertools import combinations

from botkit.bot import Bot, Json
from engine.cards import HIDDEN, Card
from engine.errors import EngineError
from engine.game import check_move
from engine.poker.evaluators import EVALUATORS, badugi, high, low_27
from engine.poker.variants import VARIANTS, Variant

__all__ = ["CALL_MARGIN", "MAX_SAMPLES", "MIN_SAMPLES", "VariantRuleBot", "badugi_discards",
           "best_badugi", "choose_discards", "estimate_equity", "high_discards",
           "lowball_discards", "sample_count"]

MAX_SAMPLES = 300
"""Monte-Carlo samples per decision at most (heads-up, cheap evaluators)."""

MIN_SAMPLES = 60
"""Monte-Carlo samples per decision at least (many players, slow evaluators)."""

CALL_MARGIN = 0.05
"""How much the equity must beat the pot odds by for a call."""

_COST = {"high": 0.4, "short_deck": 2.1, "omaha": 1.0, "low_27": 0.5, "low_a5": 0.7,
         "low_8": 0.4, "omaha_low_8": 3.5, "badugi": 1.6, "soko": 1.8}
"""Measured microseconds of one evaluation by each evaluator kind."""

_SAMPLE_US = 2.0
_PLAYER_US = 1.0
"""Microseconds per sample and per player and sample besides the evaluations (dealing)."""

_BUDGET_US = 2000.0
"""Microseconds of sampling one decision may spend (on an idle machine; a loaded one
takes up to twice as long)."""

Evaluate = Callable[[Sequence[Card], Sequence[Card]], int | None]


# ---------------------------------------------------------------------- equity


def _parse(text: str) -> list[Card | None]:
    """Card text with ``??`` for unseen cards, card by card (``None``: unseen)."""
    return [None if text[i:i + 2] == HIDDEN else Card.parse(text[i:i + 2])
            for i in range(0, len(text), 2)]


def estimate_equity(variant: Variant, mine: Sequence[Card], board: Sequence[Card],
                    opponents: Sequence[tuple[Sequence[Card], int]], rng: random.Random,
                    samples: int = MAX_SAMPLES, dead: Iterable[Card] = (),
                    final_hole: int | None = None) -> float:
    """My expected share of the pot at showdown against ``opponents``.

    ``opponents`` lists each opponent still in the hand as (the cards of theirs I
    can see, how many cards they hold at showdown); ``dead`` are other visible
    cards (folded players' up cards); ``final_hole`` is how many cards I hold at
    showdown (default: as many as now). The board is completed to the variant's
    board size. When the deck cannot give everyone their cards (stud with many
    players), the shortfall is dealt as community cards, as the engine does.

    >>> from engine.cards import parse_cards as p
    >>> rng = random.Random(2)
    >>> estimate_equity(VARIANTS["razz"], p("As2s3s4s5s6s7s"), (), [((), 7)], rng, 50) > 0.95
    True
    >>> estimate_equity(VARIANTS["stud8"], p("As2c3c4c6dKdKs"), (),  # kings high, low tied
    ...                 [(p("Ah2d3d4d6c9s9c"), 7)], rng, 10)
    0.75
    """
    kinds = variant.evaluators
    evaluate_high: Evaluate = EVALUATORS[kinds[0]].evaluate
    evaluate_low: Evaluate | None = EVALUATORS[kinds[1]].evaluate if len(kinds) > 1 else None
    seen = {*mine, *board, *dead}
    for known, _ in opponents:
        seen.update(known)
    pool = [card for card in variant.cards if card not in seen]
    my_target = len(mine) if final_hole is None else final_hole
    board_target = max(len(board), variant.board_cards)
    needs = [my_target - len(mine)] + [total - len(known) for known, total in opponents]
    shared = 0  # community cards replacing a street everybody lacks (stud, many players)
    while sum(needs) + board_target - len(board) > len(pool) and min(needs) > 0:
        needs = [need - 1 for need in needs]
        shared += 1
        board_target += 1
    board_need = board_target - len(board)
    total = sum(needs) + board_need
    if total > len(pool) or samples <= 0:
        return 1.0 / (1 + len(opponents))
    hands = [list(mine)] + [list(known) for known, _ in opponents]
    deals = []  # (hand, first drawn card, last) per player
    at = board_need
    for hand, need in zip(hands, needs, strict=True):
        deals.append((hand, at, at + need))
        at += need
    size = len(pool)
    draw = rng.random
    won = 0.0
    for _ in range(samples):
        for i in range(total):  # a partial Fisher-Yates shuffle: pool[:total] is the sample
            j = i + int(draw() * (size - i))
            pool[i], pool[j] = pool[j], pool[i]
        full_board: Sequence[Card] = [*board, *pool[:board_need]] if board_need else board
        values: list[int | None] = []
        lows: list[int | None] = []
        for hand, start, stop in deals:
            cards = [*hand, *pool[start:stop]] if stop > start else hand
            values.append(evaluate_high(cards, full_board))
            if evaluate_low is not None:
                lows.append(evaluate_low(cards, full_board))
        high_share = _share(values)
        if evaluate_low is not None and any(low is not None for low in lows):
            won += 0.5 * high_share + 0.5 * _share(lows)
        else:
            won += high_share
    return won / samples


def _share(values: Sequence[int | None]) -> float:
    """Player 0's share of a pot that the best (highest, not ``None``) values split."""
    mine = values[0]
    if mine is None:
        return 0.0
    best = max(value for value in values if value is not None)
    if mine < best:
        return 0.0
    return 1.0 / sum(1 for value in values if value == best)


# ---------------------------------------------------------------------- draws


def _clip(discards: list[Card], limit: int, worst_first: Callable[[Card], int]) -> list[Card]:
    """At most ``limit`` discards, the worst (by ``worst_first``, descending) first."""
    if len(discards) <= limit:
        return discards
    return sorted(discards, key=worst_first, reverse=True)[:max(0, limit)]


def high_discards(cards: Sequence[Card], limit: int) -> list[Card]:
    """Five-card draw (high): the cards to throw.

    >>> from engine.cards import parse_cards as p
    >>> def show(text, limit=5): return " ".join(map(str, high_discards(p(text), limit)))
    >>> show("KsKdKc5h5d"), show("9s9d5c5h2d"), show("Ah2h7h9hKd"), show("5s6d7c8hKd")
    ('', '2d', 'Kd', 'Kd')
    >>> show("AsJd7c4h2d"), show("Kd9s7c4h2d"), show("JsQdKcAh3d"), show("Kd9s7c4h2d", 2)
    ('Jd 7c 4h 2d', '7c 4h 2d', 'Js Qd Kc 3d', '2d 4h')
    """
    ranks = [card.rank for card in cards]
    category = high(cards) >> 24 if len(cards) >= 5 else 0
    if category >= 4:  # straight, flush, full house, quads, straight flush
        return []
    if category >= 1:  # pair, two pair, trips (quads stand pat above)
        discards = [card for card in cards if ranks.count(card.rank) == 1]
    else:
        discards = _high_draw(cards)
    return _clip(discards, limit, lambda card: -card.rank)


def _high_draw(cards: Sequence[Card]) -> list[Card]:
    """No pair: keep a four-flush, an open-ended four-straight, an ace or the two highest."""
    suits = [card.suit for card in cards]
    for suit in range(4):
        if suits.count(suit) == 4:
            return [card for card in cards if card.suit != suit]
    ranks = {card.rank for card in cards}
    for low in range(0, 9):  # 2-3-4-5 up to T-J-Q-K: both ends open
        run = set(range(low, low + 4))
        if run <= ranks:
            return [card for card in cards if card.rank not in run]
    ordered = sorted(cards, key=lambda card: card.rank, reverse=True)
    keep = ordered[:1] if ordered[0].rank == 12 else ordered[:2]
    return [card for card in cards if card not in keep]


def lowball_discards(cards: Sequence[Card], limit: int) -> list[Card]:
    """2-7 lowball: the cards to throw (stand pat on a made 9-low or better).

    >>> from engine.cards import parse_cards as p
    >>> def show(text, limit=5): return " ".join(map(str, lowball_discards(p(text), limit)))
    >>> show("8s6d5c4h2h"), show("9s7d5c3h2h"), show("Ts7d5c3h2h"), show("7s7d5c3hAh")
    ('', '', 'Ts', '7d Ah')
    >>> show("6s5d4c3h2h"), show("8h6h5h3h2h"), show("KsQdJc9h8h"), show("KsQdJc9h8h", 3)
    ('6s', '8h', 'Ks Qd Jc 9h', 'Ks Qd Jc')
    """
    if len(cards) >= 5:
        value = low_27(cards)
        if value >> 24 == 8 and max(card.rank for card in cards) <= 7:  # a made 9-low
            return []
    keep: dict[int, Card] = {}
    for card in cards:
        if card.rank <= 6:  # 8 or lower; aces (rank 12) are high
            keep.setdefault(card.rank, card)
    kept = list(keep.values())
    if len(kept) == len(cards):  # a straight or a flush of low cards: break it
        kept.remove(max(kept, key=lambda card: card.rank))
    discards = [card for card in cards if card not in kept]
    return _clip(discards, limit, lambda card: card.rank)


_JACK_LOW = 10
"""A jack's ace-low rank."""


def _ace_low(card: Card) -> int:
    """Ace 0, deuce 1 ... king 12."""
    return (card.rank + 1) % 13


def best_badugi(cards: Sequence[Card]) -> tuple[Card, ...]:
    """The best subset of distinct suits and distinct ranks (most cards, then lowest).

    >>> from engine.cards import parse_cards as p
    >>> def show(text): return " ".join(map(str, best_badugi(p(text))))
    >>> show("Ac2c3d4h"), show("KsKdKhKc"), show("7c4d3h2s")
    ('Ac 3d 4h', 'Ks', '7c 4d 3h 2s')
    """
    best: tuple[Card, ...] = ()
    best_value = 0
    for size in range(len(cards), 0, -1):
        for subset in combinations(cards, size):
            if (len({card.suit for card in subset}) == size
                    and len({card.rank for card in subset}) == size):
                value = badugi(subset)
                if value > best_value:
                    best, best_value = subset, value
        if best:
            return best
    return best


def badugi_discards(cards: Sequence[Card], limit: int, last_draw: bool) -> list[Card]:
    """Badugi: the cards to throw.

    >>> from engine.cards import parse_cards as p
    >>> def show(text, last=False): return " ".join(map(str, badugi_discards(p(text), 4, last)))
    >>> show("Ac2d3h9s"), show("Ac2d3hTs"), show("Ac2d3hKs"), show("Ac2d3hKs", True)
    ('', '', 'Ks', '')
    >>> show("Ac2c3d4h"), show("Ac2d3dQh"), show("KsKdKhKc")
    ('2c', '3d Qh', 'Kd Kh Kc')
    """
    keep = best_badugi(cards)
    if len(keep) == 4:
        top = max(keep, key=_ace_low)
        if last_draw or _ace_low(top) < _JACK_LOW:
            return []
        keep = tuple(card for card in keep if card != top)
    else:  # not a badugi yet: draw to the smooth cards (ten or lower)
        keep = tuple(card for card in keep if _ace_low(card) < _JACK_LOW) or keep[:1]
    discards = [card for card in cards if card not in keep]
    return _clip(discards, limit, _ace_low)


def choose_discards(variant: Variant, cards: Sequence[Card], limit: int,
                    last_draw: bool = False) -> list[Card]:
    """The cards to discard in ``variant``'s draw (by its evaluator), at most ``limit``."""
    kind = variant.evaluators[0]
    if kind == "low_27":
        return lowball_discards(cards, limit)
    if kind == "badugi":
        return badugi_discards(cards, limit, last_draw)
    return high_discards(cards, limit)


# ---------------------------------------------------------------------- the bot


class VariantRuleBot(Bot):
    """Equity-driven rule player for Omaha (hi-lo), short deck, draw and stud games."""

    name = "rule_based"

    def __init__(self, rng: random.Random | None = None, samples: int | None = None) -> None:
        self.rng = rng or random.Random()
        self.samples = samples
        """Monte-Carlo samples per decision; ``None``: by the time budget (tests use few)."""
        self.fallbacks = 0
        """Answers replaced by the safe fallback (a rule failed or gave an illegal move)."""

    def act(self, view: Json) -> Json:
        try:
            answer = self._decide(view)
        except (EngineError, LookupError, ValueError, TypeError, ZeroDivisionError):
            self.fallbacks += 1  # a view this bot does not understand: stay legal anyway
            return _fallback(view)
        moves = view.get("moves")
        if moves is None:
            legal = _fits_legal(view["legal"], answer)
        else:
            try:
                check_move(moves, answer)
                legal = True
            except EngineError:
                legal = False
        if not legal:
            self.fallbacks += 1
            return _fallback(view)
        return answer

    # ------------------------------------------------------------ decisions
    def _decide(self, view: Json) -> Json:
        legal = view["legal"]
        if legal.get("draw") is not None:
            return self._draw(view, int(legal["draw"]))
        if legal["can_show"] or legal["can_muck"]:
            return {"kind": "muck"}
        variant = VARIANTS[view["settings"].get("variant", "holdem")]
        hand = view["hand"]
        me, others = _players(view)
        in_hand = 1 + len(others)
        equity = self.equity(view, variant)
        fair = 1.0 / in_hand
        good = fair + 0.2 * (1.0 - fair)
        strong = fair + 0.5 * (1.0 - fair)
        to_call = legal["call_amount"] or 0
        sized = legal["sized_kind"]
        if legal.get("bring_in") is not None:
            if equity >= strong and sized is not None:
                return {"kind": sized, "amount": legal["min_raise_to"]}
            return {"kind": "bring_in"}
        pot = sum(int(p["amount"]) for p in hand["pots"])
        current = int(me["bet"]) + to_call
        if to_call == 0:
            if equity >= good and sized is not None:
                return self._sized(legal, me, current, pot, equity, good)
            return {"kind": "check"} if legal["can_check"] else {"kind": "fold"}
        if equity >= strong and sized is not None:
            return self._sized(legal, me, current, pot + to_call, equity, good)
        odds = to_call / (pot + to_call)
        if equity >= odds + CALL_MARGIN and legal["call_amount"] is not None:
            return {"kind": "call"}
        if legal["can_check"]:
            return {"kind": "check"}
        return {"kind": "fold"}

    @staticmethod
    def _sized(legal: Json, me: Json, current: int, pot: int, equity: float,
               good: float) -> Json:
        """Bet or raise to ``current`` plus ½ to ¾ of ``pot`` (more with more equity)."""
        low, high_ = int(legal["min_raise_to"]), int(legal["max_raise_to"])
        share = 0.5 + 0.25 * min(1.0, max(0.0, (equity - good) / max(1e-9, 1.0 - good)))
        to = current + int(share * pot)
        if to >= 0.6 * (int(me["bet"]) + int(me["stack"])):
            to = high_
        return {"kind": legal["sized_kind"], "amount": max(low, min(to, high_))}

    def _draw(self, view: Json, limit: int) -> Json:
        variant = VARIANTS[view["settings"].get("variant", "holdem")]
        me, _ = _players(view)
        cards = [card for card in _parse(me["cards"]) if card is not None]
        draws = [street.name for street in variant.streets if street.draw]
        last = bool(draws) and view["hand"]["street"] == draws[-1]
        discards = choose_discards(variant, cards, limit, last)
        return {"kind": "draw", "cards": [str(card) for card in discards]}

    def equity(self, view: Json, variant: Variant) -> float:
        """The Monte-Carlo share of the pot this seat wins (see :func:`estimate_equity`)."""
        me, _ = _players(view)
        mine = [card for card in _parse(me["cards"]) if card is not None]
        board = [card for card in _parse(view["hand"]["board"]) if card is not None]
        dead: list[Card] = []
        opponents: list[tuple[list[Card], int]] = []
        final = _final_hole(variant, mine, board)
        for player in view["hand"]["players"]:
            if player["player"] == view["seat"]:
                continue
            cards = _parse(player["cards"])
            known = [card for card in cards if card is not None]
            if player["folded"]:
                dead.extend(known)
            else:
                opponents.append((known, _final_hole(variant, cards, board)))
        samples = self.samples
        if samples is None:
            samples = sample_count(variant, 1 + len(opponents))
        return estimate_equity(variant, mine, board, opponents, self.rng, samples, dead, final)


def sample_count(variant: Variant, players: int) -> int:
    """Monte-Carlo samples for one decision of ``variant`` with ``players`` in the hand:
    as many as the time budget allows, between :data:`MIN_SAMPLES` and :data:`MAX_SAMPLES`.

    >>> [sample_count(VARIANTS["omaha8"], n) for n in (2, 4, 10)]
    [153, 83, 60]
    """
    cost = _PLAYER_US + sum(_COST.get(kind, 3.0) for kind in variant.evaluators)
    per_sample = _SAMPLE_US + players * cost
    return int(min(MAX_SAMPLES, max(MIN_SAMPLES, _BUDGET_US / per_sample)))


def _final_hole(variant: Variant, cards: Sequence[Card | None], board: Sequence[Card]) -> int:
    """How many cards a player holds at showdown: stud deals up to the full hand (less
    any community card), the others keep what they hold."""
    if variant.stud:
        return max(len(cards), variant.cards_per_player - len(board))
    return len(cards)


def _players(view: Json) -> tuple[Json, list[Json]]:
    """My player entry and the opponents still in the hand."""
    seat = view["seat"]
    me: Json | None = None
    others: list[Json] = []
    for player in view["hand"]["players"]:
        if player["player"] == seat:
            me = player
        elif not player["folded"]:
            others.append(player)
    if me is None:
        raise LookupError(f"Seat {seat} is not in the hand.")
    return me, others


def _fits_legal(legal: Json, answer: Json) -> bool:
    """Whether ``answer`` is allowed by ``legal`` (views without ``moves``)."""
    kind = answer.get("kind")
    if kind == "draw":
        return legal.get("draw") is not None and len(answer.get("cards", ())) <= legal["draw"]
    if kind == "bring_in":
        return legal.get("bring_in") is not None
    if kind in ("bet", "raise"):
        low, high_ = legal.get("min_raise_to"), legal.get("max_raise_to")
        return (legal.get("sized_kind") == kind and low is not None and high_ is not None
                and type(answer.get("amount")) is int and low <= answer["amount"] <= high_)
    simple = {"fold": legal.get("can_fold"), "check": legal.get("can_check"),
              "call": legal.get("call_amount") is not None, "show": legal.get("can_show"),
              "muck": legal.get("can_muck")}
    return bool(simple.get(str(kind), False))


def _fallback(view: Json) -> Json:
    """A safe legal answer: muck, stand pat, bring in, check, call or fold."""
    legal = view["legal"]
    if legal.get("draw") is not None:
        return {"kind": "draw", "cards": []}
    if legal.get("can_muck"):
        return {"kind": "muck"}
    if legal.get("bring_in") is not None:
        return {"kind": "bring_in"}
    if legal.get("can_check"):
        return {"kind": "check"}
    if legal.get("can_fold"):
        return {"kind": "fold"}
    if legal.get("call_amount") is not None:
        return {"kind": "call"}
    moves = view.get("moves") or [{"kind": "fold"}]
    return {"kind": moves[0]["kind"]}
