"""agents.render: a bot's view as text, per game and the generic fallback (no server)."""

from __future__ import annotations

from typing import Any

from agents.render import describe_move, render


def snapshot(game: str, state: dict[str, Any], seats: list[Any], me: list[int]) -> dict[str, Any]:
    return {"table": 3, "version": 7, "hand": 11, "state": state, "seats": seats,
            "you": {"seats": me}, "turn": {"seat": 0},
            "info": {"name": "T", "game": game, "game_name": game.title(),
                     "turn_seconds": 60, "status": "running"}}


def test_moves_show_their_parameters() -> None:
    assert describe_move({"kind": "raise", "label": "Raise to", "params": {
        "amount": {"type": "number", "min": 4, "max": 200}}}) \
        == "- raise (Raise to): amount=4..200"
    assert describe_move({"kind": "play", "label": "Play a card", "params": {
        "card": {"type": "choice", "options": ["9c", "Tc"]}}}) \
        == '- play (Play a card): card one of ["9c","Tc"]'
    assert "0-4 distinct of [0,1,2,3,4]" in describe_move({"kind": "roll", "params": {
        "hold": {"type": "subset", "items": [0, 1, 2, 3, 4], "min": 0, "max": 4}}})


def test_poker_view_with_hud_and_turn() -> None:
    state = {"button": 1, "hand": {"street": "flop", "board": "9sQs4s", "actor": 1,
                                   "is_over": False,
                                   "pots": [{"amount": 10, "eligible": [0, 1]}],
                                   "players": [
                                       {"player": 0, "position": 0, "stack": 90, "bet": 2,
                                        "folded": False, "cards": "????"},
                                       {"player": 1, "position": 1, "stack": 95, "bet": 0,
                                        "folded": False, "cards": "AhKh"}]}}
    seats = [{"seat": 0, "name": "House", "stack": 100, "state": "playing"},
             {"seat": 1, "name": "Me", "stack": 100, "state": "playing"}]
    turn = {"seat": 1, "time_left": 55.0, "view": state,
            "moves": [{"kind": "fold", "label": "Fold"},
                      {"kind": "call", "label": "Call 2"}]}
    text = render(snapshot("holdem", state, seats, [1]), turn,
                  {"House": {"hands": 40, "vpip": 0.25, "pfr": 0.1, "af": 2.0}})
    assert "Board: 9sQs4s  Pot: 10" in text
    assert "seat 1 Me (button): stack 95, bet 0, cards AhKh [YOU, to act]" in text
    assert "[HUD 40 hands: VPIP 25%, PFR 10%, AF 2.0]" in text
    assert "YOUR TURN" in text and "- call (Call 2)" in text


def test_dice_tuppi_and_generic_views() -> None:
    dice = {"rules": {"combinations": [{"id": "ones"}, {"id": "chance"}]},
            "sheets": [{"seat": 0, "boxes": [None, 12], "total": 12}],
            "turn": {"seat": 0, "dice": [1, 1, 3], "roll": 1, "rolls_left": 2,
                     "scores": [2, None]}}
    text = render(snapshot("dice", dice, [{"seat": 0, "name": "Me"}], [0]), None)
    assert "open boxes ones" in text and "dice [1, 1, 3]" in text and "ones=2" in text
    tuppi = {"score": [0, 1], "teams": [[0, 2], [1, 3]],
             "round": {"phase": "play", "mode": "rami", "declarer": 1, "dealer": 0,
                       "team_tricks": [0, 0],
                       "players": [{"player": 1, "team": 1, "count": 2, "cards": "9cTc",
                                    "bid": "rami", "tricks": 0}],
                       "trick": [{"player": 0, "card": "2s"}], "tricks": []}}
    text = render(snapshot("tuppi", tuppi, [None, {"seat": 1, "name": "Me"}], [1]), None)
    assert "phase play, mode rami" in text and "cards 9cTc" in text
    assert "Current trick: seat 0 2s" in text
    text = render(snapshot("kuhn", {"pot": 2, "secret": "x" * 5000}, [], []), None)
    assert "Game view (JSON)" in text and len(text) < 3500
    assert "You are not seated here." in text
