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
  (``button``, ``sb``, ``bb``, ``early``, ``middle``, ``late``).

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
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from botkit.positions import POSITIONS, position_name

__all__ = ["PlayerStats", "PositionStats", "StatsAccumulator", "hand_stats"]


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
        """Inverse of :meth:`to_json`."""
        values = {k: v for k, v in data.items() if k != "positions"}
        positions = {k: PositionStats(**v) for k, v in data.get("positions", {}).items()}
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


_STREET_STARTS = frozenset({"HoleCardsDealt", "UpCardsDealt", "PlayerDrew"})


def hand_stats(events: Iterable[Mapping[str, Any]]) -> tuple[list[int], dict[int, PlayerStats]]:
    """Seats in position order and each seat's counters for one hand (``net_bb`` unset)."""
    order: list[int] = []
    dealt: list[int] = []
    seen: dict[int, _Hand] = {}
    street = 0
    acted = False  # a betting action since the street began: the next deal starts a street
    shown_down = False

    def player(seat: int) -> _Hand:
        if seat not in seen:
            seen[seat] = _Hand()
        return seen[seat]

    for event in events:
        kind = event.get("type")
        seat = event.get("player")
        if kind == "BoardDealt" or (acted and kind in _STREET_STARTS):
            # A new street: board cards, or (stud, draw games) cards dealt or drawn
            # after some betting. "saw_flop" means saw the second street.
            street += 1
            acted = False
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
            acted = True
        elif kind == "AntePosted":
            player(seat).invested += event["amount"]  # type: ignore[arg-type]
        elif kind == "BlindPosted":
            p = player(seat)  # type: ignore[arg-type]
            p.invested += event["amount"]
            if not event.get("dead"):
                p.street_bet += event["amount"]
        elif kind == "PlayerCalled":
            p = player(seat)  # type: ignore[arg-type]
            acted = True
            p.invested += event["amount"]
            p.street_bet += event["amount"]
            if street == 0:
                p.vpip = True
            else:
                p.calls += 1
        elif kind in ("BetPlaced", "RaisePlaced"):
            p = player(seat)  # type: ignore[arg-type]
            acted = True
            p.invested += event["to"] - p.street_bet
            p.street_bet = event["to"]
            if street == 0:
                p.vpip = p.pfr = True
            else:
                p.aggressive += 1
        elif kind == "PlayerFolded":
            player(seat).folded = True  # type: ignore[arg-type]
            acted = True
        elif kind == "PlayerChecked":
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
        )
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
