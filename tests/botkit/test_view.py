"""make_view is the engine projection for the seat plus legal actions, time and seat."""

from __future__ import annotations

import random

from botkit.view import View, make_view
from engine.actions import Action
from engine.cards import parse_cards, seeded_deck
from engine.projection import Viewer, project_table
from engine.table import TableSettings, TableState


def _table(structure: str = "NL", players: int = 3) -> TableState:
    table = TableState(TableSettings(structure=structure, small_blind=1, big_blind=2,
                                     seats=players))
    for seat in range(players):
        table.sit(seat, f"p{seat}", 200)
    table.start_hand(seeded_deck(4))
    return table


def test_make_view_is_projection_plus_legal() -> None:
    table = _table()
    rng = random.Random(1)
    while (seat := table.to_act_seat) is not None:
        view = make_view(table, seat, time_left=12.5)
        expected = project_table(table, Viewer.of(seat))
        expected["legal"] = table.legal_actions(seat).to_json()
        expected["time_left"] = 12.5
        expected["seat"] = seat
        assert view == expected
        other = (seat + 1) % 3
        assert make_view(table, other)["legal"]["can_fold"] is False
        legal = table.legal_actions(seat)
        choices = [a for a in legal]
        table.act(seat, rng.choice(choices))


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
    table.act(seat, Action.call())
    assert View(make_view(table, seat)).to_call == 0
    assert parse_cards("AsKd") == View({"seat": 0, "hand": {"players": [
        {"player": 0, "cards": "AsKd"}]}}).hole_cards
