"""What a Tuppi bot knows, read from the ``decision_view`` JSON the server sends.

Everything comes from the view (engine/tuppi/game.py, ``TuppiGame.view``): the
bot's own cards, the revealed bids, every trick so far, the board. From the
tricks it works out who showed out of which suit (a *void*: a player who did not
follow the led suit has none left) and which cards are gone.

>>> view = {"seat": 0, "score": [0, 0], "moves": [{"kind": "play", "params": {"card":
...         {"type": "choice", "options": ["2c", "9c"]}}}],
...         "round": {"phase": "play", "dealer": 3, "mode": "nolo", "declarer": None,
...         "leader": 1, "team_tricks": [0, 1], "revealed": [0, 1, 2, 3],
...         "players": [{"player": p, "cards": "2c9cAh" if p == 0 else None,
...                      "count": 3 if p in (0, 3) else 2, "bid": "nolo"} for p in range(4)],
...         "tricks": [{"leader": 0, "cards": ["3d", "5h", "Kd", "4d"], "winner": 2}],
...         "trick": [{"player": 2, "card": "Tc"}, {"player": 3, "card": "8c"}]}}
>>> seen = read(view)
>>> seen.voids[1], seen.trick, seen.leader, seen.counts
(2, [(2, 8), (3, 6)], 2, [3, 2, 2, 3])
>>> from botkit.tuppi.cards import texts
>>> texts(seen.hand), len(texts(seen.unknown())), seen.options
(['2c', '9c', 'Ah'], 43, ['2c', '9c'])
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from botkit.tuppi.cards import BIT, FULL, mask_of, split

__all__ = ["Seen", "read"]

Json = dict[str, Any]


@dataclass(slots=True)
class Seen:
    """One seat's knowledge of the round (cards as bits, see botkit.tuppi.cards)."""

    seat: int
    dealer: int
    phase: str
    mode: str | None
    declarer: int | None
    hand: int
    score: tuple[int, int]
    leader: int = 0
    trick: list[tuple[int, int]] = field(default_factory=list)  # (seat, bit) this trick
    history: list[tuple[int, list[int], int]] = field(default_factory=list)  # leader, bits, winner
    played: int = 0  # every card played so far (this trick too)
    played_by: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    counts: list[int] = field(default_factory=lambda: [13, 13, 13, 13])
    voids: list[int] = field(default_factory=lambda: [0, 0, 0, 0])  # bit s: void in suit s
    discards: list[list[int]] = field(default_factory=lambda: [[], [], [], []])
    bids: list[str | None] = field(default_factory=lambda: [None] * 4)
    tricks: tuple[int, int] = (0, 0)
    options: list[str] = field(default_factory=list)

    def unknown(self) -> int:
        """Cards somebody else still holds."""
        return FULL & ~self.hand & ~self.played


def _note(seen: Seen, leader: int, cards: list[int]) -> None:
    led = cards[0] // 13
    for i, bit in enumerate(cards):
        player = (leader + i) % 4
        seen.played |= 1 << bit
        seen.played_by[player] |= 1 << bit
        if bit // 13 != led:
            seen.voids[player] |= 1 << led
            seen.discards[player].append(bit)


def read(view: Json) -> Seen:
    """The knowledge in ``view`` (a ``decision_view`` of a round in progress)."""
    seat = view["seat"]
    rnd = view["round"]
    players = rnd["players"]
    seen = Seen(seat=seat, dealer=rnd["dealer"], phase=rnd["phase"], mode=rnd["mode"],
                declarer=rnd["declarer"], hand=mask_of(split(players[seat]["cards"])),
                score=(view["score"][0], view["score"][1]))
    seen.counts = [p["count"] for p in players]
    seen.bids = [p["bid"] for p in players]
    seen.tricks = (rnd["team_tricks"][0], rnd["team_tricks"][1])
    for trick in rnd["tricks"]:
        cards = [BIT[c] for c in trick["cards"]]
        _note(seen, trick["leader"], cards)
        seen.history.append((trick["leader"], cards, trick["winner"]))
    current = rnd["trick"]
    if rnd["leader"] is not None:
        seen.leader = rnd["leader"]
    if current:
        seen.leader = current[0]["player"]
        cards = [BIT[c["card"]] for c in current]
        _note(seen, seen.leader, cards)
        seen.trick = [(c["player"], BIT[c["card"]]) for c in current]
    for spec in view.get("moves", []):
        if spec["kind"] == "play":
            seen.options = list(spec["params"]["card"]["options"])
    return seen
