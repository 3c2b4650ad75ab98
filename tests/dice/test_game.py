"""The dice game behind the contract: settings, seats, turns from the stored chance,
scoring, no undo, replay, dump/load, random play to the standings."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from engine.dice import DiceGame, Rules, shipped_rules
from engine.dice.rules import SHIPPED
from engine.errors import EngineError, IllegalAction, MalformedAction
from engine.game import (
    Event,
    Game,
    GameEnded,
    RoundEnded,
    RoundStarted,
    TimedOut,
    Viewer,
    check_move,
    decision_view,
    random_move,
)

Json = dict[str, Any]
GAME = DiceGame()


def table(seats: int = 1, rules: Any = "yatzy") -> Json:
    state: Json = GAME.create(GAME.validate_settings({"seats": seats, "rules": rules}))
    for seat in range(seats):
        GAME.seat(state, seat, f"p{seat}", {})
    return state


def chance_from(rolls: list[list[list[list[int]]]], state: Json) -> Json:
    """A chance whose participant i's turn t rolls ``rolls[i][t]`` (a list of rolls of
    all dice; missing turns and rolls are filled with 1s)."""
    rules = state["rules"]
    n, r, turns = rules["dice"], rules["rolls"], len(rules["combinations"])
    grid = []
    for seat in range(len(state["seats"])):
        row = []
        for t in range(turns):
            given = rolls[seat][t] if seat < len(rolls) and t < len(rolls[seat]) else []
            text = "".join("".join(map(str, dice)) for dice in given)
            row.append(text + "1" * (n * r - len(text)))
        grid.append(row)
    return {"dice": grid}


def jsons(events: list[Event]) -> list[Json]:
    return [e.to_json() for e in events]


# ------------------------------------------------------------------ settings


def test_settings_schema_defaults_and_validation() -> None:
    schema = GAME.settings_schema()
    assert schema["type"] == "object"
    props = schema["properties"]
    assert props["seats"]["minimum"] == 1 and props["seats"]["maximum"] == 4
    assert props["rules"]["enum"] == list(SHIPPED) and props["rules"]["default"] == "yatzy"
    settings = GAME.validate_settings({})
    assert settings["seats"] == props["seats"]["default"]
    assert settings["rules"] == shipped_rules("yatzy")
    stored = GAME.settings_json(settings)
    assert json.loads(json.dumps(stored)) == stored
    assert GAME.validate_settings(stored) == settings  # the stored form validates again
    custom = {"name": "Chance only", "dice": 2, "faces": 3, "rolls": 1,
              "combinations": [{"id": "c", "family": "chance"}]}
    mine = GAME.validate_settings({"seats": 1, "rules": custom})
    assert mine["rules"]["id"] == Rules.from_json(custom).id
    listing = GAME.listing(mine)
    assert listing.seats == 1 and listing.name == "Chance only, solitaire"
    assert listing.facts["rules_id"] == mine["rules"]["id"]
    assert GAME.info.min_players == 1 and GAME.info.ends and not GAME.info.economy


@pytest.mark.parametrize(("data", "code"), [
    ({"seats": 0}, "bad_settings"), ({"seats": 5}, "bad_settings"),
    ({"seats": "2"}, "bad_settings"), ({"blinds": 1}, "bad_settings"),
    ({"rules": "poker"}, "unknown_rules"),
    ({"rules": {**SHIPPED["yatzy"], "dice": 4}}, "rules_run_length"),
    ({"rules": 5}, "rules_malformed"),
])
def test_bad_settings_are_refused(data: Json, code: str) -> None:
    with pytest.raises(MalformedAction) as info:
        GAME.validate_settings(data)
    assert info.value.code == code


# ------------------------------------------------------------------ seats


def test_the_game_starts_when_every_seat_is_taken() -> None:
    state = GAME.create(GAME.validate_settings({"seats": 2}))
    assert not GAME.can_start(state)
    GAME.seat(state, 0, "ann", {})
    assert not GAME.can_start(state)
    with pytest.raises(IllegalAction) as info:
        GAME.seat(state, 1, "ann", {})
    assert info.value.code == "already_seated"
    GAME.seat(state, 1, "bob", {})
    GAME.away(state, 1)
    assert not GAME.can_start(state)
    GAME.back(state, 1)
    assert GAME.can_start(state)
    with pytest.raises(MalformedAction):
        GAME.seat(state, 2, "cid", {})
    events = GAME.start_round(state, GAME.draw_chance(state, random.Random(1)))
    assert isinstance(events[0], RoundStarted) and events[0].player_ids == ("ann", "bob")
    assert GAME.to_act(state) == (0,)
    GAME.unseat(state, 1)
    with pytest.raises(IllegalAction) as info:
        GAME.seat(state, 1, "cid", {})
    assert info.value.code == "game_started"


def test_bad_chance_is_refused() -> None:
    state = table(1)
    good = GAME.draw_chance(state, random.Random(1))
    assert len(good["dice"]) == 1 and len(good["dice"][0]) == 15
    assert all(len(t) == 15 and set(t) <= set("123456") for t in good["dice"][0])
    bad: Any
    for bad in ({}, {"dice": []}, {"dice": [good["dice"][0][:-1]]},
                {"dice": [[t.replace("1", "7") for t in good["dice"][0]]]},
                {"dice": [[t + "1" for t in good["dice"][0]]]}, [1, 2]):
        with pytest.raises(MalformedAction) as info:
            GAME.start_round(state, bad)
        assert info.value.code == "bad_chance"
    assert state["round"] is None and state["number"] == 0  # nothing changed


# ------------------------------------------------------------------ a scripted game


def test_a_turn_rolls_holds_and_scores_from_the_chance() -> None:
    state = table(1)
    chance = chance_from([[[[6, 6, 6, 1, 2], [3, 3, 3, 6, 6], [1, 1, 1, 1, 1]],
                           [[2, 3, 4, 5, 1]]]], state)
    events = GAME.start_round(state, chance)
    assert jsons(events)[1] == {"type": "DiceRolled", "player": 0, "dice": [6, 6, 6, 1, 2],
                                "held": [], "roll": 1, "rolls_left": 2}
    moves = GAME.legal_moves(state, 0)
    assert [m["kind"] for m in moves] == ["roll", "score"]
    assert moves[0]["params"]["hold"] == {"type": "subset", "items": [0, 1, 2, 3, 4],
                                          "min": 0, "max": 4}
    assert moves[1]["params"]["box"]["options"] == [c["id"] for c in
                                                    state["rules"]["combinations"]]
    view = GAME.view(state, Viewer.of(0))
    scores = dict(zip(moves[1]["params"]["box"]["options"], view["turn"]["scores"], strict=True))
    assert scores["sixes"] == 18 and scores["chance"] == 21
    with pytest.raises(IllegalAction):  # holding every die is no roll
        GAME.apply(state, 0, {"kind": "roll", "hold": [0, 1, 2, 3, 4]})
    key = GAME.status(state).decision
    events = GAME.apply(state, 0, {"kind": "roll", "hold": [2, 1, 0]})
    assert jsons(events) == [{"type": "DiceRolled", "player": 0, "dice": [6, 6, 6, 6, 6],
                              "held": [0, 1, 2], "roll": 2, "rolls_left": 1}]
    assert GAME.status(state).decision != key
    events = GAME.apply(state, 0, {"kind": "score", "box": "yatzy"})
    assert jsons(events)[0] == {"type": "BoxScored", "player": 0, "box": "yatzy",
                                "points": 50, "bonus": 0, "total": 50}
    assert jsons(events)[1]["dice"] == [2, 3, 4, 5, 1]  # the next turn rolled at once
    with pytest.raises(IllegalAction):  # a box is written once
        GAME.apply(state, 0, {"kind": "score", "box": "yatzy"})
    GAME.apply(state, 0, {"kind": "roll", "hold": [0, 1, 2, 3, 4][:4]})
    GAME.apply(state, 0, {"kind": "roll", "hold": []})
    assert [m["kind"] for m in GAME.legal_moves(state, 0)] == ["score"]  # after the last roll
    with pytest.raises(IllegalAction):
        GAME.apply(state, 0, {"kind": "roll", "hold": []})
    assert GAME.status(state).to_act == (0,) and GAME.legal_moves(state, 1) == []


def test_no_undo() -> None:
    """There is no move but roll and score: no unholding a roll, no rewriting a box."""
    state = table(1)
    GAME.start_round(state, GAME.draw_chance(state, random.Random(5)))
    for kind in ("undo", "unscore", "hold", "reroll"):
        with pytest.raises(IllegalAction):
            GAME.apply(state, 0, {"kind": kind})
    GAME.apply(state, 0, {"kind": "score", "box": "chance"})
    written = state["round"]["sheets"][0][13]  # chance
    assert written is not None
    with pytest.raises(IllegalAction):
        GAME.apply(state, 0, {"kind": "score", "box": "chance"})
    assert state["round"]["sheets"][0][13] == written
    with pytest.raises(MalformedAction):
        GAME.apply(state, 0, {"kind": "score", "box": "ones", "undo": True})
    with pytest.raises(IllegalAction):
        GAME.apply(state, 1, {"kind": "score", "box": "ones"})


def test_a_whole_yatzy_game_with_the_bonus_and_standings() -> None:
    state = table(2)
    first = [[d] * 4 + [d % 6 + 1] for d in range(1, 7)]  # four of each face
    rolls = [[[r] for r in first], [[[1, 2, 3, 4, 5]]] * 15]
    GAME.start_round(state, chance_from(rolls, state))
    boxes = ["ones", "twos", "threes", "fours", "fives", "sixes"]
    seen: list[Json] = []
    for turn in range(15):
        for seat in (0, 1):
            assert GAME.to_act(state) == (seat,)
            box = boxes[turn] if seat == 0 and turn < 6 else GAME.legal_moves(
                state, seat)[-1]["params"]["box"]["options"][0]
            seen += jsons(GAME.apply(state, seat, {"kind": "score", "box": box}))
    scored = [e for e in seen if e["type"] == "BoxScored" and e["player"] == 0]
    assert [e["points"] for e in scored[:6]] == [4, 8, 12, 16, 20, 24]
    assert [e["bonus"] for e in scored[:6]] == [0, 0, 0, 0, 0, 50]
    # seat 0 then fills one_pair..yatzy with 1,1,1,1,1 rolls (the filler): pair 2,
    # two pairs 0, three of a kind 3, four of a kind 4, straights 0, full house 0,
    # chance 5, yatzy 50.
    ended = next(e for e in seen if e["type"] == "RoundEnded")
    over = next(e for e in seen if e["type"] == "GameEnded")
    totals = {r["seat"]: r["score"] for r in ended["results"]}
    rules = Rules(state["rules"])
    for result in ended["results"]:
        sheet = result["detail"]["sheet"]
        assert result["score"] == sum(sheet) + rules.bonus(sheet)
    assert totals[0] == 84 + 50 + 2 + 3 + 4 + 5 + 50
    # seat 1 always had 1-2-3-4-5 and took the first open box: the upper boxes, then
    # nothing but the small straight and chance.
    assert totals[1] == 1 + 2 + 3 + 4 + 5 + 15 + 15
    assert over["standings"] == [
        {"seat": 0, "player_id": "p0", "rank": 1, "score": totals[0]},
        {"seat": 1, "player_id": "p1", "rank": 2, "score": totals[1]}]
    assert GAME.status(state).over and GAME.to_act(state) == ()
    with pytest.raises(IllegalAction):
        GAME.seat(state, 0, "late", {})
    record = json.loads(GAME.export_round(GAME.round_record(state), Viewer.spectator(),
                                          {"names": ["Ann", "Bob"]}))
    assert record["names"] == ["Ann", "Bob"] and len(record["log"]) == 30
    assert record["log"][0] == {"seat": 0, "rolls": [[1, 1, 1, 1, 2]], "holds": [[]],
                                "box": "ones", "points": 4}


def test_timeout_scores_the_best_open_box() -> None:
    state = table(1)
    GAME.start_round(state, chance_from([[[[5, 5, 5, 5, 2]]]], state))
    events = GAME.timeout(state)
    assert isinstance(events[0], TimedOut) and events[0].action == "score chance"
    assert state["round"]["sheets"][0][13] == 22  # chance
    state = table(1, "mini")
    GAME.start_round(state, chance_from([[[[3, 3, 3, 3]]]], state))
    GAME.timeout(state)  # 30 (four alike) beats 12 (chance, fair split, three of a kind 9)
    assert state["round"]["sheets"][0][-1] == 30  # four alike
    with pytest.raises(IllegalAction):
        GAME.timeout(table(1))


def test_leavers_keep_their_sheet_and_rank_last() -> None:
    state = table(3)
    GAME.start_round(state, GAME.draw_chance(state, random.Random(3)))
    GAME.apply(state, 0, {"kind": "score", "box": "chance"})
    assert GAME.to_act(state) == (1,)
    events = GAME.unseat(state, 1)  # in the middle of their turn
    assert [e.type for e in events][:2] == ["PlayerRetired", "DiceRolled"]
    assert GAME.to_act(state) == (2,)
    GAME.apply(state, 2, {"kind": "score", "box": "chance"})
    GAME.unseat(state, 0)
    while GAME.to_act(state):
        events = GAME.timeout(state)
    ended = next(e for e in events if isinstance(e, GameEnded))
    assert [s.seat for s in ended.standings] == [2, 0, 1]
    assert [s.rank for s in ended.standings] == [1, 2, 3]
    result = next(e for e in events if isinstance(e, RoundEnded))
    assert [r.detail["retired"] for r in result.results] == [True, True, False]
    assert sum(v is not None for v in result.results[1].detail["sheet"]) == 0


def test_everyone_leaving_ends_the_game() -> None:
    state = table(2)
    GAME.start_round(state, GAME.draw_chance(state, random.Random(3)))
    GAME.unseat(state, 1)
    events = GAME.unseat(state, 0)
    assert [e.type for e in events] == ["PlayerRetired", "RoundEnded", "GameEnded",
                                        "SeatFreed"]
    assert GAME.status(state).over and not any(GAME.seats(state))


# ------------------------------------------------------------------ replay and storage


def play_random(seed: int, rules: str = "yatzy", seats: int = 1, chaos: bool = False
                ) -> tuple[Json, Json, list[tuple[str, int, Any]], list[Json]]:
    """A random game: (state, chance, calls, every event as JSON)."""
    rng = random.Random(seed)
    state = table(seats, rules)
    chance = GAME.draw_chance(state, rng)
    log = jsons(GAME.start_round(state, chance))
    calls: list[tuple[str, int, Any]] = []
    while GAME.to_act(state):
        seat = GAME.to_act(state)[0]
        roll = rng.random()
        if chaos and roll < 0.01:
            calls.append(("unseat", rng.randrange(seats), None))
        elif chaos and roll < 0.05:
            calls.append(("timeout", seat, None))
        elif chaos and roll < 0.08:
            calls.append(("away", seat, None))
        else:
            view = decision_view(GAME, state, seat)
            assert json.loads(json.dumps(view)) == view
            calls.append(("apply", seat, random_move(view["moves"], rng)))
        log += jsons(call(state, *calls[-1]))
        assert GAME.load(GAME.dump(state)) == state
    return state, chance, calls, log


def call(state: Json, kind: str, seat: int, move: Any) -> list[Event]:
    if kind == "apply":
        check_move(GAME.legal_moves(state, seat), move)
        return GAME.apply(state, seat, move)
    if kind == "timeout":
        return GAME.timeout(state)
    try:
        if kind == "away":
            events = GAME.away(state, seat)
            return events + GAME.back(state, seat)
        return GAME.unseat(state, seat)
    except EngineError:
        return []


@pytest.mark.parametrize("rules", sorted(SHIPPED))
def test_replay_from_the_stored_chance_reproduces_every_game(rules: str) -> None:
    for seed in range(4):
        state, chance, calls, log = play_random(seed, rules, seats=1 + seed % 4, chaos=True)
        again = table(1 + seed % 4, rules)
        replayed = jsons(GAME.start_round(again, json.loads(json.dumps(chance))))
        for kind, seat, move in calls:
            replayed += jsons(call(again, kind, seat, move))
        assert replayed == log
        assert GAME.dump(again) == GAME.dump(state)


def test_dump_load_round_trip_mid_game_plays_on_identically() -> None:
    state = table(2)
    GAME.start_round(state, GAME.draw_chance(state, random.Random(9)))
    rng = random.Random(10)
    for _ in range(7):
        seat = GAME.to_act(state)[0]
        GAME.apply(state, seat, random_move(GAME.legal_moves(state, seat), rng))
    copy = GAME.load(json.loads(json.dumps(GAME.dump(state))))
    assert copy == state and copy is not state
    moves_rng = random.Random(11)
    while GAME.to_act(state):
        seat = GAME.to_act(state)[0]
        move = random_move(GAME.legal_moves(state, seat), moves_rng)
        assert jsons(GAME.apply(state, seat, move)) == jsons(GAME.apply(copy, seat, move))
    assert GAME.dump(copy) == GAME.dump(state)


def test_random_play_never_crashes_and_ends_with_correct_standings() -> None:
    games = 0
    for seed in range(160):
        rules = sorted(SHIPPED)[seed % len(SHIPPED)]
        seats = 1 + seed % 4
        state, _, _, log = play_random(1000 + seed, rules, seats, chaos=seed % 2 == 1)
        games += 1
        assert [e["type"] for e in log].count("RoundEnded") == 1
        assert log[-1]["type"] in ("GameEnded", "SeatFreed")
        ended = next(e for e in log if e["type"] == "RoundEnded")
        over = next(e for e in log if e["type"] == "GameEnded")
        compiled = Rules(state["rules"])
        scores = {}
        for result in ended["results"]:
            sheet = result["detail"]["sheet"]
            assert result["score"] == compiled.total(sheet)
            assert result["score"] == sum(v or 0 for v in sheet) + compiled.bonus(sheet)
            if not result["detail"]["retired"]:
                assert None not in sheet
            scores[result["seat"]] = (result["detail"]["retired"], result["score"])
        standings = over["standings"]
        assert sorted(s["seat"] for s in standings) == list(range(seats))
        for place in standings:
            retired, score = scores[place["seat"]]
            assert place["score"] == score
            assert place["rank"] == 1 + sum((r, -s) < (retired, -score)
                                            for r, s in scores.values())
        assert [s["rank"] for s in standings] == sorted(s["rank"] for s in standings)
        # points written equal the rules' score of the dice they were written with
        dice: dict[int, list[int]] = {}
        for event in log:
            if event["type"] == "DiceRolled":
                dice[event["player"]] = event["dice"]
            elif event["type"] == "BoxScored":
                assert event["points"] == compiled.score(event["box"], dice[event["player"]])
        assert GAME.status(state).over
    assert games == 160


def _keys(node: Any) -> set[str]:
    if isinstance(node, dict):
        return set(node).union(*map(_keys, node.values()))
    if isinstance(node, list):
        return set().union(*map(_keys, node))
    return set()


def test_views_and_events_never_show_the_chance() -> None:
    """The platform's contract test refuses any object with a ``chance`` or ``deck``
    key in what clients receive: box ids (a Yatzy box is called chance) are never keys."""
    state, chance, _, log = play_random(4, "yatzy", seats=2)
    state = table(2)
    GAME.start_round(state, chance)
    future = {t for row in chance["dice"] for t in row}
    for viewer in (Viewer.of(0), Viewer.of(1), Viewer.spectator(), Viewer.superuser()):
        view = GAME.view(state, viewer)
        assert not _keys(view) & {"chance", "deck", "player"}
        assert not any(t in json.dumps(view) for t in future)
    assert not _keys(log) & {"chance", "deck"}
    view = decision_view(GAME, state, 0)
    turn = view["turn"]
    rules = Rules(view["rules"])
    assert turn["scores"] == list(rules.scores(turn["dice"]).values())
    assert view["sheets"][0]["boxes"] == [None] * 15


def test_the_default_prepare_round_seats_a_batch_match() -> None:
    state = GAME.create(GAME.validate_settings({"seats": 2}))
    Game.prepare_round(GAME, state, ["a", "b"])
    assert [s.player_id for s in GAME.seats(state) if s] == ["a", "b"]
    assert GAME.can_start(state)
