"""Headless runner: play a bot at a table on a server, over websocket or REST long-poll (V42).

::

    python -m botkit.runner --server http://127.0.0.1:8000 --token TOKEN \\
        --table 3 --bot mymodule:MyBot --hands 1000 [--transport ws|rest] [--buy-in 200]
    python -m botkit.runner ... --create "NL 1/2" --bot house:rule_based
    python -m botkit.runner ... --match 12 --bot mymodule:MyBot   # a server batch match

The runner sits the bot down (buying in), calls ``bot.act(view)`` whenever it is
the bot's turn (the view is the same dict house bots get), adds chips and sits in
again when the bot busts, reconnects with backoff when the connection drops (a
server restart) and resyncs from a snapshot, shows a progress bar (hands, net
chips, bb/100) and prints a summary: hands, net, bb/100 and mbb/hand with a 95 %
interval. Hand results are read back from the server's hand histories, so they
are exact even across reconnects.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import random
import sys
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from botkit.aivat import PolicyError, split_policy, validate_policy
from botkit.bot import BotLike, Json
from botkit.client import ConnectionLost, RestClient, ServerError, WebsocketClient, act_command
from botkit.results import mean_ci

__all__ = ["MatchRunner", "MatchSummary", "Runner", "Summary", "checked_move", "fallback_move",
           "house_name", "legal_or_fallback", "load_bot", "main"]

STALE = {"stale_version", "wrong_hand", "not_your_turn", "nobody_to_act"}


def house_name(spec: str) -> str | None:
    """The house bot a ``--bot`` names (``house:uniform`` or just ``uniform``), else None."""
    if spec.startswith("house:"):
        return spec.split(":", 1)[1]
    if ":" not in spec and "." not in spec:
        return spec
    return None


def load_bot(spec: str, game: str = "holdem") -> BotLike:
    """``house:rule_based`` or ``uniform`` (a botkit house bot for ``game``) or
    ``package.module:ClassName``."""
    name = house_name(spec)
    if name is not None:
        from botkit.house import make_bot

        return cast(BotLike, make_bot(name, random.Random(), game=game))
    module_name, _, attribute = spec.partition(":")
    if not attribute:
        raise ValueError("--bot is module:Class (e.g. mybot:MyBot), house:<name> or a house "
                         "bot's name (e.g. uniform).")
    factory = getattr(importlib.import_module(module_name), attribute)
    return cast(BotLike, factory() if callable(factory) else factory)


FALLBACK_KINDS = ("check", "pass", "muck", "fold")
"""The moves sent for a bot whose answer is not legal, in order of preference (any game:
the first of these the descriptors offer, else the first move without arguments)."""


def fallback_move(moves: list[Json]) -> Json:
    """A safe legal move from the generic descriptors (``{"kind": "pass"}`` if none).

    >>> fallback_move([{"kind": "fold"}, {"kind": "call"}, {"kind": "check"}])
    {'kind': 'check'}
    >>> fallback_move([{"kind": "play", "params": {"card": {"type": "choice",
    ...                                                     "options": ["As", "Kd"]}}}])
    {'kind': 'play', 'card': 'As'}
    """
    kinds = {m.get("kind"): m for m in moves}
    for kind in FALLBACK_KINDS:
        if kind in kinds and not kinds[kind].get("params"):
            return {"kind": kind}
    for move in moves:
        if not move.get("params"):
            return {"kind": move["kind"]}
    if not moves:
        return {"kind": "pass"}
    move = moves[0]
    data: Json = {"kind": move["kind"]}
    for name, param in move["params"].items():
        if param["type"] == "number":
            data[name] = param["min"]
        elif param["type"] == "choice":
            data[name] = param["options"][0]
        else:
            data[name] = list(param["items"][: param["min"]])
    return data


def checked_move(action: Any, turn: Json) -> tuple[Json, bool]:
    """The bot's answer if it is legal now, else a fallback move (and False).

    Poker turns (``legal`` with ``can_fold``...) are checked as they always were
    (:func:`legal_or_fallback`); any other game's by its ``moves`` descriptors.
    """
    legal = turn.get("legal") or {}
    moves = turn.get("moves")
    if moves is None:
        moves = (turn.get("view") or {}).get("moves")
    if "can_fold" in legal or moves is None:
        return legal_or_fallback(action, legal)
    from engine.errors import EngineError
    from engine.game import check_move

    try:
        check_move(moves, action)
    except EngineError:
        return fallback_move(moves), False
    return dict(action), True


def answer_and_policy(answer: Any, turn: Json) -> tuple[Json, bool, list[Json] | None, str]:
    """What to send for a bot's answer: the move (:func:`checked_move`), whether it was
    legal, the bot's ``"policy"`` checked against the turn's moves
    (:func:`botkit.aivat.validate_policy`; None if it sent none, if it is malformed or
    if the move was replaced) and the reason a policy was refused (``""``)."""
    answer, policy = split_policy(answer)
    action, ok = checked_move(answer, turn)
    if policy is None:
        return action, ok, None, ""
    if not ok:
        return action, ok, None, "the action was replaced, so its policy was dropped"
    moves = turn.get("moves")
    if moves is None:
        moves = (turn.get("view") or {}).get("moves")
    try:
        return action, ok, validate_policy(moves or [], policy, action), ""
    except PolicyError as error:
        return action, ok, None, str(error)


def legal_or_fallback(action: Any, legal: Json) -> tuple[Json, bool]:
    """Poker: the bot's action if the legal actions allow it, else check/fold/muck (and
    False)."""
    kind = action.get("kind") if isinstance(action, dict) else None
    ok = (
        (kind == "fold" and legal.get("can_fold"))
        or (kind == "check" and legal.get("can_check"))
        or (kind == "call" and legal.get("call_amount"))
        or (kind in ("show",) and legal.get("can_show"))
        or (kind in ("muck",) and legal.get("can_muck"))
        or (kind == legal.get("sized_kind") and kind in ("bet", "raise")
            and isinstance(action.get("amount"), int)
            and legal["min_raise_to"] <= action["amount"] <= legal["max_raise_to"])
    )
    if ok:
        return dict(action), True
    for kind, allowed in (("check", "can_check"), ("muck", "can_muck"), ("fold", "can_fold"),
                          ("show", "can_show")):
        if legal.get(allowed):
            return {"kind": kind}, False
    return {"kind": "call"}, False


@dataclass
class Summary:
    """The bot's results: per-hand nets in chips (score games: points per round), read
    back from the hand histories."""

    big_blind: int = 2
    nets: list[int] = field(default_factory=list)
    illegal: int = 0
    policy_errors: int = 0  # policies refused locally (not sent: docs/aivat.md)
    reconnects: int = 0
    seconds: float = 0.0
    game: str = "holdem"
    unit: str = "chips"  # or "points" (score games)
    round_name: str = "hand"

    @property
    def hands(self) -> int:
        return len(self.nets)

    @property
    def net(self) -> int:
        return sum(self.nets)

    @property
    def bb_per_100(self) -> float:
        return 100 * self.net / self.big_blind / self.hands if self.hands else 0.0

    def mbb_ci(self) -> tuple[float, float]:
        mean, half = mean_ci([1000 * n / self.big_blind for n in self.nets])
        return mean, half

    def report(self) -> str:
        rate = self.hands / self.seconds if self.seconds else 0.0
        rounds = f"{self.round_name}s"
        first = (f"Summary: {self.hands} {rounds} in {self.seconds:.1f} s ({rate:.1f} "
                 f"{rounds}/s), {self.reconnects} reconnects, {self.illegal} illegal actions "
                 "replaced")
        if self.game != "holdem":
            mean, half = mean_ci([float(n) for n in self.nets])
            return "\n".join([first, f"  net {self.net:+d} {self.unit}, {mean:+.2f} ± "
                                     f"{half:.2f} {self.unit}/{self.round_name} (95 % CI)"])
        mean, half = self.mbb_ci()
        return "\n".join([
            first,
            f"  net {self.net:+d} chips, {self.bb_per_100:+.1f} bb/100, "
            f"{mean:+.0f} ± {half:.0f} mbb/hand (95 % CI)",
        ])


class Runner:
    """Plays one bot at one table until ``hands`` hands are done."""

    def __init__(self, server: str, token: str, bot: BotLike, *, table: int | None = None,
                 create: str | None = None, hands: int = 1000, transport: str = "ws",
                 buy_in: int | None = None, seat: int | None = None, progress: bool = True,
                 leave: bool = True, reconnect_for: float = 300.0,
                 house: str | None = None) -> None:
        if transport not in ("ws", "rest"):
            raise ValueError("transport is ws or rest")
        self.server, self.token, self.bot = server, token, bot
        self.house = house  # a house bot's name: made again for the table's game
        self.rest = RestClient(server, token)
        self.requested_table, self.create, self.target = table, create, hands
        self.table_id = 0  # known after start()
        self.transport, self.buy_in, self.seat = transport, buy_in, seat
        self.progress, self.leave, self.reconnect_for = progress, leave, reconnect_for
        self.summary = Summary()
        self.name = ""
        self.known: set[int] = set()
        self.last_hand: Any = None
        self.bar: Any = None
        self.game_over = False  # a game that ends has ended

    # --------------------------------------------------------------- setup
    def start(self) -> None:
        me = self.retry(self.rest.me)
        if not me.get("bot"):
            raise SystemExit("The token is not a bot token (create a bot on My account).")
        self.name = me["bot"]["name"]
        self.table_id = (self.requested_table if self.requested_table is not None
                         else self.create_table(self.create or "NL 1/2"))
        info = self.retry(self.rest.table, self.table_id)["info"]
        game = info.get("game") or "holdem"
        about = info.get("game_info") or {}
        self.summary.game = game
        self.summary.big_blind = info.get("big_blind") or 1
        self.summary.unit = "chips" if about.get("economy", True) else "points"
        self.summary.round_name = about.get("round_name") or "hand"
        self.info = info
        if self.house is not None and game != "holdem":
            self.bot = load_bot(self.house, game)
        # Hands played before this run do not count.
        self.known = {h["id"] for h in self.retry(self.rest.hands, table=self.table_id,
                                                  player=self.name, page_size=200)["results"]}
        self.known_floor = max(self.known, default=0)

    def create_table(self, spec: str) -> int:
        """``"NL 1/2"`` or ``"FL 2/4 6"`` (structure, blinds, seats)."""
        parts = spec.split()
        structure = parts[0].upper() if parts else "NL"
        small, _, big = (parts[1] if len(parts) > 1 else "1/2").partition("/")
        seats = int(parts[2]) if len(parts) > 2 else 2
        name = f"{self.name} {structure} {small}/{big} {int(time.time()) % 100000}"
        table = self.rest.create_table(name=name, structure=structure, small_blind=int(small),
                                       big_blind=int(big), seats=seats)
        print(f"Created table {table['id']} “{name}”; seat an opponent there.", file=sys.stderr)
        return int(table["id"])

    def retry(self, call: Any, *args: Any, **kwargs: Any) -> Any:
        """Call, reconnecting with backoff while the server is away."""
        delay, give_up = 0.2, time.monotonic() + self.reconnect_for
        while True:
            try:
                return call(*args, **kwargs)
            except ConnectionLost:
                if time.monotonic() > give_up:
                    raise
                time.sleep(delay)
                delay = min(5.0, delay * 2)

    # ----------------------------------------------------------- the seat
    def my_seat(self, snapshot: Json) -> int | None:
        seats = snapshot.get("you", {}).get("seats") or []
        return seats[0] if seats else None

    @property
    def economy(self) -> bool:
        """True if the table's game is played for chips (a buy-in to sit down)."""
        return bool((self.info.get("game_info") or {}).get("economy", True))

    @property
    def seat_commands(self) -> list[str]:
        """The game's own seat commands (poker: sit_out, sit_in, wait_for_bb, add_chips)."""
        about = self.info.get("game_info")
        if about is None:  # a server before the game contract: poker
            return ["sit_out", "sit_in", "wait_for_bb", "add_chips"]
        return list(about.get("seat_commands") or [])

    def default_buy_in(self) -> int:
        info = self.info
        wanted = self.buy_in or info.get("max_buy_in") or 100 * (info.get("big_blind") or 1)
        if info.get("max_buy_in"):
            wanted = min(wanted, info["max_buy_in"])
        return max(wanted, info.get("min_buy_in") or 1)

    def ensure_playing(self, snapshot: Json) -> None:
        """Sit down, add chips when busted, sit in when sat out."""
        seat = self.my_seat(snapshot)
        try:
            if seat is None:
                free = [i for i, s in enumerate(snapshot["seats"]) if s is None]
                if self.seat is not None:
                    free = [self.seat]
                if not free:
                    raise SystemExit("No free seat at this table.")
                sit: Json = {"type": "sit", "seat": free[0]}
                if self.economy:
                    sit["buy_in"] = self.default_buy_in()
                self.rest.command(self.table_id, sit)
                return
            row = snapshot["seats"][seat]
            commands = self.seat_commands
            if self.economy and row["stack"] == 0 and "add_chips" in commands:
                self.rest.command(self.table_id, {"type": "add_chips",
                                                  "amount": self.default_buy_in()})
                row = {**row, "stack": self.default_buy_in()}
            if (row["state"] in ("sitting_out", "disconnected", "away")
                    and (row["stack"] > 0 or not self.economy)):
                back = "sit_in" if "sit_in" in commands else "back"
                self.rest.command(self.table_id, {"type": back})
        except ServerError as error:  # e.g. still in the hand: try again after it
            if error.code not in ("in_hand", "not_sitting_out", "already_seated", "seat_taken",
                                  "above_max_buy_in", "hand_running"):
                print(f"\n{error}", file=sys.stderr)

    # ------------------------------------------------------------ results
    def refresh_results(self) -> None:
        """Read this run's finished hands back from the server (exact nets)."""
        fresh: list[tuple[int, int]] = []
        page, size = 1, 10
        while True:
            data = self.rest.hands(table=self.table_id, player=self.name, page_size=size,
                                   page=page)
            stop = False
            for hand in data["results"]:
                if hand["id"] in self.known or hand["id"] <= self.known_floor:
                    stop = True
                    break
                net = next((_result(p) for p in hand["players"]
                            if p["name"].lower() == self.name.lower()), 0)
                fresh.append((hand["id"], net))
            if stop or not data.get("next"):
                break
            if page == 1 and size == 10:  # more than a page missed (a reconnect): re-read big
                fresh, size = [], 200
                continue
            page += 1
        for hand_id, net in sorted(fresh):
            self.known.add(hand_id)
            self.summary.nets.append(net)
        if fresh and self.bar is not None:
            self.bar.update(min(self.target, self.summary.hands) - self.bar.n)
            self.bar.set_postfix(net=self.summary.net, bb100=f"{self.summary.bb_per_100:+.1f}")

    @property
    def done(self) -> bool:
        return self.summary.hands >= self.target or self.game_over

    def decide(self, turn: Json) -> Json:
        """The ``act`` command for a turn; the bot's ``"policy"`` (if any) goes beside
        the action (checked first: a malformed one is reported once and not sent)."""
        action, ok, policy, refused = answer_and_policy(self.bot.act(turn["view"]), turn)
        if not ok:
            self.summary.illegal += 1
        if refused:
            self._policy_refused(refused)
        return act_command(turn["hand"], turn["version"], action, policy)

    def _policy_refused(self, reason: str) -> None:
        self.summary.policy_errors += 1
        if self.summary.policy_errors == 1:
            print(f"\nthe bot's policy is not sent: {reason}", file=sys.stderr)

    # ---------------------------------------------------------- transports
    def play_rest(self) -> None:
        version = 0
        while not self.done:
            answer = self.rest.wait(self.table_id, since=version, timeout=10)
            snapshot, version = answer["snapshot"], answer["version"]
            if snapshot["hand"] != self.last_hand:
                self.last_hand = snapshot["hand"]
                self.refresh_results()
            if (snapshot.get("info") or {}).get("status") == "finished":
                self.refresh_results()
                self.game_over = True  # a game that ends has ended
                return
            self.ensure_playing(snapshot)
            turn = answer["your_turn"]
            if turn is not None and not self.done:
                command = self.decide(turn)
                try:
                    self.rest.command(self.table_id, command,
                                      key=f"{self.name}:{turn['hand']}:{turn['version']}")
                except ServerError as error:
                    if error.code not in STALE:
                        raise

    def play_ws(self) -> None:
        socket = WebsocketClient(self.server, self.token, self.table_id)
        socket.connect()
        try:
            for message in socket.messages(idle=3.0):
                if message is None:  # quiet: resync (a message may have been dropped)
                    socket.send({"type": "snapshot"})
                    self.refresh_results()
                elif message["type"] == "snapshot":
                    if message["hand"] != self.last_hand:
                        self.last_hand = message["hand"]
                        self.refresh_results()
                    if (message.get("info") or {}).get("status") == "finished":
                        self.refresh_results()
                        self.game_over = True
                        return
                    self.ensure_playing(message)
                    self.seat_now = self.my_seat(message)
                elif message["type"] == "your_turn":
                    socket.send(self.decide(message))
                elif message["type"] == "events":
                    events = message["events"]
                    if any(_round_over(e) for e in events):
                        self.refresh_results()
                    if any(e.get("type") == "GameEnded" for e in events):
                        self.game_over = True  # the table closes: nothing more to play
                    if any(e.get("type") in ("PlayerSatOut", "WentAway")
                           and e.get("player") == getattr(self, "seat_now", None)
                           for e in events):
                        self.ensure_playing(self.rest.table(self.table_id))
                elif message["type"] == "error" and message.get("code") not in STALE:
                    print(f"\nserver: {message.get('code')}: {message.get('message')}",
                          file=sys.stderr)
                if self.done:
                    return
        finally:
            socket.close()

    def run(self) -> Summary:
        from tqdm import tqdm

        started = time.monotonic()
        self.start()
        self.bar = tqdm(total=self.target, unit="hand", disable=not self.progress,
                        file=sys.stderr, dynamic_ncols=True)
        self.ensure_playing(self.retry(self.rest.table, self.table_id))
        play = self.play_ws if self.transport == "ws" else self.play_rest
        delay = 0.2
        try:
            while not self.done:
                try:
                    play()
                    delay = 0.2
                except ConnectionLost:
                    self.summary.reconnects += 1
                    self.bar.set_description("reconnecting")
                    time.sleep(delay)
                    delay = min(5.0, delay * 2)
                    try:
                        snapshot = self.retry(self.rest.table, self.table_id)
                        self.bar.set_description("")
                        self.refresh_results()
                        self.ensure_playing(snapshot)
                    except ConnectionLost:
                        raise
            if self.leave:
                with contextlib.suppress(ServerError):
                    self.retry(self.rest.command, self.table_id, {"type": "leave"})
        finally:
            self.bar.close()
            self.summary.seconds = time.monotonic() - started
        return self.summary


def _round_over(event: Json) -> bool:
    """A RoundEnded (poker's HandEnded, any game's subclass): a ``...Ended`` event with
    ``results``."""
    kind = str(event.get("type", ""))
    return kind in ("HandEnded", "RoundEnded") or (kind.endswith("Ended") and "results" in event)


def _result(player: Json) -> int:
    """A player's result in a stored hand: the score (score games), else the chips."""
    score = player.get("score")
    return int(score if score is not None else player.get("net") or 0)


MATCH_REFUSALS = {"not_authenticated", "not_a_participant", "match_not_found", "match_over"}


@dataclass
class MatchSummary:
    """What a remote bot saw of a batch match, and the server's results at the end."""

    match: int = 0
    name: str = ""
    big_blind: int = 2
    hands: int = 0
    net: int = 0
    turns: int = 0
    errors: int = 0  # the bot raised: check/muck/fold was sent instead
    policy_errors: int = 0  # policies refused locally (not sent: docs/aivat.md)
    reconnects: int = 0
    seconds: float = 0.0
    status: str = ""
    results: Json | None = None
    error: Json | None = None

    @property
    def bb_per_100(self) -> float:
        return 100 * self.net / self.big_blind / self.hands if self.hands else 0.0

    def report(self) -> str:
        rate = self.hands / self.seconds if self.seconds else 0.0
        lines = [f"Match {self.match} {self.status or 'unfinished'}: {self.hands} hands as "
                 f"{self.name} in {self.seconds:.1f} s ({rate:.1f} hands/s), "
                 f"{self.reconnects} reconnects, {self.errors} bot errors"]
        if self.error:
            lines.append(f"  {self.error.get('code')}: {self.error.get('message')}")
        bots = (self.results or {}).get("bots") or {}
        for name, row in sorted(bots.items(), key=lambda item: -item[1]["mbb_per_hand"]):
            extra = (f", {row.get('timeouts', 0)} timeouts" if row.get("kind") == "remote"
                     else "")
            mark = " (you)" if name == self.name else ""
            lines.append(f"  {name}{mark}: {row['mbb_per_hand']:+.0f} ± {row['ci95']:.0f} "
                         f"mbb/hand (95 % CI), net {row['net']:+d} chips, {row['hands']} hands, "
                         f"{row['illegal']} illegal{extra}")
        return "\n".join(lines)


class MatchRunner:
    """Plays one bot in a server batch match over ``/ws/matches/<id>/``.

    The server's match runner sends ``match_turn``; the bot's ``act(view)`` answers
    with ``match_action``. ``new_match``/``hand_over`` and the seat's events (sent
    with each turn and hand end) reach the bot's optional hooks.
    """

    def __init__(self, server: str, token: str, bot: BotLike, match: int, *,
                 progress: bool = True, reconnect_for: float = 300.0,
                 factory: Callable[[], BotLike] | None = None) -> None:
        self.server, self.token, self.bot = server, token, bot
        # A match with lanes plays several deals at once: one bot per lane (a new one
        # from ``factory``; without it the same bot plays every lane).
        self.factory = factory
        self.lanes: dict[int, BotLike] = {0: bot}
        self.summary = MatchSummary(match=match)
        self.progress, self.reconnect_for = progress, reconnect_for
        self.bar: Any = None
        self.over = False
        # Request ids answered lately: a turn sent again (a duplicate, or an old turn
        # after its answer) is not answered twice (docs/conformance.md).
        self.answered: deque[str] = deque(maxlen=256)
        if isinstance(getattr(bot, "send_policy", None), bool):
            bot.send_policy = True  # type: ignore[attr-defined]  # house bots: for AIVAT

    def lane(self, message: Json) -> BotLike:
        """The bot of the message's lane (``lane``: a match playing deals at once)."""
        number = message.get("lane")
        if type(number) is not int:
            return self.bot
        bot = self.lanes.get(number)
        if bot is None:
            bot = self.lanes[number] = self.factory() if self.factory else self.bot
            if isinstance(getattr(bot, "send_policy", None), bool):
                bot.send_policy = True  # type: ignore[attr-defined]
        return bot

    def call(self, hook: str, *args: Any, bot: BotLike | None = None) -> None:
        method = getattr(self.bot if bot is None else bot, hook, None)
        if method is not None:
            method(*args)

    def feed(self, events: Any, bot: BotLike | None = None) -> None:
        for event in events or ():
            self.call("observe", event, bot=bot)

    def handle(self, socket: WebsocketClient, message: Json) -> None:
        kind = message.get("type")
        if kind == "match_joined":
            self.summary.name = str(message.get("bot", ""))
            if message.get("status") in ("queued", "waiting"):
                print(f"Joined match {self.summary.match} as {self.summary.name}; waiting for "
                      "the other remote bots.", file=sys.stderr)
        elif kind == "match_started":
            settings = message.get("settings") or {}
            self.summary.big_blind = int(settings.get("big_blind") or 2)
            self.summary.name = str(message.get("bot", self.summary.name))
            if self.bar is None:
                from tqdm import tqdm

                self.bar = tqdm(total=message.get("hands"), unit="hand", file=sys.stderr,
                                disable=not self.progress, dynamic_ncols=True)
        elif kind == "new_match":
            self.call("new_match", bot=self.lane(message))
        elif kind == "match_turn":
            if str(message.get("request_id")) in self.answered:
                return  # answered already: one answer per request
            self.answered.append(str(message.get("request_id")))
            bot = self.lane(message)
            self.feed(message.get("events"), bot)
            self.summary.turns += 1
            view = message["view"]
            policy = None
            try:
                answer = bot.act(view)
            except Exception as error:  # the bot's bug must not lose the turn
                self.summary.errors += 1
                print(f"\nthe bot raised {type(error).__name__}: {error}", file=sys.stderr)
                action, _ = checked_move(None, {"legal": view.get("legal"),
                                                "moves": view.get("moves")})
            else:
                # The server replaces an illegal move itself (and counts it): send it as is.
                action, policy = split_policy(answer)
                if policy is not None:
                    try:
                        policy = validate_policy(view.get("moves") or [], policy,
                                                 action if isinstance(action, dict) else None)
                    except PolicyError as error:
                        policy = None
                        self.summary.policy_errors += 1
                        if self.summary.policy_errors == 1:
                            print(f"\nthe bot's policy is not sent: {error}", file=sys.stderr)
            reply: Json = {"type": "match_action", "request_id": message["request_id"],
                           "action": action}
            if policy is not None:
                reply["policy"] = policy
            socket.send(reply)
        elif kind == "hand_over":
            bot = self.lane(message)
            self.feed(message.get("events"), bot)
            self.call("hand_over", message.get("view"), bot=bot)
            self.summary.hands = int(message.get("hand", self.summary.hands + 1))
            self.summary.net = int(message.get("total", self.summary.net))
            if self.bar is not None:
                self.bar.update(self.summary.hands - self.bar.n)
                self.bar.set_postfix(net=self.summary.net,
                                     bb100=f"{self.summary.bb_per_100:+.1f}")
        elif kind == "match_over":
            self.summary.status = str(message.get("status", ""))
            self.summary.results = message.get("results")
            self.summary.error = message.get("error")
            self.over = True
        elif kind == "batch":  # several messages in one frame (the ?batch=1 connection)
            for part in message.get("messages") or ():
                if isinstance(part, dict):
                    self.handle(socket, part)
        elif kind == "error":
            if message.get("code") in MATCH_REFUSALS:
                raise ServerError(str(message["code"]), str(message.get("message", "")))
            print(f"\nserver: {message.get('code')}: {message.get('message')}", file=sys.stderr)

    def play(self) -> None:
        socket = WebsocketClient.for_match(self.server, self.token, self.summary.match,
                                           batch=True)
        socket.connect()
        try:
            for message in socket.messages(idle=5.0):
                if message is not None:
                    self.handle(socket, message)
                if self.over:
                    return
        finally:
            socket.close()

    def run(self) -> MatchSummary:
        started = time.monotonic()
        delay, give_up = 0.2, time.monotonic() + self.reconnect_for
        try:
            while not self.over:
                try:
                    self.play()
                except ConnectionLost:
                    if self.over:
                        break
                    if time.monotonic() > give_up:
                        raise
                    self.summary.reconnects += 1
                    time.sleep(delay)
                    delay = min(5.0, delay * 2)
                else:
                    delay, give_up = 0.2, time.monotonic() + self.reconnect_for
        finally:
            if self.bar is not None:
                self.bar.close()
            self.summary.seconds = time.monotonic() - started
        return self.summary


def _parse(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m botkit.runner",
                                     description="Play a bot on a poker server, headless.")
    parser.add_argument("--server", default="http://127.0.0.1:8000")
    parser.add_argument("--token", default=os.environ.get("POKERBOT_TOKEN"),
                        required="POKERBOT_TOKEN" not in os.environ,
                        help="the bot's API token (My account); default: $POKERBOT_TOKEN, "
                             "which keeps it out of the process list")
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--table", type=int, help="table id to sit at")
    where.add_argument("--create", metavar='"NL 1/2 [SEATS]"', help="create a table first")
    where.add_argument("--match", type=int,
                       help="join batch match ID as this bot (a remote participant)")
    parser.add_argument("--bot", required=True,
                        help="module:Class, or a house bot: house:<name> or just its name "
                             "(e.g. uniform, which plays any game from view['moves'])")
    parser.add_argument("--hands", type=int, default=1000)
    parser.add_argument("--transport", choices=("ws", "rest"), default="ws")
    parser.add_argument("--buy-in", type=int, help="chips per buy-in (default: the maximum)")
    parser.add_argument("--seat", type=int, help="seat number (default: the first free)")
    parser.add_argument("--stay", action="store_true", help="keep the seat at the end")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("--reconnect-for", type=float, default=300.0,
                        help="give up after the server is away this long (s)")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m botkit.runner`` / ``pokerbot``."""
    args = _parse(argv)
    try:
        bot = load_bot(args.bot)
    except (ValueError, KeyError, ImportError, AttributeError) as error:
        print(f"Cannot load the bot: {error}", file=sys.stderr)
        return 2
    if args.match is not None:
        return _main_match(args, bot)
    runner = Runner(args.server, args.token, bot, table=args.table, create=args.create,
                    hands=args.hands, transport=args.transport, buy_in=args.buy_in,
                    seat=args.seat, progress=not args.no_progress, leave=not args.stay,
                    reconnect_for=args.reconnect_for, house=house_name(args.bot))
    summary = _play(runner)
    if summary is None:
        return 1
    print(summary.report())
    return 0


def _main_match(args: argparse.Namespace, bot: BotLike) -> int:
    runner = MatchRunner(args.server, args.token, bot, args.match,
                         progress=not args.no_progress, reconnect_for=args.reconnect_for,
                         factory=lambda: load_bot(args.bot))
    summary = _play(runner)
    if summary is None:
        return 1
    print(summary.report())
    return 0 if summary.status == "done" else 1


def _play(runner: Any) -> Any:
    """``runner.run()``'s summary; ``None`` (after saying why) if the server refused
    or stayed away; the summary so far on Ctrl-C."""
    try:
        return runner.run()
    except ServerError as error:
        print(f"The server refused: {error.code}: {error.message}", file=sys.stderr)
    except ConnectionLost as error:
        print(f"The server stayed unreachable: {error}", file=sys.stderr)
    except KeyboardInterrupt:
        print("\nStopped.", file=sys.stderr)
        return runner.summary
    return None

if __name__ == "__main__":
    sys.exit(main())
