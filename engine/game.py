"""The game contract: what a game module gives the platform, and the values all games share.

A game is a package under ``engine/`` (``engine/poker/``, ...) with one object that
subclasses :class:`Game`, listed in :mod:`engine.registry`. The table runtime
(``tables/``), the lobby, the API, the research tools and the bots reach a game
only through the methods below; they never import the package itself. A game
never imports Django and never shuffles on its own: the runtime asks it to
:meth:`~Game.draw_chance` for a round, stores that, and hands it back to
:meth:`~Game.start_round`, so every round replays exactly.

What the runtime learns from a game:

* :class:`GameInfo` — key, title, player counts, teams, economy (chips) or scores,
  cash game or a game that ends, seat commands, house-bot styles, export format.
* :class:`Status` — the round in progress, whose turn (one seat or several at once),
  a key that changes with every decision, whether the game is over.
* :class:`SeatInfo` — who sits where, away or not, leaving or not, chips.
* **Platform events** (below) among the events every call returns: the runtime
  archives a round at :class:`RoundEnded`, books money only from :class:`BuyIn` and
  :class:`CashOut`, and closes the table at :class:`GameEnded`.
* **Legal moves** as generic descriptors (:func:`move`, :func:`number`,
  :func:`options`, :func:`subset`) that bots, the browser and adapters can read
  without knowing the game.
* Projections: :meth:`Game.view` and :meth:`Game.project_event` for a
  :class:`Viewer` — the one road from hidden state to a client.

>>> spec = move("raise", "Raise to", amount=number(4, 200))
>>> spec["params"]
{'amount': {'type': 'number', 'min': 4, 'max': 200}}
>>> check_move([move("fold"), spec], {"kind": "raise", "amount": 10})
>>> check_move([move("fold"), spec], {"kind": "raise", "amount": 1000})
Traceback (most recent call last):
...
engine.errors.IllegalAction: amount must be between 4 and 200.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import Any, Protocol

from engine.cards import Card, format_cards
from engine.errors import IllegalAction, MalformedAction

Json = dict[str, Any]

__all__ = [
    "MAX_CHIPS", "BuyIn", "CameBack", "CashOut", "Event", "Game", "GameEnded", "GameInfo",
    "Json", "RoundEnded", "RoundStarted", "SeatFreed", "SeatInfo", "SeatResult", "SeatTaken",
    "Standing", "Status", "TimedOut", "ViewFn", "Viewer", "WentAway", "check_move",
    "decision_view", "move", "number", "options", "random_move", "subset",
]

MAX_CHIPS = 10**12
"""The most chips any one amount may be: a buy-in, a bet or raise, chips added, a
table setting (blinds, buy-in limits), a ledger entry. Every game and the platform
refuse more (docs/security.md, "Input bounds"). A table holds at most a few times
this (ten seats), far inside the 64-bit database columns (9.2e18) and inside the
integers JavaScript clients read exactly (2**53 ≈ 9.0e15)."""


# ------------------------------------------------------------------ viewers


@dataclass(frozen=True, slots=True)
class Viewer:
    """Who is looking: the seats a connection controls, or everything (a superuser's
    own viewing connection; never a seat's). A spectator controls no seat."""

    players: frozenset[int] = frozenset()
    omniscient: bool = False

    @classmethod
    def of(cls, *players: int) -> Viewer:
        """A viewer controlling these seats (one user may control several)."""
        return cls(frozenset(players))

    @classmethod
    def spectator(cls) -> Viewer:
        """A viewer controlling nobody: sees only public information."""
        return cls()

    @classmethod
    def superuser(cls) -> Viewer:
        """The omniscient viewer: sees every hidden value dealt (never the undealt deck)."""
        return cls(omniscient=True)

    def can_see(self, player: int | None) -> bool:
        """True if something for ``player``'s eyes (``None`` = public) may be shown."""
        return player is None or self.omniscient or player in self.players


# ------------------------------------------------------------------ events


def _plain(value: Any) -> Any:
    if isinstance(value, tuple | list):
        if value and all(isinstance(v, Card) for v in value):
            return format_cards(value)
        return [_plain(v) for v in value]
    if isinstance(value, Card):
        return str(value)
    to_json = getattr(value, "to_json", None)
    if to_json is not None:
        return to_json()
    return value


@dataclass(frozen=True, slots=True)
class Event:
    """Base class of every event: what happened, in the past tense.

    ``audience`` is ``None`` for a public event, or the seat (or hand position,
    inside a game's own round object) that alone may see it. A game's
    :meth:`Game.project_event` decides what everyone else sees (maybe nothing).
    """

    @property
    def audience(self) -> int | None:
        """``None`` = everyone; an int = only that player."""
        return None

    @property
    def type(self) -> str:
        """The event's type name, e.g. ``"BetPlaced"``."""
        return type(self).__name__

    def to_json(self) -> Json:
        """All fields as plain JSON types (cards as text), plus ``"type"``."""
        cls = type(self)
        names = _FIELD_NAMES.get(cls)
        if names is None:
            names = _FIELD_NAMES[cls] = tuple(item.name for item in fields(cls))
        data: Json = {"type": cls.__name__}
        for name in names:
            data[name] = _plain(getattr(self, name))
        return data


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}  # per event class (``fields()`` is slow)


# Platform events: every game emits these (or subclasses of them, which keep
# their own type names on the wire). ``player`` is always a seat number.


@dataclass(frozen=True, slots=True)
class SeatTaken(Event):
    """A player sat down."""

    player: int
    player_id: str


@dataclass(frozen=True, slots=True)
class SeatFreed(Event):
    """A player left the seat (after their round ended, if they were in one)."""

    player: int
    player_id: str


@dataclass(frozen=True, slots=True)
class BuyIn(Event):
    """Economy games: ``amount`` chips came from the player's balance to the table."""

    player: int
    player_id: str
    amount: int


@dataclass(frozen=True, slots=True)
class CashOut(Event):
    """Economy games: ``amount`` chips went from the table back to the player's balance."""

    player: int
    player_id: str
    amount: int


@dataclass(frozen=True, slots=True)
class WentAway(Event):
    """The player is away (asked to, timed out, disconnected): not dealt into rounds."""

    player: int
    reason: str = "request"


@dataclass(frozen=True, slots=True)
class CameBack(Event):
    """The player is back and will be dealt in again."""

    player: int


@dataclass(frozen=True, slots=True)
class TimedOut(Event):
    """The player's time ran out; the game played ``action`` (its default move) for them."""

    player: int
    action: str


@dataclass(frozen=True, slots=True)
class RoundStarted(Event):
    """A round began: ``seats`` are its participants in the game's order, ``player_ids``
    who sat there (the runtime keeps them: a participant who leaves mid-round is still
    archived under their own name)."""

    number: int
    seats: tuple[int, ...]
    player_ids: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class SeatResult:
    """One participant's result of a round. ``net``: chips won or lost (economy
    games; 0 otherwise); ``score``: points (score games); ``detail``: public facts
    (e.g. the cards shown); ``secret``: facts for the participant's own eyes only
    (never sent in the event; stored with the round, shown to whoever may see that
    seat)."""

    seat: int
    player_id: str
    net: int = 0
    score: int | None = None
    detail: Json = field(default_factory=dict)
    secret: Json = field(default_factory=dict)

    def to_json(self) -> Json:
        """The public part (``secret`` is left out)."""
        return {"seat": self.seat, "player_id": self.player_id, "net": self.net,
                "score": self.score, "detail": self.detail}


@dataclass(frozen=True, slots=True)
class RoundEnded(Event):
    """The round is over; ``results`` has one entry per participant."""

    results: tuple[SeatResult, ...] = ()


@dataclass(frozen=True, slots=True)
class Standing:
    """One place in the final standings of a game that ends."""

    seat: int
    player_id: str
    rank: int
    score: int = 0

    def to_json(self) -> Json:
        """Plain dict."""
        return {"seat": self.seat, "player_id": self.player_id, "rank": self.rank,
                "score": self.score}


@dataclass(frozen=True, slots=True)
class GameEnded(Event):
    """The game is over (games that end): the table closes with these standings."""

    standings: tuple[Standing, ...] = ()


# ------------------------------------------------------------ descriptions


@dataclass(frozen=True, slots=True)
class GameInfo:
    """What a game says about itself."""

    key: str
    title: str
    min_players: int
    max_players: int
    economy: bool  # chips bought in from the ledger and cashed out; else scores
    ends: bool  # the table finishes (game over); else it runs as a cash game
    teams: int = 0  # number of partnerships (0: everyone for themself)
    round_name: str = "round"  # "hand", "deal", "game"...
    seat_commands: tuple[str, ...] = ()  # extra commands between moves
    seat_options: Json = field(default_factory=dict)  # JSON schema of the sit command's options
    house_bots: tuple[str, ...] = ()  # house-bot styles that can play this game
    export_format: str = ""  # "phh" for poker; "" = JSON
    stats: tuple[str, ...] = ()  # names of the statistics the research pages show
    client: str = ""  # the folder of static/games/ with its board; "" = the key

    def to_json(self) -> Json:
        """Plain dict for the API and the lobby."""
        return {"key": self.key, "title": self.title, "min_players": self.min_players,
                "max_players": self.max_players, "economy": self.economy, "ends": self.ends,
                "teams": self.teams, "round_name": self.round_name,
                "seat_commands": list(self.seat_commands), "seat_options": self.seat_options,
                "house_bots": list(self.house_bots), "export_format": self.export_format,
                "stats": list(self.stats), "client": self.client or self.key}


@dataclass(frozen=True, slots=True)
class Listing:
    """How the lobby shows a table: its name, seat count and sortable facts."""

    name: str
    seats: int
    facts: Json = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Status:
    """Where the game is. ``round``: number of the round in progress (``None``
    between rounds); ``to_act``: the seats that must move now (several for a
    simultaneous decision); ``decision``: a key that changes with every new decision
    (the runtime times turns and refuses stale moves by it); ``quick``: a formality
    (e.g. show or muck) with a short timer; ``default``: the move a formality's
    player makes by not answering (poker: ``{"kind": "muck"}``) — the runtime plays it
    at once for seats that skip formalities; ``over``: the game has ended."""

    round: int | None = None
    to_act: tuple[int, ...] = ()
    decision: str = ""
    quick: bool = False
    default: Json | None = None
    over: bool = False


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """One occupied seat as the runtime sees it. ``status`` is the game's word
    (shown to users); ``away``: not dealt in; ``chips``: economy games only."""

    player_id: str
    status: str = "playing"
    away: bool = False
    leaving: bool = False
    chips: int = 0


# ------------------------------------------------------------ legal moves


def number(low: int, high: int) -> Json:
    """A whole number in ``[low, high]``."""
    return {"type": "number", "min": low, "max": high}


def options(values: Sequence[Any]) -> Json:
    """One of ``values``."""
    return {"type": "choice", "options": list(values)}


def subset(items: Sequence[Any], low: int = 0, high: int | None = None) -> Json:
    """A list of ``low``..``high`` distinct items of ``items`` (e.g. cards to discard)."""
    return {"type": "subset", "items": list(items), "min": low,
            "max": len(items) if high is None else high}


def move(kind: str, label: str = "", **params: Json) -> Json:
    """One legal move: ``{"kind": kind, **arguments}`` is what a player sends."""
    spec: Json = {"kind": kind, "label": label or kind.replace("_", " ").capitalize()}
    if params:
        spec["params"] = params
    return spec


def check_move(specs: Sequence[Json], data: Any) -> None:
    """Raise MalformedAction / IllegalAction unless ``data`` fits one of ``specs``."""
    if not isinstance(data, dict) or not isinstance(data.get("kind"), str):
        raise MalformedAction("malformed_action", 'A move is {"kind": ..., ...}.')
    spec = next((s for s in specs if s["kind"] == data["kind"]), None)
    if spec is None:
        raise IllegalAction("illegal_action", f"{data['kind']!r} is not a legal move now.")
    params = spec.get("params", {})
    extra = set(data) - {"kind"} - set(params)
    if extra:
        raise MalformedAction("malformed_action", f"Unexpected field(s): {sorted(extra)}.")
    for name, param in params.items():
        if name not in data:
            raise MalformedAction("malformed_action", f"The move needs {name!r}.")
        value = data[name]
        if param["type"] == "number":
            if type(value) is not int:
                raise MalformedAction("malformed_action", f"{name} must be a whole number.")
            low, high = max(param["min"], -MAX_CHIPS), min(param["max"], MAX_CHIPS)
            if not low <= value <= high:  # never beyond MAX_CHIPS, whatever the game says
                raise IllegalAction("illegal_amount", f"{name} must be between {low} and {high}.")
        elif param["type"] == "choice":
            if value not in param["options"]:
                raise IllegalAction("illegal_action", f"{name}: {value!r} is not an option.")
        elif param["type"] == "subset" and (
                    not isinstance(value, list) or len(set(map(repr, value))) != len(value)
                    or any(v not in param["items"] for v in value)
                    or not param["min"] <= len(value) <= param["max"]):
            raise IllegalAction("illegal_action", f"{name}: not an allowed selection.")


def random_move(specs: Sequence[Json], rng: random.Random) -> Json:
    """A uniformly chosen legal move with random arguments (the generic random bot)."""
    spec = rng.choice(list(specs))
    data: Json = {"kind": spec["kind"]}
    for name, param in spec.get("params", {}).items():
        if param["type"] == "number":
            data[name] = rng.randint(param["min"], param["max"])
        elif param["type"] == "choice":
            data[name] = rng.choice(param["options"])
        else:
            count = rng.randint(param["min"], param["max"])
            data[name] = rng.sample(param["items"], count)
    return data


# ------------------------------------------------------------------ the game


class Game:
    """Base class of every game. ``State`` and ``Settings`` are the game's own types,
    opaque to the platform. Methods that change state return the events they caused;
    they raise :class:`~engine.errors.MalformedAction` / ``IllegalAction`` (with a
    stable ``code``) and change nothing on error."""

    info: GameInfo  # a class attribute, or set per instance (one class, several games)

    # -- settings and listing
    def settings_schema(self) -> Json:
        """A JSON schema (``type: object``) of the settings: the lobby form and the API use it."""
        raise NotImplementedError

    def validate_settings(self, data: Json) -> Any:
        """Validated settings; raises MalformedAction(``bad_settings``)."""
        raise NotImplementedError

    def settings_json(self, settings: Any) -> Json:
        """The validated settings as JSON, defaults filled in (stored on the table)."""
        raise NotImplementedError

    def listing(self, settings: Any) -> Listing:
        """Name, seat count and sortable facts for the lobby."""
        raise NotImplementedError

    def display_name(self, settings: Any) -> str:
        """Human name of a table with these settings."""
        return self.listing(settings).name

    # -- rule sets and leaderboards (optional: games whose rules are user data)
    def rule_sets(self) -> Json | None:
        """What a rule-set editor needs, for a game whose rules users may write and
        save (the dice game): ``{"setting": <the settings key that takes a rule set>,
        ...the game's own description (families, parameters, limits, shipped sets)}``.
        ``None`` (the default): the game has no user rule sets."""
        return None

    def validate_rule_set(self, data: Any) -> Json:
        """A rule set checked and normalised, with its identity as ``id``; raises
        MalformedAction with a stable code and a sentence naming the problem."""
        raise MalformedAction("no_rule_sets", f"{self.info.title} has no rule sets.")

    def rule_set_id(self, settings_json: Json) -> str:
        """The identity of the rule set a table with these (stored) settings plays:
        its standings are also listed under it, whatever the other settings (seat
        count...). ``""`` (the default): the settings digest alone names the board."""
        return ""

    def on_leaderboard(self, settings_json: Json, seats: int, place: Standing) -> bool:
        """Whether a final standing of a table with ``seats`` seats enters the
        leaderboards (the default: every one)."""
        return True

    # -- seats
    def create(self, settings: Any) -> Any:
        """A fresh table state with nobody seated."""
        raise NotImplementedError

    def seats(self, state: Any) -> list[SeatInfo | None]:
        """Who sits where (``None``: a free seat)."""
        raise NotImplementedError

    def seat(self, state: Any, seat: int, player_id: str, options: Json) -> list[Event]:
        """Seat a player. ``options`` follow ``info.seat_options`` (poker: ``buy_in``)."""
        raise NotImplementedError

    def default_seat_options(self, state: Any) -> Json:
        """The options a player sits down with unless they choose (poker: the most
        chips allowed); house bots and matches use them."""
        return {}

    def unseat(self, state: Any, seat: int) -> list[Event]:
        """The player leaves (at the end of their round if they are in one)."""
        raise NotImplementedError

    def away(self, state: Any, seat: int, reason: str = "request") -> list[Event]:
        """The player steps away: not dealt into the next rounds."""
        raise NotImplementedError

    def back(self, state: Any, seat: int) -> list[Event]:
        """The player is back."""
        raise NotImplementedError

    def seat_command(self, state: Any, seat: int, name: str, options: Json) -> list[Event]:
        """One of ``info.seat_commands``; MalformedAction(``unknown_command``) otherwise."""
        raise MalformedAction("unknown_command", f"No seat command called {name!r}.")

    def refill(self, state: Any, seat: int) -> list[Event]:
        """Economy games: give a house bot that ran out of chips a fresh buy-in
        (between rounds; returns ``[]`` if nothing is needed)."""
        return []

    # -- rounds
    def can_start(self, state: Any) -> bool:
        """True if a new round can start now."""
        raise NotImplementedError

    def draw_chance(self, state: Any, rng: random.Random) -> Json:
        """Draw every random value of one round (a deck, dice) as JSON; stored by the caller."""
        raise NotImplementedError

    def start_round(self, state: Any, chance: Json) -> list[Event]:
        """Start a round from the stored chance; the events include a :class:`RoundStarted`."""
        raise NotImplementedError

    def status(self, state: Any) -> Status:
        """Round, whose turn, decision key, game over."""
        raise NotImplementedError

    def to_act(self, state: Any) -> tuple[int, ...]:
        """The seats that must move now: ``status(state).to_act``.

        Asked before every move (the match runner) and after every call (the
        runtime), so a game may override it with something cheaper than a whole
        :class:`Status` (Hold'em: no legal actions worked out for ``quick``).

        >>> from engine.registry import get_game
        >>> game = get_game("holdem")
        >>> state = game.create(game.validate_settings({"seats": 2}))
        >>> game.prepare_round(state, ["ann", "bob"], [100, 100], dealer=0)
        >>> _ = game.start_round(state, game.draw_chance(state, random.Random(1)))
        >>> game.to_act(state), Game.to_act(game, state), game.status(state).to_act
        ((0,), (0,), (0,))
        """
        return self.status(state).to_act

    def legal_moves(self, state: Any, seat: int) -> list[Json]:
        """What ``seat`` may do now, as generic descriptors (``[]``: nothing)."""
        raise NotImplementedError

    def legal_actions(self, state: Any, seat: int) -> Json:
        """The game's own richer description of the legal moves (poker keeps its
        ``can_check``/``min_raise_to`` fields here); by default the descriptors."""
        return {"moves": self.legal_moves(state, seat)}

    def apply(self, state: Any, seat: int, action: Json) -> list[Event]:
        """Apply ``seat``'s move; raises MalformedAction / IllegalAction."""
        raise NotImplementedError

    def timeout(self, state: Any) -> list[Event]:
        """Play the default move for every seat that must move now (with :class:`TimedOut`)."""
        raise NotImplementedError

    # -- projections
    def view(self, state: Any, viewer: Viewer) -> Json:
        """The whole state as ``viewer`` may see it."""
        raise NotImplementedError

    def project_event(self, event: Event, viewer: Viewer) -> Json | None:
        """One event as ``viewer`` may see it (``None``: not at all)."""
        if viewer.can_see(event.audience):
            return event.to_json()
        return None

    # -- offline matches (botkit's batch runner; never on a live table)
    def view_maker(self, state: Any) -> ViewFn:
        """A function ``(state, seat, time_left=None)`` giving :func:`decision_view`'s
        dict for any state with ``state``'s settings.

        A batch match builds one view per decision, so a game may cache here what
        the settings fix (Hold'em: the table's name and settings JSON) and skip the
        general viewer checks. By default it calls :func:`decision_view`.

        >>> from engine.registry import get_game
        >>> game = get_game("holdem")
        >>> state = game.create(game.validate_settings({"seats": 2}))
        >>> game.prepare_round(state, ["ann", "bob"], [100, 100])
        >>> _ = game.start_round(state, game.draw_chance(state, random.Random(1)))
        >>> fast, plain = game.view_maker(state), Game.view_maker(game, state)
        >>> fast(state, 0, 5.0) == plain(state, 0, 5.0) == decision_view(game, state, 0, 5.0)
        True
        >>> [m["kind"] for m in plain(state, 0)["moves"]], plain(state, 1)["moves"]
        (['fold', 'call', 'raise'], [])
        """
        def make(state: Any, seat: int, time_left: float | None = None) -> Json:
            return decision_view(self, state, seat, time_left)

        return make

    def prepare_round(self, state: Any, players: Sequence[str],
                      chips: Sequence[int] | None = None, dealer: int | None = None,
                      options: Json | None = None) -> None:
        """Between rounds: ``players[i]`` sits in seat ``i`` (with ``chips[i]`` chips,
        economy games), everyone present (not away), and ``dealer`` (if not ``None``)
        is the seat that deals the next round. Seats after ``len(players)`` are left
        as they are.

        For offline matches: stacks reset every hand, seats rotated, and in duplicate
        mode a deal replayed with the dealer in the same seat. Nothing is booked (no
        events are returned): never call it on a live table.

        The default uses the contract: a seat whose player or chips differ is freed
        and taken again (:meth:`unseat`, then :meth:`seat` with ``options``, default
        :meth:`default_seat_options`, and the chips as the ``buy_in`` option); an away
        player comes :meth:`back`. It cannot move a dealer, so ``dealer`` is ignored
        and the game's own rotation goes on: a game with a dealer (a button) should
        override this for exact duplicate matches; one that takes chips other than as
        ``buy_in`` must (the default raises ``NotImplementedError`` when asked for chips).

        >>> from engine.registry import get_game
        >>> game = get_game("holdem")  # Hold'em overrides it; here is the default:
        >>> state = game.create(game.validate_settings({"seats": 2}))
        >>> Game.prepare_round(game, state, ["ann", "bob"], [100, 150])
        >>> [(s.player_id, s.chips) for s in game.seats(state)]
        [('ann', 100), ('bob', 150)]
        >>> _ = game.away(state, 0)
        >>> Game.prepare_round(game, state, ["bob", "ann"], [120, 150])  # bob moves: re-seated
        >>> [(s.player_id, s.chips, s.away) for s in game.seats(state)]
        [('bob', 120, False), ('ann', 150, False)]
        """
        if chips is not None and "buy_in" not in self.info.seat_options.get("properties", {}):
            raise NotImplementedError(
                f"{self.info.title}: the default Game.prepare_round sets chips through the "
                "'buy_in' seat option, which this game does not have; override prepare_round.")
        current = self.seats(state)
        changed = []
        for seat, name in enumerate(players):
            info = current[seat] if seat < len(current) else None
            want = None if chips is None else chips[seat]
            if info is None or info.player_id != name or (want is not None
                                                           and info.chips != want):
                changed.append(seat)
                if info is not None:
                    self.unseat(state, seat)
            elif info.away:
                self.back(state, seat)
        base = self.default_seat_options(state) if options is None else options
        for seat in changed:  # after every unseat: a player may move to another seat
            data = dict(base)
            if chips is not None:
                data["buy_in"] = chips[seat]
            self.seat(state, seat, players[seat], data)

    def round_summary(self, state: Any, ended: RoundEnded) -> Json:
        """What a batch match keeps of the round that just ended (``state`` is right
        after it; ``ended`` its :class:`RoundEnded`). Offline only, so it may name
        hidden values (Hold'em: the button, every player's hole cards, the board).
        By default the public results.

        >>> from engine.registry import get_game
        >>> game = get_game("holdem")
        >>> state = game.create(game.validate_settings({"seats": 2}))
        >>> game.prepare_round(state, ["ann", "bob"], [100, 100], dealer=0)
        >>> _ = game.start_round(state, game.draw_chance(state, random.Random(1)))
        >>> events = game.apply(state, 0, {"kind": "fold"})
        >>> while game.to_act(state):  # the winner may show: the default mucks
        ...     events = game.timeout(state)
        >>> ended = next(e for e in events if isinstance(e, RoundEnded))
        >>> ended.type, [r["net"] for r in Game.round_summary(game, state, ended)["results"]]
        ('HandEnded', [1, -1])
        >>> sorted(game.round_summary(state, ended))
        ['board', 'button', 'cards']
        """
        return {"results": [result.to_json() for result in ended.results]}

    # -- history
    def round_record(self, state: Any) -> Json:
        """Server-side record of the round that just ended, for :meth:`export_round`
        (may hold hidden values: it is never sent as it is)."""
        return {}

    def export_round(self, record: Json, viewer: Viewer, meta: Json) -> str:
        """The round in the game's history format (``info.export_format``) as ``viewer``
        may see it. ``meta``: ``names`` (per participant, in the order of
        :class:`RoundStarted`'s ``seats``), ``table``, ``number``, ``event`` (what the
        round belongs to, e.g. a batch match); a game ignores keys it does not know."""
        return ""

    # -- storage
    def dump(self, state: Any) -> Json:
        """Serialise the state (server side only: may hold secrets such as the deck)."""
        raise NotImplementedError

    def load(self, data: Json) -> Any:
        """Inverse of :meth:`dump`."""
        raise NotImplementedError


class ViewFn(Protocol):
    """``(state, seat, time_left=None) -> view``: :func:`decision_view` for one game and
    one table's settings (:meth:`Game.view_maker`)."""

    def __call__(self, state: Any, seat: int, time_left: float | None = None) -> Json:
        """The ``your_turn`` view of ``state`` for ``seat``."""
        ...


def decision_view(game: Game, state: Any, seat: int, time_left: float | None = None) -> Json:
    """What the player in ``seat`` sees when asked to move: the one bot view.

    The game's view for that seat plus ``seat``, ``moves`` (generic descriptors),
    ``legal`` (the game's own description) and ``time_left``. The server (remote
    bots, house bots) and the offline match runner all build it here.
    """
    view = game.view(state, Viewer.of(seat))
    view["seat"] = seat
    view["legal"] = game.legal_actions(state, seat)
    view["moves"] = game.legal_moves(state, seat)
    view["time_left"] = time_left
    return view
