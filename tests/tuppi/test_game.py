"""Tuppi through the contract: privacy, dump/load, replay, random play, seats."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from engine.errors import EngineError, IllegalAction, MalformedAction
from engine.game import (
    Event,
    GameEnded,
    RoundEnded,
    Viewer,
    check_move,
    decision_view,
    random_move,
)
from engine.tuppi import TuppiGame, replay
from tests.tuppi.helpers import GAME, SPLIT, bid, of_type, start, table, types

Json = dict[str, Any]
RUN = re.compile(r"^(?:[2-9TJQKA][cdhs])+$")
VIEWERS = [Viewer.of(0), Viewer.of(1), Viewer.of(2), Viewer.of(3), Viewer.spectator()]


def _cards(node: Any) -> Iterator[str]:
    """Every card text in a JSON value (runs such as "AsKd", and "play 2h")."""
    if isinstance(node, dict):
        for value in node.values():
            yield from _cards(value)
    elif isinstance(node, list):
        for value in node:
            yield from _cards(value)
    elif isinstance(node, str):
        text = node[5:] if node.startswith("play ") else node
        if RUN.match(text):
            yield from (text[i:i + 2] for i in range(0, len(text), 2))


def _bids(node: Any) -> Iterator[tuple[int, Any]]:
    """(player, bid) of every dict that has both."""
    if isinstance(node, dict):
        if isinstance(node.get("player"), int) and "bid" in node:
            yield node["player"], node["bid"]
        for value in node.values():
            yield from _bids(value)
    elif isinstance(node, list):
        for value in node:
            yield from _bids(value)


class Watcher:
    """Tracks what is public in the round in progress and checks every projection."""

    def __init__(self) -> None:
        self.dealt: list[set[str]] = [set(), set(), set(), set()]
        self.public: set[str] = set()
        self.revealed: set[int] = set()
        self.checked = 0

    def batch(self, events: list[Event], state: Json) -> None:
        for event in events:  # a batch is sent together: what it makes public first
            data = event.to_json()
            if event.type == "CardsDealt":
                self.dealt[data["player"]] = set(_cards(data["cards"]))
            elif event.type == "RoundStarted":
                self.public, self.revealed = set(), set()
            elif event.type == "CardPlayed":
                self.public.add(data["card"])
            elif event.type == "BidRevealed":
                self.revealed.add(data["player"])
        for event in events:
            for viewer in VIEWERS:
                self.check(viewer, GAME.project_event(event, viewer), event.type)
            if event.type in ("CardsDealt", "BidPlaced"):
                full = GAME.project_event(event, Viewer.superuser())
                assert full == event.to_json()
        for viewer in VIEWERS:
            self.check(viewer, GAME.view(state, viewer), "view")
        for seat in GAME.to_act(state):
            self.check(Viewer.of(seat), decision_view(GAME, state, seat), "decision_view")

    def check(self, viewer: Viewer, data: Json | None, what: str) -> None:
        if data is None:
            return
        (me,) = viewer.players or {None}
        allowed = self.public | (self.dealt[me] if me is not None else set())
        for card in _cards(data):
            assert card in allowed, f"{viewer} saw {card} in {what}: {data}"
            self.checked += 1
        for player, value in _bids(data):
            if value is not None:
                assert player == me or player in self.revealed, f"{viewer}: bid in {what}"
        if data.get("type") == "BidPlaced" and data["player"] != me:
            assert "bid" not in data

    def export(self, record: Json) -> None:
        played = {c for t in record["tricks"] for c in t["cards"]}
        for viewer in VIEWERS:
            (me,) = viewer.players or {None}
            data = json.loads(GAME.export_round(record, viewer, {"names": list("abcd")}))
            mine = set(_cards(record["hands"][me])) if me is not None else set()
            for card in _cards(data):
                assert card in played | mine, f"{viewer} saw {card} in the export"
            for seat, move in data["moves"]:
                if move["kind"] in ("rami", "nolo"):
                    assert seat == me or seat in record["revealed"]
            assert all(data["bids"][s] is None for s in range(4)
                       if s != me and s not in record["revealed"])
        everything = json.loads(GAME.export_round(record, Viewer.superuser(), {}))
        assert everything["hands"] == record["hands"] and everything["bids"] == record["bids"]


Step = Callable[[Json, list[Event]], None]


def random_games(seed: int, steps: int, on_step: Step | None = None,
                 watcher: Watcher | None = None, chaos: bool = True) -> int:
    """Random play (random moves, timeouts, leaving and coming back, away and back)
    for ``steps`` calls; returns the number of rounds finished."""
    rng = random.Random(seed)
    state: Json = GAME.create(GAME.validate_settings({}))
    names = iter(f"p{i}" for i in range(10**6))
    rounds = 0

    def call(events: list[Event]) -> None:
        if watcher is not None:
            watcher.batch(events, state)
        if on_step is not None:
            on_step(state, events)
        if watcher is not None and any(isinstance(e, RoundEnded) for e in events):
            watcher.export(GAME.round_record(state))

    for _ in range(steps):
        if state["over"]:
            state = GAME.create(GAME.validate_settings({}))
        for seat in range(4):
            if state["seats"][seat] is None:
                call(GAME.seat(state, seat, next(names), {}))
            elif state["seats"][seat]["away"] and state["round"] is None:
                call(GAME.back(state, seat))
        if state["round"] is None:
            call(GAME.start_round(state, GAME.draw_chance(state, rng)))
        to_act = GAME.to_act(state)
        roll = rng.random()
        if chaos and roll < 0.03:
            events = GAME.timeout(state)
        elif chaos and roll < 0.04:
            events = GAME.unseat(state, rng.choice([s for s in range(4)
                                                    if not state["seats"][s]["leaving"]]))
        elif chaos and roll < 0.05:
            seat = rng.randrange(4)
            events = GAME.away(state, seat) + GAME.back(state, seat)
        else:
            seat = rng.choice(to_act)
            events = GAME.apply(state, seat, random_move(GAME.legal_moves(state, seat), rng))
        rounds += sum(isinstance(e, RoundEnded) for e in events)
        call(events)
    return rounds


def test_nobody_sees_another_seats_cards_or_unrevealed_bids() -> None:
    watcher = Watcher()
    rounds = random_games(1, 6000, watcher=watcher)
    assert rounds > 60 and watcher.checked > 100_000


def test_the_superuser_sees_every_hand_and_bid() -> None:
    state = table(dealer=0)
    start(state, SPLIT)
    bid(state, {0: "rami", 1: "rami", 2: "nolo", 3: "nolo"})
    view = GAME.view(state, Viewer.superuser())["round"]
    assert [p["cards"] for p in view["players"]] == SPLIT
    assert [p["bid"] for p in view["players"]] == ["rami", "rami", "nolo", "nolo"]
    spectator = GAME.view(state, Viewer.spectator())["round"]
    assert [p["cards"] for p in spectator["players"]] == [None] * 4
    assert [p["bid"] for p in spectator["players"]] == [None, "rami", None, None]
    mine = GAME.view(state, Viewer.of(2))["round"]["players"]
    assert [p["cards"] for p in mine] == [None, None, SPLIT[2], None]
    # A viewer controlling two seats sees both.
    both = GAME.view(state, Viewer.of(0, 2))["round"]["players"]
    assert [p["cards"] is not None for p in both] == [True, False, True, False]


def test_private_events_and_their_public_form() -> None:
    state = table(dealer=0)
    events = start(state, SPLIT)
    dealt = [e for e in events if e.type == "CardsDealt"]
    assert [e.audience for e in dealt] == [0, 1, 2, 3]
    assert GAME.project_event(dealt[1], Viewer.of(1)) == {
        "type": "CardsDealt", "player": 1, "cards": SPLIT[1]}
    assert GAME.project_event(dealt[1], Viewer.of(0)) == {
        "type": "CardsDealt", "player": 1, "count": 13}
    (placed,) = GAME.apply(state, 2, {"kind": "rami"})
    assert placed.audience == 2
    assert GAME.project_event(placed, Viewer.spectator()) == {"type": "BidPlaced", "player": 2}
    assert GAME.project_event(placed, Viewer.of(2)) == {
        "type": "BidPlaced", "player": 2, "bid": "rami"}


def test_state_round_trips_through_dump_and_load_at_every_step() -> None:
    checked = 0

    def step(state: Json, events: list[Event]) -> None:
        nonlocal checked
        copy = GAME.load(GAME.dump(state))
        assert copy == state and json.loads(json.dumps(copy)) == copy
        checked += 1

    random_games(2, 2500, on_step=step)
    assert checked > 2500


def test_a_loaded_copy_plays_on_exactly_like_the_original() -> None:
    rng = random.Random(3)
    state = table()
    for _ in range(1500):
        if state["over"]:
            state = table()
        if state["round"] is None:
            start_chance = GAME.draw_chance(state, rng)
            copy = GAME.load(GAME.dump(state))
            a = GAME.start_round(state, start_chance)
            b = GAME.start_round(copy, start_chance)
            assert [e.to_json() for e in a] == [e.to_json() for e in b]
            continue
        copy = GAME.load(GAME.dump(state))
        seat = rng.choice(GAME.to_act(state))
        action = random_move(GAME.legal_moves(state, seat), rng)
        a, b = GAME.apply(state, seat, action), GAME.apply(copy, seat, action)
        assert [e.to_json() for e in a] == [e.to_json() for e in b]
        assert GAME.dump(state) == GAME.dump(copy)


def test_every_round_replays_from_its_chance_and_calls() -> None:
    """As the runtime stores a round (start state, chance, calls) and replays it."""
    rng = random.Random(4)
    state = table()
    replayed = 0
    while replayed < 60:
        if state["over"]:
            state = table()
        start_state = GAME.dump(state)
        chance = GAME.draw_chance(state, rng)
        log = [e.to_json() for e in GAME.start_round(state, chance)]
        calls: list[tuple[str, Any]] = []
        while state["round"] is not None:
            roll = rng.random()
            if roll < 0.05:
                call: tuple[str, Any] = ("timeout", None)
                events = GAME.timeout(state)
            else:
                seat = rng.choice(GAME.to_act(state))
                call = ("apply", (seat, random_move(GAME.legal_moves(state, seat), rng)))
                events = GAME.apply(state, seat, call[1][1])
            calls.append(call)
            log += [e.to_json() for e in events]
        log = log[:next(i for i, e in enumerate(log) if e["type"] == "RoundEnded") + 1]
        again = GAME.load(start_state)
        events = GAME.start_round(again, chance)
        for name, args in calls:
            events += GAME.timeout(again) if name == "timeout" else GAME.apply(again, *args)
        new = [e.to_json() for e in events]
        assert new[:len(log)] == log
        assert GAME.dump(again) == GAME.dump(state)
        record = GAME.round_record(state)
        assert replay(record) == record  # the record alone replays too
        replayed += 1


@pytest.mark.parametrize("limit", [0, 15, 24])
def test_random_play_never_crashes_and_every_game_ends(limit: int) -> None:
    rng = random.Random(limit)
    for number in range(40):
        state = GAME.create(GAME.validate_settings({"round_limit": limit}))
        for seat in range(4):
            GAME.seat(state, seat, f"p{seat}", {})
        ended = None
        for _ in range(2000):
            GAME.start_round(state, GAME.draw_chance(state, rng))
            while to_act := GAME.to_act(state):
                seat = rng.choice(to_act)
                moves = GAME.legal_moves(state, seat)
                action = random_move(moves, rng)
                check_move(moves, action)
                events = GAME.apply(state, seat, action)
            ended = next((e for e in events if isinstance(e, GameEnded)), None)
            if state["over"]:
                break
        assert state["over"] and GAME.status(state).over and ended is not None, number
        result = state["result"]
        assert not GAME.to_act(state) and not GAME.can_start(state)
        if result["reason"] == "tuppi":
            assert max(state["score"]) >= 52 and min(state["score"]) == 0
        else:
            assert limit and state["number"] >= limit and state["score"] == [0, 0]
        # Standings: one per seat, the winning team first, scores = each player's
        # rising points (the sum of their rounds' scores).
        assert sorted(s.seat for s in ended.standings) == [0, 1, 2, 3]
        assert sum(s.score for s in ended.standings) == 2 * sum(state["rising"])


def test_round_results_sum_to_the_standings() -> None:
    rng = random.Random(9)
    state = table()
    totals: dict[str, int] = {}
    while not state["over"]:
        GAME.start_round(state, GAME.draw_chance(state, rng))
        while GAME.to_act(state):
            events = GAME.timeout(state) if rng.random() < 0.5 else GAME.apply(
                state, GAME.to_act(state)[0],
                random_move(GAME.legal_moves(state, GAME.to_act(state)[0]), rng))
        (ended,) = [e for e in events if isinstance(e, RoundEnded)]
        for result in ended.results:
            assert result.score is not None and result.secret["cards"]
            totals[result.player_id] = totals.get(result.player_id, 0) + result.score
    (over,) = [e for e in events if isinstance(e, GameEnded)]
    assert {s.player_id: s.score for s in over.standings} == totals


# ------------------------------------------------------------------ seats


def test_a_player_who_leaves_mid_round_is_played_for_and_freed_at_the_end() -> None:
    state = table(dealer=3)
    start(state, SPLIT)
    assert types(GAME.unseat(state, 2)) == ["AutoPlayed", "BidPlaced"]  # nolo for seat 2
    seats = GAME.seats(state)
    assert seats[2] is not None and seats[2].leaving and seats[2].status == "leaving"
    assert not GAME.can_start(state)
    bid(state, {0: "nolo", 1: "nolo", 3: "nolo"})
    GAME.apply(state, 0, {"kind": "play", "card": "2c"})
    events = GAME.apply(state, 1, {"kind": "play", "card": "8c"})
    assert of_type(events, "AutoPlayed") == [
        {"type": "AutoPlayed", "player": 2, "action": "play 2d"}]  # its lowest card, at once
    assert GAME.to_act(state) == (3,)
    events = []
    while GAME.to_act(state):
        events += GAME.timeout(state)
    assert types(events)[-2:] == ["RoundEnded", "SeatFreed"]
    assert GAME.seats(state)[2] is None
    GAME.seat(state, 2, "e", {})  # a new partner takes over the team's score
    assert GAME.can_start(state)


def test_leaving_between_rounds_frees_the_seat_at_once() -> None:
    state = table()
    assert types(GAME.unseat(state, 1)) == ["SeatFreed"]
    assert not GAME.can_start(state)
    with pytest.raises(IllegalAction):
        GAME.unseat(state, 1)
    GAME.seat(state, 1, "b", {})  # the same player comes back, keeps their points
    assert GAME.can_start(state)


def test_away_players_are_not_dealt_in_but_a_running_round_waits_for_them() -> None:
    state = table()
    GAME.away(state, 0)
    assert not GAME.can_start(state)
    with pytest.raises(IllegalAction):
        GAME.away(state, 0)
    GAME.back(state, 0)
    start(state, SPLIT)
    GAME.away(state, 0, "disconnected")
    assert 0 in GAME.to_act(state)  # the timer plays for them
    assert GAME.seats(state)[0].away  # type: ignore[union-attr]


def test_bad_input_is_refused_without_change() -> None:
    state = table()
    with pytest.raises(MalformedAction):
        GAME.seat(state, 4, "x", {})
    with pytest.raises(IllegalAction):
        GAME.seat(state, 0, "x", {})
    with pytest.raises(IllegalAction):
        GAME.apply(state, 0, {"kind": "nolo"})  # no round yet
    with pytest.raises(MalformedAction):
        GAME.seat(GAME.create(GAME.validate_settings({})), 0, "x", {"buy_in": 5})
    chances: list[Any] = [{}, {"deck": "AsAs"}, {"deck": "2c" * 52}, {"deck": 5}, []]
    for chance in chances:
        with pytest.raises(MalformedAction):
            GAME.start_round(state, chance)
    start(state, SPLIT)
    before = GAME.dump(state)
    for seat, action in [(0, {"kind": "play", "card": "2c"}), (0, {"kind": "rami", "x": 1}),
                         (0, {"kind": "bid"}), (0, "nolo"), (7, {"kind": "nolo"})]:
        with pytest.raises(EngineError):
            GAME.apply(state, seat, action)  # type: ignore[arg-type]
    with pytest.raises(IllegalAction):
        GAME.start_round(state, GAME.draw_chance(state, random.Random(1)))
    assert GAME.dump(state) == before
    settings: list[Any] = [{"round_limit": 10}, {"round_limit": "15"}, {"seats": 4}, []]
    for data in settings:
        with pytest.raises(MalformedAction):
            GAME.validate_settings(data)


def test_info_settings_and_listing() -> None:
    game = TuppiGame()
    info = game.info
    assert (info.key, info.title, info.min_players, info.max_players, info.teams,
            info.economy, info.ends) == ("tuppi", "Tuppi", 4, 4, 2, False, True)
    assert game.settings_schema()["properties"]["round_limit"]["enum"] == [0, 15, 24]
    assert game.listing(game.validate_settings({})).name == "Tuppi"
    assert game.display_name(game.validate_settings({"round_limit": 24})) == (
        "Tuppi, 24-round limit")
    assert game.settings_json(game.validate_settings({})) == {"round_limit": 0}


def test_prepare_round_seats_players_and_places_the_dealer() -> None:
    state = GAME.create(GAME.validate_settings({}))
    GAME.prepare_round(state, ["w", "x", "y", "z"], dealer=2)
    start(state, SPLIT)
    view = GAME.view(state, Viewer.spectator())
    assert view["round"]["dealer"] == 2 and [s["player_id"] for s in view["seats"]] == list(
        "wxyz")
    with pytest.raises(IllegalAction):
        GAME.prepare_round(state, ["w", "x", "y", "z"])


def test_the_move_descriptors() -> None:
    state = table(dealer=3)
    start(state, SPLIT)
    assert GAME.legal_moves(state, 0) == [
        {"kind": "rami", "label": "Rami (we take 7 tricks)"}, {"kind": "nolo", "label": "Nolo"}]
    assert GAME.legal_actions(state, 0) == {"moves": GAME.legal_moves(state, 0)}
    bid(state, {s: "nolo" for s in range(4)})
    assert GAME.legal_moves(state, 1) == []
    assert GAME.legal_moves(state, 0) == [{"kind": "play", "label": "Play a card", "params": {
        "card": {"type": "choice", "options": [SPLIT[0][i:i + 2] for i in range(0, 26, 2)]}}}]
    view = decision_view(GAME, state, 0)
    assert view["seat"] == 0 and view["moves"] == GAME.legal_moves(state, 0)
    assert view["round"]["players"][0]["cards"] == SPLIT[0]


def test_status_keys_change_with_every_decision() -> None:
    rng = random.Random(5)
    state = table()
    start(state, SPLIT)
    keys = [GAME.status(state).decision]
    while GAME.to_act(state):
        seat = GAME.to_act(state)[0]
        GAME.apply(state, seat, random_move(GAME.legal_moves(state, seat), rng))
        status = GAME.status(state)
        if status.to_act:
            keys.append(status.decision)
            assert status.round == 1 and status.to_act == GAME.to_act(state)
    distinct = [k for i, k in enumerate(keys) if i == 0 or keys[i - 1] != k]
    assert len(distinct) == len(set(distinct))
    assert keys[:4] == ["1:bid"] * 4
    assert GAME.status(state).round is None
