"""Conformance runs: a bot put through the scripted checks of
:mod:`botkit.conformance_scenarios` over its real websocket (docs/conformance.md).

A conformance run is a :class:`~research.models.MatchRun` whose settings say
``"conformance": true``; its only participant is the remote bot under test. It is
created by ``POST /api/v1/conformance/`` (``research.services.create_match`` with
``{"conformance": true, "remote": "<bot>"}``) and played by
:func:`research.services.run_match`, which hands it to :func:`run` here: wait for
the bot on ``/ws/matches/<id>/``, play the scenarios through the remote-bot
machinery (:class:`research.remote.RemoteBot`: turns, ``tell`` for the repeated
and stale turns and ``going_away`` for the reconnect), store the report as the
match's ``results`` (``{"conformance": report, "passed": bool}``) and end with
``match_over`` as any match.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from botkit.conformance_scenarios import CHECKS, SUITE, TURN_SECONDS, TurnResult, run_suite

from . import remote
from .models import MatchRun, MatchStatus

log = logging.getLogger(__name__)
Json = dict[str, Any]

CONNECT_SECONDS = 60.0  # default wait for the bot to connect
RECONNECT_SECONDS = 5.0  # a bot gone longer than this mid-run misses its turns


def validate(data: Json) -> Json:
    """Checked settings of a conformance run (raises ValueError with a sentence).

    ``remote`` (or ``bot``): the bot's player name; ``turn_seconds`` (default 5) per
    decision; ``connect_seconds`` (default 60) to wait for it."""
    from .services import _participant

    name = data.get("remote") or data.get("bot")
    if not isinstance(name, str) or not name.strip():
        raise ValueError('A conformance run needs the bot: {"remote": "<bot name>"}.')
    participant = _participant({"remote": name.strip()})
    checked: Json = {"conformance": True, "suite": SUITE,
                     "bots": [participant["name"], "conformance"], "hands": len(CHECKS),
                     "structure": "NL", "small_blind": 1, "big_blind": 2, "seed": 0,
                     "duplicate": False, "participants": [participant]}
    for key, low, high, default in (("turn_seconds", 0.5, 60, TURN_SECONDS),
                                    ("connect_seconds", 0.5, 3600, CONNECT_SECONDS)):
        value = data.get(key)
        value = default if value is None else value
        if type(value) not in (int, float) or not low <= value <= high:
            raise ValueError(f"{key} is {low:g} to {high:g} seconds.")
        checked[key] = value
    return checked


class ConformanceHub(remote.Hub):
    """A hub that also keeps every answer it receives, in order (``log``): the suite
    counts the answers per request, late and repeated ones included."""

    def __init__(self, match_id: int, link: remote.Link) -> None:
        super().__init__(match_id, link)
        self.log: list[tuple[str, Any]] = []

    def handle(self, reply: Json) -> None:
        if reply.get("kind") == "action":
            self.log.append((str(reply.get("request_id")), reply.get("action")))
        super().handle(reply)


class ConformanceBot(remote.RemoteBot):
    """A remote bot whose turn may be sent ``repeat`` times (the duplicate check);
    remembers the last turn sent (the stale check)."""

    repeat = 1
    last_turn: Json | None = None

    def tell(self, message: Json) -> None:
        times = 1
        if message.get("type") == "match_turn":
            self.last_turn = message
            times = self.repeat
        for _ in range(times):
            super().tell(message)


class HubWire:
    """:class:`botkit.conformance_scenarios.Wire` over the remote-bot machinery."""

    def __init__(self, hub: ConformanceHub, bot: ConformanceBot, match: MatchRun) -> None:
        self.hub, self.bot, self.match = hub, bot, match
        self.default_seconds = bot.turn_seconds
        self.gone = ""  # why the bot is away for good (it missed RECONNECT_SECONDS)

    def start(self, message: Json) -> None:
        self.bot.started = {**message, "match": self.match.pk, "settings": self.match.settings}
        self.bot.tell(self.bot.started)

    def new_match(self) -> None:
        self.bot.new_match()

    def observe(self, event: Json) -> None:
        self.bot.observe(event)

    def hand_over(self, view: Json, stack: int) -> None:
        self.bot.stack = stack
        self.bot.hand_over(view)

    def turn(self, view: Json, seconds: float, *, repeat: int = 1) -> TurnResult:
        bot = self.bot
        if self.gone and not self.alive():
            return TurnResult(f"none-{bot.turns}", None, 0.0, False, self.gone)
        bot.turn_seconds, bot.repeat = seconds, repeat
        timeouts = bot.timeouts
        started = time.monotonic()
        try:
            bot.act(view)
        except remote.MatchAborted as error:  # gone: this turn (and the next) unanswered
            self.gone = str(error)
            return TurnResult(f"none-{bot.turns}", None, 0.0, False, self.gone)
        finally:
            bot.turn_seconds, bot.repeat = self.default_seconds, 1
        elapsed = time.monotonic() - started
        request_id = str((bot.last_turn or {}).get("request_id"))
        answers = self.answers(request_id)
        if bot.timeouts > timeouts:
            self.settle(0.05)  # an answer just too late is shown with the check
            answers = self.answers(request_id)
            return TurnResult(request_id, answers[0] if answers else None, elapsed, False,
                              "" if answers else f"no answer within {seconds:g} s")
        return TurnResult(request_id, answers[0] if answers else None, elapsed, True)

    def last_turn(self) -> Json | None:
        return self.bot.last_turn

    def send(self, message: Json) -> None:
        self.bot.tell(message)

    def answers(self, request_id: str) -> list[Any]:
        return [action for rid, action in self.hub.log if rid == request_id]

    def settle(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            self.hub.pump(left)

    def alive(self) -> bool:
        self.hub.pump(0.0)
        return bool(self.bot.connections)

    def drop_connection(self, seconds: float) -> tuple[bool | None, str]:
        bot, hub = self.bot, self.hub
        if self.gone and not self.alive():
            return False, f"the bot was not connected any more ({self.gone})"
        old = set(bot.connections)
        bot.tell({"type": "going_away", "reason": "conformance: the reconnect check"})
        started = time.monotonic()
        next_probe = started + 0.2
        while (now := time.monotonic()) < started + seconds:
            if bot.connections - old:
                return True, f"reconnected after {now - started:.1f} s"
            if now >= next_probe:
                hub.probe()
                next_probe = now + 0.25
            hub.pump(0.05)
        return False, f"did not reconnect within {seconds:g} s after going_away (1012)"


def run(match: MatchRun) -> MatchRun:
    """Play a conformance run (status already ``waiting``) and store its report."""
    from .services import _finish

    s = match.settings
    participant = s["participants"][0]
    link: remote.Link | None = None
    hub: ConformanceHub | None = None
    try:
        link = remote.Link(wait_for_loop=float(s["connect_seconds"]),
                           waiting_for=participant["name"])
        hub = ConformanceHub(match.pk, link)
        bot = ConformanceBot(hub, participant["player_id"], participant["name"],
                             turn_seconds=float(s["turn_seconds"]),
                             reconnect_seconds=RECONNECT_SECONDS, stack=200)
        hub.add(bot)
        hub.wait_connected(float(s["connect_seconds"]))
        match.status = MatchStatus.RUNNING
        match.save(update_fields=["status"])
        report = run_suite(HubWire(hub, bot, match), name=participant["name"],
                           turn_seconds=float(s["turn_seconds"]))
        match.results = {"conformance": report, "passed": report["passed"],
                         "hands": report["decisions"], "seconds": report["seconds"]}
        match.status = MatchStatus.DONE
    except remote.MatchAborted as error:
        log.warning("conformance run %s failed: %s", match.pk, error)
        match.status, match.error, match.error_code = MatchStatus.FAILED, str(error), error.code
    except Exception as error:  # stored for the user; the server goes on
        log.exception("conformance run %s failed", match.pk)
        match.status, match.error = MatchStatus.FAILED, f"{type(error).__name__}: {error}"
        match.error_code = "match_error"
    return _finish(match, hub, link)
