"""Fold to bet per street, 3-bet, fold to 3-bet and c-bet on the hand-made histories of
``test_stats`` (numbers worked out by hand, hand by hand, in the comments below).

* HAND_1 (A sb, B bb, C button): C opens; A folds and B calls facing the open raise
  (two 3-bet chances, none taken). C bets the flop first: a c-bet; B calls it (faced a
  flop bet). River: B bets, C raises (C faced a river bet), B calls (B faced one).
* HAND_2 (B sb, C bb, A button): no raise. Flop A bets; B and C fold to it.
* HAND_3 (C sb, A bb, B button): B opens, C 3-bets (chance taken), A folds facing two
  raises (no 3-bet chance), B calls the 3-bet (faced one). C bets the flop: a c-bet;
  B folds to it.
* HAND_4 (A sb, B bb, C button): C folds first-in; A opens, B 3-bets, A calls the
  3-bet. Flop: A checks, B c-bets, A raises (faced a flop bet), B calls the raise
  (faced a flop bet). Turn: A bets, B calls (faced). River checked.
* HAND_6 (B sb, C bb, A button): A shoves (the open), B folds and C calls (two
  3-bet chances); A never acts on the flop: no c-bet chance.
* HAND_5 heads-up: D limps, E checks; flop E bets, D calls (faced); turn D bets,
  E folds (faced, folded).
"""

from __future__ import annotations

import pytest

from botkit.stats import PlayerStats, StatsAccumulator
from tests.botkit.test_stats import HAND_1, HAND_2, HAND_3, HAND_4, HAND_6, accumulate

EXPECTED = {
    #     flop     turn    river   3-bet   fold 3b  c-bet   (folded/made, faced/chances)
    "A": ((0, 1), (0, 0), (0, 0), (0, 1), (0, 1), (0, 0)),
    "B": ((2, 4), (0, 1), (0, 1), (1, 3), (0, 1), (1, 1)),
    "C": ((1, 1), (0, 0), (0, 1), (1, 2), (0, 0), (2, 2)),
    "D": ((0, 1), (0, 0), (0, 0), (0, 0), (0, 0), (0, 0)),
    "E": ((0, 0), (1, 1), (0, 0), (0, 0), (0, 0), (0, 0)),
}
RATES = ("fold_to_flop_bet", "fold_to_turn_bet", "fold_to_river_bet", "three_bet",
         "fold_to_three_bet", "cbet")


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_counters_of_hand_made_histories(name: str) -> None:
    counters = accumulate().players[name]
    got = (
        (counters.flop_bets_folded, counters.flop_bets_faced),
        (counters.turn_bets_folded, counters.turn_bets_faced),
        (counters.river_bets_folded, counters.river_bets_faced),
        (counters.three_bets, counters.three_bet_chances),
        (counters.three_bets_folded, counters.three_bets_faced),
        (counters.cbets, counters.cbet_chances),
    )
    assert got == EXPECTED[name]
    summary = accumulate().summary(name)
    for key, (part, whole) in zip(RATES, EXPECTED[name], strict=True):
        assert summary[key] == (part / whole if whole else None), key


def test_counters_stored_before_they_existed_read_as_zero() -> None:
    """Counters stored by an older version (no new keys) load, merge and summarise."""
    old = {"hands": 3, "net": -5, "net_bb": -2.5, "vpip": 1, "pfr": 1,
           "postflop_aggressive": 0, "postflop_calls": 1, "saw_flop": 1, "showdowns": 0,
           "won_at_showdown": 0, "some_future_counter": 9,
           "positions": {"bb": {"hands": 3, "net_bb": -2.5, "vpip": 1, "pfr": 1}}}
    stats = PlayerStats.from_json(old)
    assert stats.cbet_chances == stats.three_bets == stats.flop_bets_faced == 0
    summary = stats.summary()
    assert summary["cbet"] is None and summary["fold_to_flop_bet"] is None
    assert summary["hands"] == 3
    stats.merge(accumulate().players["B"])
    assert stats.three_bet_chances == 3 and stats.hands == 8
    assert PlayerStats.from_json(stats.to_json()) == stats


def test_a_limp_reraise_and_a_four_bet() -> None:
    """C limps on the button, A completes, B (the big blind) opens with a raise; C
    re-raises (a limp-reraise is a 3-bet), A 4-bets, both fold. A faced two raises:
    no 3-bet chance; B, the opener, faced a 4-bet, not a 3-bet."""
    from tests.botkit.test_stats import END, award, call, fold, raise_to, returned, start

    hand = [*start([0, 1, 2]), call(2, 2), call(0, 1), raise_to(1, 8), raise_to(2, 24),
            raise_to(0, 70), fold(1), fold(2), returned(0, 46), award(0, 56), END]
    acc = StatsAccumulator()
    acc.add_hand(hand, {0: "A", 1: "B", 2: "C"}, big_blind=2)
    a, b, c = (acc.players[n] for n in "ABC")
    assert (c.three_bet_chances, c.three_bets) == (1, 1)
    assert (a.three_bet_chances, b.three_bet_chances) == (0, 0)
    assert (b.three_bets_faced, b.three_bets_folded) == (0, 0)  # faced a 4-bet, not a 3-bet
    assert sum(acc.summary(n)["net"] for n in "ABC") == 0


def test_the_opener_folding_to_a_three_bet() -> None:
    from tests.botkit.test_stats import END, award, fold, raise_to, returned, start

    hand = [*start([0, 1, 2]), raise_to(2, 6), fold(0), raise_to(1, 20), fold(2),
            returned(1, 14), award(1, 13), END]
    acc = StatsAccumulator()
    acc.add_hand(hand, {0: "A", 1: "B", 2: "C"}, big_blind=2)
    assert acc.summary("C")["fold_to_three_bet"] == 1.0
    assert acc.summary("B")["three_bet"] == 1.0
    assert acc.summary("A")["three_bet"] == 0.0


def test_counters_never_exceed_their_chances() -> None:
    whole = accumulate()
    for hand in (HAND_1, HAND_2, HAND_3, HAND_4, HAND_6):
        whole.add_hand(hand, {0: "A", 1: "B", 2: "C"}, big_blind=2)
    for stats in whole.players.values():
        assert stats.three_bets <= stats.three_bet_chances <= stats.hands
        assert stats.cbets <= stats.cbet_chances <= stats.hands
        assert stats.flop_bets_folded <= stats.flop_bets_faced <= stats.hands
