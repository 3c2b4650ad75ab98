"""Worked examples of Tuppi's rules (docs/tuppi.md), each played through the game.

Seats 0..3 sit clockwise and play goes clockwise: the player to a seat's left is
the next seat (``s + 1``), to its right the previous one (``s - 1``). Team 0 is
seats 0 and 2, team 1 seats 1 and 3.
"""

from __future__ import annotations

import pytest

from engine.errors import IllegalAction
from engine.game import GameEnded, Viewer
from engine.tuppi.rules import decided, round_points, settle
from tests.tuppi.helpers import GAME, SPLIT, SUITED, bid, of_type, play_lowest, start, table, types

ALTERNATE = ["8c9cTcJcQcKcAc2h3h4h5h6h7h", "2c3c4c5c6c7c8h9hThJhQhKhAh",
             "2d3d4d5d6d7d8d9dTdJdQdKdAd", "2s3s4s5s6s7s8s9sTsJsQsKsAs"]
"""Seat 0 has the high clubs and low hearts, seat 1 the low clubs and high hearts.
Lowest cards from seat 0's lead: 2h (seat 1 wins with 8h), 2c (seat 0 wins with
8c), and so on in turn; the 13th trick is seat 0's Ac (seat 1 throws Ah): seat 0
takes 7 tricks, seat 1 six."""


# ------------------------------------------------------------------ bidding


def test_bids_are_secret_and_simultaneous_then_revealed_from_the_dealers_left() -> None:
    state = table(dealer=0)
    events = start(state, SUITED)
    assert types(events)[:2] == ["RoundStarted", "Dealt"]
    status = GAME.status(state)
    assert status.to_act == (1, 2, 3, 0)  # everyone at once, in the order of revealing
    key = status.decision
    GAME.apply(state, 3, {"kind": "rami"})
    assert GAME.status(state).to_act == (1, 2, 0)
    assert GAME.status(state).decision == key  # one simultaneous decision
    with pytest.raises(IllegalAction):
        GAME.apply(state, 3, {"kind": "nolo"})  # a bid is final
    spectator = GAME.view(state, Viewer.spectator())["round"]["players"]
    assert [p["bid"] for p in spectator] == [None] * 4
    assert [p["has_bid"] for p in spectator] == [False, False, False, True]
    assert GAME.view(state, Viewer.of(3))["round"]["players"][3]["bid"] == "rami"

    events = bid(state, {0: "nolo", 1: "nolo", 2: "rami"})
    # Revealed from the player after the dealer (seat 1): seat 1's nolo, then seat 2's
    # rami, the first rami: seat 2 declares; seat 3's rami and seat 0's nolo stay hidden.
    assert types(events) == ["BidPlaced", "BidRevealed", "BidRevealed", "ContractSet"]
    assert [(e["player"], e["bid"]) for e in of_type(events, "BidRevealed")] == [
        (1, "nolo"), (2, "rami")]
    assert of_type(events, "ContractSet") == [
        {"type": "ContractSet", "mode": "rami", "declarer": 2, "leader": 1}]
    view = GAME.view(state, Viewer.spectator())["round"]
    assert [p["bid"] for p in view["players"]] == [None, "nolo", "rami", None]
    assert view["revealed"] == [1, 2]
    assert GAME.view(state, Viewer.of(3))["round"]["players"][3]["bid"] == "rami"
    assert GAME.view(state, Viewer.of(0))["round"]["players"][3]["bid"] is None
    assert GAME.view(state, Viewer.superuser())["round"]["players"][3]["bid"] == "rami"


@pytest.mark.parametrize(("dealer", "bids", "revealed", "mode", "declarer", "leader"), [
    # The declarer's right-hand player (the one before them) leads in rami.
    (0, {0: "nolo", 1: "nolo", 2: "rami", 3: "rami"}, [1, 2], "rami", 2, 1),
    (2, {0: "nolo", 1: "rami", 2: "nolo", 3: "nolo"}, [3, 0, 1], "rami", 1, 0),
    (3, {0: "rami", 1: "nolo", 2: "rami", 3: "nolo"}, [0], "rami", 0, 3),
    (1, {0: "nolo", 1: "nolo", 2: "nolo", 3: "rami"}, [2, 3], "rami", 3, 2),
    # Nobody bid rami: nolo, every bid revealed, the dealer's left-hand player leads.
    (1, {0: "nolo", 1: "nolo", 2: "nolo", 3: "nolo"}, [2, 3, 0, 1], "nolo", None, 2),
    (3, {0: "nolo", 1: "nolo", 2: "nolo", 3: "nolo"}, [0, 1, 2, 3], "nolo", None, 0),
])
def test_the_declarer_and_who_leads(dealer: int, bids: dict[int, str], revealed: list[int],
                                    mode: str, declarer: int | None, leader: int) -> None:
    state = table(dealer=dealer)
    start(state, SUITED)
    bid(state, bids)
    view = GAME.view(state, Viewer.spectator())["round"]
    assert (view["revealed"], view["mode"], view["declarer"], view["leader"]) == (
        revealed, mode, declarer, leader)
    assert GAME.status(state).to_act == (leader,)
    assert [p["bid"] for p in view["players"]] == [
        bids[s] if s in revealed else None for s in range(4)]


def test_the_dealer_moves_left_every_round() -> None:
    state = table(dealer=2)
    for expected in (2, 3, 0, 1, 2):
        start(state, SUITED)
        assert GAME.view(state, Viewer.spectator())["round"]["dealer"] == expected
        bid(state, {s: "nolo" for s in range(4)})
        play_lowest(state)
        state["score"] = [0, 0]  # keep the game going


# ------------------------------------------------------------------ trick play


def test_following_suit() -> None:
    state = table(dealer=3)  # nolo: seat 0 leads
    start(state, SPLIT)
    bid(state, {s: "nolo" for s in range(4)})
    GAME.apply(state, 0, {"kind": "play", "card": "2c"})
    options = GAME.legal_moves(state, 1)[0]["params"]["card"]["options"]
    assert options == ["8c", "9c", "Tc", "Jc", "Qc", "Kc", "Ac"]  # clubs only
    with pytest.raises(IllegalAction):
        GAME.apply(state, 1, {"kind": "play", "card": "9h"})
    with pytest.raises(IllegalAction):
        GAME.apply(state, 2, {"kind": "play", "card": "2d"})  # not seat 2's turn
    GAME.apply(state, 1, {"kind": "play", "card": "Qc"})  # no need to play the ace
    # Seat 2 has no clubs: any card (a discard).
    assert len(GAME.legal_moves(state, 2)[0]["params"]["card"]["options"]) == 13
    GAME.apply(state, 2, {"kind": "play", "card": "Ad"})  # the ace of another suit loses
    events = GAME.apply(state, 3, {"kind": "play", "card": "As"})
    won = of_type(events, "TrickWon")
    assert won == [{"type": "TrickWon", "player": 1, "number": 1,
                    "cards": "2cQcAdAs", "tricks": [0, 1]}]
    assert GAME.status(state).to_act == (1,)  # the winner leads next


def test_the_timeout_default_is_nolo_then_the_lowest_legal_card() -> None:
    state = table(dealer=3)
    start(state, ALTERNATE)
    events = GAME.timeout(state)
    assert [e["action"] for e in of_type(events, "TimedOut")] == ["nolo"] * 4
    events = GAME.timeout(state)
    assert of_type(events, "TimedOut") == [{"type": "TimedOut", "player": 0, "action": "play 2h"}]
    assert of_type(events, "CardPlayed")[0]["card"] == "2h"  # 2h and 8c: the lower rank


# ------------------------------------------------------------------ scoring


def scored(events: list) -> dict:  # type: ignore[type-arg]
    (result,) = of_type(events, "RoundScored")
    return result


def test_rami_made() -> None:
    # Seat 1 declares; seat 0 (its right-hand player) leads 2c; seat 1 wins with 8c,
    # then runs its clubs (seat 0 follows, throws 2h on the ace) and hearts: 13 tricks
    # for the declarers, 4 points for each beyond six.
    state = table(dealer=0)
    start(state, SPLIT)
    bid(state, {0: "nolo", 1: "rami", 2: "nolo", 3: "nolo"})
    result = scored(play_lowest(state))
    assert result == {"type": "RoundScored", "mode": "rami", "declarer": 1, "tricks": [0, 13],
                      "team": 1, "points": 28, "outcome": "rise", "score": [0, 28],
                      "rising": [0, 28], "early": False}
    assert state["score"] == [0, 28] and not state["over"]


def test_rami_defeated() -> None:
    # Seat 1 declares, seat 0 leads; seat 0 takes 7 tricks, seat 1 six: the defenders
    # score 8 for their one trick beyond six.
    state = table(dealer=0)
    start(state, ALTERNATE)
    bid(state, {0: "nolo", 1: "rami", 2: "nolo", 3: "nolo"})
    events = play_lowest(state)
    assert [e["player"] for e in of_type(events, "TrickWon")] == [1, 0] * 6 + [0]
    result = scored(events)
    assert (result["tricks"], result["team"], result["points"], result["score"]) == (
        [7, 6], 0, 8, [8, 0])


def test_nolo() -> None:
    # Nobody bids rami; seat 0 (the dealer's left) leads; team 0 takes 7 tricks, so
    # team 1 (fewer tricks) scores 4 for each trick team 0 took beyond six.
    state = table(dealer=3)
    start(state, ALTERNATE)
    bid(state, {s: "nolo" for s in range(4)})
    result = scored(play_lowest(state))
    assert (result["mode"], result["tricks"], result["team"], result["points"]) == (
        "nolo", [7, 6], 1, 4)
    assert state["score"] == [0, 4]
    # And with SPLIT team 1 takes all 13: team 0 scores 4 * 7.
    state = table(dealer=3)
    start(state, SPLIT)
    bid(state, {s: "nolo" for s in range(4)})
    assert scored(play_lowest(state))["points"] == 28 and state["score"] == [28, 0]


def test_points_add_up_for_the_team_that_is_up() -> None:
    state = table(score=(20, 0), dealer=0)
    start(state, ALTERNATE)
    bid(state, {0: "nolo", 1: "rami", 2: "nolo", 3: "nolo"})
    result = scored(play_lowest(state))
    assert (result["outcome"], result["score"], result["rising"]) == ("rise", [28, 0], [28, 0])


def test_a_score_by_the_team_that_is_down_returns_to_0_0_and_ends_the_round_early() -> None:
    # Team 0 is up 12-0; seat 1 declares rami; seat 1 wins the first seven tricks
    # (SPLIT): team 1 (down) now scores whatever happens: back to 0-0 at once.
    state = table(score=(12, 0), dealer=0)
    start(state, SPLIT)
    bid(state, {0: "nolo", 1: "rami", 2: "nolo", 3: "nolo"})
    events = play_lowest(state)
    assert len(of_type(events, "TrickWon")) == 7
    result = scored(events)
    assert result == {"type": "RoundScored", "mode": "rami", "declarer": 1, "tricks": [0, 7],
                      "team": 1, "points": 4, "outcome": "reset", "score": [0, 0],
                      "rising": [12, 0], "early": True}
    # The unplayed cards stay hidden: only the owner and the superuser see them.
    assert GAME.round_record(state)["early"] is True
    assert GAME.view(state, Viewer.spectator())["last"]["outcome"] == "reset"


def test_in_nolo_the_team_that_is_up_taking_its_seventh_trick_resets_the_board() -> None:
    state = table(score=(0, 12), dealer=3)
    start(state, SPLIT)
    bid(state, {s: "nolo" for s in range(4)})
    events = play_lowest(state)
    result = scored(events)
    assert len(of_type(events, "TrickWon")) == 7
    assert (result["team"], result["outcome"], result["score"], result["early"]) == (
        0, "reset", [0, 0], True)


def test_no_early_end_while_the_points_still_matter() -> None:
    state = table(score=(0, 12), dealer=0)  # team 1 up and the scorer: every trick counts
    start(state, SPLIT)
    bid(state, {0: "nolo", 1: "rami", 2: "nolo", 3: "nolo"})
    result = scored(play_lowest(state))
    assert (result["tricks"], result["score"], result["early"]) == ([0, 13], [0, 40], False)


def test_a_tuppi_at_52_ends_the_round_and_the_game() -> None:
    # Team 1 is up 28-0; its rami needs 24 more points: six tricks beyond six. The
    # round stops after the 12th trick (a tuppi whatever the 13th does).
    state = table(score=(0, 28), dealer=0)
    start(state, SPLIT)
    bid(state, {0: "nolo", 1: "rami", 2: "nolo", 3: "nolo"})
    events = play_lowest(state)
    result = scored(events)
    assert (result["tricks"], result["points"], result["outcome"], result["score"],
            result["early"]) == ([0, 12], 24, "tuppi", [0, 52], True)
    assert types(events)[-2:] == ["RoundEnded", "GameEnded"]
    (ended,) = [e for e in events if isinstance(e, GameEnded)]
    assert [(s.seat, s.player_id, s.rank, s.score) for s in ended.standings] == [
        (1, "b", 1, 24), (3, "d", 1, 24), (0, "a", 2, 0), (2, "c", 2, 0)]
    assert GAME.status(state).over and not GAME.can_start(state)
    assert state["result"] == {"winner": 1, "reason": "tuppi"}
    with pytest.raises(IllegalAction):
        GAME.seat(state, 0, "e", {})


def test_a_defeated_rami_from_0_0_can_be_a_tuppi_in_one_round() -> None:
    # SUITED: seat 0 leads spades and nobody else has any: 13 tricks for the
    # defenders, 8 x 7 = 56 points.
    state = table(dealer=0)
    start(state, SUITED)
    bid(state, {0: "nolo", 1: "rami", 2: "nolo", 3: "nolo"})
    result = scored(play_lowest(state))
    assert (result["tricks"], result["points"], result["outcome"]) == ([13, 0], 56, "tuppi")
    assert state["result"] == {"winner": 0, "reason": "tuppi"}


def test_scoring_table() -> None:
    assert [round_points("rami", 0, (t, 13 - t)) for t in range(13, -1, -1)] == [
        (0, 28), (0, 24), (0, 20), (0, 16), (0, 12), (0, 8), (0, 4),
        (1, 8), (1, 16), (1, 24), (1, 32), (1, 40), (1, 48), (1, 56)]
    assert round_points("nolo", None, (7, 6)) == (1, 4)
    assert round_points("nolo", None, (2, 11)) == (0, 20)
    assert settle((0, 48), 1, 4) == ((0, 52), "tuppi")
    assert settle((0, 48), 0, 56) == ((0, 0), "reset")  # a reset is never a tuppi
    assert not decided("rami", 0, (6, 5), (0, 0))
    assert decided("rami", 0, (7, 0), (0, 4))  # the down team scores: reset
    assert not decided("rami", 0, (7, 0), (4, 0))  # the up team scores: every trick counts
    assert decided("rami", 0, (0, 13), (0, 0))


# ------------------------------------------------------------------ tournament limit


def test_the_limit_ends_the_game_when_the_board_is_at_0_0() -> None:
    # 15-round limit, 14 played, team 0 up 12-0 with 30 rising points to team 1's 20.
    state = table(score=(12, 0), dealer=0, limit=15, number=14, rising=(30, 20))
    start(state, SPLIT)  # round 15: team 1 resets the board
    bid(state, {0: "nolo", 1: "rami", 2: "nolo", 3: "nolo"})
    events = play_lowest(state)
    assert state["score"] == [0, 0] and state["over"]
    assert state["result"] == {"winner": 0, "reason": "limit"}  # 30 rising points to 20
    (ended,) = [e for e in events if isinstance(e, GameEnded)]
    assert [(s.seat, s.rank) for s in ended.standings] == [(0, 1), (2, 1), (1, 2), (3, 2)]


def test_after_the_limit_the_last_rise_is_played_out() -> None:
    state = table(dealer=0, limit=15, number=14, rising=(16, 40))
    start(state, ALTERNATE)  # round 15: team 0 rises to 8
    bid(state, {0: "nolo", 1: "rami", 2: "nolo", 3: "nolo"})
    play_lowest(state)
    assert state["score"] == [8, 0] and not state["over"]  # the rise goes on
    start(state, ALTERNATE)  # round 16 (dealer 1): nolo, seat 2 leads
    bid(state, {s: "nolo" for s in range(4)})
    play_lowest(state)
    # Seat 2 leads 2d and everybody else is void: seat 2 runs 13 diamonds, so
    # team 1 scores 4 * 7 and resets the board: the game ends, rising points decide.
    assert state["score"] == [0, 0] and state["over"]
    assert state["rising"] == [24, 40]
    assert state["result"] == {"winner": 1, "reason": "limit"}


def test_equal_rising_points_at_the_limit_are_a_draw() -> None:
    state = table(score=(12, 0), dealer=0, limit=24, number=23, rising=(40, 40))
    start(state, SPLIT)
    bid(state, {0: "nolo", 1: "rami", 2: "nolo", 3: "nolo"})
    events = play_lowest(state)
    (ended,) = [e for e in events if isinstance(e, GameEnded)]
    assert state["result"] == {"winner": None, "reason": "limit"}
    assert {s.rank for s in ended.standings} == {1}


def test_a_tuppi_after_the_limit_wins_whatever_the_rising_points() -> None:
    state = table(score=(0, 28), dealer=0, limit=15, number=20, rising=(200, 28))
    start(state, SPLIT)
    bid(state, {0: "nolo", 1: "rami", 2: "nolo", 3: "nolo"})
    play_lowest(state)
    assert state["result"] == {"winner": 1, "reason": "tuppi"}


def test_no_limit_plays_on_at_0_0() -> None:
    state = table(score=(12, 0), dealer=0, number=40)
    start(state, SPLIT)
    bid(state, {0: "nolo", 1: "rami", 2: "nolo", 3: "nolo"})
    play_lowest(state)
    assert state["score"] == [0, 0] and not state["over"] and GAME.can_start(state)
