"""Player statistics from hand histories, as a poker tracker shows them.

A hand is given as the server stores it: the list of ``event.to_json()`` dicts
of the table (``player`` fields are seats), the seat -> player name mapping and
the big blind.  :class:`StatsAccumulator` is incremental: add hands as they
finish, merge accumulators, store them as JSON.

* **VPIP** — share of hands with chips put in voluntarily pre-flop (call, bet,
  raise; posting blinds or the big blind checking does not count);
* **PFR** — share of hands with a pre-flop bet or raise (3-bets included);
* **AF** — post-flop (bets + raises) / calls (``None`` without calls);
* **WTSD** — share of the hands where the player saw the flop that reached a
  showdown with the player still in; **W$SD** — share of those showdowns where the
  player won chips;
* **bb/100** — net big blinds per 100 hands; the same counters by position
  (``button``, ``sb``, ``bb``, ``early``, ``middle``, ``late``);
* **fold to bet** per street (flop, turn, river: the second, third and fourth
  betting rounds in games without a board) — the player's first decision facing a
  bet or raise on that street was a fold / the streets where they faced one;
* **3-bet** — pre-flop re-raises / the hands where the player acted facing exactly
  one raise (the open raise; blinds and the bring-in are not raises); **fold to
  3-bet** — the open raiser folded when the re-raise came back to them / the times
  it did;
* **c-bet** — the pre-flop aggressor (the last pre-flop raiser) bet the flop when
  nobody had bet before them / the hands where they acted first-in on the flop.

>>> acc = StatsAccumulator()
>>> acc.add_hand([
...     {"type": "HandStarted", "number": 1, "button": 0, "seats": [1, 0]},
...     {"type": "BlindPosted", "player": 0, "amount": 1, "dead": False, "all_in": False},
...     {"type": "BlindPosted", "player": 1, "amount": 2, "dead": False, "all_in": False},
...     {"type": "RaisePlaced", "player": 0, "to": 6, "all_in": False},
...     {"type": "PlayerFolded", "player": 1},
...     {"type": "UncalledBetReturned", "player": 0, "amount": 4},
...     {"type": "PotAwarded", "pot": 0, "player": 0, "amount": 4, "hand": ""},
...     {"type": "HandEnded"}], {0: "alice", 1: "bob"}, big_blind=2)
>>> s = acc.summary("alice")
>>> s["hands"], s["net"], s["vpip"], s["pfr"], s["bb_per_100"]
(1, 2, 1.0, 1.0, 100.0)
>>> acc.summary("bob")["three_bet"], acc.summary("alice")["three_bet"]
(0.0, None)

A flop continuation bet, called, then a turn bet folded to:

>>> acc = StatsAccumulator()
>>> acc.add_hand([
...     {"type": "BlindPosted", "player": 0, "amount": 1, "dead": False, "all_in": False},
...     {"type": "BlindPosted", "player": 1, "amount": 2, "dead": False, "all_in": False},
...     {"type": "HoleCardsDealt", "player": 1, "cards": "????"},
...     {"type": "HoleCardsDealt", "player": 0, "cards": "????"},
...     {"type": "RaisePlaced", "player": 0, "to": 6, "all_in": False},
...     {"type": "PlayerCalled", "player": 1, "amount": 4, "all_in": False},
...     {"type": "BoardDealt", "street": "flop", "cards": "2c7d9h"},
...     {"type": "PlayerChecked", "player": 1},
...     {"type": "BetPlaced", "player": 0, "to": 6, "all_in": False},
...     {"type": "PlayerCalled", "player": 1, "amount": 6, "all_in": False},
...     {"type": "BoardDealt", "street": "turn", "cards": "Js"},
...     {"type": "PlayerChecked", "player": 1},
...     {"type": "BetPlaced", "player": 0, "to": 12, "all_in": False},
...     {"type": "PlayerFolded", "player": 1},
...     {"type": "UncalledBetReturned", "player": 0, "amount": 12},
...     {"type": "PotAwarded", "pot": 0, "player": 0, "amount": 24, "hand": ""},
...     {"type": "HandEnded"}], {0: "alice", 1: "bob"}, big_blind=2)
>>> a, b = acc.summary("alice"), acc.summary("bob")
>>> a["cbet"], b["fold_to_flop_bet"], b["fold_to_turn_bet"], b["fold_to_river_bet"]
(1.0, 0.0, 1.0, None)
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from botkit.positions import POSITIONS, position_name

__all__ = ["STREETS", "PhhHand", "PlayerStats", "PositionStats", "StatsAccumulator",
           "hand_stats", "phhs_hands"]

STREETS = ("flop", "turn", "river")
"""The post-flop streets whose fold-to-bet is counted (street 1, 2 and 3)."""


@dataclass
class PositionStats:
    """Counters for one player in one position."""

    hands: int = 0
    net_bb: float = 0.0
    vpip: int = 0
    pfr: int = 0

    def merge(self, other: PositionStats) -> None:
        """Add ``other``'s counters."""
        self.hands += other.hands
        self.net_bb += other.net_bb
        self.vpip += other.vpip
        self.pfr += other.pfr


@dataclass
class PlayerStats:
    """Raw counters for one player; :meth:`summary` turns them into rates."""

    hands: int = 0
    net: int = 0
    net_bb: float = 0.0
    vpip: int = 0
    pfr: int = 0
    postflop_aggressive: int = 0
    postflop_calls: int = 0
    saw_flop: int = 0
    showdowns: int = 0
    won_at_showdown: int = 0
    # Fold to bet: the streets where the player faced a bet, and folded to it.
    flop_bets_faced: int = 0
    flop_bets_folded: int = 0
    turn_bets_faced: int = 0
    turn_bets_folded: int = 0
    river_bets_faced: int = 0
    river_bets_folded: int = 0
    three_bet_chances: int = 0  # acted pre-flop facing exactly the open raise
    three_bets: int = 0
    three_bets_faced: int = 0  # the open raiser facing a re-raise
    three_bets_folded: int = 0
    cbet_chances: int = 0  # pre-flop aggressor, first to bet on the flop
    cbets: int = 0
    positions: dict[str, PositionStats] = field(default_factory=dict)

    def merge(self, other: PlayerStats) -> None:
        """Add ``other``'s counters."""
        for f in fields(self):
            if f.name != "positions":
                setattr(self, f.name, getattr(self, f.name) + getattr(other, f.name))
        for name, stats in other.positions.items():
            self.positions.setdefault(name, PositionStats()).merge(stats)

    def summary(self) -> dict[str, Any]:
        """Counters and rates (``None`` where the denominator is zero)."""

        def rate(part: float, whole: float) -> float | None:
            return part / whole if whole else None

        return {
            "hands": self.hands,
            "net": self.net,
            "bb_per_100": rate(100 * self.net_bb, self.hands),
            "vpip": rate(self.vpip, self.hands),
            "pfr": rate(self.pfr, self.hands),
            "af": rate(self.postflop_aggressive, self.postflop_calls),
            "wtsd": rate(self.showdowns, self.saw_flop),
            "wsd": rate(self.won_at_showdown, self.showdowns),
            "fold_to_flop_bet": rate(self.flop_bets_folded, self.flop_bets_faced),
            "fold_to_turn_bet": rate(self.turn_bets_folded, self.turn_bets_faced),
            "fold_to_river_bet": rate(self.river_bets_folded, self.river_bets_faced),
            "three_bet": rate(self.three_bets, self.three_bet_chances),
            "fold_to_three_bet": rate(self.three_bets_folded, self.three_bets_faced),
            "cbet": rate(self.cbets, self.cbet_chances),
            "positions": {
                name: {"hands": p.hands, "bb_per_100": rate(100 * p.net_bb, p.hands),
                       "vpip": rate(p.vpip, p.hands), "pfr": rate(p.pfr, p.hands)}
                for name in POSITIONS if (p := self.positions.get(name)) is not None
            },
        }

    def to_json(self) -> dict[str, Any]:
        """Plain dict of the counters."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PlayerStats:
        """Inverse of :meth:`to_json`. Counters stored before a counter existed read
        as 0; unknown keys are ignored."""
        known = {f.name for f in fields(cls)} - {"positions"}
        values = {k: v for k, v in data.items() if k in known}
        position_fields = {f.name for f in fields(PositionStats)}
        positions = {k: PositionStats(**{n: x for n, x in v.items() if n in position_fields})
                     for k, v in data.get("positions", {}).items()}
        return cls(**values, positions=positions)


@dataclass
class _Hand:
    """One player's part of one hand."""

    invested: int = 0
    received: int = 0
    vpip: bool = False
    pfr: bool = False
    aggressive: int = 0
    calls: int = 0
    saw_flop: bool = False
    folded: bool = False
    street_bet: int = 0
    acted_on: set[int] = field(default_factory=set)  # streets with an action of the player
    faced: dict[int, bool] = field(default_factory=dict)  # street -> folded to the bet
    three_bet_chance: bool = False
    three_bet: bool = False
    three_bet_faced: bool = False
    three_bet_folded: bool = False
    cbet_chance: bool = False
    cbet: bool = False


_STREET_STARTS = frozenset({"HoleCardsDealt", "UpCardsDealt", "PlayerDrew"})


def hand_stats(events: Iterable[Mapping[str, Any]]) -> tuple[list[int], dict[int, PlayerStats]]:
    """Seats in position order and each seat's counters for one hand (``net_bb`` unset)."""
    order: list[int] = []
    dealt: list[int] = []
    seen: dict[int, _Hand] = {}
    street = 0
    acted = False  # a betting action since the street began: the next deal starts a street
    shown_down = False
    street_max = 0  # the highest amount put in on this street (the bet to face)
    raises = 0  # pre-flop bets and raises so far
    opener: int | None = None  # the first pre-flop raiser
    aggressor: int | None = None  # the last pre-flop raiser

    def player(seat: int) -> _Hand:
        if seat not in seen:
            seen[seat] = _Hand()
        return seen[seat]

    def decide(seat: int, kind: str) -> _Hand:
        """Count the chances the player's action answers (before it is applied)."""
        p = player(seat)
        aggressive = kind in ("BetPlaced", "RaisePlaced")
        if street == 0:
            if raises == 1 and seat != opener and not p.three_bet_chance:
                p.three_bet_chance, p.three_bet = True, aggressive
            elif raises == 2 and seat == opener and not p.three_bet_faced:
                p.three_bet_faced, p.three_bet_folded = True, kind == "PlayerFolded"
        elif street <= len(STREETS):
            if street_max > p.street_bet and street not in p.faced:
                p.faced[street] = kind == "PlayerFolded"
            if street == 1 and seat == aggressor and 1 not in p.acted_on and street_max == 0:
                p.cbet_chance, p.cbet = True, aggressive
        p.acted_on.add(street)
        return p

    for event in events:
        kind = event.get("type")
        seat = event.get("player")
        if kind == "BoardDealt" or (acted and kind in _STREET_STARTS):
            # A new street: board cards, or (stud, draw games) cards dealt or drawn
            # after some betting. "saw_flop" means saw the second street.
            street += 1
            acted = False
            street_max = 0
            for p in seen.values():
                p.street_bet = 0
                if street == 1 and not p.folded:
                    p.saw_flop = True
        if kind == "HandStarted":
            order = list(event["seats"])
        elif kind == "HoleCardsDealt":
            if seat not in dealt:
                dealt.append(seat)  # type: ignore[arg-type]
            player(seat)  # type: ignore[arg-type]
        elif kind == "BringInPosted":
            p = player(seat)  # type: ignore[arg-type]
            p.invested += event["amount"]
            p.street_bet += event["amount"]
            street_max = max(street_max, p.street_bet)
            acted = True
        elif kind == "AntePosted":
            player(seat).invested += event["amount"]  # type: ignore[arg-type]
        elif kind == "BlindPosted":
            p = player(seat)  # type: ignore[arg-type]
            p.invested += event["amount"]
            if not event.get("dead"):
                p.street_bet += event["amount"]
                street_max = max(street_max, p.street_bet)
        elif kind == "PlayerCalled":
            p = decide(seat, kind)  # type: ignore[arg-type]
            acted = True
            p.invested += event["amount"]
            p.street_bet += event["amount"]
            if street == 0:
                p.vpip = True
            else:
                p.calls += 1
        elif kind in ("BetPlaced", "RaisePlaced"):
            p = decide(seat, kind)  # type: ignore[arg-type]
            acted = True
            p.invested += event["to"] - p.street_bet
            p.street_bet = event["to"]
            street_max = max(street_max, p.street_bet)
            if street == 0:
                p.vpip = p.pfr = True
                raises += 1
                aggressor = seat
                if opener is None:
                    opener = seat
            else:
                p.aggressive += 1
        elif kind == "PlayerFolded":
            decide(seat, kind).folded = True  # type: ignore[arg-type]
            acted = True
        elif kind == "PlayerChecked":
            decide(seat, kind)  # type: ignore[arg-type]
            acted = True
        elif kind == "UncalledBetReturned":
            p = player(seat)  # type: ignore[arg-type]
            p.received += event["amount"]
            p.street_bet -= event["amount"]
        elif kind == "PotAwarded":
            player(seat).received += event["amount"]  # type: ignore[arg-type]
        elif kind == "HandEnded":
            shown_down = sum(1 for p in seen.values() if not p.folded) >= 2
    if not order:
        order = dealt
    result: dict[int, PlayerStats] = {}
    n = len(order)
    for seat, p in seen.items():
        showdown = shown_down and not p.folded
        stats = PlayerStats(
            hands=1, net=p.received - p.invested, vpip=int(p.vpip), pfr=int(p.pfr),
            postflop_aggressive=p.aggressive, postflop_calls=p.calls,
            saw_flop=int(p.saw_flop), showdowns=int(showdown),
            won_at_showdown=int(showdown and p.received > 0),
            three_bet_chances=int(p.three_bet_chance), three_bets=int(p.three_bet),
            three_bets_faced=int(p.three_bet_faced), three_bets_folded=int(p.three_bet_folded),
            cbet_chances=int(p.cbet_chance), cbets=int(p.cbet),
        )
        for number, name in enumerate(STREETS, start=1):
            if number in p.faced:
                setattr(stats, f"{name}_bets_faced", 1)
                setattr(stats, f"{name}_bets_folded", int(p.faced[number]))
        if seat in order:
            name = position_name(order.index(seat), n)
            stats.positions[name] = PositionStats(1, 0.0, int(p.vpip), int(p.pfr))
        result[seat] = stats
    return order, result


class StatsAccumulator:
    """Per-player statistics kept current as hands finish; JSON round-trips and merges."""

    def __init__(self) -> None:
        self.players: dict[str, PlayerStats] = {}

    def add_hand(self, events: Iterable[Mapping[str, Any]], players: Mapping[int, str],
                 big_blind: int) -> None:
        """Count one finished hand; ``players`` maps seats to player names."""
        _, per_seat = hand_stats(events)
        for seat, stats in per_seat.items():
            name = players.get(seat, f"seat {seat}")
            stats.net_bb = stats.net / big_blind
            for position in stats.positions.values():
                position.net_bb = stats.net_bb
            self.players.setdefault(name, PlayerStats()).merge(stats)

    def merge(self, other: StatsAccumulator) -> None:
        """Add every counter of ``other``."""
        for name, stats in other.players.items():
            self.players.setdefault(name, PlayerStats()).merge(stats)

    def summary(self, name: str) -> dict[str, Any]:
        """Rates for one player (an unknown player has zero hands)."""
        return self.players.get(name, PlayerStats()).summary()

    def to_json(self) -> dict[str, Any]:
        """``{player: counters}``."""
        return {name: stats.to_json() for name, stats in self.players.items()}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> StatsAccumulator:
        """Inverse of :meth:`to_json`."""
        acc = cls()
        acc.players = {name: PlayerStats.from_json(d) for name, d in data.items()}
        return acc


@dataclass
class PhhHand:
    """One hand of a ``.phhs`` file replayed through the engine: its table name in the
    file, the players (``players`` field, else ``p1``...), the engine's events
    (``to_json()`` dicts, ``player`` = index in the file) and each player's net."""

    name: str
    players: list[str]
    events: list[dict[str, Any]]
    nets: list[int]


def phhs_hands(text: str) -> Iterator[PhhHand]:
    """The hands of a ``.phhs`` file (a batch match's, :mod:`botkit.match`) replayed
    through the engine, for :class:`StatsAccumulator` (positions from the deal order).
    A hand the engine cannot read or replay is skipped.

    >>> text = '''[1]
    ... variant = "NT"
    ... antes = [0, 0]
    ... blinds_or_straddles = [1, 2]
    ... min_bet = 2
    ... starting_stacks = [100, 100]
    ... actions = ["d dh p1 AsKd", "d dh p2 7c2d", "p2 cbr 6", "p1 f"]
    ... players = ["bob", "alice"]
    ... '''
    >>> [(h.name, h.players, h.nets) for h in phhs_hands(text)]
    [('1', ['bob', 'alice'], [-2, 2])]
    """
    from engine.phh import NotationError, ReplayError, loads_all, replay

    try:
        hands = loads_all(text)
    except NotationError:
        return
    for name, history in hands:
        if isinstance(history, NotationError):
            continue
        try:
            done = replay(history)
        except (ReplayError, ValueError):
            continue
        players = [str(p) for p in history.fields.get("players") or []]
        if len(players) != history.player_count:
            players = [f"p{i + 1}" for i in range(history.player_count)]
        nets = [int(end or 0) - (start or 0) for start, end in
                zip(history.starting_stacks, done.finishing_stacks, strict=True)]
        yield PhhHand(name, players, [e.to_json() for e in done.hand.events], nets)
