"""One bot view: make_view and ViewMaker are engine.game.decision_view for Hold'em."""

from __future__ import annotations

import random

from botkit.view import View, ViewMaker, make_view
from engine.actions import Action
from engine.cards import parse_cards, seeded_deck
from engine.game import check_move, decision_view, random_move
from engine.projection import Viewer, project_table
from engine.registry import get_game
from engine.table import TableSettings, TableState

HOLDEM = get_game("holdem")


def _table(structure: str = "NL", players: int = 3) -> TableState:
    table = TableState(TableSettings(structure=structure, small_blind=1, big_blind=2,
                                     seats=players))
    for seat in range(players):
        table.sit(seat, f"p{seat}", 200)
    table.start_hand(seeded_deck(4))
    return table


def test_make_view_is_decision_view() -> None:
    table = _table()
    rng = random.Random(1)
    while (seat := table.to_act_seat) is not None:
        view = make_view(table, seat, time_left=12.5)
        assert view == decision_view(HOLDEM, table, seat, 12.5)
        assert make_view(table, seat, 12.5) == view  # positional time_left
        assert make_view(HOLDEM, table, seat, time_left=12.5) == view  # any game's form
        expected = project_table(table, Viewer.of(seat))
        expected["legal"] = table.legal_actions(seat).to_json()
        expected["moves"] = HOLDEM.legal_moves(table, seat)
        expected["time_left"] = 12.5
        expected["seat"] = seat
        assert view == expected
        for move in view["moves"]:  # every descriptor is a legal action
            data = {"kind": move["kind"], **{name: param["min"] for name, param
                                             in move.get("params", {}).items()}}
            check_move(view["moves"], data)
            assert Action.from_json(data) in table.legal_actions(seat)
        other = (seat + 1) % 3
        assert make_view(table, other)["legal"]["can_fold"] is False
        assert make_view(table, other)["moves"] == []
        table.act(seat, rng.choice(list(table.legal_actions(seat))))


def test_view_maker_equals_decision_view_everywhere() -> None:
    """Random tables (FL/NL/PL, 2-10 seats, antes, stacks from 1 chip, showdowns): at
    every decision, for every seat, the cached maker gives decision_view's dict."""
    rng = random.Random(3)
    checked = 0
    for _ in range(120):
        seats = rng.randint(2, 10)
        big = rng.choice([2, 4])
        settings = HOLDEM.validate_settings({
            "structure": rng.choice(["NL", "PL", "FL"]), "small_blind": 1,
            "big_blind": big, "ante": rng.choice([0, 0, 1]), "seats": seats,
            "min_buy_in": big, "max_buy_in": None})
        state = HOLDEM.create(settings)
        for seat in range(seats):
            chips = rng.choice([1, 3, 50, 400, 2000])  # also stacks below the blinds
            HOLDEM.seat(state, seat, f"p{seat}", {"buy_in": max(chips, big)})
            occupant = state.seats[seat]
            assert occupant is not None
            occupant.stack = chips
        maker = ViewMaker(state)
        for _ in range(3):
            if not HOLDEM.can_start(state):
                break
            HOLDEM.start_round(state, HOLDEM.draw_chance(state, rng))
            while True:
                for seat in range(seats):
                    assert maker(state, seat, 2.0) == decision_view(HOLDEM, state, seat, 2.0)
                    checked += 1
                to_act = HOLDEM.status(state).to_act
                if not to_act:
                    break
                HOLDEM.apply(state, to_act[0], random_move(HOLDEM.legal_moves(state, to_act[0]),
                                                           rng))
    assert checked > 5000


def test_view_accessors() -> None:
    table = _table(players=3)
    seat = table.to_act_seat
    assert seat is not None
    view = View(make_view(table, seat))
    hand = table.hand
    assert hand is not None
    position = table.positions.index(seat)
    assert view.hole_cards == hand.hole_cards[position]
    assert view.board == ()
    assert view.position == "button" and view.n_players == 3  # 3-handed: the button acts first
    assert view.pot == 3 and view.to_call == 2 and view.current_bet == 2
    assert view.active_opponents == 2
    assert view.bet_or_raise(1) == {"kind": "raise", "amount": 4}
    assert view.bet_or_raise(10_000) == {"kind": "raise", "amount": 200}
    assert view.check_or_call() == {"kind": "call"}
    assert [m["kind"] for m in view.moves] == ["fold", "call", "raise"]
    table.act(seat, Action.call())
    assert View(make_view(table, seat)).to_call == 0
    assert parse_cards("AsKd") == View({"seat": 0, "hand": {"players": [
        {"player": 0, "cards": "AsKd"}]}}).hole_cards
    assert View({"seat": 0}).moves == []
