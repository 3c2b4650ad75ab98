"""Issue 15: poker settings refuse blinds out of order and a buy-in below the big blind."""

from __future__ import annotations

from typing import Any

import pytest

from engine.errors import EngineError
from engine.registry import get_game
from engine.table import TableSettings, TableState


@pytest.mark.parametrize(("settings", "code", "words"), [
    ({"structure": "NL", "small_blind": 3, "big_blind": 2}, "bad_blinds",
     ("small_blind", "3", "big_blind", "2")),
    ({"structure": "NL", "small_blind": 2, "big_blind": 2}, "bad_blinds",
     ("small_blind", "big_blind")),
    ({"structure": "FL", "small_blind": 5, "big_blind": 5}, "bad_blinds", ("small_blind",)),
    ({"structure": "NL", "small_blind": 1, "big_blind": 2, "min_buy_in": 1},
     "buy_in_below_big_blind", ("min_buy_in", "1", "big_blind", "2")),
    ({"structure": "NL", "small_blind": 5, "big_blind": 10, "min_buy_in": 9,
      "max_buy_in": 50}, "buy_in_below_big_blind", ("min_buy_in",)),
])
def test_holdem_refuses_blinds_out_of_order_and_tiny_buy_ins(
        settings: dict[str, Any], code: str, words: tuple[str, ...]) -> None:
    with pytest.raises(EngineError) as info:
        get_game("holdem").validate_settings(settings)
    assert info.value.code == code
    for word in words:
        assert word in info.value.reason, info.value.reason


def test_stud_refuses_a_buy_in_below_the_small_bet() -> None:
    with pytest.raises(EngineError) as info:
        get_game("stud").validate_settings({"big_blind": 10, "min_buy_in": 5})
    assert info.value.code == "buy_in_below_big_blind"
    assert "small bet" in info.value.reason


@pytest.mark.parametrize("settings", [
    {"structure": "NL", "small_blind": 1, "big_blind": 2, "min_buy_in": 2},
    {"structure": "NL", "small_blind": 2, "big_blind": 5},
    {"structure": "FL", "small_blind": 1, "big_blind": 2},
])
def test_sensible_settings_are_accepted(settings: dict[str, Any]) -> None:
    get_game("holdem").validate_settings(settings)


def test_stud_small_bet_of_one_is_accepted() -> None:
    """Games without blinds have no small blind to order."""
    get_game("stud").validate_settings({"big_blind": 1, "bring_in": 1})


def test_a_table_stored_before_the_stricter_rules_still_loads() -> None:
    """Only new tables are held to them: a stored table with SB = BB and a buy-in below
    the big blind (allowed before) loads and plays on."""
    old = TableSettings(structure="NL", small_blind=2, big_blind=2, min_buy_in=1)
    state = TableState(old)
    again = TableState.from_json(state.to_json())
    assert again.settings == old
    with pytest.raises(EngineError) as info:
        old.check_new_table()
    assert info.value.code == "bad_blinds"
