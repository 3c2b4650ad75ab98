"""The bot conformance suite's scenarios and checker (no Django): docs/conformance.md.

A conformance run puts one bot through scripted Texas Hold'em hands — fixed cards,
fixed stacks, scripted opponents — and checks, per situation, that its answer was
legal and in time, and that it copes with what the wire may do to it: a turn sent
twice, an old turn sent again, a turn that times out, a dropped connection.

The bot is reached through a :class:`Wire`:

* :class:`LoopbackWire` — in process, no sockets: messages go straight to a
  handler with ``handle(socket, message)`` (the SDK's
  :class:`botkit.runner.MatchRunner` around any bot, by :meth:`LoopbackWire.for_bot`);
* ``research.conformance.HubWire`` — the server's remote-bot machinery: a real
  websocket bot (SDK or any language) on ``/ws/matches/<id>/``.

:func:`run_suite` plays every scenario over a wire and returns the report (JSON:
``{"passed", "checks": [{"check", "title", "status", "answer", "expected",
"detail", ...}], ...}``); :func:`format_report` prints it as a table.

>>> from botkit.house import make_bot
>>> report = run_suite(LoopbackWire.for_bot(make_bot("calling_station")))
>>> report["passed"], [c["status"] for c in report["checks"]].count("fail")
(True, 0)
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from botkit.aivat import split_policy
from botkit.bot import BotLike, Json
from engine.errors import EngineError
from engine.game import Viewer, check_move
from engine.registry import get_game

__all__ = ["CHECKS", "SCENARIOS", "Check", "LoopbackWire", "Scenario", "TurnResult", "Wire",
           "describe_moves", "format_report", "run_suite", "show_answer"]

SUITE = "holdem-1"
TURN_SECONDS = 5.0  # per decision (a bot answering slower than this fails)
TIMEOUT_TURN_SECONDS = 0.0  # the turn the server times out on purpose: no time at all
SETTLE_SECONDS = 0.4  # after a duplicate or stale turn: time for a second answer to arrive
MAX_TRIES = 12  # a scenario whose checked situation the bot's own choices skipped is replayed

SUITS = "shdc"
RANKS = "AKQJT98765432"
FULL_DECK = [r + s for s in SUITS for r in RANKS]


# ------------------------------------------------------------------ the wire


@dataclass
class TurnResult:
    """What happened to one ``match_turn``: its request id, the bot's first answer
    (``policy`` removed; None: none in time), how long it took, and a note."""

    request_id: str
    answer: Any = None
    seconds: float = 0.0
    in_time: bool = False
    note: str = ""


class Wire(Protocol):
    """How the suite talks to the bot under test (docs/protocol.md, "Batch matches")."""

    def start(self, message: Json) -> None:
        """``match_started``."""

    def new_match(self) -> None:
        """``new_match`` (each scenario is a fresh series)."""

    def observe(self, event: Json) -> None:
        """An event the bot's seat may see (sent with the next turn or hand end)."""

    def hand_over(self, view: Json, stack: int) -> None:
        """``hand_over`` with the final view; ``stack``: the bot's stack at the start."""

    def turn(self, view: Json, seconds: float, *, repeat: int = 1) -> TurnResult:
        """Send ``match_turn`` (``repeat`` times, same request id) and wait up to
        ``seconds`` for the answer."""

    def last_turn(self) -> Json | None:
        """The last ``match_turn`` message sent (to send it again, stale)."""

    def send(self, message: Json) -> None:
        """Any message, as it is."""

    def answers(self, request_id: str) -> list[Any]:
        """Every answer received so far for ``request_id`` (late ones included)."""

    def settle(self, seconds: float) -> None:
        """Let late or repeated answers arrive."""

    def alive(self) -> bool:
        """Whether the bot is still there (connected; not crashed)."""

    def drop_connection(self, seconds: float) -> tuple[bool | None, str]:
        """Close the bot's connection; ``(True, how)`` once it has reconnected within
        ``seconds``, ``(False, why)`` if not, ``(None, why)`` if this wire has no
        connection to drop."""


class _Socket:
    """The loopback's stand-in for :class:`botkit.client.WebsocketClient`."""

    def __init__(self) -> None:
        self.sent: list[Json] = []

    def send(self, message: Json) -> None:
        self.sent.append(json.loads(json.dumps(message)))


class LoopbackWire:
    """The bot in this process: each message is handed to ``handler.handle(socket,
    message)`` at once (as :class:`botkit.runner.MatchRunner` handles what its
    websocket receives); what it sends back are the answers. A handler that raises
    has crashed: it gets nothing more and answers nothing more."""

    def __init__(self, handler: Any) -> None:
        self.handler = handler
        self.socket = _Socket()
        self.crashed = ""
        self.events: list[Json] = []
        self.turns = self.hands = self.series = 0
        self.total = 0
        self.last: Json | None = None

    @classmethod
    def for_bot(cls, bot: BotLike) -> LoopbackWire:
        """``bot`` behind the SDK's match runner (what ``pokerbot --match`` runs)."""
        from botkit.runner import MatchRunner

        return cls(MatchRunner("loopback", "", bot, 0, progress=False))

    def send(self, message: Json) -> None:
        if self.crashed:
            return
        try:
            self.handler.handle(self.socket, json.loads(json.dumps(message)))
        except Exception as error:  # the bot's crash: recorded, never the suite's
            self.crashed = f"{type(error).__name__}: {error}"

    def start(self, message: Json) -> None:
        self.send(message)

    def new_match(self) -> None:
        self.series += 1
        self.send({"type": "new_match", "series": self.series})

    def observe(self, event: Json) -> None:
        self.events.append(event)

    def _take_events(self) -> list[Json]:
        events, self.events = self.events, []
        return events

    def hand_over(self, view: Json, stack: int) -> None:
        self.hands += 1
        seat = view.get("seat")
        seats = view.get("seats") or []
        net = seats[seat]["stack"] - stack if isinstance(seat, int) and seats[seat] else 0
        self.total += net
        self.send({"type": "hand_over", "hand": self.hands, "net": net, "total": self.total,
                   "events": self._take_events(), "view": view})

    def turn(self, view: Json, seconds: float, *, repeat: int = 1) -> TurnResult:
        self.turns += 1
        request_id = f"{self.turns}-loop"
        message = {"type": "match_turn", "request_id": request_id, "hand": self.hands + 1,
                   "time_left": seconds, "events": self._take_events(),
                   "view": {**view, "time_left": seconds}}
        self.last = message
        started = time.monotonic()
        for _ in range(repeat):
            self.send(message)
        elapsed = time.monotonic() - started
        answers = self.answers(request_id)
        if not answers:
            return TurnResult(request_id, None, elapsed, False,
                              f"the bot crashed: {self.crashed}" if self.crashed else "")
        answer, _ = split_policy(answers[0])
        return TurnResult(request_id, answer, elapsed, elapsed < seconds)

    def last_turn(self) -> Json | None:
        return self.last

    def answers(self, request_id: str) -> list[Any]:
        return [m.get("action") for m in self.socket.sent
                if m.get("type") == "match_action" and str(m.get("request_id")) == request_id]

    def settle(self, seconds: float) -> None:
        return None  # everything arrived already

    def alive(self) -> bool:
        return not self.crashed

    def drop_connection(self, seconds: float) -> tuple[bool | None, str]:
        return None, "in process: there is no connection to drop (checked over a server)"


# ------------------------------------------------------------- scenarios


@dataclass(frozen=True)
class Check:
    """One row of the report: the bot's first decision in ``scenario`` that ``select``
    picks (default: its first decision of the hand) must be legal and in time,
    offering exactly ``kinds``; ``wire`` is what the wire does around that turn."""

    name: str
    title: str
    scenario: str
    kinds: tuple[str, ...]
    select: Callable[[int, Json], bool] = lambda index, view: index == 0
    wire: str = ""  # "", "duplicate", "stale", "timeout", "reconnect"


@dataclass(frozen=True)
class Scenario:
    """One scripted hand: seats in order, the bot's seat, the button, stacks, the
    cards (per seat; the rest of the deck in a fixed order) and the opponents' first
    actions (then they check or call, and muck)."""

    name: str
    structure: str
    stacks: tuple[int, ...]
    bot: int
    button: int
    holes: dict[int, str] = field(default_factory=dict)
    board: str = ""
    script: dict[int, tuple[Json, ...]] = field(default_factory=dict)
    small_blind: int = 1
    big_blind: int = 2

    def deck(self, attempt: int = 1) -> str:
        """The deck: the scripted cards where the dealing puts them (two cards per seat
        from the seat after the button on, the button last, then the board), the other
        cards in an order fixed per ``attempt``."""
        n = len(self.stacks)
        order = [(self.button + k) % n for k in range(1, n + 1)]
        rng = random.Random(f"{self.name}/{attempt}")
        rest = [c for c in FULL_DECK if c not in self.board + "".join(self.holes.values())]
        rng.shuffle(rest)
        cards: list[str] = []
        for seat in order:
            hole = self.holes.get(seat)
            cards += [hole[:2], hole[2:]] if hole else [rest.pop(), rest.pop()]
        board = [self.board[i:i + 2] for i in range(0, len(self.board), 2)]
        cards += board + rest[: 5 - len(board)]
        used = set(cards)
        return "".join(cards + [c for c in FULL_DECK if c not in used])


def _raise(to: int) -> Json:
    return {"kind": "raise", "amount": to}


CALL, CHECK, FOLD = {"kind": "call"}, {"kind": "check"}, {"kind": "fold"}
ALL_IN = {"kind": "all_in"}  # a scripted player's bet or raise of everything (else a call)

SCENARIOS: dict[str, Scenario] = {s.name: s for s in (
    # The bot on the button (small blind), first to act before the flop.
    Scenario("nl_open", "NL", (200, 200), bot=0, button=0),
    # The bot in the big blind; the small blind completes: check or raise, then the flop.
    Scenario("nl_option", "NL", (200, 200), bot=1, button=0, script={0: (CALL,)}),
    # Facing a raise to 7 (a raise of 5): the smallest raise is to 12; the bot's stack
    # (150) caps it, not the opponent's (300) nor the table's 200.
    Scenario("nl_raise_edges", "NL", (300, 150), bot=1, button=0, script={0: (_raise(7),)}),
    # Pot limit: the small blind raises the pot (to 6); the bot may raise to 10..18
    # (the pot after its call: 6 + 2 + 4 = 12 on top of the 6).
    Scenario("pl_raise_edges", "PL", (200, 200), bot=1, button=0, script={0: (_raise(6),)}),
    # The opponent (50) moves all in: the bot covers it, so it may only fold or call.
    Scenario("nl_call_only", "NL", (50, 200), bot=1, button=0, script={0: (_raise(50),)}),
    # The opponent moves all in for 200; the bot has 30: calling puts it all in for less.
    Scenario("nl_all_in_for_less", "NL", (200, 30), bot=1, button=0,
             script={0: (_raise(200),)}),
    # Fixed limit on the button: the raise is to exactly 4.
    Scenario("fl_open", "FL", (200, 200), bot=0, button=0),
    # Fixed limit in the big blind: check or raise, then check or bet exactly 2 on the flop.
    Scenario("fl_option", "FL", (200, 200), bot=1, button=0, script={0: (CALL,)}),
    # Four seats: two short stacks all in (20, 50), the small blind calls; the bot in
    # the big blind faces a main pot and a side pot and may still raise.
    Scenario("side_pots", "NL", (50, 200, 200, 20), bot=2, button=0,
             holes={0: "QsQh", 1: "JsJh", 2: "AsAh", 3: "KsKh"}, board="2c7d9hTc3s",
             script={3: (_raise(20),), 0: (_raise(50),), 1: (CALL,)}),
    # Three seats; the bot on the button. On the flop the small blind (60) moves all in
    # and the big blind (30) calls all in for less: the bot faces a main pot and a side
    # pot and may not raise.
    Scenario("side_pots_flop", "NL", (200, 60, 30), bot=0, button=0,
             holes={1: "QsQh", 2: "JsJh"}, board="2c7d9hTc3s",
             script={1: (CALL, ALL_IN), 2: (CHECK, CALL)}),
    # Heads-up, the bot on the button; the big blind holds four aces (board A A K 7 2):
    # when the hand reaches a showdown without a river bet by the bot, the big blind
    # shows first and the beaten bot is asked to show or muck.
    Scenario("showdown", "NL", (200, 200), bot=0, button=0, holes={1: "AdAc"},
             board="AsAhKd7c2s"),
    # The small blind folds to the bot: the winner of an uncontested pot may show.
    Scenario("show_or_muck", "NL", (200, 200), bot=1, button=0, script={0: (FOLD,)}),
)}


def _street(name: str) -> Callable[[int, Json], bool]:
    def select(index: int, view: Json) -> bool:
        return bool((view.get("hand") or {}).get("street") == name)
    return select


def _second(index: int, view: Json) -> bool:
    return index == 1


CHECKS: tuple[Check, ...] = (
    Check("fold_call_raise", "NL: fold, call or raise (first to act)", "nl_open",
          ("fold", "call", "raise")),
    Check("check_or_raise", "NL: check or raise (the big blind's option)", "nl_option",
          ("fold", "check", "raise")),
    Check("check_or_bet", "NL: check or bet (first to act on the flop)", "nl_option",
          ("fold", "check", "bet"), _street("flop")),
    Check("raise_edges", "NL: raise bounds (min raise-to 12, max the bot's 150)",
          "nl_raise_edges", ("fold", "call", "raise")),
    Check("pl_raise_edges", "PL: raise bounds (pot limit: to 10..18 facing a pot raise)",
          "pl_raise_edges", ("fold", "call", "raise")),
    Check("call_only", "NL: call only (the all-in opponent cannot be raised)",
          "nl_call_only", ("fold", "call")),
    Check("all_in_for_less", "NL: calling all in for less", "nl_all_in_for_less",
          ("fold", "call")),
    Check("fl_fixed_raise", "FL: the fixed raise (to exactly 4)", "fl_open",
          ("fold", "call", "raise")),
    Check("fl_check_or_bet", "FL: check or bet exactly 2 on the flop", "fl_option",
          ("fold", "check", "bet"), _street("flop")),
    Check("side_pots", "Side pots: two short all-ins, a third player behind", "side_pots",
          ("fold", "call", "raise")),
    Check("side_pots_flop", "Side pots on the flop: two all-ins of different sizes",
          "side_pots_flop", ("fold", "call"), _street("flop")),
    Check("show_or_muck", "Show or muck (winner of an uncontested pot)", "show_or_muck",
          ("show", "muck")),
    Check("show_or_muck_showdown", "Show or muck (beaten at a showdown)", "showdown",
          ("show", "muck"), lambda index, view: bool(view["legal"].get("can_show"))),
    Check("duplicate_turn", "Wire: the same turn sent twice (one answer)", "nl_open",
          ("fold", "call", "raise"), wire="duplicate"),
    Check("stale_turn", "Wire: an answered turn sent again, then the current one",
          "nl_open", ("fold", "call", "raise"), wire="stale"),
    Check("timeout", "Wire: a turn times out (default check played), the next is answered",
          "nl_option", ("fold", "check", "bet"), _second, wire="timeout"),
    Check("reconnect", "Wire: the server drops the connection mid-match", "nl_open",
          ("fold", "call", "raise"), wire="reconnect"),
)


# ------------------------------------------------------------------ helpers


def describe_moves(moves: Sequence[Json]) -> str:
    """``fold | call 1 | raise to 4..200`` from the generic descriptors."""
    parts = []
    for move in moves:
        kind = move.get("kind", "?")
        amount = (move.get("params") or {}).get("amount")
        if amount:
            low, high = amount["min"], amount["max"]
            parts.append(f"{kind} to {low}" if low == high else f"{kind} to {low}..{high}")
        elif kind == "call":
            parts.append(str(move.get("label", "call")).lower())
        else:
            parts.append(kind)
    return " | ".join(parts)


def show_answer(answer: Any) -> str:
    """The bot's answer as it was sent (compact JSON; ``-``: none)."""
    if answer is None:
        return "-"
    return json.dumps(answer, separators=(", ", ": "))


def why_illegal(moves: Sequence[Json], answer: Any) -> str:
    """``""`` if ``answer`` is a legal move, else the precise reason."""
    try:
        check_move(moves, answer)
    except EngineError as error:
        sized = next((m for m in moves if (m.get("params") or {}).get("amount")), None)
        if (sized is not None and isinstance(answer, dict) and answer.get("kind") == sized["kind"]
                and type(answer.get("amount")) is int):
            low, high = sized["params"]["amount"]["min"], sized["params"]["amount"]["max"]
            if answer["amount"] < low:
                return f"{sized['kind']} to {answer['amount']} is below the minimum {low}"
            if answer["amount"] > high:
                return f"{sized['kind']} to {answer['amount']} is above the maximum {high}"
        return str(error.reason) if hasattr(error, "reason") else str(error)
    return ""


@dataclass
class _Decision:
    scenario: str
    index: int
    request_id: str
    moves: list[Json]
    answer: Any
    in_time: bool
    seconds: float
    illegal: str
    note: str = ""
    deliberate_timeout: bool = False
    pots: list[Json] = field(default_factory=list)


def _passive(legal: Json) -> Json:
    if legal.get("can_muck"):
        return {"kind": "muck"}
    if legal.get("can_check"):
        return {"kind": "check"}
    return {"kind": "call"}


# ------------------------------------------------------------------ the runner


class _Suite:
    def __init__(self, wire: Wire, turn_seconds: float, name: str) -> None:
        self.wire, self.turn_seconds, self.name = wire, turn_seconds, name
        self.game = get_game("holdem")
        self.decisions: list[_Decision] = []

    def play(self, scenario: Scenario, check: Check, first: str = "",
             attempt: int = 1) -> tuple[_Decision | None, str]:
        """One hand of ``scenario``; the decision ``check`` is about (or None) and what
        the wire did around it. ``first``: what the wire does around the bot's first
        turn when that is not the checked one (``"timeout_turn"``)."""
        game = self.game
        n = len(scenario.stacks)
        names = [self.name if seat == scenario.bot else f"script-{seat}" for seat in range(n)]
        settings = game.validate_settings({
            "structure": scenario.structure, "small_blind": scenario.small_blind,
            "big_blind": scenario.big_blind, "seats": n, "max_buy_in": max(scenario.stacks)})
        state = game.create(settings)
        game.prepare_round(state, names, list(scenario.stacks), scenario.button)
        make_view = game.view_maker(state)
        viewer = Viewer.of(scenario.bot)
        wire = self.wire
        wire.new_match()

        def tell(events: list[Any]) -> None:
            for event in events:
                data = game.project_event(event, viewer)
                if data is not None:
                    wire.observe(data)

        tell(game.start_round(state, {"deck": scenario.deck(attempt)}))
        scripts = {seat: list(actions) for seat, actions in scenario.script.items()}
        index, target, how = 0, None, ""
        while seats := game.to_act(state):
            seat = seats[0]
            view = make_view(state, seat)
            if seat != scenario.bot:
                queue = scripts.get(seat) or []
                action = queue.pop(0) if queue else _passive(view["legal"])
                if action == ALL_IN:
                    sized = view["legal"].get("sized_kind")
                    action = ({"kind": sized, "amount": view["legal"]["max_raise_to"]}
                              if sized else CALL)
                if why_illegal(view["moves"], action):
                    action = _passive(view["legal"])
                tell(game.apply(state, seat, action))
                continue
            chosen = target is None and check.select(index, view)
            special = check.wire if chosen else first if index == 0 else ""
            decision, note = self.decide(scenario, index, view, special)
            if chosen:
                target, how = decision, note
            index += 1
            if decision.in_time and not decision.illegal:
                answer, _ = split_policy(decision.answer)
                tell(game.apply(state, seat, answer))
            else:
                tell(game.timeout(state))
        wire.hand_over(make_view(state, scenario.bot), scenario.stacks[scenario.bot])
        return target, how

    def decide(self, scenario: Scenario, index: int, view: Json,
               special: str) -> tuple[_Decision, str]:
        wire, note = self.wire, ""
        seconds, repeat = self.turn_seconds, 1
        if special == "duplicate":
            repeat = 2
        elif special == "stale":
            old = wire.last_turn()
            if old is not None:
                before = len(wire.answers(str(old["request_id"])))
                wire.send(old)
                note = f"stale:{old['request_id']}:{before}"
        elif special == "timeout_turn":
            seconds = TIMEOUT_TURN_SECONDS
        elif special == "reconnect":
            ok, detail = wire.drop_connection(30.0)
            note = f"reconnect:{ok}:{detail}"
        result = wire.turn(view, seconds, repeat=repeat)
        if special in ("duplicate", "stale"):
            wire.settle(SETTLE_SECONDS)
        answer, _ = split_policy(result.answer)
        illegal = ""
        if result.answer is not None:
            illegal = why_illegal(view["moves"], answer)
        decision = _Decision(scenario.name, index, result.request_id, view["moves"],
                             result.answer, result.in_time, result.seconds, illegal,
                             result.note, deliberate_timeout=special == "timeout_turn",
                             pots=list((view.get("hand") or {}).get("pots") or []))
        self.decisions.append(decision)
        return decision, note


def _row(check: Check, status: str, answer: Any, expected: str, detail: str,
         tries: int = 1) -> Json:
    return {"check": check.name, "title": check.title, "scenario": check.scenario,
            "status": status, "answer": show_answer(answer) if not isinstance(answer, str)
            else answer, "expected": expected, "detail": detail, "tries": tries}


def _judge(suite: _Suite, check: Check, decision: _Decision, how: str) -> Json:
    expected = describe_moves(decision.moves)
    kinds = tuple(m["kind"] for m in decision.moves)
    if kinds != check.kinds:  # the suite's own mistake, never the bot's
        return _row(check, "fail", decision.answer, " | ".join(check.kinds),
                    f"suite error: the scenario offered {expected}")
    wire = suite.wire
    problems = []
    detail = ""
    if check.name.startswith("side_pots"):
        if len(decision.pots) < 2:
            return _row(check, "fail", decision.answer, expected,
                        f"suite error: {len(decision.pots)} pot(s) at the decision")
        detail = "pots " + " + ".join(f"{p['amount']} ({len(p['eligible'])} players)"
                                      for p in decision.pots)
    if decision.answer is None:
        problems.append(decision.note or "no answer")
    elif not decision.in_time:
        problems.append(f"answered after {decision.seconds:.2f} s (the turn had "
                        f"{suite.turn_seconds:g} s)")
    elif decision.illegal and check.wire in ("duplicate", "stale", "reconnect"):
        detail = f"(the answer is illegal: {decision.illegal}; see legal_throughout)"
    elif decision.illegal:
        problems.append(f"illegal: {decision.illegal}")
    count = len(wire.answers(decision.request_id))
    if count > 1:
        problems.append(f"answered {count} times (request {decision.request_id})")
    if check.wire == "stale" and how.startswith("stale:"):
        _, old, before = how.split(":", 2)
        again = len(wire.answers(old)) - int(before)
        if again > 0:
            problems.append(f"answered the stale turn {old} again ({again} more)")
        detail = " ".join([f"old turn {old} re-sent first", detail]).strip()
    if check.wire in ("duplicate", "stale") and not wire.alive():
        problems.append("the bot went away after it (crashed or disconnected)")
    if check.wire == "reconnect":
        _, ok, text = how.split(":", 2)
        if ok == "None":
            return _row(check, "n/a", decision.answer, expected, text)
        if ok != "True":
            problems.append(text)
        detail = " ".join([text, detail]).strip()
    if check.wire == "timeout":
        detail = "the previous turn had 0 s: the server played the default check"
    if problems:
        return _row(check, "fail", decision.answer, expected,
                    "; ".join(problems + ([detail] if detail else [])))
    took = f"answered in {decision.seconds * 1000:.0f} ms"
    return _row(check, "pass", decision.answer, expected, f"{detail}; {took}" if detail else took)


def run_suite(wire: Wire, *, name: str = "bot", turn_seconds: float = TURN_SECONDS,
              only: Sequence[str] = ()) -> Json:
    """Every check of :data:`CHECKS` (or those named in ``only``) over ``wire``; the
    report (JSON)."""
    started = time.monotonic()
    suite = _Suite(wire, turn_seconds, name)
    wire.start({"type": "match_started", "match": 0, "bot": name, "bots": [name, "script"],
                "hands": 0, "settings": {"conformance": True, "suite": SUITE},
                "turn_seconds": turn_seconds})
    rows: list[Json] = []
    for check in CHECKS:
        if only and check.name not in only:
            continue
        scenario = SCENARIOS[check.scenario]
        if check.wire == "timeout":  # its first turn gets no time: then the checked one
            check_first = Check(check.name, check.title, check.scenario, check.kinds,
                                check.select, "")
            row = _play_timeout(suite, scenario, check, check_first)
            rows.append(row)
            continue
        target: _Decision | None = None
        tries, how = 0, ""
        first = len(suite.decisions)
        while target is None and tries < MAX_TRIES:
            tries += 1
            target, how = suite.play(scenario, check, attempt=tries)
        if target is None:
            mine = suite.decisions[first:]
            bad = [d for d in mine if d.answer is None or not d.in_time or d.illegal]
            shown = ", ".join(dict.fromkeys(show_answer(d.answer) for d in (bad or mine)[-3:]))
            if bad:  # its wrong answers (replaced by check or fold) ended the hands
                why = bad[0].illegal or bad[0].note or "no answer in time"
                rows.append(_row(check, "fail", shown, " | ".join(check.kinds),
                                 f"never reached in {tries} hands: the bot's answers before "
                                 f"it were wrong ({why})", tries))
            else:  # its own legal play avoided it: nothing to hold against it
                rows.append(_row(check, "n/a", shown, " | ".join(check.kinds),
                                 f"never reached in {tries} hands: the bot's own legal answers "
                                 "ended each hand first (last answers shown)", tries))
            continue
        row = _judge(suite, check, target, how)
        row["tries"] = tries
        rows.append(row)
    wire.settle(SETTLE_SECONDS)
    rows += _overall(suite)
    failed = [r["check"] for r in rows if r["status"] == "fail"]
    return {"suite": SUITE, "bot": name, "passed": not failed, "failed": failed,
            "checks": rows, "decisions": len(suite.decisions),
            "seconds": round(time.monotonic() - started, 3)}


def _play_timeout(suite: _Suite, scenario: Scenario, check: Check, plain: Check) -> Json:
    """The timeout check's hand: the bot's first turn gets no time (the default is
    played), then its next turn is the checked one."""
    target, how = suite.play(scenario, plain, first="timeout_turn")
    if target is None:
        return _row(check, "fail", "-", " | ".join(check.kinds),
                    "the hand ended before the turn after the timeout")
    return _judge(suite, check, target, how)


def _overall(suite: _Suite) -> list[Json]:
    wire = suite.wire
    legal = Check("legal_throughout", "Every answer of the run legal and in time", "*", ())
    once = Check("one_answer_per_turn", "At most one answer per request, all run long", "*",
                 ())
    bad = [d for d in suite.decisions if not d.deliberate_timeout
           and (d.answer is None or not d.in_time or d.illegal)]
    rows = []
    if bad:
        first = bad[0]
        why = first.illegal or first.note or ("late" if first.answer is not None
                                              else "no answer")
        rows.append(_row(legal, "fail", first.answer, describe_moves(first.moves),
                         f"{len(bad)} of {len(suite.decisions)} decisions; first in "
                         f"{first.scenario}: {why}"))
    else:
        rows.append(_row(legal, "pass", f"{len(suite.decisions)} answers", "legal, in time",
                         f"{len(suite.decisions)} decisions"))
    doubled = [(d.request_id, len(wire.answers(d.request_id))) for d in suite.decisions
               if len(wire.answers(d.request_id)) > 1]
    if doubled:
        rid, count = doubled[0]
        rows.append(_row(once, "fail", f"{count} answers to {rid}", "one answer per request",
                         f"{len(doubled)} requests answered more than once"))
    else:
        rows.append(_row(once, "pass", f"{len(suite.decisions)} requests",
                         "one answer per request", ""))
    return rows


# ------------------------------------------------------------------ the report


def format_report(report: Json) -> str:
    """The report as a plain-text table (check, PASS/FAIL, answer, expected, detail)."""
    rows = [("check", "result", "answer", "expected", "detail")]
    for row in report["checks"]:
        rows.append((row["check"], row["status"].upper(), str(row["answer"]),
                     str(row["expected"]), str(row["detail"])))
    widths = [min(44, max(len(r[i]) for r in rows)) for i in range(4)]
    lines = []
    for i, row in enumerate(rows):
        cells = [cell.ljust(widths[k]) for k, cell in enumerate(row[:4])]
        lines.append("  ".join(cells) + ("  " + row[4] if row[4] else ""))
        if i == 0:
            lines.append("  ".join("-" * w for w in widths) + "  ------")
    failed = report.get("failed") or []
    verdict = ("PASSED" if report.get("passed") else
               f"FAILED ({len(failed)}: {', '.join(failed)})")
    lines.append("")
    lines.append(f"{report.get('bot', 'bot')}: {verdict} — {len(report['checks'])} checks, "
                 f"{report.get('decisions', 0)} decisions in {report.get('seconds', 0):.1f} s "
                 f"(suite {report.get('suite', SUITE)})")
    return "\n".join(lines)
