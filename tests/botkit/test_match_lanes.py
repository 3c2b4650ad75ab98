"""``play_match`` with lanes: several deals at once, the same cards and results.

The lanes run in greenlets here, and every bot's ``act`` hands over to the next
lane (as a remote bot's turn does on the server): the deals really interleave.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import greenlet
import pytest

from botkit.house import make_bot
from botkit.match import MatchSettings, play_match

SETTINGS = MatchSettings(structure="NL", small_blind=1, big_blind=2, stack=200)


class Scheduler:
    """Round-robin greenlets: ``parallel`` for play_match, ``pause`` for the bots."""

    def __init__(self) -> None:
        self.ready: list[greenlet.greenlet] = []
        self.switches = 0

    def parallel(self, calls: list[Callable[[], None]]) -> None:
        main = greenlet.getcurrent()
        self.ready = [greenlet.greenlet(call, parent=main) for call in calls]
        while self.ready:
            runner = self.ready.pop(0)
            runner.switch()
            if not runner.dead:
                self.ready.append(runner)

    def pause(self) -> None:
        current = greenlet.getcurrent()
        if current.parent is not None and self.ready is not None:
            self.switches += 1
            current.parent.switch()


class Pausing:
    """A house bot whose every decision lets the other lanes play first."""

    def __init__(self, style: str, seed: int, scheduler: Scheduler) -> None:
        self.bot = make_bot(style, random.Random(seed))
        self.scheduler = scheduler
        self.hands: list[str] = []

    def act(self, view: dict[str, Any]) -> Any:
        self.scheduler.pause()
        return self.bot.act(view)


def bots(scheduler: Scheduler, seed: int) -> dict[str, Pausing]:
    # Calling stations: the same answers whatever their seed, so every deal plays the same
    return {name: Pausing("calling_station", seed, scheduler) for name in ("A", "B")}


@pytest.mark.parametrize("duplicate", [False, True])
def test_lanes_play_the_same_deals(duplicate: bool) -> None:
    plain = play_match(bots(Scheduler(), 1), SETTINGS, hands=300, seed=5, duplicate=duplicate)
    scheduler = Scheduler()
    laned = play_match(bots(scheduler, 1), SETTINGS, hands=300, seed=5, duplicate=duplicate,
                       lanes=[bots(scheduler, 2), bots(scheduler, 3)],
                       parallel=scheduler.parallel)
    assert scheduler.switches > 300  # the lanes did interleave

    def deals(result: Any) -> list[tuple[Any, ...]]:
        return sorted((r["deal"], r["rotation"], r["cards"], r["board"], r["button"])
                      for r in result.records)

    assert deals(plain) == deals(laned)
    order = [r["deal"] for r in laned.records]
    assert order != sorted(order)  # finished out of order
    assert laned.hands == plain.hands == 300
    assert laned.bots["A"].net == plain.bots["A"].net == -laned.bots["B"].net
    assert laned.bots["A"].ci95 == pytest.approx(plain.bots["A"].ci95)
    assert sum(sum(r["net"].values()) for r in laned.records) == 0


def test_lanes_need_their_conditions() -> None:
    scheduler = Scheduler()
    with pytest.raises(ValueError, match="lanes"):
        play_match(bots(scheduler, 1), SETTINGS, hands=10, lanes=[bots(scheduler, 2)])
    with pytest.raises(ValueError, match="lanes"):
        play_match(bots(scheduler, 1), SETTINGS, hands=10, lanes=[bots(scheduler, 2)],
                   parallel=scheduler.parallel, aivat=True)
