"""Replaying PHH hands through the engine.

The deck is rebuilt from the cards written in the file (the engine deals
position 0 the first two cards, then position 1, ..., then the board); unknown
cards (``??``) are filled with unused cards, except that cards a player shows
with ``sm`` are used for that player.  Player actions are applied one by one;
dealer actions are implied by the deck.

"Finishing stacks" follow pokerkit's reading of a file: the stacks after the
listed actions (chips bet on an unfinished street are not in them), plus what
happens automatically afterwards (uncalled bets returned, pots pushed).  A hand
that stops before the board of an all-in run-out is written leaves those pots
unawarded, as pokerkit does.  One deliberate difference: when a file stops at a
showdown without ``sm`` lines, the engine shows the hands whose cards the file
knows and awards the pots; pokerkit 0.7.7 turns every hand face down (``??``)
and splits the pot among them.  A hand kept face down (``sm ????``) or never
revealed cannot be evaluated: it is mucked, so it wins nothing (pokerkit
cannot evaluate it either).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.actions import Action
from engine.cards import Card, standard_deck
from engine.errors import EngineError
from engine.events import (
    BetPlaced,
    BoardDealt,
    PlayerCalled,
    PlayerChecked,
    PlayerFolded,
    PotAwarded,
    RaisePlaced,
)
from engine.holdem import Hand, HandSetup
from engine.phh.notation import DealBoard, DealHole, HandHistory, PlayerAction, Token

__all__ = ["STRUCTURES", "Replay", "ReplayError", "replay", "setup_for"]

STRUCTURES = {"NT": "NL", "FT": "FL", "PT": "PL"}
"""PHH variant code -> engine betting structure.  ``PT`` (pot-limit Texas hold'em)
is this project's own code: the PHH spec has none and says new variants get new
codes."""

_UNSUPPORTED = {"PO": "unsupported variant PO (Omaha not implemented yet)"}


class ReplayError(ValueError):
    """A hand the engine cannot replay, with the reason as its message."""


@dataclass(frozen=True)
class Replay:
    """The outcome of a replay: the engine hand and the finishing stacks in chips.

    ``finishing_stacks`` holds ``None`` for a player whose starting stack was
    ``inf`` (unknown) in the file.
    """

    hand: Hand
    finishing_stacks: tuple[int | None, ...]


def setup_for(history: HandHistory, stacks: tuple[int, ...]) -> HandSetup:
    """The engine's :class:`HandSetup` for a PHH hand (``stacks`` in chips).

    >>> from engine.phh.notation import loads
    >>> history = loads('''variant = 'FT'
    ... antes = [0, 0, 0]
    ... blinds_or_straddles = [1, 2, 0]
    ... small_bet = 2
    ... big_bet = 4
    ... starting_stacks = [50, 50, 50]
    ... actions = []''')
    >>> setup = setup_for(history, (50, 50, 50))
    >>> setup.structure, setup.min_bet, setup.big_bet, setup.cap_counts_blind
    ('FL', 2, 4, False)
    """
    variant = history.variant
    if variant in _UNSUPPORTED:
        raise ReplayError(_UNSUPPORTED[variant])
    structure = STRUCTURES.get(variant)
    if structure is None:
        raise ReplayError(f"unsupported variant {variant}")
    if structure == "FL":
        if history.small_bet is None or history.big_bet is None:
            raise ReplayError("a fixed-limit hand needs small_bet and big_bet")
        min_bet, big_bet = history.small_bet, history.big_bet
    else:
        if history.min_bet is None:
            raise ReplayError(f"a {variant} hand needs min_bet")
        min_bet, big_bet = history.min_bet, 0
    try:
        return HandSetup(
            structure=structure,
            stacks=stacks,
            blinds=history.blinds_or_straddles,
            antes=history.antes,
            min_bet=min_bet,
            big_bet=big_bet,
            cap_counts_blind=bool(history.fields.get("_cap_counts_blind", False)),
            ante_trimming=history.ante_trimming_status,
        )
    except EngineError as error:
        raise ReplayError(f"the engine rejects the setup: {error.reason}") from None


def _deck(
    history: HandHistory, tokens: list[Token]
) -> tuple[list[Card], int, list[tuple[str | None, ...]]]:
    """The deck for the engine, how many board cards the file wrote, the known holes."""
    count = history.player_count
    holes: list[list[str | None]] = [[None, None] for _ in range(count)]
    board: list[str | None] = []
    for token in tokens:
        if isinstance(token, DealHole):
            if not 0 <= token.player < count or len(token.cards) != 2:
                raise ReplayError(f"bad hole dealing to p{token.player + 1}")
            holes[token.player] = list(token.cards)
        elif isinstance(token, DealBoard):
            board.extend(token.cards)
    for token in tokens:
        if isinstance(token, PlayerAction) and token.verb == "sm" and token.cards:
            if len(token.cards) != 2 or not 0 <= token.player < count:
                raise ReplayError(f"bad shown cards for p{token.player + 1}")
            pairs = zip(holes[token.player], token.cards, strict=True)
            holes[token.player] = [dealt if dealt is not None else shown for dealt, shown in pairs]
    if len(board) > 5:
        raise ReplayError("more than five board cards")
    written_board = len(board)
    slots = [card for hole in holes for card in hole] + board + [None] * (5 - len(board))
    known: list[Card] = []
    try:
        known = [Card.parse(card) for card in slots if card is not None]
    except EngineError as error:
        raise ReplayError(error.reason) from None
    if len(set(known)) != len(known):
        raise ReplayError("a card is dealt twice")
    spare = iter(card for card in standard_deck() if card not in set(known))
    deck = [Card.parse(card) if card is not None else next(spare) for card in slots]
    return deck + list(spare), written_board, [tuple(hole) for hole in holes]


def _stack_substitutes(history: HandHistory) -> tuple[int, ...]:
    """Integer stacks; ``inf`` (unknown) becomes more chips than the hand can use."""
    finite = [stack for stack in history.starting_stacks if stack is not None]
    bets = [token.amount or 0 for token in history.tokens() if isinstance(token, PlayerAction)]
    enough = sum(finite) + sum(bets) + sum(history.blinds_or_straddles) + sum(history.antes) + 1
    return tuple(enough if stack is None else stack for stack in history.starting_stacks)


def _betting_action(hand: Hand, token: PlayerAction) -> Action:
    legal = hand.legal_actions()
    if token.verb == "f":
        return Action.fold()
    if token.verb == "cc":
        return Action.check() if legal.can_check else Action.call()
    assert token.amount is not None
    if token.amount <= 0:
        raise ReplayError(f"p{token.player + 1} cannot raise to {token.amount}")
    return Action.bet(token.amount) if legal.sized_kind == "bet" else Action.raise_to(token.amount)


def replay(history: HandHistory) -> Replay:
    """Replay one hand through the engine.

    >>> from engine.phh.notation import loads
    >>> history = loads('''variant = 'NT'
    ... antes = [0, 0]
    ... blinds_or_straddles = [1, 2]
    ... min_bet = 2
    ... starting_stacks = [100, 100]
    ... actions = ['d dh p1 AsKd', 'd dh p2 ????', 'p2 f']''')
    >>> replay(history).finishing_stacks
    (101, 99)
    """
    tokens = history.tokens()
    setup = setup_for(history, _stack_substitutes(history))
    deck, written_board, known_holes = _deck(history, tokens)
    try:
        hand, _events = Hand.start(setup, deck)
    except EngineError as error:
        raise ReplayError(f"the engine cannot start the hand: {error.reason}") from None
    decisions: dict[int, Action] = {}

    def holes_known(player: int) -> tuple[str | None, ...]:
        """The player's hole cards as the file knows them (dealt or shown)."""
        return known_holes[player] if 0 <= player < len(known_holes) else (None,)

    def settle_showdown(final: bool) -> None:
        """Answer the engine's show/muck questions from the file's ``sm`` lines."""
        while hand.actor is not None:
            legal = hand.legal_actions()
            if not (legal.can_show or legal.can_muck):
                return
            actor = hand.actor
            if actor in decisions:
                action = decisions.pop(actor)
            elif final:
                # The file stops before this decision: show the hand if the file knows it.
                known = None not in holes_known(actor)
                action = Action.show() if known and legal.can_show else Action.muck()
            else:
                return
            _apply(hand, action, actor)

    board_written = 0
    for token in tokens:
        if isinstance(token, DealBoard):
            board_written += len(token.cards)
            settle_showdown(final=False)
            if len(hand.board) < board_written and hand.actor is not None:
                raise ReplayError(
                    f"the file deals board cards while p{hand.actor + 1} is still to act"
                )
            continue
        if not isinstance(token, PlayerAction):
            continue
        if token.verb == "sm":
            # 'sm ????' (kept face down) cannot be evaluated: like pokerkit, it wins nothing.
            shown = token.cards is not None and None not in holes_known(token.player)
            decisions[token.player] = Action.show() if shown else Action.muck()
            settle_showdown(final=False)
            continue
        settle_showdown(final=False)
        if hand.actor != token.player:
            expected = "nobody" if hand.actor is None else f"p{hand.actor + 1}"
            raise ReplayError(f"p{token.player + 1} acts out of turn ({expected} is to act)")
        _apply(hand, _betting_action(hand, token), token.player)
    settle_showdown(final=True)
    stacks = list(hand.stacks)
    for player, chips in _unlisted_runout_awards(hand, written_board):
        stacks[player] -= chips
    return Replay(
        hand,
        tuple(None if start is None else stack
              for start, stack in zip(history.starting_stacks, stacks, strict=True)),
    )


_BETTING_EVENTS = (PlayerChecked, PlayerCalled, BetPlaced, RaisePlaced, PlayerFolded)


def _unlisted_runout_awards(hand: Hand, written_board: int) -> list[tuple[int, int]]:
    """Pots awarded after an all-in run-out that the file does not show.

    When the record stops before the board is complete and no betting follows
    the first unwritten board card, the engine's automatic run-out used filler
    cards: like pokerkit, leave those pots unawarded.
    """
    board = 0
    for index, event in enumerate(hand.events):
        if isinstance(event, BoardDealt):
            board += len(event.cards)
            if board > written_board:
                later = hand.events[index:]
                if any(isinstance(e, _BETTING_EVENTS) for e in later):
                    return []
                return [(e.player, e.amount) for e in later if isinstance(e, PotAwarded)]
    return []


def _apply(hand: Hand, action: Action, player: int) -> None:
    try:
        hand.apply(action)
    except EngineError as error:
        raise ReplayError(f"p{player + 1} {action}: {error.reason}") from None
