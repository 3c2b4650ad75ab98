"""Replaying PHH hands through the engine, for every variant code.

The setup comes from the variant code (:func:`setup_for`): the game from
:func:`engine.poker.variants.by_code`, the betting structure from its first
letter, ``bring_in`` for stud, ``small_bet``/``big_bet`` for fixed limit,
``min_bet`` otherwise and ``blinds_or_straddles`` only in blind games.

The deck is rebuilt by walking the file along the engine's fixed dealing (see
:mod:`engine.poker.hand`): street by street each player still in the hand, from
p1, gets the street's cards in one go (a stud ``d dh`` line holds a player's
cards of one street, e.g. down, down, up), then the board; in a draw every
player declares (``sd``) before the replacements are dealt in position order.
Unknown cards (``??``) are filled with unused cards, except that cards a player
shows with ``sm`` (stud: every card in the order dealt; draws: the final hand)
or names in a discard are used for that player.  Unknown stud up cards get the
cards least likely to bring in (stud: aces first; razz: aces, then deuces), and
the player the file's ``pb`` names the most likely, so that the file's bring-in
stays the engine's (an unknown up card of a later street may still make another
player the opener: then the replay reports an action out of turn).
When a draw needs more cards than the deck holds, the engine puts the discards
back in the order of a ``reshuffle`` permutation: the replay builds one that
deals the file's cards again.  Player actions are applied one by one; dealer
actions are implied by the deck.

"Finishing stacks" follow pokerkit's reading of a file: the stacks after the
listed actions (chips bet on an unfinished street are not in them), plus what
happens automatically afterwards (uncalled bets returned, pots pushed).  A hand
that stops before the cards of an all-in run-out are written leaves those pots
unawarded, as pokerkit does.  One deliberate difference: when a file stops at a
showdown without ``sm`` lines, the engine shows the hands whose cards the file
knows and awards the pots; pokerkit 0.7.7 turns every hand face down (``??``)
and splits the pot among them.  A hand kept face down (``sm ????``) or never
revealed cannot be evaluated: it is mucked, so it wins nothing (pokerkit
cannot evaluate it either).  A raise written as the amount that puts every
opponent all-in (``cbr`` below the legal minimum, but at least what any
opponent can match) is replayed as the minimum raise: the excess nobody can
call comes back at once, so the stacks are the same (pokerkit rejects it).
"""

from __future__ import annotations

import graphlib
import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from engine.actions import Action
from engine.cards import Card
from engine.errors import EngineError
from engine.events import (
    BetPlaced,
    BoardDealt,
    BringInPosted,
    Event,
    HoleCardsDealt,
    PlayerCalled,
    PlayerChecked,
    PlayerDrew,
    PlayerFolded,
    PotAwarded,
    RaisePlaced,
    UpCardsDealt,
)
from engine.phh.notation import DealBoard, DealHole, HandHistory, PlayerAction, Token
from engine.poker.evaluators import up_card_key
from engine.poker.hand import Hand, HandSetup
from engine.poker.variants import VARIANTS, Variant

__all__ = ["CODES", "SPEC_CODES", "STRUCTURES", "Replay", "ReplayError", "replay", "setup_for"]

CODES: dict[str, tuple[str, str]] = {
    code: (variant.key, structure)
    for variant in VARIANTS.values()
    for structure, code in variant.codes.items()
}
"""Every PHH variant code the engine plays -> (variant key, betting structure)."""

SPEC_CODES = frozenset({"FT", "NT", "NS", "PO", "FO/8", "F7S", "F7S/8", "FR", "N2L1D",
                        "F2L3D", "FB"})
"""The codes of the PHH specification; the other :data:`CODES` are this project's own
(the spec says new variants get new codes): see ``docs/phh.md``."""

STRUCTURES = {code: structure for code, (_, structure) in CODES.items()}
"""PHH variant code -> engine betting structure."""


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
    >>> stud = loads('''variant = 'F7S/8'
    ... antes = [1, 1]
    ... bring_in = 1
    ... small_bet = 4
    ... big_bet = 8
    ... starting_stacks = [50, 50]
    ... actions = []''')
    >>> setup = setup_for(stud, (50, 50))
    >>> setup.variant, setup.bring_in, setup.blinds
    ('stud8', 1, (0, 0))
    """
    code = history.variant
    if code not in CODES:
        raise ReplayError(f"unsupported variant {code}")
    key, structure = CODES[code]
    variant = VARIANTS[key]
    if structure == "FL":
        if history.small_bet is None or history.big_bet is None:
            raise ReplayError("a fixed-limit hand needs small_bet and big_bet")
        min_bet, big_bet = history.small_bet, history.big_bet
    else:
        if history.min_bet is None:
            raise ReplayError(f"a {code} hand needs min_bet")
        min_bet, big_bet = history.min_bet, 0
    bring_in = 0
    if variant.forced == "bring_in":
        if history.bring_in is None:
            raise ReplayError(f"a {code} hand needs bring_in")
        bring_in = history.bring_in
    blinds = history.blinds_or_straddles
    if variant.forced != "blinds":
        if any(blinds):
            raise ReplayError(f"{variant.title} has no blinds")
        blinds = ()
    try:
        return HandSetup(
            variant=key,
            structure=structure,
            stacks=stacks,
            blinds=blinds,
            antes=history.antes,
            min_bet=min_bet,
            big_bet=big_bet,
            bring_in=bring_in,
            cap_counts_blind=bool(history.fields.get("_cap_counts_blind", False)),
            ante_trimming=history.ante_trimming_status,
        )
    except EngineError as error:
        raise ReplayError(f"the engine rejects the setup: {error.reason}") from None


# ---------------------------------------------------------------- the deck


class _Cell:
    """One card the engine deals: known from the file, or filled in later."""

    __slots__ = ("card", "known", "up")

    def __init__(self, card: str | None, up: bool = False) -> None:
        self.card = card
        self.known = card is not None
        self.up = up


def _first(cells: Iterable[_Cell], test: Callable[[_Cell], bool]) -> _Cell | None:
    return next((cell for cell in cells if test(cell)), None)


def _holding(cells: Iterable[_Cell], card: str | None, taken: Sequence[_Cell]) -> _Cell | None:
    """The first cell holding ``card`` (``None``: an unknown one) not in ``taken``."""
    return next((cell for cell in cells
                 if cell.card == card and all(cell is not t for t in taken)), None)


class _Dealing:
    """The engine's dealing, walked along the file: which card goes where.

    ``fresh`` are the cells dealt from the deck in order; a draw that runs the
    deck out deals discards again (``batches``: each reshuffle's discards and
    the order in which the file deals them).
    """

    def __init__(self, variant: Variant, n: int) -> None:
        self.variant, self.n = variant, n
        self.deck_size = len(variant.cards) if variant.draws else variant.cards_needed(n)
        self.length = self.deck_size
        self.fresh: list[_Cell] = []
        self.discards: list[_Cell] = []
        self.batches: list[tuple[list[_Cell], list[_Cell]]] = []
        self.holes: list[list[_Cell]] = [[] for _ in range(n)]
        self.board: list[_Cell] = []
        self.folded = [False] * n
        self.street = 0
        self.pending: dict[int, int] = {}
        self.discarded: dict[int, list[_Cell]] = {}
        self.dealt_after: dict[int, int] = {}
        self.bring_in: int | None = None

    @property
    def dealt(self) -> int:
        """Cards the engine has dealt so far (as the file says)."""
        return len(self.fresh) + sum(len(order) for _, order in self.batches)

    def take(self, cards: Sequence[str | None], count: int, letters: str = "") -> list[_Cell]:
        """The engine's ``_take(count)`` with the file's ``cards`` (padded with unknowns)."""
        if len(cards) > count:
            raise ReplayError(f"{len(cards)} cards dealt where the engine deals {count}")
        wanted = list(cards) + [None] * (count - len(cards))
        start = self.dealt
        if start + count > self.length and self.discards:
            self.batches.append((self.discards, []))
            self.length += len(self.discards)
            self.discards = []
        cells = []
        for k, card in enumerate(wanted):
            position = start + k
            if position >= self.length:
                raise ReplayError("the file deals more cards than the deck holds")
            if position < self.deck_size:
                cell = _Cell(card, bool(letters) and letters[k] == "u")
                self.fresh.append(cell)
            else:
                cell = self._again(card)
            cells.append(cell)
        return cells

    def _again(self, card: str | None) -> _Cell:
        """A discard dealt again after a reshuffle (the cell is shared)."""
        cells, order = next((b for b in self.batches if len(b[1]) < len(b[0])),
                            self.batches[-1])
        pick = _holding(cells, card, order)
        if pick is None:
            unknown = _holding(cells, None, order)
            pick = unknown if card is not None else _first(cells, lambda c: c not in order)
        if pick is None:
            raise ReplayError(f"{card} is dealt again but was not among the discards")
        if card is not None:
            pick.card, pick.known = card, True
        order.append(pick)
        return pick

    @staticmethod
    def _by_player(block: Sequence[DealHole], n: int) -> dict[int, list[str | None]]:
        given: dict[int, list[str | None]] = {}
        for token in block:
            if not 0 <= token.player < n:
                raise ReplayError(f"bad hole dealing to p{token.player + 1}")
            given.setdefault(token.player, []).extend(token.cards)
        return given

    def deal_first(self, block: Sequence[DealHole]) -> None:
        """The first street: every player, from p1, in one go."""
        street = self.variant.streets[0]
        given = self._by_player(block, self.n)
        for i in range(self.n):
            self.holes[i] = self.take(given.get(i, ()), len(street.hole), street.hole)

    def deal_block(self, block: Sequence[DealHole]) -> None:
        """Hole cards after the first street: a draw's replacements or a stud street."""
        given = self._by_player(block, self.n)
        streets = self.variant.streets
        if self.variant.draws:
            for i in range(self.n):
                count = self.pending.get(i, 0)
                if count:
                    self.holes[i] += self.take(given.pop(i, ()), count)
            self.pending = {}
        elif self.street + 1 < len(streets) and streets[self.street + 1].hole:
            self.street += 1
            letters = streets[self.street].hole
            for i in range(self.n):
                if not self.folded[i]:
                    self.holes[i] += self.take(given.pop(i, ()), len(letters), letters)
        else:
            raise ReplayError("the file deals hole cards the engine does not deal")
        if given:
            raise ReplayError(f"the file deals cards to p{min(given) + 1} out of turn")

    def deal_board(self, token: DealBoard) -> None:
        """Board cards (stud: the community card when the deck runs short)."""
        if self.variant.stud:
            self.street += 1
        elif len(self.board) + len(token.cards) > self.variant.board_cards:
            raise ReplayError(f"more than {self.variant.board_cards} board cards")
        self.board += self.take(token.cards, len(token.cards))

    def discard(self, index: int, token: PlayerAction) -> None:
        """``pN sd ...``: which of the player's cards go (``??``: an unknown one)."""
        player = token.player
        if not 0 <= player < self.n:
            raise ReplayError(f"bad discard by p{player + 1}")
        hole = self.holes[player]
        chosen: list[_Cell] = []

        def free(cell: _Cell) -> bool:
            return all(cell is not c for c in chosen)

        for card in token.cards or ():
            if card is None:
                cell = _holding(hole, None, chosen) or _first(hole, free)
            else:
                cell = _holding(hole, card, chosen) or _holding(hole, None, chosen)
                if cell is not None:
                    cell.card, cell.known = card, True
            if cell is None:
                raise ReplayError(f"p{player + 1} discards a card not in their hand")
            chosen.append(cell)
        self.holes[player] = [cell for cell in hole if free(cell)]
        self.discards += chosen
        self.pending[player] = len(chosen)
        self.discarded[index] = chosen

    def show(self, token: PlayerAction) -> None:
        """``pN sm cards``: the shown cards fill the player's unknown cards, in order."""
        player = token.player
        if not token.cards or not 0 <= player < self.n:
            return
        hole = self.holes[player]
        if len(token.cards) > len(hole):
            raise ReplayError(f"p{player + 1} shows more cards than they hold")
        matched: list[_Cell] = []
        missing: list[str | None] = []
        for card in token.cards:
            cell = _holding(hole, card, matched)
            if card is not None and cell is not None:
                matched.append(cell)
            else:
                missing.append(card)
        unknown = [cell for cell in hole if cell.card is None]
        for card in missing:
            if not unknown:
                raise ReplayError(f"p{player + 1} shows {card}, a card not dealt to them")
            cell = unknown.pop(0)
            if card is not None:
                cell.card, cell.known = card, True

    def known(self, player: int) -> bool:
        """True if the file knows every card the player holds at the end."""
        return 0 <= player < self.n and all(cell.known for cell in self.holes[player])

    def cards(self) -> tuple[list[Card], list[Card]]:
        """The deck for :meth:`Hand.start`, unknown cells filled, and the reshuffle order."""
        allowed = self.variant.cards
        try:
            known = [Card.parse(c.card) for c in self.fresh if c.card is not None]
        except EngineError as error:
            raise ReplayError(error.reason) from None
        if len(set(known)) != len(known):
            raise ReplayError("a card is dealt twice")
        outside = [card for card in known if card not in set(allowed)]
        if outside:
            raise ReplayError(f"{outside[0]} is not in the deck of {self.variant.title}")
        used = set(known)
        opening = self.variant.streets[0].opening
        up_order = {
            "low_card": sorted(allowed, key=lambda c: -up_card_key(c)),
            "high_card_low": sorted(allowed, key=lambda c: -up_card_key(c, low=True)),
        }.get(opening, list(allowed))

        def spare(order: Sequence[Card]) -> Card:
            card = next(c for c in order if c not in used)
            used.add(card)
            return card

        if self.bring_in is not None and 0 <= self.bring_in < self.n:
            # The player the file says brings in gets the lowest unknown door card.
            for cell in self.holes[self.bring_in][: len(self.variant.streets[0].hole)]:
                if cell.up and cell.card is None:
                    cell.card = str(spare(up_order[::-1]))
        for cell in self.fresh:
            if cell.card is None:
                cell.card = str(spare(up_order if cell.up else allowed))
        deck = [Card.parse(str(cell.card)) for cell in self.fresh]
        deck += [card for card in allowed if card not in used]
        if not self.batches:
            return deck, []
        graph: dict[Card, set[Card]] = {}
        for cells, order in self.batches:
            dealt = [Card.parse(str(c.card)) for c in order]
            rest = [Card.parse(str(c.card)) for c in cells if all(c is not o for o in order)]
            for card in dealt:
                graph.setdefault(card, set())
            for before, after in itertools.pairwise(dealt):
                graph[after].add(before)
            for card in rest:
                graph.setdefault(card, set()).add(dealt[-1])
        try:
            ordered = list(graphlib.TopologicalSorter(graph).static_order())
        except graphlib.CycleError:
            raise ReplayError("no reshuffle order deals the file's discards again") from None
        return deck, ordered + [card for card in allowed if card not in set(ordered)]


def _walk(variant: Variant, n: int, tokens: Sequence[Token]) -> _Dealing:
    """Follow the file's dealing, discards and shown cards.

    Consecutive ``d dh`` lines are cut into streets: a street ends when a player
    would get more cards than the street deals (an all-in stud run-out writes
    several streets in a row).
    """
    dealing = _Dealing(variant, n)
    streets = variant.streets
    first = True
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if isinstance(token, DealHole):
            ahead = 0 if first else dealing.street + 1
            count = None
            if first or (not variant.draws and ahead < len(streets)):
                count = len(streets[ahead].hole)
            group: list[DealHole] = []
            have: dict[int, int] = {}
            end = index
            while end < len(tokens):
                deal = tokens[end]
                if not isinstance(deal, DealHole):
                    break
                total = have.get(deal.player, 0) + len(deal.cards)
                if count is not None and group and total > count:
                    break
                have[deal.player] = total
                group.append(deal)
                end += 1
            if first:
                dealing.deal_first(group)
                first = False
            else:
                dealing.deal_block(group)
            for k in range(index, end):
                dealing.dealt_after[k] = dealing.dealt
            index = end
            continue
        if first:
            dealing.deal_first(())
            first = False
        if isinstance(token, DealBoard):
            dealing.deal_board(token)
            dealing.dealt_after[index] = dealing.dealt
        elif token.verb == "f" and 0 <= token.player < n:
            dealing.folded[token.player] = True
        elif token.verb == "pb" and dealing.bring_in is None:
            dealing.bring_in = token.player
        elif token.verb == "sd":
            dealing.discard(index, token)
        elif token.verb == "sm":
            dealing.show(token)
        index += 1
    if first:
        dealing.deal_first(())
    return dealing


# ---------------------------------------------------------------- replay


def _stack_substitutes(history: HandHistory) -> tuple[int, ...]:
    """Integer stacks; ``inf`` (unknown) becomes more chips than the hand can use."""
    finite = [stack for stack in history.starting_stacks if stack is not None]
    bets = [token.amount or 0 for token in history.tokens() if isinstance(token, PlayerAction)]
    enough = (sum(finite) + sum(bets) + sum(history.blinds_or_straddles) + sum(history.antes)
              + (history.bring_in or 0) + 1)
    return tuple(enough if stack is None else stack for stack in history.starting_stacks)


def _betting_action(hand: Hand, token: PlayerAction) -> Action:
    legal = hand.legal_actions()
    if token.verb == "f":
        return Action.fold()
    if token.verb == "cc":
        return Action.check() if legal.can_check else Action.call()
    if token.verb == "pb":
        return Action.bring_in()
    assert token.amount is not None
    amount = token.amount
    if amount <= 0:
        raise ReplayError(f"p{token.player + 1} cannot raise to {amount}")
    least = legal.min_raise_to
    if least is not None and amount < least and amount >= _most_matched(hand, token.player):
        amount = least  # written as the opponents' all-in amount: the excess returns
    return Action.bet(amount) if legal.sized_kind == "bet" else Action.raise_to(amount)


def _most_matched(hand: Hand, player: int) -> int:
    """The largest street total any opponent still in the hand can reach."""
    bets, stacks = hand.bets, hand.stacks
    return max((bets[j] + stacks[j] for j in range(hand.n)
                if j != player and not hand.folded[j]), default=0)


_DEALS = (HoleCardsDealt, UpCardsDealt, BoardDealt)


def _engine_dealt(events: Iterable[Event]) -> int:
    return sum(len(e.cards) for e in events if isinstance(e, _DEALS))


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
    >>> stud = loads('''variant = 'F7S'
    ... antes = [1, 1, 1]
    ... bring_in = 1
    ... small_bet = 4
    ... big_bet = 8
    ... starting_stacks = [50, 50, 50]
    ... actions = ['d dh p1 ??????', 'd dh p2 AsKs3c', 'd dh p3 ????Ad', 'p2 pb',
    ...            'p3 cbr 4', 'p1 f', 'p2 f']''')
    >>> replay(stud).finishing_stacks
    (49, 48, 53)
    """
    tokens = history.tokens()
    setup = setup_for(history, _stack_substitutes(history))
    dealing = _walk(setup.game, setup.n, tokens)
    deck, reshuffle = dealing.cards()
    try:
        hand, _events = Hand.start(setup, deck, reshuffle)
    except EngineError as error:
        raise ReplayError(f"the engine cannot start the hand: {error.reason}") from None
    decisions: dict[int, Action] = {}

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
                action = Action.show() if dealing.known(actor) and legal.can_show else Action.muck()
            else:
                return
            _apply(hand, action, actor)

    for index, token in enumerate(tokens):
        if isinstance(token, DealBoard | DealHole):
            settle_showdown(final=False)
            if _engine_dealt(hand.events) < dealing.dealt_after[index] and hand.actor is not None:
                what = "board" if isinstance(token, DealBoard) else "hole"
                raise ReplayError(
                    f"the file deals {what} cards while p{hand.actor + 1} is still to act"
                )
            continue
        if token.verb == "sm":
            # 'sm ????' (kept face down) cannot be evaluated: like pokerkit, it wins nothing.
            shown = token.cards is not None and dealing.known(token.player)
            decisions[token.player] = Action.show() if shown else Action.muck()
            settle_showdown(final=False)
            continue
        settle_showdown(final=False)
        if hand.actor != token.player:
            expected = "nobody" if hand.actor is None else f"p{hand.actor + 1}"
            raise ReplayError(f"p{token.player + 1} acts out of turn ({expected} is to act)")
        if token.verb == "sd":
            if not hand.drawing:
                raise ReplayError(f"p{token.player + 1} draws outside a draw")
            cells = dealing.discarded[index]
            action = Action.draw(tuple(Card.parse(str(cell.card)) for cell in cells))
        else:
            if hand.drawing:
                raise ReplayError(f"p{token.player + 1} must draw (sd) now")
            action = _betting_action(hand, token)
        _apply(hand, action, token.player)
    settle_showdown(final=True)
    stacks = list(hand.stacks)
    for player, chips in _unlisted_runout_awards(hand, dealing.dealt):
        stacks[player] -= chips
    return Replay(
        hand,
        tuple(None if start is None else stack
              for start, stack in zip(history.starting_stacks, stacks, strict=True)),
    )


_BETTING_EVENTS = (PlayerChecked, PlayerCalled, BetPlaced, RaisePlaced, PlayerFolded,
                   BringInPosted, PlayerDrew)


def _unlisted_runout_awards(hand: Hand, written: int) -> list[tuple[int, int]]:
    """Pots awarded after an all-in run-out that the file does not show.

    When the record stops before every card of the hand is dealt and no
    decision follows the first card it does not write, the engine's automatic
    run-out used filler cards: like pokerkit, leave those pots unawarded.
    """
    dealt = 0
    for index, event in enumerate(hand.events):
        if isinstance(event, _DEALS):
            dealt += len(event.cards)
            if dealt > written:
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
