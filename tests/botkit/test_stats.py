"""Statistics against hand-made hand histories whose numbers were worked out by hand.

Players A, B, C sit in seats 0, 1, 2 (big blind 2); D and E play one heads-up hand.
Each hand below notes, per player, what counts: blinds are never VPIP, a big blind
check is not VPIP, a limp is VPIP but not PFR, a 3-bet is PFR, post-flop bets and
raises count as aggressive actions for AF and post-flop calls as calls.
"""

from __future__ import annotations

from typing import Any

import pytest

from botkit.stats import StatsAccumulator

Event = dict[str, Any]
SEATS = {0: "A", 1: "B", 2: "C"}


def start(order: list[int]) -> list[Event]:
    events: list[Event] = [{"type": "HandStarted", "number": 1, "button": order[-1],
                            "seats": order}]
    sb, bb = (order[1], order[0]) if len(order) == 2 else (order[0], order[1])
    events.append({"type": "BlindPosted", "player": sb, "amount": 1, "dead": False,
                   "all_in": False})
    events.append({"type": "BlindPosted", "player": bb, "amount": 2, "dead": False,
                   "all_in": False})
    events += [{"type": "HoleCardsDealt", "player": p, "cards": "????"} for p in order]
    return events


def call(p: int, amount: int) -> Event:
    return {"type": "PlayerCalled", "player": p, "amount": amount, "all_in": False}


def bet(p: int, to: int) -> Event:
    return {"type": "BetPlaced", "player": p, "to": to, "all_in": False}


def raise_to(p: int, to: int) -> Event:
    return {"type": "RaisePlaced", "player": p, "to": to, "all_in": False}


def check(p: int) -> Event:
    return {"type": "PlayerChecked", "player": p}


def fold(p: int) -> Event:
    return {"type": "PlayerFolded", "player": p}


def board(street: str) -> Event:
    return {"type": "BoardDealt", "street": street,
            "cards": {"flop": "2c7d9h", "turn": "Js", "river": "3d"}[street]}


def returned(p: int, amount: int) -> Event:
    return {"type": "UncalledBetReturned", "player": p, "amount": amount}


def award(p: int, amount: int) -> Event:
    return {"type": "PotAwarded", "pot": 0, "player": p, "amount": amount, "hand": ""}


def shown(p: int) -> Event:
    return {"type": "CardsShown", "player": p, "cards": "AsAd", "hand": ""}


END: Event = {"type": "HandEnded"}

# 1. C (button) raises, A folds, B calls; flop B check, C bets, B calls; turn checked;
#    river B bets, C raises, B calls; C wins 85.  A -1; B -42; C +43.
HAND_1 = [
    *start([0, 1, 2]),
    raise_to(2, 6), fold(0), call(1, 4),
    board("flop"), check(1), bet(2, 6), call(1, 6),
    board("turn"), check(1), check(2),
    board("river"), bet(1, 10), raise_to(2, 30), call(1, 20),
    shown(2), shown(1), award(2, 85), END,
]
# 2. A limps on the button, B completes, C checks; flop A bets 4, both fold.
#    A +4; B -2; C -2 (the big blind's check is not VPIP).
HAND_2 = [
    *start([1, 2, 0]),
    call(0, 2), call(1, 1), check(2),
    board("flop"), check(1), check(2), bet(0, 4), fold(1), fold(2),
    returned(0, 4), award(0, 6), END,
]
# 3. B raises on the button, C 3-bets from the SB, A folds, B calls; C bets the flop, B folds.
#    A -2; B -18; C +20.
HAND_3 = [
    *start([2, 0, 1]),
    raise_to(1, 6), raise_to(2, 18), fold(0), call(1, 12),
    board("flop"), bet(2, 20), fold(1), returned(2, 20), award(2, 38), END,
]
# 4. C folds, A raises from the SB, B 3-bets, A calls; flop B bets, A raises, B calls;
#    turn A bets, B calls; river checked; A shows and wins 256.  A +128; B -128; C 0.
HAND_4 = [
    *start([0, 1, 2]),
    fold(2), raise_to(0, 6), raise_to(1, 18), call(0, 12),
    board("flop"), check(0), bet(1, 20), raise_to(0, 60), call(1, 40),
    board("turn"), bet(0, 50), call(1, 50),
    board("river"), check(0), check(1),
    shown(0), {"type": "CardsMucked", "player": 1}, award(0, 256), END,
]
# 6. A shoves 400 on the button, B folds, C calls all-in from the BB and wins 801.
#    A -400; B -1; C +401.  Both saw the flop and went to showdown.
HAND_6 = [
    *start([1, 2, 0]),
    {"type": "RaisePlaced", "player": 0, "to": 400, "all_in": True}, fold(1),
    {"type": "PlayerCalled", "player": 2, "amount": 398, "all_in": True},
    shown(2), shown(0), board("flop"), board("turn"), board("river"), award(2, 801), END,
]
# 5. Heads-up D (seat 0, button, SB) and E (seat 1, BB): D limps, E checks; flop E bets 2,
#    D calls; turn E checks, D bets 4, E folds.  D +4; E -4.
HAND_5 = [
    *start([1, 0]),
    call(0, 1), check(1),
    board("flop"), bet(1, 2), call(0, 2),
    board("turn"), check(1), bet(0, 4), fold(1), returned(0, 4), award(0, 8), END,
]


def accumulate() -> StatsAccumulator:
    acc = StatsAccumulator()
    for hand in (HAND_1, HAND_2, HAND_3, HAND_4, HAND_6):
        acc.add_hand(hand, SEATS, big_blind=2)
    acc.add_hand(HAND_5, {0: "D", 1: "E"}, big_blind=2)
    return acc


@pytest.mark.parametrize(
    ("name", "hands", "net", "vpip", "pfr", "af", "wtsd", "wsd"),
    [
        ("A", 5, -271, 3 / 5, 2 / 5, None, 2 / 3, 1 / 2),
        ("B", 5, -191, 4 / 5, 2 / 5, 2 / 4, 2 / 4, 0.0),
        ("C", 5, +462, 3 / 5, 2 / 5, None, 2 / 4, 1.0),
        ("D", 1, +4, 1.0, 0.0, 1.0, 0.0, None),
        ("E", 1, -4, 0.0, 0.0, None, 0.0, None),
    ],
)
def test_hand_made_histories(name: str, hands: int, net: int, vpip: float, pfr: float,
                             af: float | None, wtsd: float, wsd: float | None) -> None:
    s = accumulate().summary(name)
    assert (s["hands"], s["net"]) == (hands, net)
    assert s["vpip"] == pytest.approx(vpip)
    assert s["pfr"] == pytest.approx(pfr)
    assert s["af"] == (None if af is None else pytest.approx(af))
    assert s["wtsd"] == pytest.approx(wtsd)
    assert s["wsd"] == (None if wsd is None else pytest.approx(wsd))
    assert s["bb_per_100"] == pytest.approx(100 * net / 2 / hands)


def test_counts_by_position() -> None:
    positions = accumulate().summary("A")["positions"]
    # A was SB in hands 1 and 4 (raised in 4), BB in 3, button in 2 (limp) and 6 (shove).
    assert positions["sb"] == {"hands": 2, "bb_per_100": pytest.approx(100 * 127 / 2 / 2),
                               "vpip": 0.5, "pfr": 0.5}
    assert positions["bb"]["hands"] == 1 and positions["bb"]["vpip"] == 0.0
    assert positions["button"]["hands"] == 2 and positions["button"]["vpip"] == 1.0
    assert positions["button"]["pfr"] == 0.5
    assert accumulate().summary("D")["positions"]["button"]["vpip"] == 1.0
    assert accumulate().summary("E")["positions"]["bb"]["hands"] == 1


def test_chips_are_conserved() -> None:
    acc = accumulate()
    assert sum(acc.summary(p)["net"] for p in "ABC") == 0


def test_json_round_trip_and_merge() -> None:
    whole = accumulate()
    assert StatsAccumulator.from_json(whole.to_json()).to_json() == whole.to_json()
    first, second = StatsAccumulator(), StatsAccumulator()
    for hand in (HAND_1, HAND_2):
        first.add_hand(hand, SEATS, 2)
    for hand in (HAND_3, HAND_4, HAND_6):
        second.add_hand(hand, SEATS, 2)
    second.add_hand(HAND_5, {0: "D", 1: "E"}, 2)
    first.merge(StatsAccumulator.from_json(second.to_json()))
    assert first.to_json() == whole.to_json()


def test_positions_without_hand_started() -> None:
    """Without the table's HandStarted event the deal order gives the positions."""
    acc = StatsAccumulator()
    acc.add_hand(HAND_1[1:], SEATS, 2)
    assert acc.summary("C")["positions"]["button"]["pfr"] == 1.0


def test_engine_event_log() -> None:
    """Hands played on the engine: the statistics' net equals the table's stack change."""
    import random

    from botkit.house import make_bot
    from engine.actions import Action
    from engine.cards import seeded_deck
    from engine.table import TableSettings, TableState

    table = TableState(TableSettings(structure="NL", seats=4))
    for seat in range(4):
        table.sit(seat, f"p{seat}", 200)
    bot = make_bot("random", random.Random(3))
    acc = StatsAccumulator()
    for number in range(30):
        before = {s: table.seats[s].stack for s in range(4)}  # type: ignore[union-attr]
        events = table.start_hand(seeded_deck(number))
        while (seat := table.to_act_seat) is not None:
            from botkit.view import make_view

            events += table.act(seat, Action.from_json(bot.act(make_view(table, seat))))
        one = StatsAccumulator()
        one.add_hand([e.to_json() for e in events], {s: f"p{s}" for s in range(4)}, 2)
        for s in range(4):
            after = table.seats[s].stack  # type: ignore[union-attr]
            assert one.summary(f"p{s}")["net"] == after - before[s]
            table.seats[s].stack = 200  # type: ignore[union-attr]
            table.seats[s].status = "playing"  # type: ignore[union-attr]
        acc.merge(one)
    assert sum(acc.summary(f"p{s}")["hands"] for s in range(4)) == 120
