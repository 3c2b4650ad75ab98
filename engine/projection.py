"""What one viewer may see: the only road from engine state to a client.

A :class:`Viewer` controls a set of players (hand positions, or seats at a
table), or is a spectator (none), or is omniscient (the superuser). The deck
never leaves the engine; a hole card the viewer may not see becomes ``"??"``.

>>> from engine.cards import standard_deck
>>> from engine.poker.hand import Hand, HandSetup
>>> hand, events = Hand.start(HandSetup(stacks=(100, 100), blinds=(1, 2)), standard_deck())
>>> [project_event(e, Viewer.spectator())["cards"] for e in events if e.type == "HoleCardsDealt"]
['????', '????']
>>> project_hand(hand, Viewer.of(1))["players"][1]["cards"]
'2h2s'
>>> "legal_actions" in project_hand(hand, Viewer.of(0))
False
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from engine.cards import HIDDEN, format_cards
from engine.events import Event, HoleCardsDealt
from engine.game import Viewer

__all__ = ["Viewer", "project_event", "project_hand", "project_table"]

if TYPE_CHECKING:
    from engine.poker.hand import Hand
    from engine.table import TableState


def project_event(event: Event, viewer: Viewer) -> dict[str, Any] | None:
    """The event as this viewer may see it; hidden hole cards read ``"??"``.

    Returns ``None`` for a private event that has no public form.
    """
    if viewer.can_see(event.audience):
        return event.to_json()
    if isinstance(event, HoleCardsDealt):
        return {"type": event.type, "player": event.player, "cards": HIDDEN * len(event.cards)}
    return None


def project_hand(
    hand: Hand, viewer: Viewer, labels: Sequence[int] | None = None
) -> dict[str, Any]:
    """The hand for this viewer. ``labels`` maps positions to seats (table use):
    then ``viewer`` speaks seats and every ``player`` in the output is a seat.

    A card reads ``"??"`` unless the viewer may see the player, the player showed, or
    it was dealt face up (stud: ``up`` flags each card). In draw games ``draws``
    lists how many cards the player drew at each draw (public).
    """
    label = list(labels) if labels is not None else list(range(hand.n))
    holes, ups = hand.holes, hand.up
    stud, draws = hand.variant.stud, hand.variant.draws
    players = []
    for position in range(hand.n):
        hole = holes[position]
        if viewer.can_see(label[position]) or hand.shown[position]:
            cards = format_cards(hole)
        elif stud:
            cards = format_cards([c if u else None for c, u in zip(hole, ups[position],
                                                                     strict=True)])
        else:
            cards = HIDDEN * len(hole)
        player: dict[str, Any] = {
            "player": label[position],
            "position": position,
            "stack": hand.stacks[position],
            "bet": hand.bets[position],
            "folded": hand.folded[position],
            "cards": cards,
        }
        if stud:
            player["up"] = list(ups[position])
        if draws:
            player["draws"] = list(hand.drawn[position])
        players.append(player)
    actor = hand.actor
    data: dict[str, Any] = {
        "street": hand.street,
        "board": format_cards(hand.board),
        "pots": [{"amount": p.amount, "eligible": [label[i] for i in p.eligible]}
                 for p in hand.pots],
        "players": players,
        "actor": None if actor is None else label[actor],
        "is_over": hand.is_over,
    }
    if hand.drawing:
        data["drawing"] = True
    if actor is not None and label[actor] in viewer.players:
        data["legal_actions"] = hand.legal_actions().to_json()
    results = hand.results
    if results is not None:
        data["results"] = [
            {"player": label[r.position], "net": r.net, "won": r.won,
             "shown": None if r.shown is None else format_cards(r.shown), "hand": r.hand}
            for r in results
        ]
    return data


def project_table(table: TableState, viewer: Viewer) -> dict[str, Any]:
    """The table for this viewer (``viewer`` speaks seat numbers)."""
    seats = [
        None if s is None else {"seat": i, "player_id": s.player_id, "stack": s.stack,
                                "status": s.status}
        for i, s in enumerate(table.seats)
    ]
    hand = table.hand
    return {
        "name": table.name,
        "settings": table.settings.to_json(),
        "button": table.button,
        "hand_number": table.hand_number,
        "seats": seats,
        "to_act_seat": table.to_act_seat,
        "hand": None if hand is None else project_hand(hand, viewer, table.positions),
    }
