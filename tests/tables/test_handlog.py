"""A running round's logs written as steps (tables.handlog): whatever the commits and
the whole writes between them, the row and its steps merge to the logs as they were."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tables.handlog import LOGS, BrokenLog, lengths, merge, step
from tables.models import Hand

# One action: how many entries each log gains; then whether the commit after it
# writes a step (0), writes the row whole (1: a command in a transaction of its own),
# or waits for the next action (2: a group commit takes several at once).
ACTIONS = st.lists(st.tuples(st.tuples(*(st.integers(0, 3) for _ in LOGS)),
                             st.integers(0, 2)), min_size=1, max_size=40)


def fresh(pk: int = 1) -> Hand:
    return Hand(pk=pk, events=[], calls=[], hidden=[], policies=[])


def logs(hand: Hand) -> tuple[list[object], ...]:
    return tuple(list(getattr(hand, name)) for name in LOGS)


@settings(max_examples=300, deadline=None)
@given(ACTIONS, st.integers(0, 40))
def test_the_row_and_its_steps_merge_to_the_logs(actions: list, inserted_after: int) -> None:
    live = fresh()  # the owner's copy
    row: tuple[list[object], ...] | None = None  # what the round's row holds
    steps = []  # the steps written since
    logged = lengths(live)
    counter = 0
    for number, (gains, commit) in enumerate(actions):
        for name, gain in zip(LOGS, gains, strict=True):
            for _ in range(gain):
                counter += 1
                getattr(live, name).append([name, counter])
        if row is None:  # the round inserted whole with its first commit
            if number >= inserted_after or number == len(actions) - 1:
                row, logged = logs(live), lengths(live)
            continue
        if commit == 1:  # written whole: the steps before stay, covered by the row
            row, logged = logs(live), lengths(live)
        elif commit == 0 or number == len(actions) - 1:
            written = step(live, logged)
            if written is not None:
                steps.append(written)
            logged = lengths(live)
        stored = Hand(pk=1, **dict(zip(LOGS, (list(log) for log in row), strict=True)))
        merge(stored, steps)
        assert logs(stored) == tuple(
            log[:length] for log, length in zip(logs(live), logged, strict=True))


def test_a_step_records_only_the_logs_that_grew() -> None:
    hand = fresh()
    hand.events += [{"e": 1}]
    hand.calls += [["apply", 0, {"kind": "call"}]]
    written = step(hand, (0, 0, 0, 0))
    assert written is not None
    assert written.part == {"events": [{"e": 1}], "calls": [["apply", 0, {"kind": "call"}]],
                            "at": {"events": 0, "calls": 0}}
    assert step(hand, lengths(hand)) is None


def test_a_step_beginning_past_the_logs_is_refused() -> None:
    hand = fresh()
    hand.events += [1, 2]
    gap = step(hand, (1, 0, 0, 0))
    target = fresh()
    with pytest.raises(BrokenLog):
        merge(target, [gap])
    assert target.events == []
