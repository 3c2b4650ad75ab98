"""The contract's offline methods (to_act, view_maker, prepare_round, round_summary):
their defaults on games that do not override them, and Hold'em's overrides; the
fast deck parse."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine.cards import CARDS, format_cards, parse_cards, standard_deck
from engine.errors import MalformedAction
from engine.game import Game, RoundEnded, decision_view
from engine.registry import get_game
from tests.botkit.toy_games import Coin, Throw, state_of


def test_to_act_defaults_to_status() -> None:
    game = Throw()  # a simultaneous decision: both seats at once
    state = state_of(game)
    assert game.to_act(state) == () == game.status(state).to_act
    game.start_round(state, {})
    assert game.to_act(state) == (0, 1) == game.status(state).to_act
    game.apply(state, 1, {"kind": "throw", "sign": "paper"})
    assert game.to_act(state) == (0,)


def test_view_maker_defaults_to_decision_view() -> None:
    game = Throw()
    state = state_of(game)
    game.start_round(state, {})
    make = game.view_maker(state)
    for seat in (0, 1):
        assert make(state, seat) == decision_view(game, state, seat)
        assert make(state, seat, 3.5)["time_left"] == 3.5
    assert make(state, 0)["moves"][0]["params"]["sign"]["type"] == "choice"


def test_prepare_round_default_reseats_only_what_changed() -> None:
    game = Coin()
    state = state_of(game, 3, buy_in=5)
    game.away(state, 2)
    before = [dict(s) for s in state["seats"]]
    game.prepare_round(state, ["p0", "p1", "p2"], [5, 5, 5], dealer=1)  # dealer: ignored
    assert state["seats"][:2] == before[:2]  # untouched
    assert state["seats"][2]["away"] is False  # came back
    game.prepare_round(state, ["p1", "p2", "p0"], [7, 8, 9])  # a rotation
    assert [(s["id"], s["chips"]) for s in state["seats"]] == [("p1", 7), ("p2", 8), ("p0", 9)]
    game.prepare_round(state, ["p1", "p2", "p0"])  # no chips: nobody moves, stacks stay
    assert [s["chips"] for s in state["seats"]] == [7, 8, 9]
    game.prepare_round(state, ["p1", "x", "p0"], options={"buy_in": 2})
    assert [(s["id"], s["chips"]) for s in state["seats"]] == [("p1", 7), ("x", 2), ("p0", 9)]


def test_prepare_round_default_uses_the_default_seat_options() -> None:
    class Defaults(Coin):
        def default_seat_options(self, state: Any) -> dict[str, Any]:
            return {"buy_in": 4}

    game = Defaults()
    state = game.create(game.validate_settings({"seats": 2}))
    game.prepare_round(state, ["a", "b"])
    assert [(s["id"], s["chips"]) for s in state["seats"]] == [("a", 4), ("b", 4)]


def test_prepare_round_default_refuses_chips_it_cannot_give() -> None:
    game = Throw()  # no buy_in among its seat options
    state = state_of(game)
    game.prepare_round(state, ["p1", "p0"])
    assert [s["id"] for s in state["seats"]] == ["p1", "p0"]
    with pytest.raises(NotImplementedError, match="override prepare_round"):
        game.prepare_round(state, ["p0", "p1"], [10, 10])


def test_round_summary_defaults_to_the_public_results() -> None:
    game = Throw()
    state = state_of(game)
    game.start_round(state, {})
    game.apply(state, 0, {"kind": "throw", "sign": "rock"})
    events = game.apply(state, 1, {"kind": "throw", "sign": "paper"})
    ended = events[-1]
    assert isinstance(ended, RoundEnded)
    assert game.round_summary(state, ended) == {"results": [
        {"seat": 0, "player_id": "p0", "net": 0, "score": -1, "detail": {}},
        {"seat": 1, "player_id": "p1", "net": 0, "score": 1, "detail": {}}]}


def test_holdem_overrides_every_offline_method() -> None:
    holdem = type(get_game("holdem"))
    for name in ("to_act", "view_maker", "prepare_round", "round_summary"):
        assert getattr(holdem, name) is not getattr(Game, name), name
    for name in ("to_act", "view_maker", "prepare_round", "round_summary"):
        assert getattr(Throw, name) is getattr(Game, name), name


def test_holdem_prepare_round_moves_the_button_on_a_larger_table() -> None:
    game = get_game("holdem")
    state = game.create(game.validate_settings({"seats": 6}))
    for dealer in range(4):
        game.prepare_round(state, ["a", "b", "c", "d"], [200] * 4, dealer=dealer)
        game.start_round(state, game.draw_chance(state, random.Random(dealer)))
        assert state.button == dealer
        while game.to_act(state):
            game.timeout(state)


# ------------------------------------------------------------------ deck parse


def test_parse_cards_round_trips_every_deck() -> None:
    rng = random.Random(1)
    deck = standard_deck()
    assert parse_cards(format_cards(deck)) == CARDS
    for _ in range(200):
        rng.shuffle(deck)
        text = format_cards(deck)
        assert parse_cards(text) == tuple(deck)
        assert parse_cards(" ".join(text[i:i + 2] for i in range(0, 104, 2))) == tuple(deck)
    assert parse_cards("") == ()


@pytest.mark.parametrize("text", ["A", "AsK", "AsKx", "asKd", "1s", "??", "As\tKd"])
def test_parse_cards_refuses_what_is_not_cards(text: str) -> None:
    with pytest.raises(MalformedAction) as error:
        parse_cards(text)
    assert error.value.code == "bad_card"


def test_holdem_start_round_refuses_a_bad_deck() -> None:
    game = get_game("holdem")
    state = game.create(game.validate_settings({"seats": 2}))
    game.prepare_round(state, ["a", "b"], [100, 100])
    for chance in ({"deck": "AsAs" + format_cards(standard_deck())[4:]}, {"deck": "AsKx"},
                   {"deck": 7}, {}):
        with pytest.raises(MalformedAction):
            game.start_round(state, chance)


def test_holdem_start_round_reads_only_the_cards_it_can_deal() -> None:
    """Two per seat and five for the board, as Hand.start: the same hand from the
    whole deck, from those cards alone, or with spaces."""
    game = get_game("holdem")
    logs = []
    text = format_cards(standard_deck()[::-1])
    for deck in (text, text[:2 * (2 * 3 + 5)], " ".join(text[i:i + 2] for i in range(0, 104, 2))):
        state = game.create(game.validate_settings({"seats": 3}))
        game.prepare_round(state, ["a", "b", "c"], [100, 100, 100])
        events = game.start_round(state, {"deck": deck})
        while game.to_act(state):
            events += game.timeout(state)
        logs.append([e.to_json() for e in events])
    assert logs[0] == logs[1] == logs[2]
    state = game.create(game.validate_settings({"seats": 3}))
    game.prepare_round(state, ["a", "b", "c"], [100, 100, 100])
    with pytest.raises(MalformedAction, match="distinct cards"):
        game.start_round(state, {"deck": text[:2 * 10]})
