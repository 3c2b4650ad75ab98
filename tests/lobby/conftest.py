"""Fixtures for the lobby tests: the test-only dice game (it ends, its one listing
fact is ``target``) registered for the test."""

from __future__ import annotations

import pytest

from engine.game import Game
from engine.registry import GAMES
from tests.lobby.helpers import DiceRace


@pytest.fixture
def dice(monkeypatch: pytest.MonkeyPatch) -> Game:
    game = DiceRace()
    monkeypatch.setitem(GAMES, game.info.key, game)
    return game
