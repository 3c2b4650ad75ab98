"""One poker hand of any variant (:mod:`engine.poker.variants`): the state machine.

Positions follow PHH: index 0 is the first player after the button (the small
blind), the last index is the button. Heads-up the button is index 1 and posts
the small blind: ``blinds=(1, 2)`` with two players means index 1 posts 1.

Dealing (fixed, no burn cards): street by street, each player still in the hand,
from position 0, gets the street's hole cards in one go (hold'em: position 0 gets
``deck[0:2]``, position 1 ``deck[2:4]``, ...), then the street's board cards. In
draw games the replacements come from the rest of the deck after everyone has
declared; when it runs out, the discards and folded cards are put back in the
order of the stored ``reshuffle`` permutation (chance, like the deck). In stud,
when the deck cannot give every player their card, one community card is dealt
face up for all.

>>> from engine.cards import standard_deck
>>> setup = HandSetup(structure="NL", stacks=(200, 200, 200), blinds=(1, 2, 0))
>>> hand, events = Hand.start(setup, standard_deck())
>>> hand.actor, hand.legal_actions().call_amount, hand.legal_actions().min_raise_to
(2, 2, 4)
>>> [str(e.type) for e in hand.apply(Action.raise_to(6))]
['RaisePlaced']
>>> _ = hand.apply(Action.fold()); _ = hand.apply(Action.fold())
>>> hand.legal_actions().can_show, hand.default_action()
(True, Action.parse('muck'))
>>> _ = hand.apply(Action.muck())
>>> hand.is_over, hand.finishing_stacks
(True, (199, 198, 203))

Seven-card stud: antes, the lowest up card brings in, and later streets are opened
by the best visible hand:

>>> from engine.cards import parse_cards
>>> stud = HandSetup(variant="stud", structure="FL", stacks=(100, 100), antes=(1, 1),
...                  blinds=(0, 0), bring_in=1, min_bet=2, big_bet=4)
>>> hand, _ = Hand.start(stud, parse_cards("AsKs2c" "AhKh3d") + tuple(standard_deck()[20:]))
>>> hand.actor, [str(a) for a in hand.legal_actions()]
(0, ['bring_in', 'bet 2'])
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from typing import Any

from engine.actions import Action, ActionKind
from engine.betting import NO_ACTIONS, SHOW_OR_MUCK, STRUCTURES, LegalActions, raise_bounds
from engine.cards import CARDS, Card, format_cards, parse_cards
from engine.errors import IllegalAction, MalformedAction
from engine.events import (
    AntePosted,
    BetPlaced,
    BlindPosted,
    BoardDealt,
    BringInPosted,
    CardsDiscarded,
    CardsMucked,
    CardsShown,
    Event,
    HandEnded,
    HoleCardsDealt,
    PlayerCalled,
    PlayerChecked,
    PlayerDrew,
    PlayerFolded,
    PotAwarded,
    RaisePlaced,
    UncalledBetReturned,
    UpCardsDealt,
)
from engine.poker.evaluators import EVALUATORS, bring_in_index, opener_index
from engine.poker.variants import DECK_SETS, VARIANTS, Street, Variant
from engine.pots import Pot, build_pots, split

__all__ = ["Hand", "HandSetup", "PlayerResult"]

_BETTING, _SHOWDOWN, _FOLD_WIN, _OVER, _DRAWING = range(5)
_FOLD, _CHECK, _CALL = ActionKind.FOLD, ActionKind.CHECK, ActionKind.CALL
_BET, _RAISE, _SHOW = ActionKind.BET, ActionKind.RAISE, ActionKind.SHOW
_BRING_IN, _DRAW = ActionKind.BRING_IN, ActionKind.DRAW


def _amounts(name: str, values: Sequence[int], n: int, allow_empty: bool) -> tuple[int, ...]:
    values = tuple(values)
    if not values and allow_empty:
        return (0,) * n
    if len(values) != n:
        raise MalformedAction("bad_setup", f"{name} needs one amount per player ({n}).")
    if any(type(v) is not int or v < 0 for v in values):
        raise MalformedAction("bad_setup", f"{name} must be whole numbers of chips, not negative.")
    return values


def max_hand_players(variant: Variant) -> int:
    """How many players one deck can deal to (stud: with the community-card rule)."""
    deck = len(variant.cards)
    if variant.stud:
        return min(23, deck // max(1, variant.cards_per_player - 1))
    return min(23, (deck - variant.board_cards) // variant.cards_per_player)


@dataclass(frozen=True, slots=True)
class HandSetup:
    """Everything fixed before the cards: variant, structure, stacks and forced bets.

    ``min_bet`` is the big blind (NL/PL) or the small bet (FL); ``big_bet`` the FL big
    bet (default twice the small bet). Stud games post ``antes`` and a ``bring_in``
    instead of blinds.

    >>> HandSetup(structure="FL", stacks=(50, 50), blinds=(1, 2), min_bet=2, big_bet=4).n
    2
    """

    structure: str = "NL"
    stacks: tuple[int, ...] = ()
    blinds: tuple[int, ...] = ()
    antes: tuple[int, ...] = ()
    dead_blinds: tuple[int, ...] = ()
    min_bet: int = 2
    big_bet: int = 0
    bet_cap: int | None = 4
    cap_counts_blind: bool = True
    ante_trimming: bool = False
    variant: str = "holdem"
    bring_in: int = 0

    def __post_init__(self) -> None:
        if self.structure not in STRUCTURES:
            raise MalformedAction("bad_setup", f"Unknown structure {self.structure!r}.")
        variant = VARIANTS.get(self.variant) if isinstance(self.variant, str) else None
        if variant is None:
            raise MalformedAction("bad_setup", f"Unknown variant {self.variant!r}.")
        n = len(self.stacks)
        most = max_hand_players(variant)
        if not 2 <= n <= most:
            raise MalformedAction("bad_setup", f"A hand of {variant.title} needs 2 to "
                                               f"{most} players.")
        stacks = _amounts("stacks", self.stacks, n, allow_empty=False)
        if min(stacks) <= 0:
            raise MalformedAction("bad_setup", "Every stack must be positive.")
        object.__setattr__(self, "stacks", stacks)
        for name in ("blinds", "antes", "dead_blinds"):
            object.__setattr__(self, name, _amounts(name, getattr(self, name), n, True))
        if type(self.min_bet) is not int or self.min_bet <= 0:
            raise MalformedAction("bad_setup", "min_bet must be a positive whole number.")
        if type(self.big_bet) is not int or self.big_bet < 0:
            raise MalformedAction("bad_setup", "big_bet must be a whole number.")
        if self.bet_cap is not None and (type(self.bet_cap) is not int or self.bet_cap < 1):
            raise MalformedAction("bad_setup", "bet_cap must be a positive whole number or None.")
        if type(self.bring_in) is not int or self.bring_in < 0:
            raise MalformedAction("bad_setup", "bring_in must be a whole number.")
        if variant.forced == "bring_in":
            if not 0 < self.bring_in <= self.min_bet:
                raise MalformedAction("bad_setup", "A stud game needs a bring-in from 1 to "
                                                   "the small bet.")
        elif self.bring_in:
            raise MalformedAction("bad_setup", f"{variant.title} has no bring-in.")
        if variant.forced != "blinds" and any(self.blinds):
            raise MalformedAction("bad_setup", f"{variant.title} has no blinds.")

    @property
    def n(self) -> int:
        """Number of players."""
        return len(self.stacks)

    @property
    def game(self) -> Variant:
        """The variant played."""
        return VARIANTS[self.variant]

    def to_json(self) -> dict[str, Any]:
        """Plain-JSON form (tuples become lists)."""
        return {name: list(v) if isinstance(v := getattr(self, name), tuple) else v
                for name in _SETUP_FIELDS}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> HandSetup:
        """Inverse of :meth:`to_json`."""
        try:
            values: dict[str, Any] = {
                k: tuple(v) if isinstance(v, list) else v for k, v in data.items()
            }
            return cls(**values)
        except TypeError as error:
            raise MalformedAction("bad_setup", f"Bad hand setup: {error}.") from None


_SETUP_FIELDS = tuple(f.name for f in fields(HandSetup))  # (all flat: no asdict)


@dataclass(frozen=True, slots=True)
class PlayerResult:
    """How one position came out of a finished hand."""

    position: int
    net: int
    won: int
    shown: tuple[Card, ...] | None
    hand: str | None

    def to_json(self) -> dict[str, Any]:
        """Plain-JSON form."""
        shown = None if self.shown is None else format_cards(self.shown)
        return {"position": self.position, "net": self.net, "won": self.won,
                "shown": shown, "hand": self.hand}


Evaluator = Callable[[Sequence[Card], Sequence[Card]], "int | None"]


class Hand:
    """One hand in progress. Create with :meth:`Hand.start`; drive with :meth:`apply`."""

    __slots__ = (
        "_bets",
        "_board",
        "_legal",
        "_stacks",
        "_street",
        "_stud",
        "acted_at",
        "actor",
        "aggressor",
        "best",
        "best_low",
        "bet_count",
        "bet_size",
        "current_bet",
        "dead",
        "deck",
        "discards",
        "drawn",
        "events",
        "final_pots",
        "folded",
        "history",
        "holes",
        "live",
        "lows",
        "mucked",
        "n",
        "n_active",
        "n_in",
        "next_card",
        "phase",
        "pile",
        "queue",
        "raise_size",
        "reshuffle",
        "setup",
        "showdown_pots",
        "shown",
        "up",
        "values",
        "variant",
        "won",
    )

    setup: HandSetup
    variant: Variant
    _stud: bool
    _legal: LegalActions | None
    deck: tuple[Card, ...]
    reshuffle: tuple[Card, ...]
    pile: list[Card]
    next_card: int
    discards: list[Card]
    n: int
    holes: list[list[Card]]
    up: list[list[bool]]
    drawn: list[list[int]]
    _stacks: list[int]
    _bets: list[int]
    live: list[int]
    dead: list[int]
    folded: list[bool]
    _street: int
    _board: list[Card]
    actor: int | None
    phase: int
    current_bet: int
    raise_size: int
    bet_size: int
    bet_count: int
    acted_at: list[int]
    aggressor: int | None
    n_in: int
    n_active: int
    events: list[Event]
    history: list[Action]
    queue: list[int]
    shown: list[bool]
    mucked: list[bool]
    values: list[int]
    lows: list[int | None]
    showdown_pots: list[Pot]
    best: list[int]
    best_low: list[int]
    won: list[int]
    final_pots: list[Pot]

    # ------------------------------------------------------------------ start
    @classmethod
    def start(cls, setup: HandSetup, deck: Sequence[Card],
              reshuffle: Sequence[Card] = ()) -> tuple[Hand, list[Event]]:
        """Post antes and forced bets, deal the first street, and return the hand and its
        events. Players who cannot cover their forced bets post what they have (all-in).

        ``deck`` holds distinct cards of the variant's deck; games without draws read
        only the cards they can deal (the rest is never looked at). ``reshuffle`` (draw
        games) orders the discards when the deck runs out; by default the deck order.
        """
        variant = setup.game
        n = setup.n
        draws = variant.draws
        needed = len(variant.cards) if draws else variant.cards_needed(n)
        try:  # without draws only the cards that can be dealt are read
            cards = tuple([CARDS[c] for c in (deck if draws else deck[:needed]) if c >= 0])
        except (IndexError, TypeError):
            raise MalformedAction("bad_deck", "The deck must contain cards.") from None
        allowed = DECK_SETS[variant.deck]
        if len(cards) != needed or len(set(cards)) != needed or (
                variant.deck != "standard" and not allowed.issuperset(cards)):
            raise MalformedAction("bad_deck", f"The deck needs {needed} distinct cards of "
                                              f"{variant.title}.")
        self = cls.__new__(cls)
        self.setup, self.variant, self.deck, self.n = setup, variant, cards, n
        self._stud = variant.forced == "bring_in"  # a bring-in and completion to handle
        self._legal = None  # legal_actions() of the current decision, once worked out
        order = tuple(reshuffle)
        if order and (len(order) != len(allowed) or frozenset(order) != allowed):
            raise MalformedAction("bad_deck", "The reshuffle order must hold every card once.")
        self.reshuffle = order
        self.pile, self.next_card, self.discards = list(cards), 0, []
        self.holes = [[] for _ in range(n)]
        # Face-up flags (stud) and cards drawn per draw (draw games): only where they apply.
        self.up = [[] for _ in range(n)] if variant.stud else []
        self.drawn = [[] for _ in range(n)] if draws else []
        self._stacks = list(setup.stacks)
        self._bets, self.live, self.dead = [0] * n, [0] * n, [0] * n
        self.folded = [False] * n
        self._street, self._board = 0, []
        self.phase, self.aggressor = _BETTING, None
        self.events, self.history, self.queue = [], [], []
        self.shown, self.mucked = [False] * n, [False] * n
        self.values, self.lows, self.showdown_pots = [], [], []
        self.best, self.best_low = [], []
        self.won, self.final_pots = [0] * n, []
        self.acted_at = [-1] * n
        blinds, antes = setup.blinds, setup.antes
        if n == 2 and variant.forced == "blinds":  # heads-up: the button posts the SB
            blinds, antes = blinds[::-1], antes[::-1]
        events = self.events
        stacks = self._stacks
        ante_pot = self.live if setup.ante_trimming else self.dead
        for i, ante in enumerate(antes):
            if ante:
                paid = min(ante, stacks[i])
                stacks[i] -= paid
                ante_pot[i] += paid
                events.append(AntePosted(i, paid, stacks[i] == 0))
        for i, blind in enumerate(setup.dead_blinds):
            if blind and stacks[i]:
                paid = min(blind, stacks[i])
                stacks[i] -= paid
                self.dead[i] += paid
                events.append(BlindPosted(i, paid, True, stacks[i] == 0))
        for i, blind in enumerate(blinds):
            if blind and stacks[i]:
                paid = min(blind, stacks[i])
                stacks[i] -= paid
                self._bets[i] = paid
                self.live[i] += paid
                events.append(BlindPosted(i, paid, False, stacks[i] == 0))
        self._deal_street(variant.streets[0])
        largest = max(blinds)
        self.current_bet = max(self._bets)
        # The minimum raise increment starts at min_bet on every street (pokerkit
        # convention; a straddle does not raise it).
        self.raise_size = setup.min_bet
        self.bet_size = self._bet_size()
        self.bet_count = 1 if largest and setup.cap_counts_blind else 0
        self.n_in = n
        self.n_active = sum(1 for s in stacks if s)
        if variant.forced == "blinds":
            # Action starts after the largest blind (a straddle); with equal posts
            # (a new player's big blind) after the first of them.
            first = (blinds.index(largest) + 1) % n if largest else 0
        else:
            first = self._opener(variant.streets[0])
        # Stud and sökö too: with every opponent all-in from the antes, nobody posts a
        # bring-in or bets (pokerkit agrees; the cards are dealt out).
        self._skip_covered_players()
        self.actor = self._next_actor(first)
        if self.actor is None:
            self._end_round()
        return self, list(events)

    # ------------------------------------------------------------- dealing
    def _take(self, count: int) -> list[Card]:
        pile, start = self.pile, self.next_card
        if start + count > len(pile) and self.discards:
            order = self.reshuffle or self.deck
            rank = {card: k for k, card in enumerate(order)}
            pile.extend(sorted(self.discards, key=rank.__getitem__))
            self.discards = []
        cards = pile[start : start + count]
        self.next_card = start + len(cards)
        return cards

    def _deal_street(self, street: Street) -> None:
        hole, events = street.hole, self.events
        if hole:
            players = [i for i in range(self.n) if not self.folded[i]]
            left = len(self.pile) - self.next_card
            if len(hole) == 1 and left < len(players):
                # Stud with more players than cards: one community card for everyone.
                board = self._take(1)
                self._board.extend(board)
                events.append(BoardDealt(street.name, tuple(board)))
            elif street.all_down:  # hold'em, Omaha, draw: one private deal per player
                count, holes = len(hole), self.holes
                pile, start = self.pile, self.next_card
                for i in players:  # a street's hole cards never need a reshuffle
                    cards = pile[start : start + count]
                    start += count
                    holes[i].extend(cards)
                    events.append(HoleCardsDealt(i, tuple(cards)))
                if self.up:  # stud's seventh street: down cards
                    flags = [False] * count
                    for i in players:
                        self.up[i].extend(flags)
                self.next_card = start
            else:
                for i in players:
                    cards = self._take(len(hole))
                    self.holes[i].extend(cards)
                    self.up[i].extend(letter == "u" for letter in hole)
                    down = tuple(c for c, letter in zip(cards, hole, strict=True) if letter == "d")
                    if down:
                        events.append(HoleCardsDealt(i, down))
                    if len(down) < len(cards):
                        events.append(UpCardsDealt(i, tuple(
                            c for c, letter in zip(cards, hole, strict=True) if letter == "u")))
        if street.board:  # (board games do not draw: the deck never runs out)
            start = self.next_card
            self.next_card = stop = start + street.board
            board = self.pile[start:stop]
            self._board.extend(board)
            events.append(BoardDealt(street.name, tuple(board)))

    def _opener(self, street: Street) -> int:
        """Who acts first on a street opened by the cards (stud, sökö)."""
        opening = street.opening
        if opening == "position":
            return 0
        ups = [[] if self.folded[i] else
               [c for c, u in zip(self.holes[i], self.up[i], strict=True) if u]
               for i in range(self.n)]
        if opening == "low_card":
            return bring_in_index(ups)
        if opening == "high_card_low":
            return bring_in_index(ups, low=True)
        if opening == "high_card":  # ace high, spades highest
            return max((i for i in range(self.n) if ups[i]), key=lambda i: max(ups[i]))
        kind = self.variant.evaluators[0]
        return opener_index(ups, kind if kind in ("soko", "low_a5") else "high")

    # ------------------------------------------------------------- queries
    @property
    def is_over(self) -> bool:
        """True once every pot has been awarded."""
        return self.phase == _OVER

    @property
    def street(self) -> str:
        """The current street's name ("preflop", "flop", ... "third", "first_draw")."""
        return self.variant.streets[self._street].name

    @property
    def street_index(self) -> int:
        """0 for the first street."""
        return self._street

    @property
    def drawing(self) -> bool:
        """True while the players declare their discards."""
        return self.phase == _DRAWING

    @property
    def stacks(self) -> tuple[int, ...]:
        """Chips behind, per position (after the hand: the finishing stacks)."""
        return tuple(self._stacks)

    @property
    def bets(self) -> tuple[int, ...]:
        """Each position's bet on the current street (blinds included pre-flop)."""
        return tuple(self._bets)

    @property
    def board(self) -> tuple[Card, ...]:
        """The community cards dealt so far."""
        return tuple(self._board)

    @property
    def action_history(self) -> tuple[Action, ...]:
        """Every action applied so far, in order."""
        return tuple(self.history)

    @property
    def hole_cards(self) -> tuple[tuple[Card, ...], ...]:
        """Every position's hole cards now (omniscient: use the projection for clients)."""
        return tuple(tuple(cards) for cards in self.holes)

    @property
    def pots(self) -> tuple[Pot, ...]:
        """Main pot then side pots, current street bets included."""
        if self.phase == _OVER:
            return tuple(self.final_pots)
        return tuple(self._build_pots())

    @property
    def finishing_stacks(self) -> tuple[int, ...] | None:
        """Stacks after the hand, or ``None`` while it runs."""
        return tuple(self._stacks) if self.phase == _OVER else None

    def describe(self, position: int) -> str:
        """The position's hand in words (high; hi-lo: high and low), if complete."""
        hole, board = self.holes[position], self._board
        kinds = self.variant.evaluators
        if len(hole) + len(board) < 5 and kinds[0] != "badugi":
            return ""
        parts = []
        for k, kind in enumerate(kinds):
            evaluator = EVALUATORS[kind]
            value = evaluator.evaluate(hole, board)
            if value is not None:
                parts.append(evaluator.describe(value))
            elif k:
                parts.append("no low")
        return "; ".join(parts)

    @property
    def results(self) -> tuple[PlayerResult, ...] | None:
        """Per position: net, chips won, shown cards, hand; ``None`` while running."""
        if self.phase != _OVER:
            return None
        out = []
        complete = self._street == len(self.variant.streets) - 1 or self.values
        for i in range(self.n):
            shown = tuple(self.holes[i]) if self.shown[i] else None
            hand = self.describe(i) if shown is not None and complete else None
            net = self._stacks[i] - self.setup.stacks[i]
            out.append(PlayerResult(i, net, self.won[i], shown, hand or None))
        return tuple(out)

    def _build_pots(self) -> list[Pot]:
        all_in = [s == 0 for s in self._stacks]
        return build_pots(self.live, sum(self.dead), self.folded, all_in)

    def _bet_size(self) -> int:
        setup = self.setup
        if setup.structure == "FL" and self.variant.streets[self._street].big_bet:
            return setup.big_bet or 2 * setup.min_bet
        return setup.min_bet

    @property
    def _completing(self) -> bool:
        """On the bring-in street until someone completes: a bet goes to the small bet.

        A bring-in of a whole small bet is the completed bet already (the next raise is
        to two small bets, not a "completion" to the same amount).
        """
        return (self._stud and self._street == 0 and self.bet_count == 0
                and self.current_bet < self.setup.min_bet)

    def _needs_action(self, i: int) -> bool:
        if self.folded[i] or not self._stacks[i]:
            return False
        # As in pokerkit (and so PHH files), a player who has not acted yet acts even
        # when nobody can respond to a raise, e.g. the big blind facing a shorter
        # all-in call (but see _skip_covered_players for the start of the hand).
        return self._bets[i] < self.current_bet or self.acted_at[i] < 0

    def _skip_covered_players(self) -> None:
        # A player whose forced bet already covers every chip an opponent has left has
        # no decision to make: nobody can bet against them (pokerkit and PHH files agree;
        # it happens only at the start, e.g. a button all-in posting the small blind, or
        # in stud every opponent all-in from the antes).
        bets, stacks = self._bets, self._stacks
        totals = [bets[j] + stacks[j] for j in range(self.n)]
        for i in range(self.n):
            if stacks[i] and max(t for j, t in enumerate(totals) if j != i) <= bets[i]:
                self.acted_at[i] = self.current_bet

    def _next_actor(self, start: int) -> int | None:
        # _needs_action, inlined: this runs after every action.
        n, folded, stacks, bets = self.n, self.folded, self._stacks, self._bets
        current, acted_at = self.current_bet, self.acted_at
        for k in range(n):
            i = (start + k) % n
            if not folded[i] and stacks[i] and (bets[i] < current or acted_at[i] < 0):
                return i
        return None

    def _may_raise(self, i: int) -> bool:
        current = self.current_bet
        stacks, bets, folded = self._stacks, self._bets, self.folded
        if bets[i] + stacks[i] <= current:
            return False
        # Raising makes sense only if another player could put in more than the current bet.
        for j in range(self.n):
            if j != i and stacks[j] and not folded[j] and bets[j] + stacks[j] > current:
                break
        else:
            return False
        if self.setup.structure == "FL":
            cap = self.setup.bet_cap
            if cap is not None and self.bet_count >= cap:
                return False
        acted = self.acted_at[i]
        return acted < 0 or self.current_bet - acted >= self.raise_size

    @property
    def _bringing_in(self) -> bool:
        """The bring-in is still to be posted (the first stud decision)."""
        return self._stud and not self.history and self._completing and self.current_bet == 0

    @property
    def formality(self) -> bool:
        """True at a show-or-muck decision (after the betting): no choice that moves chips."""
        return self.actor is not None and self.phase in (_SHOWDOWN, _FOLD_WIN)

    def legal_actions(self) -> LegalActions:
        """What the actor may do now (nothing when the hand is over)."""
        legal = self._legal
        if legal is None:
            legal = self._legal = self._work_out_legal()
        return legal

    def _work_out_legal(self) -> LegalActions:
        i = self.actor
        if i is None:
            return NO_ACTIONS
        phase = self.phase
        if phase == _DRAWING:
            return LegalActions(draw=len(self.holes[i]))
        if phase != _BETTING:
            return SHOW_OR_MUCK
        if self._stud and self._bringing_in:
            least, most = self._bounds(i)
            return LegalActions(min_raise_to=least, max_raise_to=most, sized_kind="bet",
                                bring_in=min(self.setup.bring_in, self._stacks[i]))
        to_call = self.current_bet - self._bets[i]
        low = high = kind = None
        if self._may_raise(i):
            low, high = self._bounds(i)
            kind = "bet" if self.current_bet == 0 else "raise"
        if to_call > 0:
            call = min(to_call, self._stacks[i])
            return LegalActions(True, False, call, low, high, kind)
        return LegalActions(True, True, None, low, high, kind)

    def _bounds(self, i: int) -> tuple[int, int]:
        pot_total = sum(self.live) + sum(self.dead) if self.setup.structure == "PL" else 0
        current = 0 if self._stud and self._completing else self.current_bet
        return raise_bounds(
            self.setup.structure, current, self.raise_size, self._bets[i],
            self._bets[i] + self._stacks[i], pot_total, self.bet_size,
        )

    def default_action(self) -> Action:
        """The timeout action: muck at showdown, stand pat in a draw, post the bring-in,
        else check if possible, else fold."""
        phase = self.phase
        if phase == _DRAWING:
            return Action.draw(())
        if phase != _BETTING:
            return Action.muck()
        if self._bringing_in:
            return Action.bring_in()
        i = self.actor
        if i is not None and self._bets[i] >= self.current_bet:
            return Action.check()
        return Action.fold()

    # --------------------------------------------------------------- apply
    def apply_for(self, position: int, action: Action) -> list[Event]:
        """Like :meth:`apply`, but first check that ``position`` is the actor."""
        if position != self.actor:
            raise IllegalAction("not_your_turn", "It is not your turn to act.")
        return self.apply(action)

    def apply(self, action: Action) -> list[Event]:
        """Validate ``action`` for the actor, then perform it; returns the new events.

        Raises :class:`MalformedAction` or :class:`IllegalAction` and changes
        nothing if the action is not allowed.
        """
        if not isinstance(action, Action):
            raise MalformedAction("bad_action", "Expected an Action.")
        i = self.actor
        if i is None:
            raise IllegalAction("hand_over", "The hand is over.")
        kind = action.kind
        mark = len(self.events)
        phase = self.phase
        legal, self._legal = self._legal, None  # whatever happens, a new decision follows
        if phase == _DRAWING:
            if kind is not _DRAW:
                raise IllegalAction("draw_now", "Choose the cards to discard (or stand pat).")
            self._draw(i, action.cards or ())
            return self.events[mark:]
        if kind is _DRAW:
            raise IllegalAction("not_drawing", "There is no draw now.")
        if phase != _BETTING:
            if kind is _SHOW:
                self._reveal(i)
            elif kind is ActionKind.MUCK:
                self.mucked[i] = True
                self.events.append(CardsMucked(i))
            else:
                raise IllegalAction("show_or_muck", "You may only show or muck now.")
            self.history.append(action)
            if phase == _FOLD_WIN:
                self._award()
            else:
                self.queue.pop(0)
                self._advance_showdown()
            return self.events[mark:]
        bets, stacks = self._bets, self._stacks
        completing = self._stud and self._completing
        if completing and self._bringing_in and kind is not _BRING_IN and kind is not _BET:
            raise IllegalAction("bring_in_now", "Post the bring-in or complete the bet.")
        if kind is _FOLD:
            self.folded[i] = True
            self.n_in -= 1
            self.n_active -= 1
            self.events.append(PlayerFolded(i))
        elif kind is _CHECK:
            if bets[i] < self.current_bet:
                raise IllegalAction("cannot_check", "You cannot check facing a bet.")
            self.events.append(PlayerChecked(i))
        elif kind is _CALL:
            to_call = self.current_bet - bets[i]
            if to_call <= 0:
                raise IllegalAction("nothing_to_call", "There is nothing to call; check instead.")
            paid = min(to_call, stacks[i])
            self._put(i, paid)
            self.events.append(PlayerCalled(i, paid, stacks[i] == 0))
        elif kind is _BET or kind is _RAISE:
            self._validate_size(action, legal or self._work_out_legal())
            to = action.amount
            assert to is not None
            increment = to - self.current_bet
            if increment >= self.raise_size and self.setup.structure != "FL":
                self.raise_size = increment
            self.bet_count += 1
            self.current_bet = to
            self.aggressor = i
            self._put(i, to - bets[i])
            event_type = BetPlaced if kind is _BET else RaisePlaced
            self.events.append(event_type(i, to, stacks[i] == 0))
        elif kind is _BRING_IN:
            if not self._bringing_in:
                raise IllegalAction("no_bring_in", "The bring-in is posted once, first.")
            paid = min(self.setup.bring_in, stacks[i])
            self._put(i, paid)
            self.current_bet = paid
            self.events.append(BringInPosted(i, paid, stacks[i] == 0))
        else:
            raise IllegalAction("not_showdown", "Showing or mucking comes at the showdown.")
        self.history.append(action)
        # Until the bet is completed, acting on the bring-in street leaves the player free
        # to raise a completion (which is a full bet).
        self.acted_at[i] = 0 if completing and self._completing else self.current_bet
        nxt = None if self.n_in == 1 else self._next_actor(i + 1)
        self.actor = nxt
        if nxt is None:
            self._end_round()
        return self.events[mark:]

    def _validate_size(self, action: Action, legal: LegalActions) -> None:
        wanted = "bet" if self.current_bet == 0 else "raise"
        if action.kind.value != wanted:
            raise IllegalAction(
                f"{action.kind.value}_not_allowed",
                f"You cannot {action.kind.value} now; {wanted} instead.",
            )
        low, high = legal.min_raise_to, legal.max_raise_to
        if low is None or high is None:
            raise IllegalAction("raise_not_allowed", f"You may not {wanted} now.")
        assert action.amount is not None
        if not low <= action.amount <= high:
            span = f"exactly {low}" if low == high else f"from {low} to {high}"
            raise IllegalAction("bad_amount", f"The {wanted} must be to {span} chips.")

    def _put(self, i: int, chips: int) -> None:
        self._stacks[i] -= chips
        self._bets[i] += chips
        self.live[i] += chips
        if self._stacks[i] == 0:
            self.n_active -= 1

    # --------------------------------------------------------------- draws
    def _start_draw(self) -> None:
        self.phase = _DRAWING
        self.queue = [i for i in range(self.n) if not self.folded[i]]
        self.actor = self.queue[0]

    def _draw(self, i: int, cards: Sequence[Card]) -> None:
        hole = self.holes[i]
        if len(set(cards)) != len(cards) or not set(cards) <= set(hole):
            raise IllegalAction("bad_discard", "Discard only cards you hold, each once.")
        self.history.append(Action.draw(tuple(cards)))
        for card in cards:
            hole.remove(card)
        self.discards.extend(cards)
        self.drawn[i].append(len(cards))
        self.events.append(PlayerDrew(i, len(cards)))
        if cards:
            self.events.append(CardsDiscarded(i, tuple(cards)))
        self.queue.pop(0)
        if self.queue:
            self.actor = self.queue[0]
            return
        for j in range(self.n):  # replacements, in position order
            count = len(self.variant.streets[0].hole) - len(self.holes[j])
            if self.folded[j] or not count:
                continue
            new = self._take(count)
            self.holes[j].extend(new)
            self.events.append(HoleCardsDealt(j, tuple(new)))
        self.phase = _BETTING
        self._open_betting()

    # -------------------------------------------------------------- rounds
    def _return_uncalled(self) -> None:
        bets = self._bets
        top = max(bets)
        leader = bets.index(top)
        second = max(b for j, b in enumerate(bets) if j != leader)
        if top > second:
            excess = top - second
            if self._stacks[leader] == 0 and not self.folded[leader]:
                self.n_active += 1
            bets[leader] -= excess
            self.live[leader] -= excess
            self._stacks[leader] += excess
            self.events.append(UncalledBetReturned(leader, excess))

    def _draws_ahead(self) -> bool:
        return self.variant.draws_after[self._street]

    def _end_round(self) -> None:
        self._return_uncalled()
        if self.n_in == 1:
            self.phase = _FOLD_WIN
            self.actor = self.folded.index(False)
            return
        if self.n_active <= 1 and not self._draws_ahead():
            self._all_in_showdown()
        elif self._street == len(self.variant.streets) - 1:
            self._start_showdown()
        else:
            self._next_street()

    def _next_street(self) -> None:
        self._street += 1
        self._bets = [0] * self.n
        self.acted_at = [-1] * self.n
        self.current_bet = self.bet_count = 0
        self.raise_size = self.bet_size = self._bet_size()
        self.aggressor = None
        street = self.variant.streets[self._street]
        self._deal_street(street)
        if street.draw:
            self._start_draw()
        else:
            self._open_betting()

    def _open_betting(self) -> None:
        """Start the street's betting round (none when at most one player can bet)."""
        if self.n_active <= 1:
            self.actor = None
            self._end_round()
            return
        street = self.variant.streets[self._street]
        self.actor = self._next_actor(self._opener(street))
        if self.actor is None:
            self._end_round()

    def _showdown_order(self) -> list[int]:
        n = self.n
        first = self.aggressor
        if first is None:
            # No bet on the last street: whoever would act first there shows first (TDA;
            # stud: the best visible hand, razz: the lowest; pokerkit agrees).
            first = self._opener(self.variant.streets[self._street])
        return [(first + k) % n for k in range(n) if not self.folded[(first + k) % n]]

    def _prepare_showdown(self) -> None:
        board, holes, folded = self._board, self.holes, self.folded
        kinds = self.variant.evaluators
        high = EVALUATORS[kinds[0]].evaluate
        self.values = [-1 if folded[i] else high(holes[i], board) or 0 for i in range(self.n)]
        if len(kinds) == 2:
            low = EVALUATORS[kinds[1]].evaluate
            self.lows = [None if folded[i] else low(holes[i], board) for i in range(self.n)]
        self.showdown_pots = self._build_pots()
        self.best = [-1] * len(self.showdown_pots)
        self.best_low = [-1] * len(self.showdown_pots)

    def _all_in_showdown(self) -> None:
        # All contenders' cards are tabled, as in a cardroom, before the run-out (stud:
        # after it, as the last cards are dealt to the players), in the showdown order
        # of the street where the betting stopped (as pokerkit).
        order = self._showdown_order()
        later_holes = any(s.hole for s in self.variant.streets[self._street + 1 :])
        if not later_holes:
            self._table_contenders(order)
        while self._street < len(self.variant.streets) - 1:
            self._street += 1
            self._deal_street(self.variant.streets[self._street])
        if later_holes:
            self._table_contenders(order)
        self._bets = [0] * self.n
        self._prepare_showdown()
        self._award()

    def _table_contenders(self, order: list[int]) -> None:
        for i in order:
            self.shown[i] = True
            self.events.append(CardsShown(i, tuple(self.holes[i])))

    def _start_showdown(self) -> None:
        self._prepare_showdown()
        self.queue = self._showdown_order()
        self._advance_showdown()

    def _may_win(self, i: int) -> bool:
        values, lows = self.values, self.lows
        for k, pot in enumerate(self.showdown_pots):
            if i in pot.eligible:
                if values[i] >= self.best[k]:
                    return True
                if lows:
                    low = lows[i]
                    if low is not None and low >= self.best_low[k]:
                        return True
        return False

    def _advance_showdown(self) -> None:
        queue = self.queue
        while queue:
            i = queue[0]
            if self._may_win(i):
                self._reveal(i)
                queue.pop(0)
            else:
                self.phase = _SHOWDOWN
                self.actor = i
                return
        self._award()

    def _reveal(self, i: int) -> None:
        self.shown[i] = True
        cards = tuple(self.holes[i])
        description = ""
        if self.values:
            description = self.describe(i)
            value = self.values[i]
            low = self.lows[i] if self.lows else None
            for k, pot in enumerate(self.showdown_pots):
                if i in pot.eligible:
                    if value > self.best[k]:
                        self.best[k] = value
                    if low is not None and low > self.best_low[k]:
                        self.best_low[k] = low
        self.events.append(CardsShown(i, cards, description))

    def _award(self) -> None:
        pots = self.showdown_pots if self.values else self._build_pots()
        events = self.events
        kinds = self.variant.evaluators
        for k, pot in enumerate(pots):
            if self.values:
                claim = [i for i in pot.eligible if self.shown[i] and not self.mucked[i]]
                top = max(self.values[i] for i in claim)
                winners = [i for i in claim if self.values[i] == top]
                hand = EVALUATORS[kinds[0]].describe(top)
                lows: list[tuple[int, int]] = []
                for i in claim:
                    low = self.lows[i] if self.lows else None
                    if low is not None:
                        lows.append((low, i))
                if lows:
                    best_low = max(value for value, _ in lows)
                    low_winners = [i for value, i in lows if value == best_low]
                    low_hand = EVALUATORS[kinds[1]].describe(best_low)
                    high_half = pot.amount - pot.amount // 2  # the odd chip goes high
                    self._pay(k, high_half, winners, hand, "high")
                    self._pay(k, pot.amount // 2, low_winners, low_hand, "low")
                    continue
                self._pay(k, pot.amount, winners, hand, "")
            else:
                self._pay(k, pot.amount, [self.folded.index(False)], "", "")
        self.final_pots = pots
        self.live, self.dead = [0] * self.n, [0] * self.n
        self._bets = [0] * self.n
        self.phase, self.actor = _OVER, None
        events.append(HandEnded())

    def _pay(self, pot: int, amount: int, winners: list[int], hand: str, side: str) -> None:
        for i, chips in split(amount, winners):
            self._stacks[i] += chips
            self.won[i] += chips
            self.events.append(PotAwarded(pot, i, chips, hand, side))

    # ------------------------------------------------------- serialisation
    def to_json(self) -> dict[str, Any]:
        """Lossless plain-JSON form: setup, deck, actions and the event log.

        Contains the whole deck: never send it to a client (see projection).
        """
        data = {
            "setup": self.setup.to_json(),
            "deck": format_cards(self.deck),
            "actions": [str(a) for a in self.history],
            "events": [e.to_json() for e in self.events],
        }
        if self.reshuffle:
            data["reshuffle"] = format_cards(self.reshuffle)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Hand:
        """Rebuild a hand by replaying its actions from the stored setup and deck."""
        try:
            hand, _ = cls.start(HandSetup.from_json(data["setup"]), parse_cards(data["deck"]),
                                parse_cards(data.get("reshuffle", "")))
            for text in data["actions"]:
                hand.apply(Action.parse(text))
        except (KeyError, TypeError) as error:
            raise MalformedAction("bad_hand", f"Not a stored hand: {error}.") from None
        return hand

    def copy(self) -> Hand:
        """An independent copy (lists copied, immutable values shared)."""
        other = Hand.__new__(Hand)
        for name in Hand.__slots__:
            value = getattr(self, name)
            if name in ("holes", "up", "drawn"):
                value = [list(v) for v in value]
            elif isinstance(value, list):
                value = value[:]
            setattr(other, name, value)
        return other

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Hand):
            return NotImplemented
        return ((self.setup, self.deck, self.reshuffle, self.history)
                == (other.setup, other.deck, other.reshuffle, other.history))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<Hand {self.variant.key} {self.setup.structure} {self.n} players, {self.street}>"
