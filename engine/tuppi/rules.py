"""Tuppi's rules as small pure functions: seats, the deal, tricks, scoring.

Seats ``0..3`` sit clockwise around the table and play goes clockwise, so the
player after seat ``s`` (the one to ``s``'s **left**) is ``s + 1``, and the player
to ``s``'s **right** is ``s - 1`` (``s + 3``). Partners sit opposite: team 0 is
seats 0 and 2, team 1 is seats 1 and 3.

>>> left_of(3), right_of(0), team_of(2), partner_of(1)
(0, 3, 0, 3)

Cards are :class:`engine.cards.Card` values (``rank * 4 + suit``; ace high), so
the *lowest* card of a set is simply its ``min``: the lowest rank, a tie broken in
the suit order clubs, diamonds, hearts, spades.

>>> from engine.cards import parse_cards
>>> hand = list(parse_cards("AsKd2h7c"))
>>> [str(c) for c in legal_cards(hand, parse_cards("5d"))]  # must follow diamonds
['Kd']
>>> str(lowest(legal_cards(hand, parse_cards("Tc9c")))), trick_winner(1, parse_cards("5d9dAs2d"))
('7c', 2)

Scoring (docs/tuppi.md): ``round_points(mode, declarer_team, tricks)`` is the team
that scores and its points; :func:`settle` applies them to the board.

>>> round_points("rami", 0, (8, 5)), round_points("rami", 0, (5, 8))
((0, 8), (1, 16))
>>> round_points("nolo", None, (4, 9)), round_points("nolo", None, (5, 5))
((0, 12), None)
>>> settle((12, 0), 0, 8), settle((12, 0), 1, 4), settle((48, 0), 0, 4), settle((0, 0), 1, 4)
(((20, 0), 'rise'), ((0, 0), 'reset'), ((52, 0), 'tuppi'), ((0, 4), 'rise'))
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from engine.cards import Card

C = TypeVar("C", bound=int)
"""A card: :class:`~engine.cards.Card` or its plain ``int`` (as stored in a state)."""

__all__ = [
    "BID_KINDS", "DECLARER_POINTS", "DEFENDER_POINTS", "NOLO_POINTS", "SEATS", "TARGET",
    "TRICKS", "deal", "decided", "face_points", "left_of", "legal_cards", "lowest",
    "partner_of", "right_of", "round_points", "scorer", "settle", "sort_hand", "team_of",
    "trick_winner", "up_team",
]

SEATS = 4
TRICKS = 13
TARGET = 52
"""Points that make a tuppi (the game is won at this many or more)."""
DECLARER_POINTS = 4
"""Rami: the declaring team's points per trick beyond six."""
DEFENDER_POINTS = 8
"""Rami: the defenders' points per trick beyond six."""
NOLO_POINTS = 4
"""Nolo: the team with fewer tricks scores this per trick the other team took beyond six."""
BID_KINDS = ("rami", "nolo")


def left_of(seat: int) -> int:
    """The next player clockwise: the one who plays after ``seat``."""
    return (seat + 1) % SEATS


def right_of(seat: int) -> int:
    """The player who plays just before ``seat``."""
    return (seat + SEATS - 1) % SEATS


def team_of(seat: int) -> int:
    """0 for seats 0 and 2, 1 for seats 1 and 3."""
    return seat % 2


def partner_of(seat: int) -> int:
    """The seat opposite."""
    return (seat + 2) % SEATS


def deal(deck: Sequence[Card], dealer: int) -> list[list[Card]]:
    """The four hands (by seat) of a 52-card ``deck`` dealt one card at a time,
    starting with the player to the dealer's left: ``deck[k]`` goes to seat
    ``dealer + 1 + k`` (mod 4). Each hand is sorted (:func:`sort_hand`)."""
    hands: list[list[Card]] = [[] for _ in range(SEATS)]
    for k, card in enumerate(deck):
        hands[(dealer + 1 + k) % SEATS].append(card)
    return [sort_hand(hand) for hand in hands]


def sort_hand(cards: Sequence[C]) -> list[C]:
    """Grouped by suit (clubs, diamonds, hearts, spades), low to high in each."""
    return sorted(cards, key=lambda c: (c & 3, c))


def lowest(cards: Sequence[C]) -> C:
    """The lowest card: lowest rank, ties in the suit order c < d < h < s."""
    return min(cards)


def legal_cards(hand: Sequence[C], trick: Sequence[int]) -> list[C]:
    """The cards of ``hand`` that may go to ``trick`` (the cards played to it so far,
    in order): the led suit if the hand has it, else anything."""
    if not trick:
        return list(hand)
    led = trick[0] & 3
    same = [c for c in hand if c & 3 == led]
    return same or list(hand)


def trick_winner(leader: int, cards: Sequence[int]) -> int:
    """The seat that wins a complete trick led by ``leader``: the highest card of the
    led suit (no trumps)."""
    led = cards[0] & 3
    best = max(range(len(cards)), key=lambda i: cards[i] if cards[i] & 3 == led else -1)
    return (leader + best) % SEATS


def scorer(mode: str, declarer_team: int | None, tricks: Sequence[int]) -> int | None:
    """The team that scores this round, once it is certain (``None`` before).

    Rami: the team that takes seven tricks (declarers or defenders). Nolo: the team
    that did **not** take seven tricks."""
    for team in (0, 1):
        if tricks[team] >= 7:
            return team if mode == "rami" else 1 - team
    return None


def round_points(mode: str, declarer_team: int | None,
                 tricks: Sequence[int]) -> tuple[int, int] | None:
    """``(team, points)`` the tricks so far are worth, or ``None`` while no team has
    seven tricks. Rami: 4 per trick beyond six for the declarers, 8 for the
    defenders; nolo: 4 per trick the other team took beyond six."""
    team = scorer(mode, declarer_team, tricks)
    if team is None:
        return None
    if mode == "rami":
        per = DECLARER_POINTS if team == declarer_team else DEFENDER_POINTS
        return team, per * (tricks[team] - 6)
    return team, NOLO_POINTS * (tricks[1 - team] - 6)


def up_team(score: Sequence[int]) -> int | None:
    """The team that has points (is "up"), or ``None`` at 0–0."""
    if score[0] > 0:
        return 0
    if score[1] > 0:
        return 1
    return None


def settle(score: Sequence[int], team: int, points: int) -> tuple[tuple[int, int], str]:
    """The board after ``team`` scores ``points``, and what happened: ``"reset"``
    (the other team was up: back to 0–0), ``"tuppi"`` (52 or more) or ``"rise"``."""
    up = up_team(score)
    if up is not None and up != team:
        return (0, 0), "reset"
    new = [score[0], score[1]]
    new[team] += points
    return (new[0], new[1]), "tuppi" if new[team] >= TARGET else "rise"


def decided(mode: str, declarer_team: int | None, tricks: Sequence[int],
            score: Sequence[int]) -> bool:
    """True once the rest of the round cannot change what it does to the game: the
    scoring team is known and either the other team is up (the board returns to
    0–0 whatever happens) or the scorer already has 52 with the points it has
    secured (a tuppi whatever happens). Always true after the 13th trick."""
    if tricks[0] + tricks[1] >= TRICKS:
        return True
    got = round_points(mode, declarer_team, tricks)
    if got is None:
        return False
    team, points = got
    up = up_team(score)
    return (up is not None and up != team) or score[team] + points >= TARGET


FACE_POINTS = {12: 4, 11: 3, 10: 2, 9: 1}  # rank index (A=12) -> points


def face_points(cards: Sequence[int]) -> int:
    """The assignment's rule of thumb: A=4, K=3, Q=2, J=1 (consider rami at 14+)."""
    return sum(FACE_POINTS.get(c >> 2, 0) for c in cards)
