"""Hold'em's fast decision views: :meth:`HoldemGame.view_maker` and the move descriptors.

:class:`HoldemViews` is :func:`engine.game.decision_view` for one Hold'em table
whose settings never change (batch matches build one view per decision). It
caches the settings' JSON and the table name, which the projection would rebuild
on every call, and works out the legal actions once for ``legal`` and ``moves``;
the hand goes through the one projection (:func:`engine.projection.project_hand`).
Its result is equal to ``decision_view``'s (tested on thousands of random
situations).

>>> from engine.cards import seeded_deck
>>> from engine.game import decision_view
>>> from engine.poker import HoldemGame
>>> game = HoldemGame()
>>> state = game.create(game.validate_settings({"structure": "NL", "seats": 3}))
>>> for seat in range(3):
...     _ = game.seat(state, seat, f"p{seat}", {"buy_in": 200})
>>> _ = state.start_hand(seeded_deck(2))
>>> views = HoldemViews(state)
>>> all(views(state, seat, 9.5) == decision_view(game, state, seat, 9.5) for seat in range(3))
True
>>> [m["label"] for m in views(state, state.to_act_seat)["moves"]]
['Fold', 'Call 2', 'Raise to']
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.betting import NO_ACTIONS, LegalActions
from engine.game import Json, Viewer, subset
from engine.projection import project_hand
from engine.table import TableState

__all__ = ["HoldemViews", "legal_moves"]


def legal_moves(legal: LegalActions, cards: Sequence[str] = ()) -> list[Json]:
    """The generic descriptors of :mod:`engine.game` for these legal actions: fold,
    check, call, bet or raise to an ``amount`` (a ``number``), show, muck; stud's
    ``bring_in``; a draw's ``cards`` (a ``subset`` of the player's ``cards``: none is
    standing pat)."""
    moves: list[Json] = []
    if legal.draw is not None:
        moves.append({"kind": "draw", "label": "Draw",
                      "params": {"cards": subset(list(cards), 0, legal.draw)}})
        return moves
    if legal.bring_in is not None:
        moves.append({"kind": "bring_in", "label": f"Bring in {legal.bring_in}"})
    if legal.can_fold:
        moves.append({"kind": "fold", "label": "Fold"})
    if legal.can_check:
        moves.append({"kind": "check", "label": "Check"})
    call = legal.call_amount
    if call is not None:
        moves.append({"kind": "call", "label": f"Call {call}"})
    kind = legal.sized_kind
    if kind is not None:
        completing = legal.bring_in is not None
        label = "Complete to" if completing else "Bet" if kind == "bet" else "Raise to"
        moves.append({"kind": kind, "label": label,
                      "params": {"amount": {"type": "number", "min": legal.min_raise_to,
                                            "max": legal.max_raise_to}}})
    if legal.can_show:
        moves.append({"kind": "show", "label": "Show"})
    if legal.can_muck:
        moves.append({"kind": "muck", "label": "Muck"})
    return moves


class HoldemViews:
    """``(state, seat, time_left=None) -> decision_view(...)`` for tables with the
    settings of the ``TableState`` it was made from (an :class:`engine.game.ViewFn`)."""

    __slots__ = ("name", "settings")

    def __init__(self, state: TableState) -> None:
        self.name = state.name
        self.settings = state.settings.to_json()

    def __call__(self, state: TableState, seat: int, time_left: float | None = None) -> Json:
        """The ``your_turn`` view of ``state`` for ``seat``."""
        hand = state.hand
        actor = None if hand is None else hand.actor
        to_act = None if actor is None else state.positions[actor]
        # state.legal_actions(seat), without working out the actor twice
        actions = hand.legal_actions() if to_act == seat and hand is not None else NO_ACTIONS
        legal = actions.to_json()
        view: Json = {
            "name": self.name,
            "settings": dict(self.settings),
            "button": state.button,
            "hand_number": state.hand_number,
            "seats": [None if s is None else {"seat": i, "player_id": s.player_id,
                                              "stack": s.stack, "status": s.status}
                      for i, s in enumerate(state.seats)],
            "to_act_seat": to_act,
            "hand": None if hand is None else project_hand(hand, Viewer.of(seat),
                                                           state.positions),
            "seat": seat,
            "legal": legal,
            "moves": legal_moves(actions, [str(c) for c in hand.holes[actor]]
                                 if actions.draw is not None and hand is not None
                                 and actor is not None else ()),
            "time_left": time_left,
        }
        return view
