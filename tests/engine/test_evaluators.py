"""The variant evaluators against pokerkit 0.7.7's lookups, and sökö by worked examples.

Each comparison checks the *order*: hands sorted by pokerkit's strength must get
strictly increasing values where pokerkit's increase and equal values where it ties
(so every pair of hands compares the same way). Five-card hands are checked for
every rank multiset with the suit patterns that matter; six, seven and Omaha hands
on random samples; badugi for every 4-card rank multiset with every suit pattern.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import combinations, combinations_with_replacement, pairwise

import pokerkit
import pytest
from pokerkit import (
    Automation,
    BadugiLookup,
    EightOrBetterLookup,
    RegularLookup,
    ShortDeckHoldemLookup,
    Standard2Lookup,
    StandardLookup,
)
from pokerkit.lookups import Lookup
from pokerkit.state import _HighHandOpeningLookup, _LowHandOpeningLookup
from pokerkit.utilities import RankOrder

from engine.cards import CARDS, Card, parse_cards
from engine.evaluation import evaluate, evaluate_omaha
from engine.poker import evaluators as ev

PK = tuple(next(iter(pokerkit.Card.parse(str(card)))) for card in CARDS)
"""pokerkit's card for each of ours."""
SHORT_DECK = [c for c in CARDS if c.rank >= 4]
Value = int | None


def p(text: str) -> tuple[Card, ...]:
    return parse_cards(text)


# ------------------------------------------------------------------ reference helpers


def entry(lookup: Lookup, cards: Iterable[Card], low: bool) -> Value:
    """pokerkit's strength of exactly these cards (higher is better), None if invalid."""
    pk = tuple(PK[c] for c in cards)
    if not lookup.has_entry(pk):
        return None
    index: int = lookup.get_entry(pk).index
    return -index if low else index


R5 = tuple(5 ** (c >> 2) for c in range(52))


class Reference:
    """:func:`entry` memoised by (rank multiset, number of suits): all a pokerkit lookup
    key depends on (the rank product; all suited; badugi: all suits different)."""

    def __init__(self, lookup: Lookup, low: bool) -> None:
        self.lookup, self.low = lookup, low
        self.cache: dict[tuple[int, int], Value] = {}

    def __call__(self, cards: Sequence[Card]) -> Value:
        key = (sum([R5[c] for c in cards]), len({c & 3 for c in cards}))
        try:
            return self.cache[key]
        except KeyError:
            value = self.cache[key] = entry(self.lookup, cards, self.low)
            return value

    def best(self, cards: Sequence[Card], size: int = 5) -> Value:
        values = [v for five in combinations(cards, size) if (v := self(five)) is not None]
        return max(values, default=None)

    def omaha(self, hole: Sequence[Card], board: Sequence[Card]) -> Value:
        values = [v for two in combinations(hole, 2) for three in combinations(board, 3)
                  if (v := self(two + three)) is not None]
        return max(values, default=None)


def assert_same_order(mine: Sequence[Value], reference: Sequence[Value],
                      hands: Sequence[object] = ()) -> None:
    """Same ``None``s, and ``mine`` strictly monotone in ``reference`` (ties included)."""
    assert len(mine) == len(reference)
    assert [m is None for m in mine] == [r is None for r in reference]
    labels = list(hands) or list(range(len(mine)))
    rows = sorted((r, m, i) for i, (m, r) in enumerate(zip(mine, reference, strict=True))
                  if r is not None and m is not None)
    for (r1, m1, i1), (r2, m2, i2) in pairwise(rows):
        assert (r1 == r2) == (m1 == m2) and m1 <= m2, (labels[i1], labels[i2])


def rank_multisets(size: int, ranks: Iterable[int] = range(13)) -> Iterator[tuple[int, ...]]:
    for multiset in combinations_with_replacement(ranks, size):
        if max(Counter(multiset).values()) <= 4:
            yield multiset


def spread(ranks: Sequence[int]) -> tuple[Card, ...]:
    """The ranks with suits c, d, h, s, c... (never five of one suit)."""
    return tuple(CARDS[r * 4 + i % 4] for i, r in enumerate(ranks))


def suited(ranks: Sequence[int], suit: int = 0) -> tuple[Card, ...]:
    return tuple(CARDS[r * 4 + suit] for r in ranks)


def five_card_hands(ranks: Iterable[int] = range(13)) -> list[tuple[Card, ...]]:
    """Every 5-card rank multiset, unsuited, plus suited when the ranks differ."""
    hands = []
    for multiset in rank_multisets(5, ranks):
        hands.append(spread(multiset))
        if len(set(multiset)) == 5:
            hands.append(suited(multiset))
    return hands


def deals(seed: int, count: int, size: int, deck: Sequence[Card] = CARDS
          ) -> list[tuple[Card, ...]]:
    rng = random.Random(seed)
    return [tuple(rng.sample(deck, size)) for _ in range(count)]


# ------------------------------------------------------------------------------- high


def test_high_equals_eval7_on_every_five_card_class_and_random_hands() -> None:
    for hand in five_card_hands():
        assert ev.high(hand) == evaluate(hand)
    for size in (6, 7):
        for hand in deals(size, 20_000, size):
            assert ev.high(hand) == evaluate(hand)


def test_high_orders_as_pokerkit() -> None:
    lookup = Reference(StandardLookup(), low=False)
    hands = five_card_hands()
    assert_same_order([ev.high(h) for h in hands], [lookup(h) for h in hands])
    hands = deals(1, 20_000, 7)
    assert_same_order([ev.high(h) for h in hands], [lookup.best(h) for h in hands])


def test_omaha_high_equals_eval7_and_orders_as_pokerkit() -> None:
    lookup = Reference(StandardLookup(), low=False)
    hands = deals(2, 20_000, 9)
    mine = [ev.omaha_high(h[:4], h[4:]) for h in hands]
    assert_same_order(mine, [lookup.omaha(h[:4], h[4:]) for h in hands])
    for hand, value in zip(hands[:2_000], mine, strict=False):
        assert value == evaluate_omaha(hand[:4], hand[4:])
    for board_size in (3, 4):
        for hand in deals(board_size, 2_000, 4 + board_size):
            assert ev.omaha_high(hand[:4], hand[4:]) == evaluate_omaha(hand[:4], hand[4:])


def test_omaha_uses_exactly_two_hole_cards() -> None:
    # Four spades in the hole and one on the board is no flush; a board flush needs two.
    assert ev.describe_high(ev.omaha_high(p("As2s3s4s"), p("Ks7d8c9hTd"))) == "High card, Ace"
    assert ev.describe_high(ev.omaha_high(p("AcKd2h3h"), p("QsJsTs9s8s"))) == "Straight, Ace high"


# ------------------------------------------------------------------------- short deck


def test_short_deck_orders_as_pokerkit() -> None:
    lookup = Reference(ShortDeckHoldemLookup(), low=False)
    hands = five_card_hands(range(4, 13))
    assert_same_order([ev.short_deck(h) for h in hands], [lookup(h) for h in hands],
                      hands)
    for size, seed in ((6, 4), (7, 5)):
        hands = deals(seed, 20_000, size, SHORT_DECK)
        assert_same_order([ev.short_deck(h) for h in hands],
                          [lookup.best(h) for h in hands], hands)


def test_short_deck_rules() -> None:
    wheel = ev.short_deck(p("Ah6s7c8d9h"))
    assert ev.describe_short_deck(wheel) == "Straight, Nine high"
    assert ev.short_deck(p("AhAsAcKdQh")) < wheel < ev.short_deck(p("6s7c8d9hTh"))
    full_house = ev.short_deck(p("KhKsKc7h7d9hJh"))
    assert ev.describe_short_deck(full_house) == "Full house, Kings full of Sevens"
    assert ev.short_deck(p("6h7h8hThQhAsAd")) > full_house  # a flush beats a full house
    assert ev.describe_short_deck(ev.short_deck(p("Ah6h7h8h9hAsAc"))) == "Straight flush, Nine high"


# ------------------------------------------------------------------------------ lows


def test_low_27_orders_as_pokerkit_on_every_five_card_class() -> None:
    lookup = Reference(Standard2Lookup(), low=True)
    hands = five_card_hands()
    assert_same_order([ev.low_27(h) for h in hands], [lookup(h) for h in hands],
                      hands)
    hands = deals(6, 3_000, 7)
    assert_same_order([ev.low_27(h) for h in hands], [lookup.best(h) for h in hands])


def test_low_27_rules() -> None:
    assert ev.describe_low_27(ev.low_27(p("7h5d4c3s2h"))) == "7-5-4-3-2 low"
    assert ev.low_27(p("7h5d4c3s2h")) > ev.low_27(p("8h6d4c3s2h")) > ev.low_27(p("As5d4c3s2h"))
    assert ev.low_27(p("As5d4c3s2h")) > ev.low_27(p("2s2d4c5s6h"))  # ace high beats a pair
    assert ev.describe_low_27(ev.low_27(p("6h5d4c3s2h"))) == "Straight, Six high"
    assert ev.describe_low_27(ev.low_27(p("7h5h4h3h2h"))) == "Flush, Seven high"
    assert ev.describe_low_27(ev.low_27(p("7h7d4c3s2h"))) == "Pair of Sevens"
    with pytest.raises(ValueError):
        ev.low_27(p("7h5d4c3s"))


def test_low_a5_orders_as_pokerkit() -> None:
    lookup = Reference(RegularLookup(), low=True)
    hands = five_card_hands()
    assert_same_order([ev.low_a5(h) for h in hands], [lookup(h) for h in hands],
                      hands)
    for size, seed in ((6, 7), (7, 8)):
        hands = deals(seed, 20_000, size)
        assert_same_order([ev.low_a5(h) for h in hands], [lookup.best(h) for h in hands])
    # Seven cards with at most four ranks (the memoised path), exhaustively by rank.
    hands = [spread(m) for m in rank_multisets(7) if len(set(m)) <= 4]
    assert_same_order([ev.low_a5(h) for h in hands], [lookup.best(h) for h in hands])


def test_low_a5_rules() -> None:
    assert ev.describe_low_a5(ev.low_a5(p("5h4h3h2hAh"))) == "5-4-3-2-A low"
    assert ev.low_a5(p("5h4h3h2hAh")) > ev.low_a5(p("6h4d3c2sAh")) > ev.low_a5(p("KhQdJcTs9h"))
    assert ev.low_a5(p("KhQdJcTs9h")) > ev.low_a5(p("AhAd2c3s4h"))
    assert ev.describe_low_a5(ev.low_a5(p("AhAd2c2s3hKcKd"))) == "Pair of Aces"
    assert ev.describe_low_a5(ev.low_a5(p("KhKdKcKsQhQd"))) == "Full house, Kings full of Queens"


def test_low_8_orders_as_pokerkit() -> None:
    lookup = Reference(EightOrBetterLookup(), low=True)
    hands = five_card_hands()
    assert_same_order([ev.low_8(h) for h in hands], [lookup(h) for h in hands],
                      hands)
    for size, seed in ((6, 9), (7, 10)):
        hands = deals(seed, 20_000, size)
        mine = [ev.low_8(h) for h in hands]
        assert_same_order(mine, [lookup.best(h) for h in hands])
        assert all(v is None or v == ev.low_a5(h) for v, h in zip(mine, hands, strict=True)
                   if len({c.rank for c in h}) == len(h))


def test_omaha_low_8_orders_as_pokerkit() -> None:
    lookup = Reference(EightOrBetterLookup(), low=True)
    for board_size, seed, count in ((5, 11, 20_000), (4, 12, 3_000), (3, 13, 3_000)):
        hands = deals(seed, count, 4 + board_size)
        mine = [ev.omaha_low_8(h[:4], h[4:]) for h in hands]
        assert_same_order(mine, [lookup.omaha(h[:4], h[4:]) for h in hands])
    # Low-heavy deals, so that most hands qualify.
    low_cards = [c for c in CARDS if c.rank <= 6 or c.rank == 12]
    hands = deals(14, 5_000, 9, low_cards)
    mine = [ev.omaha_low_8(h[:4], h[4:]) for h in hands]
    assert sum(v is not None for v in mine) > 3_000
    assert_same_order(mine, [lookup.omaha(h[:4], h[4:]) for h in hands])


def test_low_8_rules() -> None:
    assert ev.low_8(p("9h7d6c5s4hKdQc")) is None
    assert ev.describe_low_a5(ev.low_8(p("8h6d5c4s2hKdAc"))) == "6-5-4-2-A low"
    assert ev.low_8(p("AhAd2c3s4h")) is None
    assert ev.omaha_low_8(p("AhAd2c2s"), p("3s4h5dKcQc")) == ev.low_8(p("Ah2c3s4h5d"))
    assert ev.omaha_low_8(p("AhKdQcJs"), p("2s3h4d5c6c")) is None  # one low hole card only


# ----------------------------------------------------------------------------- badugi


def suit_patterns(size: int) -> Iterator[tuple[int, ...]]:
    """Suits up to relabelling: each new suit is the next unused one."""
    def grow(prefix: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
        if len(prefix) == size:
            yield prefix
            return
        for suit in range(min(max(prefix, default=-1) + 2, 4)):
            yield from grow((*prefix, suit))
    return grow(())


def test_badugi_orders_as_pokerkit_on_every_pattern() -> None:
    lookup = Reference(BadugiLookup(), low=True)

    def reference(hand: Sequence[Card]) -> Value:
        for count in range(4, 0, -1):
            value = lookup.best(hand, count)
            if value is not None:
                return value
        raise AssertionError(hand)

    hands = []
    for multiset in rank_multisets(4):
        for pattern in suit_patterns(4):
            cards = [r * 4 + s for r, s in zip(multiset, pattern, strict=True)]
            if len(set(cards)) == 4:
                hands.append(tuple(CARDS[c] for c in cards))
    hands += deals(15, 5_000, 4)
    assert len(hands) > 25_000
    assert_same_order([ev.badugi(h) for h in hands], [reference(h) for h in hands], hands)


def test_badugi_rules() -> None:
    assert ev.describe_badugi(ev.badugi(p("7c4d3h2s"))) == "Badugi, 7-4-3-2"
    assert ev.describe_badugi(ev.badugi(p("Ac2d3h4s"))) == "Badugi, 4-3-2-A"
    assert ev.badugi(p("KcQdJhTs")) > ev.badugi(p("Ac2c3h4s"))  # four cards beat three
    assert ev.describe_badugi(ev.badugi(p("Ac2c3h4s"))) == "Three-card hand, 4-3-A"
    assert ev.describe_badugi(ev.badugi(p("AcAd2c2d"))) == "Two-card hand, 2-A"
    assert ev.badugi(p("2s3d3c4d")) == ev.badugi(p("2s3c3d4d"))


# ------------------------------------------------------------------------------- sökö


def soko_reference(cards: Sequence[Card]) -> tuple[int, ...]:
    """Sökö by the book, written independently of the module (tuples, not tables)."""
    ranks = sorted((c.rank for c in cards), reverse=True)
    groups = sorted(Counter(ranks).items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
    ordered = [r for r, _ in groups]
    shape = [n for _, n in groups]
    flush = len({c.suit for c in cards}) == 1
    straight = None
    if shape == [1] * 5:
        if ranks[0] - ranks[4] == 4:
            straight = ranks[0]
        elif ranks == [12, 3, 2, 1, 0]:
            straight = 3
    if straight is not None and flush:
        return (10, straight)
    for category, pattern in ((9, [4, 1]), (8, [3, 2])):
        if shape == pattern:
            return (category, *ordered)
    if flush:
        return (7, *ranks)
    if straight is not None:
        return (6, straight)
    for category, pattern in ((5, [3, 1, 1]), (4, [2, 2, 1])):
        if shape == pattern:
            return (category, *ordered)
    for suit in range(4):
        four = [c for c in cards if c.suit == suit]
        if len(four) == 4:
            kicker = next(c for c in cards if c.suit != suit)
            return (3, *sorted((c.rank for c in four), reverse=True), kicker.rank)
    fours = []
    for kicker in cards:
        rest = {c.rank for c in cards if c is not kicker}
        if len(rest) == 4:
            low = sorted(rest)
            if low[3] - low[0] == 3:
                fours.append((2, low[3], kicker.rank))
            elif rest == {12, 0, 1, 2}:
                fours.append((2, 2, kicker.rank))
    if fours:
        return max(fours)
    return (shape.count(2), *ordered)


def soko_hands() -> list[tuple[Card, ...]]:
    """Every rank multiset: unsuited, suited, and each four-flush with one card off-suit."""
    hands = []
    for multiset in rank_multisets(5):
        hands.append(spread(multiset))
        for off in range(5):
            four = multiset[:off] + multiset[off + 1:]
            if len(set(four)) == 4:
                hands.append((*suited(four, 0), CARDS[multiset[off] * 4 + 1]))
        if len(set(multiset)) == 5:
            hands.append(suited(multiset))
    return hands


def test_soko_orders_as_the_reference_on_every_pattern() -> None:
    hands = soko_hands()
    assert len(hands) > 19_000
    reference = [soko_reference(h) for h in hands]
    ranks = {key: i for i, key in enumerate(sorted(set(reference)))}
    assert_same_order([ev.soko(h) for h in hands], [ranks[k] for k in reference], hands)
    # Without a four-straight or four-flush, sökö orders as standard poker.
    plain = [h for h, k in zip(hands, reference, strict=True) if k[0] not in (2, 3)]
    assert_same_order([ev.soko(h) for h in plain], [evaluate(h) for h in plain], plain)


@pytest.mark.parametrize(("better", "worse"), [
    ("5s6d7c8hKd", "AsAdKcQh2h"),  # four-straight beats one pair
    ("2h5h9hKh3c", "9s8d7cTh2d"),  # four-flush beats four-straight
    ("2c2d3h3s4c", "AhKhQhJh9c"),  # two pair beats four-flush
    ("9s8d7c6h5d", "AhKhQh9h2c"),  # a straight beats four-flush
    ("3s4d5c6h2d", "2s3d4c5hKd"),  # four-straights: the top card first...
    ("2s3d4c5hKd", "2s3d4c5h9c"),  # ...then the kicker
    ("As2d3c4hKd", "KsKdQc9h2d"),  # A-2-3-4 is a four-straight
    ("2s3d4c5h7d", "As2d3c4hKd"),  # ...the lowest one (four high)
    ("JsQdKcAh2d", "9sTdJcQhAd"),  # J-Q-K-A is the highest (ace high)
    ("Kh8h6h4h8c", "QdJdTd9dTc"),  # four-flushes: the highest card first...
    ("KhJh9h7h8c", "KsJs9s7s6d"),  # ...down to the kicker
    ("7h9hJhKh7s", "AsAdKcQh9d"),  # a pair with a four-flush is a four-flush
    ("3c4d5h6s6d", "AsAdKcQh9d"),  # a pair with a four-straight is a four-straight
    ("3c4d5h6sKd", "3c4d5h6s6d"),  # ...whose kicker is the paired card
    ("3c4d5h6s6d", "3c4d5h6s4d"),
    ("AsAdKcQhJd", "KsKdQcJhTd"),  # A-A-K-Q-J: J-Q-K-A four-straight, ace kicker
])
def test_soko_worked_examples(better: str, worse: str) -> None:
    assert ev.soko(p(better)) > ev.soko(p(worse))


def test_soko_descriptions_and_ties() -> None:
    assert ev.soko(p("KhJh9h7h8c")) == ev.soko(p("KsJs9s7s8d"))
    assert ev.soko(p("2s3d4c5hKd")) == ev.soko(p("2h3c4d5sKc"))
    assert ev.describe_soko(ev.soko(p("5h6h7h8hKc"))) == "Four to a flush, Eight high"
    assert ev.describe_soko(ev.soko(p("As2d3c4hAd"))) == "Four to a straight, Four high"
    assert ev.describe_soko(ev.soko(p("QsKdAc2h3d"))) == "High card, Ace"  # no wrap-around
    assert ev.describe_soko(ev.soko(p("2c2d3h3s4c"))) == "Two pair, Threes and Twos"
    assert ev.describe_soko(ev.soko(p("2h5h9hKh3h"))) == "Flush, King high"
    assert ev.describe_soko(ev.soko(p("Ah2h3h4h5h"))) == "Straight flush, Five high"


# ------------------------------------------------------------------------------- stud


def visible_hands() -> list[tuple[Card, ...]]:
    hands = []
    for size in range(1, 5):
        for multiset in rank_multisets(size):
            hands.append(spread(multiset))
            if len(set(multiset)) == size > 1:
                hands.append(suited(multiset))
    return hands


def test_visible_hand_key_orders_as_pokerkits_opening_lookups() -> None:
    hands = visible_hands()
    high = Reference(_HighHandOpeningLookup(), low=False)
    low = Reference(_LowHandOpeningLookup(), low=True)
    assert_same_order([ev.visible_hand_key(h, "high") for h in hands],
                      [high(h) for h in hands], hands)
    assert_same_order([ev.visible_hand_key(h, "low_a5") for h in hands],
                      [low(h) for h in hands], hands)
    soko = [h for h in hands if len(h) < 4 or len({c.rank for c in h}) < 4]
    assert_same_order([ev.visible_hand_key(h, "soko") for h in soko],
                      [high(h) for h in soko], soko)


def test_visible_hand_key_soko_and_errors() -> None:
    key = ev.visible_key("soko")
    assert key(p("AhAd7c8d")) < key(p("5c6d7c8h")) < key(p("6c7d8c9h")) < key(p("2c5c7c9c"))
    assert key(p("2c5c7c9c")) < key(p("2c2d3c3d")) and key(p("2c3c4c5c")) > key(p("6c7d8c9h"))
    assert ev.visible_key("high")(p("5c6d7c8h")) < ev.visible_key("high")(p("2c2d"))
    assert ev.visible_key("low_a5", low=True)(p("Kc")) < ev.visible_key("razz", True)(p("Qc"))
    with pytest.raises(ValueError):
        ev.visible_hand_key((), "high")
    with pytest.raises(ValueError):
        ev.visible_hand_key(p("2c"), "nonsense")


def test_up_card_key_orders_as_pokerkit() -> None:
    def pokerkit_key(order: RankOrder, card: Card) -> tuple[int, str]:
        return order.index(PK[card].rank), PK[card].suit  # as State._begin_betting

    low_card = sorted(CARDS, key=lambda c: pokerkit_key(RankOrder.STANDARD, c))
    assert sorted(CARDS, key=ev.up_card_key) == low_card  # the minimum brings in
    high_card = sorted(CARDS, key=lambda c: pokerkit_key(RankOrder.REGULAR, c), reverse=True)
    assert sorted(CARDS, key=lambda c: ev.up_card_key(c, low=True)) == high_card


GAMES = {
    "stud": (pokerkit.FixedLimitSevenCardStud, False, "high"),
    "stud8": (pokerkit.FixedLimitSevenCardStudHighLowSplitEightOrBetter, False, "high"),
    "razz": (pokerkit.FixedLimitRazz, True, "low_a5"),
}


@pytest.mark.parametrize("game", sorted(GAMES))
def test_bring_in_and_openers_match_pokerkit_states(game: str) -> None:
    kind, low, visible = GAMES[game]
    rng = random.Random(game)
    automations = (
        Automation.ANTE_POSTING, Automation.BET_COLLECTION,
        Automation.BLIND_OR_STRADDLE_POSTING, Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
        Automation.HAND_KILLING, Automation.CHIPS_PUSHING, Automation.CHIPS_PULLING,
    )
    checked = ties = 0
    for _ in range(150):
        players = rng.randint(2, 6)
        state = kind.create_state(automations, True, 1, 2, 4, 8, 10_000, players)
        # Half the hands give two to four players the same ranks in other suits: ties.
        mirrored = rng.sample(range(players), rng.randint(2, min(players, 4)))
        if rng.random() < 0.5:
            mirrored = []
        ranks, suits = rng.sample(range(13), 7), rng.sample(range(4), 4)
        reserved = {ranks[n] * 4 + suits[i] for i in range(len(mirrored)) for n in range(7)}
        deck = [PK[c] for c in range(52) if c not in reserved]
        rng.shuffle(deck)
        cards = iter(deck)
        street = None
        while state.status:
            if state.can_burn_card():
                state.burn_card(next(cards))
            elif state.can_deal_hole():
                player = state.hole_dealee_index
                if player in mirrored:
                    n = len(state.hole_cards[player])
                    state.deal_hole(PK[ranks[n] * 4 + suits[mirrored.index(player)]], player)
                else:
                    state.deal_hole(next(cards), player)
            elif state.can_deal_board():
                state.deal_board(next(cards))
            else:
                if state.street_index != street:
                    street = state.street_index
                    ups = [[Card.parse(repr(c)) for c in state.get_up_cards(i)]
                           for i in range(players)]
                    mine = (ev.bring_in_index(ups, low) if street == 0
                            else ev.opener_index(ups, visible))
                    assert mine == state.opener_index, (game, street, ups)
                    checked += 1
                    if street:
                        keys = [ev.visible_hand_key(u, visible) for u in ups if u]
                        ties += keys.count(max(keys)) > 1
                if state.can_post_bring_in():
                    state.post_bring_in()
                elif rng.random() < 0.15 and state.can_fold() and sum(state.statuses) > 2:
                    state.fold()
                else:
                    state.check_or_call()
    assert checked > 500 and ties > 10


# -------------------------------------------------------------------------- the table


def test_evaluators_table() -> None:
    assert set(ev.EVALUATORS) == {"high", "short_deck", "omaha", "low_27", "low_a5", "low_8",
                                  "omaha_low_8", "badugi", "soko"}
    hole, board = p("Ah2d3c4s"), p("5h6d7cKsQh")
    direct: dict[str, Callable[[], Value]] = {
        "high": lambda: ev.high(hole + board[:3]),
        "short_deck": lambda: ev.short_deck(p("AhKdQcJs9h6d7c")),
        "omaha": lambda: ev.omaha_high(hole, board),
        "low_27": lambda: ev.low_27(hole + board[:1]),
        "low_a5": lambda: ev.low_a5(hole + board[:3]),
        "low_8": lambda: ev.low_8(hole + board[:3]),
        "omaha_low_8": lambda: ev.omaha_low_8(hole, board),
        "badugi": lambda: ev.badugi(hole),
        "soko": lambda: ev.soko(hole + board[:1]),
    }
    args = {"high": (hole, board[:3]), "short_deck": (p("AhKdQcJs9h6d7c"), ()),
            "omaha": (hole, board), "low_27": (hole, board[:1]), "low_a5": (hole, board[:3]),
            "low_8": (hole, board[:3]), "omaha_low_8": (hole, board), "badugi": (hole, ()),
            "soko": (hole, board[:1])}
    for kind, evaluator in ev.EVALUATORS.items():
        value = evaluator.evaluate(*args[kind])
        assert value == direct[kind](), kind
        assert value is not None
        assert evaluator.describe(value) == ev.describe(kind, value) != ""
    assert ev.describe("omaha", ev.omaha_high(hole, board)) == "Straight, Seven high"
    assert ev.describe("omaha_low_8", ev.omaha_low_8(hole, board) or 0) == "7-6-5-2-A low"
