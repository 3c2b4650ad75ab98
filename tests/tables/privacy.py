"""Checks that a viewer never received a hole card it may not see."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

HIDDEN = "??"


def _walk(node: Any) -> Iterator[dict[str, Any]]:
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from _walk(value)


def card_sightings(messages: list[dict[str, Any]]) -> Iterator[tuple[int, str, str]]:
    """(seat, cards, kind) for every object that shows a seat's hole cards."""
    for message in messages:
        for node in _walk(message):
            cards = node.get("cards")
            player = node.get("player")
            if not isinstance(cards, str) or not isinstance(player, int):
                continue
            kind = node.get("type", "player")
            if kind == "BoardDealt":
                continue
            yield player, cards, kind


def assert_private(messages: list[dict[str, Any]], own_seats: set[int]) -> int:
    """No hole card of a seat outside ``own_seats`` unless it was shown (CardsShown).
    Returns how many foreign hidden card sets were checked."""
    shown = {(seat, cards) for seat, cards, kind in card_sightings(messages)
             if kind == "CardsShown"}
    checked = 0
    for seat, cards, kind in card_sightings(messages):
        if seat in own_seats or kind == "CardsShown":
            continue
        if HIDDEN in cards:
            assert set(cards) == {"?"}, f"partly hidden cards {cards!r}"
            checked += 1
            continue
        assert (seat, cards) in shown, f"leaked hole cards {cards} of seat {seat} ({kind})"
    for message in messages:
        assert "deck" not in message and all("deck" not in n for n in _walk(message))
    return checked


def dealt_cards(messages: list[dict[str, Any]]) -> list[tuple[int, str]]:
    return [(seat, cards) for seat, cards, kind in card_sightings(messages)
            if kind == "HoleCardsDealt"]
