"""The Texas Hold'em hand state machine.

Positions follow PHH: index 0 is the first player after the button (the small
blind), the last index is the button. Heads-up the button is index 1 and posts
the small blind: ``blinds=(1, 2)`` with two players means index 1 posts 1.

Deal order (fixed, no burn cards): position 0 gets ``deck[0:2]``, position 1
``deck[2:4]``, ...; then the flop is the next 3 cards, the turn 1, the river 1.

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
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from engine import evaluation
from engine.actions import Action, ActionKind
from engine.betting import NO_ACTIONS, SHOW_OR_MUCK, STRUCTURES, LegalActions, raise_bounds
from engine.cards import CARDS, Card, format_cards, parse_cards
from engine.errors import IllegalAction, MalformedAction
from engine.events import (
    AntePosted,
    BetPlaced,
    BlindPosted,
    BoardDealt,
    CardsMucked,
    CardsShown,
    Event,
    HandEnded,
    HoleCardsDealt,
    PlayerCalled,
    PlayerChecked,
    PlayerFolded,
    PotAwarded,
    RaisePlaced,
    UncalledBetReturned,
)
from engine.pots import Pot, build_pots, split

STREETS = ("preflop", "flop", "turn", "river")
_BETTING, _SHOWDOWN, _FOLD_WIN, _OVER = range(4)
_FOLD, _CHECK, _CALL = ActionKind.FOLD, ActionKind.CHECK, ActionKind.CALL
_BET, _RAISE, _SHOW = ActionKind.BET, ActionKind.RAISE, ActionKind.SHOW


def _amounts(name: str, values: Sequence[int], n: int, allow_empty: bool) -> tuple[int, ...]:
    values = tuple(values)
    if not values and allow_empty:
        return (0,) * n
    if len(values) != n:
        raise MalformedAction("bad_setup", f"{name} needs one amount per player ({n}).")
    if any(type(v) is not int or v < 0 for v in values):
        raise MalformedAction("bad_setup", f"{name} must be whole numbers of chips, not negative.")
    return values


@dataclass(frozen=True, slots=True)
class HandSetup:
    """Everything fixed before the cards: structure, stacks and forced bets per position.

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

    def __post_init__(self) -> None:
        if self.structure not in STRUCTURES:
            raise MalformedAction("bad_setup", f"Unknown structure {self.structure!r}.")
        n = len(self.stacks)
        if not 2 <= n <= 23:
            raise MalformedAction("bad_setup", "A hand needs 2 to 23 players.")
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

    @property
    def n(self) -> int:
        """Number of players."""
        return len(self.stacks)

    def to_json(self) -> dict[str, Any]:
        """Plain-JSON form (tuples become lists)."""
        return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> HandSetup:
        """Inverse of :meth:`to_json`."""
        try:
            fields: dict[str, Any] = {
                k: tuple(v) if isinstance(v, list) else v for k, v in data.items()
            }
            return cls(**fields)
        except TypeError as error:
            raise MalformedAction("bad_setup", f"Bad hand setup: {error}.") from None


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


class Hand:
    """One hand in progress. Create with :meth:`Hand.start`; drive with :meth:`apply`."""

    __slots__ = (
        "_bets",
        "_board",
        "_stacks",
        "_street",
        "acted_at",
        "actor",
        "aggressor",
        "best",
        "bet_count",
        "current_bet",
        "dead",
        "deck",
        "events",
        "final_pots",
        "folded",
        "history",
        "live",
        "mucked",
        "n",
        "n_active",
        "n_in",
        "phase",
        "queue",
        "raise_size",
        "setup",
        "showdown_pots",
        "shown",
        "values",
        "won",
    )

    setup: HandSetup
    deck: tuple[Card, ...]
    n: int
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
    showdown_pots: list[Pot]
    best: list[int]
    won: list[int]
    final_pots: list[Pot]

    # ------------------------------------------------------------------ start
    @classmethod
    def start(cls, setup: HandSetup, deck: Sequence[Card]) -> tuple[Hand, list[Event]]:
        """Post antes and blinds, deal hole cards, and return the hand and its events.

        Players who cannot cover their forced bets post what they have (all-in).
        """
        n = setup.n
        needed = 2 * n + 5  # only these are dealt (and kept); the rest is never looked at
        try:
            cards = tuple(CARDS[c] for c in deck[:needed] if c >= 0)
        except (IndexError, TypeError):
            raise MalformedAction("bad_deck", "The deck must contain cards.") from None
        if len(cards) < needed or len(set(cards)) != needed:
            raise MalformedAction("bad_deck", f"The deck needs {needed} distinct cards.")
        self = cls.__new__(cls)
        self.setup, self.deck, self.n = setup, cards, n
        self._stacks = list(setup.stacks)
        self._bets, self.live, self.dead = [0] * n, [0] * n, [0] * n
        self.folded = [False] * n
        self._street, self._board = 0, []
        self.phase, self.aggressor = _BETTING, None
        self.events, self.history, self.queue = [], [], []
        self.shown, self.mucked = [False] * n, [False] * n
        self.values, self.showdown_pots, self.best = [], [], []
        self.won, self.final_pots = [0] * n, []
        self.acted_at = [-1] * n
        blinds, antes = setup.blinds, setup.antes
        if n == 2:  # heads-up: the button (index 1) posts the small blind
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
        for i in range(n):
            events.append(HoleCardsDealt(i, cards[2 * i : 2 * i + 2]))
        largest = max(blinds)
        self.current_bet = max(self._bets)
        # The minimum raise increment starts at min_bet on every street (pokerkit
        # convention; a straddle does not raise it).
        self.raise_size = setup.min_bet
        self.bet_count = 1 if largest and setup.cap_counts_blind else 0
        self.n_in = n
        self.n_active = sum(1 for s in stacks if s)
        # Action starts after the largest blind (a straddle); with equal posts
        # (a new player's big blind) after the first of them.
        first = (blinds.index(largest) + 1) % n if largest else 0
        self._skip_covered_players()
        self.actor = self._next_actor(first)
        if self.actor is None:
            self._end_round()
        return self, list(events)

    # ------------------------------------------------------------- queries
    @property
    def is_over(self) -> bool:
        """True once every pot has been awarded."""
        return self.phase == _OVER

    @property
    def street(self) -> str:
        """The current street: "preflop", "flop", "turn" or "river"."""
        return STREETS[self._street]

    @property
    def street_index(self) -> int:
        """0 for pre-flop up to 3 for the river."""
        return self._street

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
        """Every position's hole cards (omniscient: use the projection for clients)."""
        return tuple(self.deck[2 * i : 2 * i + 2] for i in range(self.n))

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

    @property
    def results(self) -> tuple[PlayerResult, ...] | None:
        """Per position: net, chips won, shown cards, hand; ``None`` while running."""
        if self.phase != _OVER:
            return None
        out = []
        for i in range(self.n):
            shown = self.deck[2 * i : 2 * i + 2] if self.shown[i] else None
            hand = None
            if shown is not None and len(self._board) == 5:
                hand = evaluation.describe(evaluation.evaluate(shown + tuple(self._board)))
            net = self._stacks[i] - self.setup.stacks[i]
            out.append(PlayerResult(i, net, self.won[i], shown, hand))
        return tuple(out)

    def _build_pots(self) -> list[Pot]:
        all_in = [s == 0 for s in self._stacks]
        return build_pots(self.live, sum(self.dead), self.folded, all_in)

    def _bet_size(self) -> int:
        setup = self.setup
        if setup.structure == "FL" and self._street >= 2:
            return setup.big_bet or 2 * setup.min_bet
        return setup.min_bet

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
        # it happens only after the blinds, e.g. a button all-in posting the small blind).
        bets, stacks = self._bets, self._stacks
        totals = [bets[j] + stacks[j] for j in range(self.n)]
        for i in range(self.n):
            if stacks[i] and max(t for j, t in enumerate(totals) if j != i) <= bets[i]:
                self.acted_at[i] = self.current_bet

    def _next_actor(self, start: int) -> int | None:
        n = self.n
        for k in range(n):
            i = (start + k) % n
            if self._needs_action(i):
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
    def formality(self) -> bool:
        """True at a show-or-muck decision (after the betting): no choice that moves chips."""
        return self.actor is not None and self.phase != _BETTING

    def legal_actions(self) -> LegalActions:
        """What the actor may do now (nothing when the hand is over)."""
        i = self.actor
        if i is None:
            return NO_ACTIONS
        if self.phase != _BETTING:
            return SHOW_OR_MUCK
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
        return raise_bounds(
            self.setup.structure, self.current_bet, self.raise_size, self._bets[i],
            self._bets[i] + self._stacks[i], pot_total, self._bet_size(),
        )

    def default_action(self) -> Action:
        """The timeout action: muck at showdown, else check if possible, else fold."""
        if self.phase != _BETTING:
            return Action.muck()
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
        if self.phase != _BETTING:
            if kind is _SHOW:
                self._reveal(i)
            elif kind is ActionKind.MUCK:
                self.mucked[i] = True
                self.events.append(CardsMucked(i))
            else:
                raise IllegalAction("show_or_muck", "You may only show or muck now.")
            self.history.append(action)
            if self.phase == _FOLD_WIN:
                self._award()
            else:
                self.queue.pop(0)
                self._advance_showdown()
            return self.events[mark:]
        bets, stacks = self._bets, self._stacks
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
            self._validate_size(i, action)
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
        else:
            raise IllegalAction("not_showdown", "Showing or mucking comes at the showdown.")
        self.history.append(action)
        self.acted_at[i] = self.current_bet
        nxt = None if self.n_in == 1 else self._next_actor(i + 1)
        self.actor = nxt
        if nxt is None:
            self._end_round()
        return self.events[mark:]

    def _validate_size(self, i: int, action: Action) -> None:
        wanted = "bet" if self.current_bet == 0 else "raise"
        if action.kind.value != wanted:
            raise IllegalAction(
                f"{action.kind.value}_not_allowed",
                f"You cannot {action.kind.value} now; {wanted} instead.",
            )
        if not self._may_raise(i):
            raise IllegalAction("raise_not_allowed", f"You may not {wanted} now.")
        low, high = self._bounds(i)
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

    def _end_round(self) -> None:
        self._return_uncalled()
        if self.n_in == 1:
            self.phase = _FOLD_WIN
            self.actor = self.folded.index(False)
            return
        if self.n_active <= 1:
            self._all_in_showdown()
        elif self._street == 3:
            self._start_showdown()
        else:
            self._next_street()
            self.actor = self._next_actor(0)

    def _next_street(self) -> None:
        self._street += 1
        self._bets = [0] * self.n
        self.acted_at = [-1] * self.n
        self.current_bet = self.bet_count = 0
        self.raise_size = self._bet_size()
        self.aggressor = None
        self._deal_board()

    def _deal_board(self) -> None:
        base = 2 * self.n
        start, stop = ((0, 3), (3, 4), (4, 5))[self._street - 1]
        cards = self.deck[base + start : base + stop]
        self._board.extend(cards)
        self.events.append(BoardDealt(STREETS[self._street], cards))

    def _showdown_order(self) -> list[int]:
        n = self.n
        first = self.aggressor if self.aggressor is not None else 0
        return [(first + k) % n for k in range(n) if not self.folded[(first + k) % n]]

    def _prepare_showdown(self) -> None:
        board = tuple(self._board)
        self.values = [
            -1 if self.folded[i] else evaluation.evaluate(self.deck[2 * i : 2 * i + 2] + board)
            for i in range(self.n)
        ]
        self.showdown_pots = self._build_pots()
        self.best = [-1] * len(self.showdown_pots)

    def _all_in_showdown(self) -> None:
        # All contenders' cards are tabled, as in a cardroom, before the run-out.
        for i in self._showdown_order():
            self.shown[i] = True
            self.events.append(CardsShown(i, self.deck[2 * i : 2 * i + 2]))
        while self._street < 3:
            self._street += 1
            self._deal_board()
        self._bets = [0] * self.n
        self._prepare_showdown()
        self._award()

    def _start_showdown(self) -> None:
        self._prepare_showdown()
        self.queue = self._showdown_order()
        self._advance_showdown()

    def _advance_showdown(self) -> None:
        queue, values, pots, best = self.queue, self.values, self.showdown_pots, self.best
        while queue:
            i = queue[0]
            if any(i in pot.eligible and values[i] >= best[k] for k, pot in enumerate(pots)):
                self._reveal(i)
                queue.pop(0)
            else:
                self.phase = _SHOWDOWN
                self.actor = i
                return
        self._award()

    def _reveal(self, i: int) -> None:
        self.shown[i] = True
        cards = self.deck[2 * i : 2 * i + 2]
        description = ""
        if len(self._board) + 2 >= 5:
            value = evaluation.evaluate(cards + tuple(self._board))
            description = evaluation.describe(value)
            for k, pot in enumerate(self.showdown_pots):
                if i in pot.eligible and value > self.best[k]:
                    self.best[k] = value
        self.events.append(CardsShown(i, cards, description))

    def _award(self) -> None:
        pots = self.showdown_pots if self.values else self._build_pots()
        events = self.events
        for k, pot in enumerate(pots):
            if self.values:
                claim = [i for i in pot.eligible if self.shown[i] and not self.mucked[i]]
                top = max(self.values[i] for i in claim)
                winners = [i for i in claim if self.values[i] == top]
                hand = evaluation.describe(top)
            else:
                winners, hand = [self.folded.index(False)], ""
            for i, chips in split(pot.amount, winners):
                self._stacks[i] += chips
                self.won[i] += chips
                events.append(PotAwarded(k, i, chips, hand))
        self.final_pots = pots
        self.live, self.dead = [0] * self.n, [0] * self.n
        self._bets = [0] * self.n
        self.phase, self.actor = _OVER, None
        events.append(HandEnded())

    # ------------------------------------------------------- serialisation
    def to_json(self) -> dict[str, Any]:
        """Lossless plain-JSON form: setup, deck, actions and the event log.

        Contains the whole deck: never send it to a client (see projection).
        """
        return {
            "setup": self.setup.to_json(),
            "deck": format_cards(self.deck),
            "actions": [str(a) for a in self.history],
            "events": [e.to_json() for e in self.events],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Hand:
        """Rebuild a hand by replaying its actions from the stored setup and deck."""
        try:
            hand, _ = cls.start(HandSetup.from_json(data["setup"]), parse_cards(data["deck"]))
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
            setattr(other, name, value[:] if isinstance(value, list) else value)
        return other

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Hand):
            return NotImplemented
        return (self.setup, self.deck, self.history) == (other.setup, other.deck, other.history)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<Hand {self.setup.structure} {self.n} players, {STREETS[self._street]}>"
