"""What a live table's owner writes at each action, and how a table is read back.

A live table's owner (:mod:`tables.owner`) commits every action before it is
acknowledged, but it does not rewrite the table's whole game state and the running
round's whole logs each time (about 4.6 KB of JSON an action, parsed, compressed and
written again by PostgreSQL as the round grows). Instead:

- the table's ``state`` is written when a round starts (and whenever no round runs),
  with ``replay_from``, the number of the round's calls it includes;
- what the round's logs gained since the last commit is appended as a
  :class:`~tables.models.HandStep` row; when the round ends its row gets its logs
  whole (as always) and its steps are deleted.

Reading a table back (a takeover, a command in a transaction of its own, a snapshot
from the database) merges the round's steps into its row and replays its calls after
``replay_from`` on the stored state (:func:`current_state`): the round's stored chance
makes the replay exact, as for :func:`tables.selectors.replay_round`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from engine.registry import get_game

from . import rowsql
from .models import Hand, HandStep, Table

LOGS = ("events", "calls", "hidden", "policies")
Lengths = tuple[int, int, int, int]


class BrokenLog(Exception):
    """A round's steps do not continue its logs (a step begins past their end)."""


def lengths(hand: Hand) -> Lengths:
    """How long the round's logs are."""
    return (len(hand.events), len(hand.calls), len(hand.hidden), len(hand.policies))


def step(hand: Hand, since: Lengths) -> HandStep | None:
    """What the round's logs gained since they were ``since`` long (``None``: nothing)."""
    part: dict[str, Any] = {}
    at: dict[str, int] = {}
    for name, start in zip(LOGS, since, strict=True):
        log = getattr(hand, name)
        if len(log) > start:
            at[name] = start
            part[name] = log[start:]
    if not at:
        return None
    part["at"] = at
    return HandStep(hand_id=hand.pk, part=part)


def merge(hand: Hand, steps: Iterable[HandStep]) -> None:
    """Append the steps (in the order written) to the round's logs in memory. A step
    whose entries the row holds already (it was written whole since) adds nothing."""
    for item in steps:
        part = item.part
        for name, start in part["at"].items():
            log = getattr(hand, name)
            if start > len(log):
                raise BrokenLog(f"hand {hand.pk}: a step of {name} begins at {start}, "
                                f"after its {len(log)} entries")
            log.extend(part[name][len(log) - start:])
    hand._steps_merged = True  # type: ignore[attr-defined]


def attach_steps(hands: list[Hand]) -> None:
    """Merge the steps of these rounds into their rows (one query for all)."""
    by_id = {h.pk: h for h in hands if not getattr(h, "_steps_merged", False)}
    if not by_id:
        return
    steps: dict[int, list[HandStep]] = {pk: [] for pk in by_id}
    for item in HandStep.objects.filter(hand_id__in=list(by_id)).order_by("id"):
        steps[item.hand_id].append(item)
    for pk, hand in by_id.items():
        merge(hand, steps[pk])


def current_state(game: Any, table: Table) -> Any:
    """The table's game state now: its stored ``state``, and (``replay_from`` set) the
    running round's later calls replayed on it. Leaves ``table`` saying so in memory
    (``state`` current, ``replay_from`` ``None``) and the round's row (loaded if it was
    not) with its logs whole."""
    state = game.load(table.state)
    start = table.replay_from
    if start is None:
        return state
    hand = table.current_hand
    if hand is None:  # (cannot be: the state is written whenever no round runs)
        raise BrokenLog(f"table {table.pk}: replay_from {start} without a running round")
    attach_steps([hand])
    for _ in replay(game, state, hand.calls[start:]):
        pass
    table.state = game.dump(state)
    table.replay_from = None
    return state


def replay(game: Any, state: Any, calls: list[Any]) -> Iterator[list[Any]]:
    """Make a round's stored game calls on ``state`` again, one by one: each gives its
    events (a runtime note, not a game call, gives itself)."""
    for name, *args in calls:
        yield args if name == "note" else getattr(game, name)(state, *args)


def read_table(table_id: int) -> tuple[Table, Any] | None:
    """The table's row and its game state now, at the version the row tells (``None``:
    no such table). A live table's running round and its steps are read after its
    row: when a commit landed in between (every commit moves the version), or the
    round was written whole and stepped on meanwhile, everything is read again."""
    for attempt in range(5):
        table = rowsql.get_row(Table, table_id)
        if table is None:
            return None
        version, replayed = table.version, table.replay_from is not None
        try:
            state = current_state(get_game(table.game), table)
        except BrokenLog:
            if attempt == 4:
                raise
            continue
        if not replayed or rowsql.column_by_pk(Table, "version", [table_id]).get(
                table_id) == version:
            break
    return table, state
