"""Batch matches: bots play each other directly on the engine (no sockets).

>>> from botkit.house import make_bot
>>> bots = {"rule_based": make_bot("rule_based", random.Random(1)),
...         "random": make_bot("random", random.Random(2))}
>>> result = play_match(bots, MatchSettings(structure="NL"), hands=200, seed=1, duplicate=True)
>>> result.hands, result.deals, sum(r.net for r in result.bots.values())
(200, 100, 0)

Every hand starts from the same stacks (default 200 BB) unless
``reset_stacks=False``.  In **duplicate** mode each deal (a deck drawn from the
seed) is played once per seat rotation, so every bot holds every seat's cards
with the button in the same place; the bots' memories are reset (``new_match()``)
before every series of deals.  ``hands`` counts hands played in total, so a
duplicate match of ``hands`` has ``hands // players`` deals.

Command line (``python -m botkit.match --help``)::

    python -m botkit.match --bots rule_based,random --hands 20000 --seed 1 --duplicate
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from botkit.bot import BotLike, overrides
from botkit.results import BotResult, MatchResult, per_hand_ci
from botkit.view import ViewMaker
from engine.actions import Action
from engine.cards import format_cards, standard_deck
from engine.errors import EngineError
from engine.events import Event
from engine.projection import Viewer, project_event
from engine.table import TableSettings, TableState

__all__ = ["MatchSettings", "main", "play_match"]


@dataclass(frozen=True, slots=True)
class MatchSettings:
    """Table settings of a match; ``seats`` defaults to the number of bots, ``stack`` to 200 BB."""

    structure: str = "NL"
    small_blind: int = 1
    big_blind: int = 2
    ante: int = 0
    seats: int | None = None
    stack: int | None = None
    reset_stacks: bool = True

    def resolved(self, n_bots: int) -> MatchSettings:
        """Defaults filled in."""
        return MatchSettings(self.structure, self.small_blind, self.big_blind, self.ante,
                             self.seats or n_bots, self.stack or 200 * self.big_blind,
                             self.reset_stacks)


class _Seating:
    """Which bot sits where, and the hooks each bot wants called."""

    def __init__(self, names: Sequence[str], bots: Mapping[str, BotLike]) -> None:
        self.names = list(names)
        self.observers = [n for n in names if overrides(bots[n], "observe")]
        self.enders = [n for n in names if overrides(bots[n], "hand_over")]
        self.make_view: ViewMaker | None = None


def play_match(
    bots: Mapping[str, BotLike],
    settings: MatchSettings | None = None,
    hands: int = 1000,
    seed: int = 0,
    duplicate: bool = False,
    series_length: int | None = None,
    phh_out: Path | str | None = None,
    record: bool = True,
) -> MatchResult:
    """Play ``hands`` hands between ``bots`` (name -> bot, one per seat).

    ``series_length`` (duplicate mode) splits the deals into several shorter
    series, each replayed for every seat rotation with memories reset before each
    replay.  ``phh_out`` writes every hand to ``<dir>/match.phhs``.  With ``record``
    the result keeps per hand which bot sat where with which cards.
    """
    names = list(bots)
    config = (settings or MatchSettings()).resolved(len(names))
    n = config.seats
    assert n is not None and config.stack is not None
    if len(names) != n:
        raise ValueError(f"{len(names)} bots for {n} seats: give exactly one bot per seat.")
    if not 2 <= n <= 10:
        raise ValueError("A match needs 2 to 10 players.")
    stack, bb = config.stack, config.big_blind
    table = TableState(TableSettings(structure=config.structure, small_blind=config.small_blind,
                                     big_blind=bb, ante=config.ante, seats=n,
                                     min_buy_in=min(stack, 20 * bb), max_buy_in=stack))
    for seat, name in enumerate(names):
        table.sit(seat, name, stack)
    started = time.perf_counter()
    rotations = n if duplicate else 1
    deals = max(1, hands // rotations)
    deck_rng = random.Random(seed)
    decks = []
    for _ in range(deals):
        deck = standard_deck()
        deck_rng.shuffle(deck)
        decks.append(deck)
    per_hand: dict[str, list[int]] = {name: [] for name in names}
    groups: dict[str, list[int]] = {name: [0] * deals for name in names}
    cumulative: dict[str, list[int]] = {name: [] for name in names}
    totals = dict.fromkeys(names, 0)
    stacks = dict.fromkeys(names, stack)
    illegal = dict.fromkeys(names, 0)
    both: dict[tuple[str, str], list[int]] = {}
    records: list[dict[str, Any]] = []
    phh_chunks: list[str] = []
    seating = _Seating(names, bots)
    seating.make_view = ViewMaker(table)
    length = series_length or deals
    for first in range(0, deals, length):
        block = range(first, min(deals, first + length))
        for rotation in range(rotations):
            if duplicate or first == 0:
                for bot in bots.values():
                    new_match = getattr(bot, "new_match", None)
                    if new_match is not None:
                        new_match()
            at_seat = [names[(seat + rotation) % n] for seat in range(n)]
            for deal in block:
                nets = _play_hand(table, bots, seating, at_seat, decks[deal], deal % n,
                                  stacks, config.reset_stacks, stack, illegal)
                for seat, name in enumerate(at_seat):
                    net = nets[seat]
                    per_hand[name].append(net)
                    groups[name][deal] += net
                    totals[name] += net
                    cumulative[name].append(totals[name])
                if n > 2:
                    for a in range(n):
                        for b in range(n):
                            if a != b:
                                both.setdefault((at_seat[a], at_seat[b]), []).append(
                                    nets[a] - nets[b])
                hand = table.hand
                assert hand is not None
                if record:
                    holes = hand.hole_cards
                    records.append({
                        "deal": deal, "rotation": rotation, "button": table.button,
                        "seats": list(at_seat),
                        "cards": {at_seat[seat]: format_cards(holes[position])
                                  for position, seat in enumerate(table.positions)},
                        "board": format_cards(hand.board),
                        "net": {at_seat[seat]: nets[seat] for seat in range(n)},
                    })
                if phh_out is not None:
                    phh_chunks.append(_phh_text(table, len(phh_chunks) + 1, at_seat, seed))
    seconds = time.perf_counter() - started
    results = {}
    for name in names:
        if duplicate:
            mean, half = per_hand_ci(groups[name], rotations)
        else:
            mean, half = per_hand_ci(per_hand[name], 1)
        results[name] = BotResult(name, len(per_hand[name]), totals[name],
                                  1000 * mean / bb, 1000 * half / bb, illegal[name])
    crosstable = None
    if n > 2:
        crosstable = {a: {b: 1000 * sum(both[a, b]) / (2 * len(both[a, b]) * bb)
                          for b in names if b != a} for a in names}
    if phh_out is not None:
        directory = Path(phh_out)
        directory.mkdir(parents=True, exist_ok=True)
        (directory / "match.phhs").write_text("".join(phh_chunks))
    played = deals * rotations
    return MatchResult(
        settings={**asdict(config), "bots": names}, hands=played, deals=deals,
        duplicate=duplicate, seed=seed, seconds=seconds, bots=results, crosstable=crosstable,
        cumulative=cumulative, records=records,
    )


def _play_hand(
    table: TableState,
    bots: Mapping[str, BotLike],
    seating: _Seating,
    at_seat: list[str],
    deck: list[Any],
    button: int,
    stacks: dict[str, int],
    reset: bool,
    stack: int,
    illegal: dict[str, int],
) -> list[int]:
    """Play one hand with ``at_seat[seat]`` at each seat; each seat's net chips."""
    n = len(at_seat)
    before = []
    for seat, name in enumerate(at_seat):
        occupant = table.seats[seat]
        assert occupant is not None
        occupant.player_id = name
        occupant.stack = stack if reset or stacks[name] == 0 else stacks[name]
        occupant.status = "playing"
        occupant.timeouts = 0
        before.append(occupant.stack)
    table.button = (button - 1) % n  # the next hand's button is the seat after this one
    events = table.start_hand(deck)
    make_view = seating.make_view
    assert make_view is not None
    observers = [(bots[name], at_seat.index(name)) for name in seating.observers]
    if observers:
        _broadcast(observers, events)
    while (actor := table.to_act_seat) is not None:
        name = at_seat[actor]
        answer = bots[name].act(make_view(table, actor))
        try:
            events = table.act(actor, Action.from_json(answer))
        except EngineError:
            illegal[name] += 1
            events = table.timeout()
        if observers:
            _broadcast(observers, events)
    nets = []
    for seat, name in enumerate(at_seat):
        occupant = table.seats[seat]
        assert occupant is not None
        nets.append(occupant.stack - before[seat])
        stacks[name] = occupant.stack
    for name in seating.enders:
        hand_over = getattr(bots[name], "hand_over")  # noqa: B009 - checked by overrides()
        hand_over(make_view(table, at_seat.index(name)))
    return nets


def _broadcast(observers: list[tuple[BotLike, int]], events: list[Event]) -> None:
    for bot, seat in observers:
        viewer = Viewer.of(seat)
        observe = getattr(bot, "observe")  # noqa: B009 - checked by overrides()
        for event in events:
            data = project_event(event, viewer)
            if data is not None:
                observe(data)


def _phh_text(table: TableState, number: int, at_seat: list[str], seed: int) -> str:
    from engine.phh import dumps, phh_fields

    hand = table.hand
    assert hand is not None
    fields = phh_fields(
        hand.setup, hand.events, hand.finishing_stacks,
        hand=number,
        seats=[seat + 1 for seat in table.positions],
        seat_count=len(table.seats),
        players=[at_seat[seat] for seat in table.positions],
        event=f"botkit match, seed {seed}",
    )
    return f"[{number}]\n{dumps(fields)}\n"


def _parse(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m botkit.match",
        description="Play house bots against each other on the engine and report mbb/hand.",
    )
    parser.add_argument("--bots", default="rule_based,random",
                        help="comma-separated house bot names (default: rule_based,random)")
    parser.add_argument("--hands", type=int, default=1000, help="hands in total (default 1000)")
    parser.add_argument("--structure", choices=("NL", "PL", "FL"), default="NL")
    parser.add_argument("--blinds", default="1/2", help="small/big blind (default 1/2)")
    parser.add_argument("--ante", type=int, default=0)
    parser.add_argument("--stack", type=int, default=200, help="starting stack in big blinds")
    parser.add_argument("--no-reset", action="store_true",
                        help="keep stacks between hands (a busted bot rebuys)")
    parser.add_argument("--players", type=int, default=0,
                        help="seats (default: one per bot; more seats repeat the bots)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--duplicate", action="store_true",
                        help="replay every deal once per seat rotation")
    parser.add_argument("--series", type=int, default=0,
                        help="duplicate series length in deals (default: one series)")
    parser.add_argument("--phh-out", type=Path, help="write the hands to DIR/match.phhs")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    """The ``python -m botkit.match`` / ``pokerbot-match`` command."""
    from botkit.house import make_bot

    args = _parse(argv)
    kinds = [k.strip() for k in args.bots.split(",") if k.strip()]
    players = args.players or len(kinds)
    small, _, big = args.blinds.partition("/")
    bots: dict[str, BotLike] = {}
    for i in range(players):
        kind = kinds[i % len(kinds)]
        copies = sum(1 for name in bots if name.split("#")[0] == kind)
        name = f"{kind}#{copies + 1}" if copies else kind
        try:
            bots[name] = make_bot(kind, random.Random(args.seed * 1000 + i))
        except KeyError as error:
            print(error.args[0], file=sys.stderr)
            return 2
    settings = MatchSettings(structure=args.structure, small_blind=int(small),
                             big_blind=int(big), ante=args.ante, seats=players,
                             stack=args.stack * int(big), reset_stacks=not args.no_reset)
    result = play_match(bots, settings, hands=args.hands, seed=args.seed,
                        duplicate=args.duplicate, series_length=args.series or None,
                        phh_out=args.phh_out, record=False)
    if args.json:
        print(json.dumps(result.to_json(), indent=2))
    else:
        print(result.report())
    return 0


if __name__ == "__main__":
    sys.exit(main())
