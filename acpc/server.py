"""The ACPC listener: one thread per TCP connection, each one bot at one live table
(``TABLE:``) or in one batch match: against a house bot, played here (``OPPONENT:``,
:func:`batch_match`), or created elsewhere, joined as its remote participant through
the Redis channel layer (``MATCH:<id>``, :mod:`acpc.match_join`).

A connection to a table (docs/acpc.md):

1. the client sends header lines ``TOKEN:<bot token>``, ``TABLE:<id>`` and optionally
   ``SEAT:<n>``, ``BUYIN:<chips>``, ``HANDS:<n>`` (``#``/``;`` lines are comments),
   then the protocol's own first line ``VERSION:2.0.0``. An unmodified ACPC client
   sends only the version line: put ``python -m botkit.acpc relay`` in front of it
   (it listens locally and sends the header lines for it);
2. the server authenticates the token, registers the connection (presence), seats the
   bot (``sit``, its buy-in) with ``skip_formalities`` on (ACPC has no show/muck);
3. it then polls the table (every ``--poll`` seconds, default 0.005 s) and sends a
   ``MATCHSTATE`` line whenever the bot's view of the hand changed, and once more when
   a hand it played is over; on the bot's turn it reads the response and applies it
   through :func:`tables.services.execute` (``act`` with the turn's hand and version);
4. when the client closes (or after ``HANDS`` hands) the bot leaves the table.

Every refusal is a comment line ``# ERROR <code>: <message>`` (ACPC clients ignore
comment lines); nothing changes at the table.
"""

from __future__ import annotations

import contextlib
import logging
import socket
import socketserver
import threading
import time
import uuid
from dataclasses import dataclass
from typing import Any

from django.db import close_old_connections, connection

from accounts.models import Player
from accounts.tokens import player_for_bot_token
from botkit import acpc
from engine.registry import get_game
from tables import services
from tables.errors import TableError
from tables.models import Hand, Seat, Table, TableStatus

log = logging.getLogger(__name__)
MAX_LINE = 4096
HEADER_TIMEOUT = 30.0
MAX_RESENDS = 3  # invalid answers in one turn that get the state sent again
HEARTBEAT_SECONDS = 3.0


class Closed(Exception):
    """The client went away."""


class Refused(Exception):
    """The connection cannot go on; ``code`` and message go to the client."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class LineSocket:
    """Lines in and out of a socket; ``read_line(timeout)`` returns None on timeout."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.buffer = b""

    def read_line(self, timeout: float | None) -> str | None:
        deadline = None if timeout is None else time.monotonic() + timeout
        while b"\n" not in self.buffer:
            if len(self.buffer) > MAX_LINE:
                raise Refused("line_too_long", f"A line is at most {MAX_LINE} bytes.")
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            if left == 0.0 and deadline is not None and time.monotonic() >= deadline:
                return None
            self.sock.settimeout(left)
            try:
                chunk = self.sock.recv(4096)
            except TimeoutError:
                return None
            except OSError:
                raise Closed from None
            if not chunk:
                raise Closed
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line.decode("utf-8", "replace").rstrip("\r")

    def send(self, line: str) -> None:
        try:
            self.sock.sendall(line.encode() + b"\r\n")
        except OSError:
            raise Closed from None


@dataclass
class Header:
    token: str = ""
    table: int | None = None
    match: int | None = None
    seat: int | None = None
    buy_in: int | None = None
    hands: int | None = None
    opponent: str = ""
    structure: str = "NL"
    duplicate: bool = False
    seed: int = 1


def read_header(io: LineSocket) -> Header:
    """Header lines up to ``VERSION:2.0.0`` (docs/acpc.md, "The first lines")."""
    header = Header()
    for _ in range(20):
        line = io.read_line(HEADER_TIMEOUT)
        if line is None:
            raise Refused("timeout", "No VERSION line.")
        if not line.strip() or line[0] in "#;":
            continue
        key, colon, value = line.partition(":")
        key = key.strip().upper()
        value = value.strip()
        if not colon:
            raise Refused("bad_header", f"Unknown line {line[:40]!r}.")
        if key == "VERSION":
            major = value.split(".")[0]
            if major != acpc.VERSION.split(".")[0]:
                raise Refused("bad_version", f"This server speaks VERSION:{acpc.VERSION}.")
            return header
        if key == "TOKEN":
            header.token = value
            continue
        if key in ("OPPONENT", "STRUCTURE"):
            setattr(header, key.lower(), value[:40])
            continue
        if key == "DUPLICATE" and value in ("0", "1"):
            header.duplicate = value == "1"
            continue
        field = {"TABLE": "table", "MATCH": "match", "SEAT": "seat", "BUYIN": "buy_in",
                 "HANDS": "hands", "SEED": "seed"}.get(key)
        if field is None or not value.isdigit() or len(value) > 15:
            raise Refused("bad_header", f"Unknown or malformed header line {line[:40]!r}.")
        setattr(header, field, int(value))
    raise Refused("bad_header", "Too many header lines before VERSION.")


def authenticate(token: str) -> Player:
    bot = player_for_bot_token(token)
    if bot is None or bot.owner is None:
        raise Refused("invalid_token", "This bot token is not valid.")
    return bot


# ---------------------------------------------------------------- live tables


class TableSession:
    """One bot at one live hold'em table (docs/acpc.md, "Live tables")."""

    def __init__(self, io: LineSocket, bot: Player, header: Header, poll: float) -> None:
        self.io, self.bot, self.user, self.header, self.poll = io, bot, bot.owner, header, poll
        self.channel = f"acpc.{uuid.uuid4().hex}"
        self.table_id = int(header.table or 0)
        self.seat = -1
        self.game = get_game("holdem")
        self.limit = False
        self.last_sent = ""
        self.hands_played = 0
        self.finished_hands: set[int] = set()
        self.hand_pk: int | None = None  # the table's Hand row of the bot's current hand
        self.resends = 0
        self.target = 0
        self.turn_key: tuple[int, int] | None = None
        self.turn: tuple[acpc.AcpcHand, int, Any] | None = None
        self.version_sql = f"SELECT version FROM {Table._meta.db_table} WHERE id = %s"

    def run(self) -> None:
        table = Table.objects.filter(pk=self.table_id).first()
        if table is None:
            raise Refused("table_not_found", f"There is no table {self.table_id}.")
        if table.game != "holdem" or table.ante:
            raise Refused("not_holdem", "ACPC plays Texas hold'em without antes.")
        self.game = get_game(table.game)
        self.limit = table.structure == "FL"
        try:
            services.connect(table_id=self.table_id, channel_name=self.channel,
                             user=self.user, bot=self.bot)
        except TableError as error:
            raise Refused(error.code, str(error)) from None
        try:
            try:
                self._sit(table)
            except TableError as error:
                raise Refused(error.code, str(error)) from None
            self._loop()
        finally:
            if self.seat >= 0:
                with contextlib.suppress(TableError):
                    services.execute(table_id=self.table_id, user=self.user, bot=self.bot,
                                     command={"type": "leave", "seat": self.seat})
            with contextlib.suppress(Exception):
                services.disconnect(channel_name=self.channel)

    def _sit(self, table: Table) -> None:
        seat = self.header.seat
        if seat is None:
            taken = set(table.seats.values_list("number", flat=True))
            free = [s for s in range(table.seat_count) if s not in taken]
            if not free:
                raise Refused("table_full", "The table has no free seat.")
            seat = free[0]
        command: dict[str, Any] = {"type": "sit", "seat": seat}
        if self.header.buy_in is not None:
            command["buy_in"] = self.header.buy_in
        services.execute(table_id=self.table_id, user=self.user, bot=self.bot, command=command)
        self.seat = seat
        self.target = int(Seat.objects.filter(table_id=self.table_id, number=seat)
                          .values_list("stack", flat=True).first() or 0)
        services.execute(table_id=self.table_id, user=self.user, bot=self.bot,
                         command={"type": "skip_formalities", "on": True, "seat": seat})
        self.io.send(f"# SEATED table {self.table_id} seat {seat}")

    def _loop(self) -> None:
        version = -1
        beat = time.monotonic()
        while True:
            if self.header.hands is not None and self.hands_played >= self.header.hands:
                self.io.send(f"# DONE {self.hands_played} hands")
                return
            if time.monotonic() - beat > HEARTBEAT_SECONDS:
                beat = time.monotonic()
                if not services.heartbeat(channel_name=self.channel):
                    services.connect(table_id=self.table_id, channel_name=self.channel,
                                     user=self.user, bot=self.bot)
            current = self._version()
            my_turn = False
            if current != version:
                row = (Table.objects.filter(pk=self.table_id)
                       .values("version", "status", "current_hand_id", "to_act_seat",
                               "decision_version", "state").first())
                if row is None or row["status"] == TableStatus.CLOSED:
                    self.io.send("# ERROR table_closed: The table is closed.")
                    return
                version = row["version"]
                my_turn = self._update(row)
            elif self.turn_key is not None:
                my_turn = True
            if my_turn:
                self._answer()
            else:
                line = self.io.read_line(self.poll)
                if line is not None:
                    self._stray(line)

    def _version(self) -> int | None:
        """The table's version: one indexed read, without the ORM's cost per look."""
        with connection.cursor() as cursor:
            cursor.execute(self.version_sql, [self.table_id])
            found = cursor.fetchone()
        return None if found is None else int(found[0])

    def _update(self, row: dict[str, Any]) -> bool:
        """Send what changed; True when it is the bot's turn."""
        hand_pk = row["current_hand_id"]
        if self.hand_pk is not None and hand_pk != self.hand_pk:
            self._send_final(self.hand_pk)
            self.hand_pk = None
        self.turn_key = None
        if hand_pk is None:
            return False
        state = self.game.load(row["state"])
        record = self.game.round_record(state)
        seats = record.get("seats") or []
        if self.seat not in seats:
            return False
        self.hand_pk = hand_pk
        position = seats.index(self.seat)
        hand = self._acpc_hand(record, state.hand_number, finished=False)
        if state.hand is not None and state.hand.is_over:
            self._send_final(hand_pk, record)
            return False
        self._send(acpc.match_state(hand, position, limit=self.limit))
        if row["to_act_seat"] == self.seat:
            self.turn_key = (hand_pk, row["decision_version"])
            self.turn = (hand, position, state)
            return True
        return False

    def _acpc_hand(self, record: dict[str, Any], number: int, finished: bool) -> acpc.AcpcHand:
        fields = record["fields"]
        return acpc.from_phh(fields["actions"], blinds=fields.get("blinds_or_straddles", ()),
                             stacks=fields["starting_stacks"], limit=self.limit,
                             hand_id=number, finished=finished)

    def _send(self, line: str) -> None:
        if line != self.last_sent:
            self.io.send(line)
            self.last_sent = line

    def _send_final(self, hand_pk: int, record: dict[str, Any] | None = None) -> None:
        if hand_pk in self.finished_hands:
            return
        if record is None:
            stored = Hand.objects.filter(pk=hand_pk).values("record", "number").first()
            if stored is None or not stored["record"]:
                return
            record, number = stored["record"], stored["number"]
        else:
            number = Hand.objects.filter(pk=hand_pk).values_list("number", flat=True).first()
        seats = record.get("seats") or []
        if self.seat not in seats:
            return
        self.finished_hands.add(hand_pk)
        hand = self._acpc_hand(record, int(number or 0), finished=True)
        # The dealer's printPlayerHoleCards: others' cards only after a showdown (two or
        # more players left), here those who showed (a loser at our tables may muck).
        fields = record["fields"]
        folded = {int(a.split()[0][1:]) - 1 for a in fields["actions"]
                  if a.split()[1:2] == ["f"]}
        shown = set(record.get("shown") or []) - folded
        if len(seats) - len(folded) < 2:
            shown = set()
        position = seats.index(self.seat)
        self._send(acpc.match_state(hand, position, limit=self.limit, visible=shown))
        self.hands_played += 1
        self._top_up()

    def _top_up(self) -> None:
        """ACPC plays every hand with the game's full stack: after each hand the bot's
        stack is brought back up to its buy-in (``add_chips``; during a hand the chips
        come when it ends) and, if busting sat it out, it sits in again."""
        stack = Seat.objects.filter(table_id=self.table_id, number=self.seat) \
            .values_list("stack", flat=True).first()
        if stack is None or stack >= self.target:
            return
        for command in ({"type": "add_chips", "amount": self.target - stack},
                        {"type": "sit_in"}):
            with contextlib.suppress(TableError):
                services.execute(table_id=self.table_id, user=self.user, bot=self.bot,
                                 command={**command, "seat": self.seat})

    def _stray(self, line: str) -> None:
        if not line.strip() or line[0] in "#;":
            return
        self.io.send("# WARNING ignoring un-requested response (not your turn)")

    def _answer(self) -> None:
        """Read the bot's response to its turn and apply it (or refuse it)."""
        assert self.turn_key is not None and self.turn is not None
        hand_pk, decision = self.turn_key
        hand, position, state = self.turn
        line = self.io.read_line(self.poll)
        if line is None:
            return  # keep waiting; the table's turn timer still runs
        if not line.strip() or line[0] in "#;":
            return
        try:
            echo, action = acpc.parse_response(line, limit=self.limit)
        except acpc.AcpcError as error:
            if error.code == "bad_action":
                return self._refuse(error.code, str(error))
            self.io.send(f"# ERROR {error.code}: {error} (ignored)")
            return
        if not acpc.same_state(echo, self.last_sent, self.limit):
            self.io.send("# WARNING ignoring un-requested response (not the current state)")
            return
        moves = self.game.legal_moves(state, self.seat)
        move, note = acpc.to_move(action, moves, committed=hand.spent[position],
                                  street_bet=hand.street[position])
        if move is None:
            return self._refuse("invalid_action", note)
        if note:
            self.io.send(f"# WARNING {note}")
        try:
            services.execute(table_id=self.table_id, user=self.user, bot=self.bot, command={
                "type": "act", "seat": self.seat, "hand": hand_pk, "version": decision,
                "action": move})
        except TableError as error:
            self.io.send(f"# ERROR {error.code}: {error}")
            self.turn_key = None  # look again
            return
        self.turn_key = None
        self.resends = 0

    def _refuse(self, code: str, message: str) -> None:
        self.io.send(f"# ERROR {code}: {message}")
        self.resends += 1
        if self.resends <= MAX_RESENDS:
            self.io.send(self.last_sent)  # the same state again: answer it anew


# ---------------------------------------------------------------- batch matches


def batch_match(io: LineSocket, bot: Player, header: Header) -> None:
    """A batch match against a house bot, played here (docs/acpc.md, "Batch matches"):
    stored as a research match (``/research/matches/<id>/``) like one run by
    ``run_match``, with the ACPC bot as its remote participant."""
    import tempfile
    from pathlib import Path

    from django.utils import timezone

    from botkit.house import make_bot
    from botkit.match import MatchSettings, play_match
    from research.models import MatchRun, MatchStatus
    from research.services import validate_match

    if not getattr(bot.owner, "can_manage_bots", False):
        raise Refused("not_allowed", "Only testers and superusers may run matches.")
    try:
        settings = validate_match({
            "bots": [{"remote": bot.name}, header.opponent], "hands": header.hands or 1000,
            "duplicate": header.duplicate, "structure": header.structure,
            "small_blind": 50, "big_blind": 100, "stack_bb": 200, "seed": header.seed,
            "aivat": False})
    except ValueError as error:
        raise Refused("bad_match", str(error)) from None
    names = settings["bots"]
    match = MatchRun.objects.create(created_by=bot.owner, settings=settings,
                                    status=MatchStatus.RUNNING, started_at=timezone.now())
    io.send(f"# MATCH {match.pk}: {names[0]} against {names[1]}, {settings['hands']} hands"
            + (" (duplicate)" if header.duplicate else ""))
    adapter = acpc.AcpcMatchBot(io.send, lambda: io.read_line(None),
                                limit=settings["structure"] == "FL", stack=20000)
    config = MatchSettings(structure=settings["structure"], small_blind=50, big_blind=100,
                           stack=20000)
    try:
        with tempfile.TemporaryDirectory() as directory:
            result = play_match({names[0]: adapter, names[1]: make_bot(header.opponent)},
                                config, hands=settings["hands"], seed=settings["seed"],
                                duplicate=settings["duplicate"], phh_out=directory,
                                record=False)
            match.phh = (Path(directory) / "match.phhs").read_text()
        results = result.to_json()
        for name, row in results["bots"].items():
            row["kind"] = "remote" if name == names[0] else "house"
        match.results, match.status = results, MatchStatus.DONE
    except Exception as error:
        match.status, match.error = MatchStatus.FAILED, f"{type(error).__name__}: {error}"
        match.error_code = "match_error"
        raise
    finally:
        match.finished_at = timezone.now()
        match.save()
    mine = result.bots[names[0]]
    io.send(f"# DONE match {match.pk}: {mine.hands} hands, {mine.net} chips")


# ---------------------------------------------------------------- the server


class Handler(socketserver.BaseRequestHandler):
    server: Server

    def handle(self) -> None:
        # Small lines both ways, each waited for: without TCP_NODELAY, Nagle's algorithm
        # holds a line back until the previous one is acknowledged (a delayed ACK, up to
        # 40 ms; measured: a MATCH:<id> between two ACPC bots went from 22 to 100 hands/s).
        with contextlib.suppress(OSError):
            self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        io = LineSocket(self.request)
        try:
            header = read_header(io)
            bot = authenticate(header.token)
            if header.table is not None:
                TableSession(io, bot, header, self.server.poll).run()
            elif header.match is not None:
                from .match_join import join

                join(io, bot, header.match)
            elif header.opponent:
                batch_match(io, bot, header)
            else:
                raise Refused("bad_header", "Say TABLE:<id>, OPPONENT:<house bot> or "
                                            "MATCH:<id> before VERSION.")
        except Refused as error:
            with contextlib.suppress(Closed):
                io.send(f"# ERROR {error.code}: {error}")
        except Closed:
            pass
        except Exception:
            log.exception("ACPC connection failed")
            with contextlib.suppress(Closed):
                io.send("# ERROR server_error: The server failed; see its log.")
        finally:
            close_old_connections()
            with contextlib.suppress(OSError):
                self.request.shutdown(socket.SHUT_RDWR)


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address: tuple[str, int], poll: float = 0.005) -> None:
        super().__init__(address, Handler)
        self.poll = poll


def serve(host: str, port: int, poll: float, ready: threading.Event | None = None,
          stop: threading.Event | None = None) -> None:
    with Server((host, port), poll) as server:
        if ready is not None:
            ready.set()
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            while not (stop is not None and stop.is_set()):
                time.sleep(0.2)
        finally:
            server.shutdown()
