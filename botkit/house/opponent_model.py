"""Opponent modelling for the ``ehs`` bot: a weight table over the opponent's hole-card
pairs, re-weighted by every action it is seen to take, and the hand-strength figures
(HS, PPOT, NPOT) computed against that weighted table.

This is the classic weight-table approach of Billings, Papp, Schaeffer and Szafron
(Loki/Poki; the thesis's [DBS00]): every opponent starts a hand with all 1,326
two-card pairs equally likely; pairs containing a known card (this bot's hole cards,
the board) get weight 0, leaving 1,081 after the flop; each observed action
multiplies every pair's weight by a factor between a small floor and 1, a linear ramp
around a threshold with a noise band:

* **pre-flop** the threshold is a hand-rank percentile taken from the opponent's own
  VPIP and PFR (a raise keeps its top PFR share of starting hands, a call its top
  VPIP share, lowering the hands it would have raised with);
* **post-flop** it is the weighted quantile of each pair's strength on the board
  (an approximate EHS: rank among all pairs plus a one-card draw potential) that
  matches the opponent's observed frequencies (:class:`ActionStats`: how often it
  bets when it may, folds or raises when it faces a bet of a given size) — a bet
  keeps the strongest bet-rate share of what it holds, a call drops the folding
  share, a check lowers the strong pairs it would have bet.

The bot's own HS is then the weighted share of the table it beats
(:func:`weighted_hand_strength`), and PPOT/NPOT are sampled with opponent pairs
drawn by weight (:func:`weighted_potentials`).  Django-free; eval7 only.

>>> from engine.cards import parse_cards
>>> table = WeightTable(parse_cards("AsKd"))
>>> round(table.total()), table.live()
(1225, 1225)
>>> table.preflop_action("raise", vpip=0.3, pfr=0.15)
>>> p = table.distribution()
>>> round(sum(p), 9)
1.0
>>> aa, seven_two = pair_index(*parse_cards("AhAc")), pair_index(*parse_cards("7h2c"))
>>> p[aa] > 10 * p[seven_two]
True
>>> table.weights[pair_index(*parse_cards("AsAh"))]   # holds a known card
0.0
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import accumulate

from botkit.strength import _E7, _evaluate
from engine.cards import RANKS, Card

__all__ = [
    "FIRST_BET",
    "PAIRS",
    "PREFLOP_ORDER",
    "PREFLOP_PERCENTILE",
    "RE_RAISE",
    "ActionStats",
    "BoardInfo",
    "WeightTable",
    "board_info",
    "pair_index",
    "size_bucket",
    "weighted_hand_strength",
    "weighted_potentials",
]


PAIRS: tuple[tuple[int, int], ...] = tuple((a, b) for a in range(52) for b in range(a + 1, 52))
"""The 1,326 hole-card pairs as (lower card, higher card)."""

_INDEX: list[int] = [-1] * (52 * 52)
for _i, (_a, _b) in enumerate(PAIRS):
    _INDEX[_a * 52 + _b] = _INDEX[_b * 52 + _a] = _i
_PAIRS_OF_CARD: tuple[tuple[int, ...], ...] = tuple(
    tuple(i for i, (a, b) in enumerate(PAIRS) if c in (a, b)) for c in range(52))


def pair_index(first: int, second: int) -> int:
    """Index of the pair in :data:`PAIRS` (card order does not matter)."""
    return _INDEX[first * 52 + second]


_ORDER_TEXT = (
    "AA KK QQ JJ TT 99 88 AKs AQs 77 AJs AKo ATs AQo AJo KQs KJs 66 A9s ATo A8s KQo KTs QJs "
    "A9o A7s KJo 55 A8o K9s KTo A5s QTs A6s A4s K9o A6o K8s A3s A7o Q9s QJo K7s A2s JTs QTo "
    "K6s A5o A4o 44 K8o A3o J9s K5s Q9o Q8s K4s JTo A2o Q7s K7o J8s T9s K3s K6o Q6s Q8o 33 "
    "J7s J9o K5o K4o K2s T8s Q7o Q5s Q4s K3o T9o J6s Q6o J8o Q3s 22 K2o T7s 98s Q2s J7o J5s "
    "T6s J4s Q5o T8o 97s Q4o J3s Q3o 98o 96s J2s 87s Q2o T7o J6o T5s 86s J5o J4o T6o T4s 95s "
    "J3o 96o 97o 85s J2o T2s 76s T3s 87o 94s T5o 86o T4o 65s 93s 75s 84s 95o T3o 92s 54s 76o "
    "83s T2o 74s 64s 75o 93o 85o 65o 94o 84o 63s 73s 74o 82s 92o 53s 43s 54o 72s 64o 83o 62s "
    "52s 42s 82o 73o 53o 63o 32s 43o 52o 72o 62o 42o 32o"
)
PREFLOP_ORDER: tuple[str, ...] = tuple(_ORDER_TEXT.split())
"""The 169 starting hands, best first, by all-in equity against one random hand
(12,000 Monte-Carlo deals each, eval7; computed once offline)."""


def _class_name(a: int, b: int) -> str:
    high, low = max(a >> 2, b >> 2), min(a >> 2, b >> 2)
    if high == low:
        return RANKS[high] * 2
    return RANKS[high] + RANKS[low] + ("s" if (a & 3) == (b & 3) else "o")


def _percentiles() -> tuple[float, ...]:
    combos = {name: (6 if len(name) == 2 else 4 if name[2] == "s" else 12)
              for name in PREFLOP_ORDER}
    below = 1326
    value: dict[str, float] = {}
    for name in PREFLOP_ORDER:  # best first: the share of combos strictly worse + half its own
        below -= combos[name]
        value[name] = (below + combos[name] / 2) / 1326
    return tuple(value[_class_name(a, b)] for a, b in PAIRS)


PREFLOP_PERCENTILE: tuple[float, ...] = _percentiles()
"""Per pair: the share of all 1,326 pairs ranked below its starting hand (AA ≈ 1, 32o ≈ 0)."""


def _ramp(s: float, low: float, high: float) -> float:
    if s <= low:
        return 0.0
    if s >= high:
        return 1.0
    return (s - low) / (high - low)


# ------------------------------------------------------------------ board strengths
_STRAIGHTS = (*(0b11111 << low for low in range(9)), 0b1000000001111)


_STRAIGHT_MASK: tuple[bool, ...] = tuple(
    any(mask & s == s for s in _STRAIGHTS) for mask in range(1 << 13))


def _has_straight(mask: int) -> bool:
    return _STRAIGHT_MASK[mask]


@dataclass(frozen=True, slots=True)
class BoardInfo:
    """Per-pair facts for one board (index = :data:`PAIRS` index; dead pairs: value −1,
    strength 0).

    ``values``: eval7 hand values; ``strengths``: approximate EHS from the opponent's
    side (its rank among all live pairs, ties ½, plus (1 − rank) × outs / unseen cards
    for flush and straight draws, one card ahead); ``order``: live pair indices sorted by
    strength, weakest first.
    """

    board: tuple[int, ...]
    values: tuple[int, ...]
    strengths: tuple[float, ...]
    order: tuple[int, ...]


_BOARD_CACHE: dict[tuple[int, ...], BoardInfo] = {}


def board_info(board: Sequence[int]) -> BoardInfo:
    """The :class:`BoardInfo` of a flop, turn or river (cached; ~5 ms the first time)."""
    key = tuple(board)
    info = _BOARD_CACHE.get(key)
    if info is not None:
        return info
    if len(_BOARD_CACHE) >= 64:  # ~95 kB a board; a duplicate deal replays 3 boards per seating
        _BOARD_CACHE.clear()
    dead = set(key)
    board7 = [_E7[c] for c in key]
    values = [-1] * len(PAIRS)
    live: list[int] = []
    for i, (a, b) in enumerate(PAIRS):
        if a in dead or b in dead:
            continue
        values[i] = _evaluate([_E7[a], _E7[b], *board7])
        live.append(i)
    ranked = sorted(values[i] for i in live)
    n = len(ranked)
    midrank: dict[int, float] = {}
    for position, v in enumerate(ranked):  # below + equal / 2, over n
        if v not in midrank:
            midrank[v] = position
    counts: dict[int, int] = {}
    for v in ranked:
        counts[v] = counts.get(v, 0) + 1
    for v, below in midrank.items():
        midrank[v] = (below + counts[v] / 2) / n
    strengths = [0.0] * len(PAIRS)
    draws = len(key) < 5
    unseen = 52 - len(key) - 2
    if draws:
        suits = [0, 0, 0, 0]
        for c in key:
            suits[c & 3] += 1
        board_ranks = 0
        for c in key:
            board_ranks |= 1 << (c >> 2)
        straight_outs = [[0] * 13 for _ in range(13)]
        for r1 in range(13):
            for r2 in range(r1, 13):
                mask = board_ranks | (1 << r1) | (1 << r2)
                if _has_straight(mask):
                    continue
                outs = sum(1 for r in range(13) if not mask >> r & 1
                           and _has_straight(mask | 1 << r)
                           and not _has_straight(board_ranks | 1 << r))
                straight_outs[r1][r2] = straight_outs[r2][r1] = min(8, 4 * outs)
    for i in live:
        hs = midrank[values[i]]
        if draws:
            a, b = PAIRS[i]
            outs = straight_outs[a >> 2][b >> 2]
            sa, sb = a & 3, b & 3
            if sa == sb and suits[sa] == 2:
                outs += 9
            elif sa != sb and 3 in (suits[sa], suits[sb]):
                outs += 7
            hs += (1 - hs) * min(outs, 15) / unseen
        strengths[i] = hs
    order = tuple(sorted(live, key=strengths.__getitem__))
    info = BoardInfo(key, tuple(values), tuple(strengths), order)
    _BOARD_CACHE[key] = info
    return info


# ------------------------------------------------------------------ observed frequencies
BUCKETS = (0.4, 0.8, 1.3)
"""Upper bounds of the bet-size buckets (bet / pot before it); above the last: overbets."""


def size_bucket(amount: float, pot: float) -> int:
    """Bucket 0–3 of a bet that asks ``amount`` more into ``pot``.

    >>> size_bucket(2, 10), size_bucket(5, 10), size_bucket(10, 10), size_bucket(30, 10)
    (0, 1, 2, 3)
    """
    ratio = amount / max(pot, 1)
    for bucket, bound in enumerate(BUCKETS):
        if ratio <= bound:
            return bucket
    return len(BUCKETS)


PRIOR_WEIGHT = 8.0
PRIOR_BET = 0.45
PRIOR_FOLD = ((0.3, 0.4, 0.5, 0.55), (0.15, 0.2, 0.25, 0.3))
PRIOR_RAISE = (0.12, 0.1)
PRIOR_PREFLOP_FOLD = 0.5

FIRST_BET, RE_RAISE = 0, 1
"""Contexts of a faced bet: the first bet of the street against a player who has put
nothing in on it, or a raise against one who has already bet or called."""


@dataclass
class ActionStats:
    """Frequencies of one opponent that :class:`botkit.stats.StatsAccumulator` does not
    keep at this grain: post-flop bets when it may open, folds (per bet-size bucket) and
    raises when it faces a bet — separately for a first bet and for a raise over its
    own bet or call (the tracker's ``fold_to_*_bet`` lumps sizes and both together,
    which hides exactly what a bet-sizing decision needs) — and folds to any pre-flop
    raise.  Rates are shrunk towards a prior worth ``PRIOR_WEIGHT`` observations.

    >>> s = ActionStats()
    >>> for _ in range(20):
    ...     s.faced_bet(2, "fold")
    >>> round(s.fold_rate(2), 2), s.fold_rate(0) == PRIOR_FOLD[0][0]
    (0.86, True)
    >>> s.fold_rate(2, RE_RAISE) == PRIOR_FOLD[RE_RAISE][2]
    True
    """

    opened: int = 0
    bets: int = 0
    faced: list[list[int]] = field(default_factory=lambda: [[0] * 4, [0] * 4])
    folds: list[list[int]] = field(default_factory=lambda: [[0] * 4, [0] * 4])
    raises: list[int] = field(default_factory=lambda: [0, 0])
    preflop_faced: int = 0
    preflop_folds: int = 0

    def faced_preflop_raise(self, folded: bool) -> None:
        """It faced a pre-flop raise (not its own) and folded or not."""
        self.preflop_faced += 1
        self.preflop_folds += folded

    def preflop_fold_rate(self) -> float:
        """Share of pre-flop raises it folded to."""
        return ((self.preflop_folds + PRIOR_PREFLOP_FOLD * PRIOR_WEIGHT)
                / (self.preflop_faced + PRIOR_WEIGHT))

    def may_open(self, bet: bool) -> None:
        """It could check or bet (post-flop) and did ``bet`` (or checked)."""
        self.opened += 1
        self.bets += bet

    def faced_bet(self, bucket: int, kind: str, context: int = FIRST_BET) -> None:
        """It faced a bet of ``bucket`` in ``context`` and answered ``kind`` (fold, call,
        raise)."""
        self.faced[context][bucket] += 1
        self.folds[context][bucket] += kind == "fold"
        self.raises[context] += kind == "raise"

    def bet_rate(self) -> float:
        """Share of opened post-flop streets where it bet."""
        return (self.bets + PRIOR_BET * PRIOR_WEIGHT) / (self.opened + PRIOR_WEIGHT)

    def fold_rate(self, bucket: int, context: int = FIRST_BET) -> float:
        """Share of bets of this size bucket (and context) it folded to."""
        return ((self.folds[context][bucket] + PRIOR_FOLD[context][bucket] * PRIOR_WEIGHT)
                / (self.faced[context][bucket] + PRIOR_WEIGHT))

    def raise_rate(self, context: int = FIRST_BET) -> float:
        """Share of faced post-flop bets (in ``context``) it raised."""
        return ((self.raises[context] + PRIOR_RAISE[context] * PRIOR_WEIGHT)
                / (sum(self.faced[context]) + PRIOR_WEIGHT))


# ------------------------------------------------------------------ the weight table
BAND = 0.1
"""Half-width of the noise band around a pre-flop percentile threshold."""
POST_BAND = 0.12
"""Half-width of the noise band around a post-flop strength threshold."""
FLOOR = 0.02
"""Smallest factor an action applies: no pair is ever ruled out by play alone."""


class WeightTable:
    """Relative likelihood of each of the 1,326 pairs being the opponent's hand.

    Weights are ≥ 0 and only their ratios matter (:meth:`distribution` normalises).
    """

    __slots__ = ("weights",)

    def __init__(self, known: Iterable[int] = ()) -> None:
        self.weights = [1.0] * len(PAIRS)
        self.remove(known)

    def copy(self) -> WeightTable:
        """An independent copy."""
        other = WeightTable()
        other.weights = self.weights[:]
        return other

    def remove(self, cards: Iterable[int]) -> None:
        """Known cards: every pair holding one gets weight 0."""
        w = self.weights
        for c in cards:
            for i in _PAIRS_OF_CARD[c]:
                w[i] = 0.0

    def total(self) -> float:
        """Sum of the weights."""
        return sum(self.weights)

    def live(self) -> int:
        """Number of pairs with a positive weight."""
        return sum(1 for x in self.weights if x > 0)

    def distribution(self) -> list[float]:
        """The weights normalised to sum to 1 (uniform over live pairs if all are tiny)."""
        total = self.total()
        if total <= 0:
            raise ValueError("every pair has weight 0")
        return [x / total for x in self.weights]

    def _scale(self, factor: Sequence[float] | list[float]) -> None:
        w = self.weights
        for i, f in enumerate(factor):
            if w[i]:
                w[i] *= f
        total = sum(w)
        if total < 1e-6:  # keep magnitudes sane; ratios are all that matter
            scale = 1.0 / max(total, 1e-300)
            for i in range(len(w)):
                w[i] *= scale

    def ramp(self, strengths: Sequence[float], threshold: float, band: float,
             floor: float = FLOOR, invert: bool = False) -> None:
        """Multiply each pair's weight by ``floor`` .. 1 along a linear ramp from
        ``threshold − band`` to ``threshold + band`` (``invert``: 1 .. ``floor``)."""
        low, high = threshold - band, threshold + band
        if invert:
            factor = [1 - (1 - floor) * _ramp(s, low, high) for s in strengths]
        else:
            factor = [floor + (1 - floor) * _ramp(s, low, high) for s in strengths]
        self._scale(factor)

    def quantile(self, info: BoardInfo, share: float) -> float:
        """The strength above which ``share`` of the table's weight lies."""
        w = self.weights
        total = sum(w[i] for i in info.order)
        if total <= 0:
            return 0.5
        target = (1 - share) * total
        running = 0.0
        for i in info.order:
            running += w[i]
            if running >= target:
                return info.strengths[i]
        return info.strengths[info.order[-1]]

    # -------------------------------------------------------------- actions
    def preflop_action(self, kind: str, vpip: float, pfr: float,
                       facing_raise: bool = False) -> None:
        """Re-weight by a pre-flop action of an opponent with these VPIP and PFR.

        ``kind``: ``raise`` (a bet or raise; a re-raise when ``facing_raise``),
        ``call`` (a limp, or a call of a raise when ``facing_raise``), ``check``
        (the big blind's option).  Thresholds are hand-rank percentiles: a raiser
        holds about its top PFR share, a caller its top VPIP share minus most of the
        hands it would have raised.
        """
        pct = PREFLOP_PERCENTILE
        vpip = min(max(vpip, 0.02), 1.0)
        pfr = min(max(pfr, 0.01), vpip)
        if kind == "raise":
            share = pfr / 3 if facing_raise else pfr
            self.ramp(pct, 1 - share, BAND)
        elif kind == "call":
            self.ramp(pct, 1 - vpip, BAND)
            top = pfr / 3 if facing_raise else pfr
            if top < 0.9:
                self.ramp(pct, 1 - top, BAND / 2, floor=0.35, invert=True)
        elif kind == "check" and pfr < 0.9:
            self.ramp(pct, 1 - pfr, BAND / 2, floor=0.35, invert=True)

    def postflop_action(self, info: BoardInfo, kind: str, stats: ActionStats,
                        bucket: int = 0, context: int = FIRST_BET) -> None:
        """Re-weight by a post-flop action on the board of ``info``.

        ``bet`` keeps the strongest ``bet_rate`` share of the table (floor: bluffs),
        ``check`` lowers that share, ``call`` of a bet in ``bucket`` drops the
        ``fold_rate`` share at the bottom (and lowers the raising share at the top),
        ``raise`` keeps the strongest ``raise_rate`` share of what continues.
        """
        s = info.strengths
        if kind == "bet":
            self.ramp(s, self.quantile(info, stats.bet_rate()), POST_BAND, floor=0.08)
        elif kind == "check":
            self.ramp(s, self.quantile(info, stats.bet_rate()), POST_BAND, floor=0.4,
                      invert=True)
        elif kind == "call":
            fold = stats.fold_rate(bucket, context)
            raise_share = stats.raise_rate(context)
            self.ramp(s, self.quantile(info, 1 - fold), POST_BAND, floor=0.1)
            self.ramp(s, self.quantile(info, raise_share), POST_BAND, floor=0.6, invert=True)
        elif kind == "raise":
            share = max(0.05, stats.raise_rate(context))
            self.ramp(s, self.quantile(info, share), POST_BAND, floor=0.05)


# ------------------------------------------------------------------ strength vs the table
def weighted_hand_strength(hole: Sequence[Card], info: BoardInfo, table: WeightTable,
                           min_strength: float = 0.0) -> float:
    """HS against the table: the weighted share of its pairs this hand beats (ties ½),
    counting only pairs whose strength is at least ``min_strength`` (the part of the
    range that continues); 1.0 when no weight is left.

    >>> from engine.cards import parse_cards
    >>> info = board_info(parse_cards("Kh7c2d"))
    >>> t = WeightTable(parse_cards("AsAd Kh7c2d"))
    >>> round(weighted_hand_strength(parse_cards("AsAd"), info, t), 3)
    0.966
    """
    board7 = [_E7[c] for c in info.board]
    ours = _evaluate([_E7[hole[0]], _E7[hole[1]], *board7])
    w, values, strengths = table.weights, info.values, info.strengths
    h0, h1 = hole
    skip = set(_PAIRS_OF_CARD[h0]) | set(_PAIRS_OF_CARD[h1])
    won = total = 0.0
    for i in info.order:
        x = w[i]
        if not x or strengths[i] < min_strength or i in skip:
            continue
        v = values[i]
        total += x
        if ours > v:
            won += x
        elif ours == v:
            won += x / 2
    return won / total if total else 1.0


def weighted_potentials(hole: Sequence[Card], board: Sequence[Card],
                        tables: Sequence[WeightTable], samples: int,
                        rng: random.Random) -> tuple[float, float]:
    """(PPOT, NPOT) one card ahead with the opponent's pair drawn by weight from the
    tables (an opponent chosen uniformly per sample), ties ½; (0, 0) on the river."""
    if len(board) >= 5 or not tables:
        return 0.0, 0.0
    hole7 = [_E7[hole[0]], _E7[hole[1]]]
    board7 = [_E7[c] for c in board]
    known = {*hole, *board}
    rest = [c for c in range(52) if c not in known]
    ours_now = _evaluate(hole7 + board7)
    cums = []
    for table in tables:
        w = table.weights[:]
        for c in known:
            for i in _PAIRS_OF_CARD[c]:
                w[i] = 0.0
        cum = list(accumulate(w))
        if cum[-1] > 0:
            cums.append(cum)
    if not cums:
        return 0.0, 0.0
    counts = [[0.0] * 3 for _ in range(3)]
    totals = [0.0, 0.0, 0.0]
    population = range(len(PAIRS))
    per_table = -(-samples // len(cums))
    for cum in cums:
        for i in rng.choices(population, cum_weights=cum, k=per_table):
            a, b = PAIRS[i]
            card = rest[rng.randrange(len(rest))]
            while card in (a, b):
                card = rest[rng.randrange(len(rest))]
            theirs_now = _evaluate([_E7[a], _E7[b], *board7])
            now = 0 if ours_now > theirs_now else 1 if ours_now == theirs_now else 2
            later_board = [*board7, _E7[card]]
            ours = _evaluate(hole7 + later_board)
            theirs = _evaluate([_E7[a], _E7[b], *later_board])
            later = 0 if ours > theirs else 1 if ours == theirs else 2
            counts[now][later] += 1
            totals[now] += 1
    ahead, tied, behind = 0, 1, 2
    ppot_den = totals[behind] + totals[tied] / 2
    npot_den = totals[ahead] + totals[tied] / 2
    ppot = counts[behind][ahead] + counts[behind][tied] / 2 + counts[tied][ahead] / 2
    npot = counts[ahead][behind] + counts[tied][behind] / 2 + counts[ahead][tied] / 2
    return (ppot / ppot_den if ppot_den else 0.0, npot / npot_den if npot_den else 0.0)
