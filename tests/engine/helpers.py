"""Small helpers shared by the engine tests."""

from __future__ import annotations

from engine.cards import Card, parse_cards, standard_deck


def deck_with(*holes: str, board: str = "") -> list[Card]:
    """A deck dealing the given hole cards (position order) and board, rest in fixed order."""
    front = [c for text in (*holes, board) for c in parse_cards(text)]
    rest = [c for c in standard_deck() if c not in front]
    if not board:
        return front + rest
    hole_cards = front[: 2 * len(holes)]
    board_cards = front[2 * len(holes) :]
    return hole_cards + board_cards + rest
