"""Writes of the research app: incremental statistics and batch matches.

* :func:`update_stats` — count finished ``tables.Hand`` rows into
  :class:`~research.models.PlayerStats` (idempotent; safe in several processes).
* :func:`create_match` / :func:`run_match` — store a batch match and play it with
  :func:`botkit.match.play_match`.
"""

from __future__ import annotations

import concurrent.futures
import logging
import random
import tempfile
import threading
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import close_old_connections, transaction
from django.utils import timezone

from accounts.models import User
from botkit.house import house_bots, make_bot
from botkit.match import MatchSettings, play_match
from botkit.results import MatchResult
from botkit.stats import PlayerStats as Counters
from botkit.stats import StatsAccumulator
from engine.errors import EngineError
from engine.registry import GAMES, get_game
from tables import rowsql
from tables.models import Hand

from . import remote
from .models import MatchRun, MatchStatus, PlayerStats, StatsCursor

log = logging.getLogger(__name__)
Json = dict[str, Any]

# A hand still running after this long (a stuck table) no longer holds the cursor back.
STUCK_HAND = timedelta(hours=6)


def conf(name: str) -> Any:
    defaults = {"MAX_MATCH_HANDS": 100_000, "PHH_MAX_HANDS": 2000, "MATCHES_IN_THREAD": True,
                "REMOTE_TURN_SECONDS": 10.0, "REMOTE_CONNECT_SECONDS": 120.0}
    return getattr(settings, "RESEARCH", {}).get(name, defaults[name])


# ------------------------------------------------------------- statistics


def _cursor() -> StatsCursor:
    StatsCursor.objects.get_or_create(name="hands")
    return StatsCursor.objects.select_for_update().get(name="hands")


def update_stats(limit: int = 2000) -> int:
    """Count newly finished hands: those among the next ``limit`` after the stored
    cursor, and those the cursor passed while they were being played; returns how
    many were counted.

    Hands are read in id order from the stored cursor. A hand still being played
    when the cursor passes it is remembered (``StatsCursor.open_hand_ids``) and
    counted when it ends, so a long round at one table (people thinking, a Tuppi
    round) holds nobody else's statistics back, and no hand is ever skipped; one
    still running after ``STUCK_HAND`` is given up. The cursor and the counters
    change in one transaction with the cursor row locked, so a hand is never
    counted twice.
    """
    return _update_stats(limit)[0]


def _update_stats(limit: int) -> tuple[int, int]:
    """(hands counted, hands the cursor moved over)."""
    with transaction.atomic():
        cursor = _cursor()
        stuck = timezone.now() - STUCK_HAND
        ahead = list(Hand.objects.filter(pk__gt=cursor.last_hand_id).order_by("pk")
                     .values_list("pk", "ended_at", "started_at")[:limit])
        waiting = set(cursor.open_hand_ids)
        known = list(Hand.objects.filter(pk__in=waiting).values_list(  # (none: no query)
            "pk", "ended_at", "started_at"))
        ended = [pk for pk, end, _ in [*known, *ahead] if end is not None]
        still_open = {pk for pk, end, began in [*known, *ahead]
                      if end is None and began >= stuck}  # (a deleted hand: gone)
        if not ended and not ahead and still_open == waiting:
            return 0, 0
        # (Only what is counted: a finished hand's other logs, and its table's state,
        # are most of its bytes, and decoding them was most of the worker's time.)
        batch = list(Hand.objects.filter(pk__in=ended).order_by("pk").select_related("table")
                     .only("pk", "events", "table__game", "table__big_blind")
                     .prefetch_related("players"))
        acc = StatsAccumulator()
        last_hand: dict[str, int] = {}
        for hand in batch:
            if not get_game(hand.table.game).info.stats:
                continue  # tracker statistics are poker's; other games have standings
            seats = {p.seat: str(p.player_id) for p in hand.players.all()
                     if p.player_id is not None}
            acc.add_hand(hand.events, seats, big_blind=hand.table.big_blind or 1)
            for player_id in seats.values():
                last_hand[player_id] = hand.pk
        # (a seat without a stored player cannot happen for new hands: skipped)
        counted = {int(p): c for p, c in acc.players.items() if p.isdigit()}
        PlayerStats.objects.bulk_create(  # (the locked cursor: nobody else adds rows now)
            [PlayerStats(player_id=p) for p in counted.keys() - set(
                PlayerStats.objects.filter(player_id__in=counted).values_list(
                    "player_id", flat=True))])
        rows = list(PlayerStats.objects.select_for_update().filter(player_id__in=counted))
        for row in rows:
            total = Counters.from_json(row.counters) if row.counters else Counters()
            total.merge(counted[row.player_id])
            row.counters = total.to_json()
            row.hands, row.net = total.hands, total.net
            row.last_hand_id = max(row.last_hand_id, last_hand.get(str(row.player_id), 0))
            row.updated_at = timezone.now()
        rowsql.update_rows(rows, ("counters", "hands", "net", "last_hand_id", "updated_at"))
        if ahead:
            cursor.last_hand_id = ahead[-1][0]
        cursor.open_hand_ids = sorted(still_open)
        cursor.save(update_fields=["last_hand_id", "open_hand_ids", "updated_at"])
        return len(batch), len(ahead)


def update_all_stats(batch: int = 2000) -> int:
    """Count every finished hand not counted yet."""
    total = 0
    while True:
        counted, read = _update_stats(batch)
        total += counted
        if not read:
            return total


# ---------------------------------------------------------------- matches

STRUCTURES = ("NL", "PL", "FL")
DEFAULT_GAME = "holdem"  # matches given the flat way (structure, blinds) are Hold'em's
MAX_LANES = 16  # deals played at once in a match with remote bots (docs/protocol.md)


def validate_match(data: Json) -> Json:
    """Checked, complete match settings (raises ValueError with a clear sentence).

    ``game`` is any registered game (default Texas Hold'em, whose table is given by
    ``structure``, blinds and ``stack_bb``); another game's table is ``settings``
    (JSON, validated by the game).  Hold'em matches are also corrected with AIVAT
    (``aivat``, default true: docs/aivat.md; about 1–5 ms per hand). ``lanes``: deals
    played at once with remote bots (default 1; more needs ``aivat`` false, its
    default then). ``conformance``:
    a conformance run of one remote bot instead (research/conformance.py)."""
    if data.get("conformance"):
        from .conformance import validate

        return validate(data)
    game_key = data.get("game", DEFAULT_GAME)
    if not isinstance(game_key, str) or game_key not in GAMES:
        raise ValueError(f"No game called {game_key!r} (known: {', '.join(GAMES)}).")
    game = get_game(game_key)
    bots = data.get("bots")
    if isinstance(bots, str):
        bots = [b.strip() for b in bots.split(",") if b.strip()]
    low, high = game.info.min_players, min(10, game.info.max_players)
    if not isinstance(bots, list) or not low <= len(bots) <= high:
        raise ValueError(f"A match of {game.info.title} needs {low} to {high} bots.")
    participants = [_participant(entry, game_key) for entry in bots]
    remote_ids = [p["player_id"] for p in participants if p["kind"] == "remote"]
    if len(set(remote_ids)) != len(remote_ids):
        raise ValueError("A remote bot can take only one seat in a match.")
    hands = data.get("hands", 1000)
    if type(hands) is not int or not 1 <= hands <= conf("MAX_MATCH_HANDS"):
        raise ValueError(f"hands is 1 to {conf('MAX_MATCH_HANDS')}.")
    if game_key != DEFAULT_GAME:
        return _other_game_match(data, game, participants, hands, remote_ids)
    structure = data.get("structure", "NL")
    if structure not in STRUCTURES:
        raise ValueError("structure is NL, PL or FL.")
    small, big = data.get("small_blind", 1), data.get("big_blind", 2)
    if type(small) is not int or type(big) is not int or not 1 <= small <= big <= 1_000_000:
        raise ValueError("The blinds are whole numbers with 1 <= small_blind <= big_blind.")
    seed = data.get("seed", 1)
    if type(seed) is not int or not 0 <= seed < 2**63:
        raise ValueError("seed is a whole number >= 0.")
    stack = data.get("stack_bb", 200)
    if type(stack) is not int or not 1 <= stack <= 10_000:
        raise ValueError("stack_bb is 1 to 10000 big blinds.")
    lanes = data.get("lanes", 1)
    if type(lanes) is not int or not 1 <= lanes <= MAX_LANES:
        raise ValueError(f"lanes is 1 to {MAX_LANES}.")
    if lanes > 1 and not remote_ids:
        raise ValueError("lanes are for matches with remote bots (house bots need none).")
    aivat = data.get("aivat", lanes == 1)
    if type(aivat) is not bool:
        raise ValueError("aivat is true or false.")
    if aivat and lanes > 1:
        raise ValueError("AIVAT follows one hand at a time: lanes need aivat false.")
    checked: Json = {
        "bots": [p["name"] for p in participants], "hands": hands, "seed": seed,
        "duplicate": bool(data.get("duplicate", False)), "structure": structure,
        "small_blind": small, "big_blind": big, "stack_bb": stack, "aivat": aivat}
    if lanes > 1:
        checked["lanes"] = lanes
    if remote_ids:
        checked["participants"] = participants
        for name, low, high, default in (("turn_seconds", 0.05, 60, conf("REMOTE_TURN_SECONDS")),
                                         ("connect_seconds", 0.5, 3600,
                                          conf("REMOTE_CONNECT_SECONDS"))):
            value = data.get(name)
            value = default if value is None else value
            if type(value) not in (int, float) or not low <= value <= high:
                raise ValueError(f"{name} is {low:g} to {high:g} seconds.")
            checked[name] = value
    return checked


def _other_game_match(data: Json, game: Any, participants: list[Json], hands: int,
                      remote_ids: list[int]) -> Json:
    if remote_ids:
        raise ValueError("Remote bots play Texas Hold'em matches; other games: house bots.")
    seed = data.get("seed", 1)
    if type(seed) is not int or not 0 <= seed < 2**63:
        raise ValueError("seed is a whole number >= 0.")
    settings = data.get("settings", {})
    try:
        validated = game.settings_json(game.validate_settings(settings))
    except EngineError as error:
        raise ValueError(error.reason) from None
    return {"game": game.info.key, "settings": validated,
            "bots": [p["name"] for p in participants], "hands": hands, "seed": seed,
            "duplicate": bool(data.get("duplicate", False))}


def _participant(entry: Any, game: str = "holdem") -> Json:
    """A house bot (``"rule_based"``) or a remote bot (``{"remote": "Skynet"}`` or
    ``"remote:Skynet"``), named by its bot player (anyone's bot: its owner connects it)."""
    if isinstance(entry, str) and entry.startswith("remote:"):
        entry = {"remote": entry.split(":", 1)[1].strip()}
    if isinstance(entry, dict) and set(entry) == {"remote"} and isinstance(entry["remote"], str):
        from accounts.models import Player, PlayerKind

        name = entry["remote"]
        bot = (Player.objects.live().filter(name__iexact=name, kind=PlayerKind.BOT,
                                            house_strategy="").first())
        if bot is None:
            raise ValueError(f"No bot called “{name}” (a remote participant is a bot player "
                             "with a token, not a house bot).")
        return {"name": bot.name, "kind": "remote", "player_id": bot.pk}
    styles = house_bots(game)
    if isinstance(entry, str) and entry in styles:
        return {"name": entry, "kind": "house", "house": entry}
    raise ValueError(f"No house bot called “{entry}” (known: {', '.join(styles)}); "
                     "a remote bot is {\"remote\": \"<bot name>\"}.")


def create_match(*, settings_data: Json, user: User | None) -> MatchRun:
    """Store a queued match and have it played after the commit (off the request path)."""
    match = MatchRun.objects.create(created_by=user, settings=validate_match(settings_data))
    transaction.on_commit(lambda: launch(match.pk))
    return match


def launch(match_id: int) -> None:
    """Play a stored match in a background thread (or right here, see RESEARCH settings)."""
    if not conf("MATCHES_IN_THREAD"):
        run_match(match_id)
        return

    def target() -> None:
        try:
            run_match(match_id)
        finally:
            close_old_connections()

    threading.Thread(target=target, name=f"match-{match_id}", daemon=True).start()


def _names(kinds: list[str]) -> list[str]:
    names: list[str] = []
    for kind in kinds:
        copies = sum(1 for n in names if n.split("#")[0] == kind)
        names.append(f"{kind}#{copies + 1}" if copies else kind)
    return names


def run_match(match_id: int) -> MatchRun:
    """Play a queued match and store its results (status ``done`` or ``failed``).

    With remote participants the match first waits (status ``waiting``) until every
    remote bot is connected to ``/ws/matches/<id>/`` (``connect_seconds``), else it
    fails with ``error_code`` ``remote_bots_not_connected``.
    """
    with transaction.atomic():
        match = MatchRun.objects.select_for_update().get(pk=match_id)
        if match.status != MatchStatus.QUEUED:
            return match
        s = match.settings
        participants = s.get("participants") or [
            {"name": name, "kind": "house", "house": name} for name in s["bots"]]
        has_remote = any(p["kind"] == "remote" for p in participants)
        match.status = MatchStatus.WAITING if has_remote else MatchStatus.RUNNING
        match.started_at = timezone.now()
        match.save(update_fields=["status", "started_at"])
    if s.get("conformance"):  # one remote bot through the scripted checks
        from . import conformance

        return conformance.run(match)
    link: remote.Link | None = None
    hub: remote.Hub | None = None
    try:
        names = _names([p["name"] for p in participants])
        game = s.get("game", DEFAULT_GAME)
        if game != DEFAULT_GAME:  # house bots only, through the game contract
            house = {name: make_bot(p["house"], random.Random(s["seed"] * 1000 + i), game=game)
                     for i, (name, p) in enumerate(zip(names, participants, strict=True))}
            rules = get_game(game)
            table = rules.create(rules.validate_settings(s["settings"]))
            result = play_match(house, None, hands=s["hands"], seed=s["seed"],
                                duplicate=s["duplicate"], record=False, game=game,
                                game_settings=s["settings"],
                                seat_options=rules.default_seat_options(table),
                                progress=_progress(match))
            match.results, match.phh, match.status = result.to_json(), "", MatchStatus.DONE
            return _finish(match, None, None)
        config = MatchSettings(structure=s["structure"], small_blind=s["small_blind"],
                               big_blind=s["big_blind"], stack=s["stack_bb"] * s["big_blind"])
        bots: dict[str, Any] = {}
        remotes: dict[str, remote.RemoteBot] = {}
        lanes = int(s.get("lanes", 1))
        if has_remote:
            link = remote.Link(wait_for_loop=float(s["connect_seconds"]), waiting_for=", ".join(
                p["name"] for p in participants if p["kind"] == "remote"))
            hub = remote.Hub(match_id, link)
        for i, (name, p) in enumerate(zip(names, participants, strict=True)):
            if p["kind"] == "remote":
                assert hub is not None
                bot = remote.RemoteBot(hub, p["player_id"], name,
                                       turn_seconds=float(s["turn_seconds"]),
                                       reconnect_seconds=float(s["connect_seconds"]),
                                       stack=s["stack_bb"] * s["big_blind"])
                hub.add(bot)
                remotes[name] = bot
                bots[name] = bot if lanes == 1 else bot.lane(0)
            else:
                bots[name] = make_bot(p["house"], random.Random(s["seed"] * 1000 + i))
        if hub is not None:
            hub.wait_connected(float(s["connect_seconds"]))
            match.status = MatchStatus.RUNNING
            match.save(update_fields=["status"])
            rotations = len(names) if s["duplicate"] else 1
            for bot in remotes.values():
                bot.started = {
                    "type": "match_started", "match": match_id, "bot": bot.name,
                    "bots": names, "hands": max(1, s["hands"] // rotations) * rotations,
                    "settings": s, "turn_seconds": s["turn_seconds"]}
                bot.tell(bot.started)
        with tempfile.TemporaryDirectory() as directory:
            keep_phh = s["hands"] <= conf("PHH_MAX_HANDS")
            progress = _progress(match)
            done = [0, 0]

            def play() -> MatchResult:
                return play_match(
                    bots, config, hands=s["hands"], seed=s["seed"], duplicate=s["duplicate"],
                    phh_out=directory if keep_phh else None, record=False,
                    aivat=bool(s.get("aivat", False)),
                    stats=not keep_phh,  # else counted from the stored hands
                    progress=progress if link is None else _note(done),
                    lanes=[_lane(names, participants, remotes, s["seed"], number)
                           for number in range(1, lanes)],
                    parallel=remote.Link.parallel if lanes > 1 else None)

            result = play() if link is None else _on_loop(link, play, progress, done)
            phh = (Path(directory) / "match.phhs").read_text() if keep_phh else ""
        results = result.to_json()
        for name, row in results["bots"].items():
            row["kind"] = "remote" if name in remotes else "house"
            if name in remotes:
                row.update(remotes[name].summary())
        match.results, match.phh = results, phh
        match.status = MatchStatus.DONE
    except remote.MatchAborted as error:
        log.warning("match %s failed: %s", match_id, error)
        match.status, match.error, match.error_code = MatchStatus.FAILED, str(error), error.code
    except Exception as error:  # stored for the user; the server goes on
        log.exception("match %s failed", match_id)
        match.status, match.error = MatchStatus.FAILED, f"{type(error).__name__}: {error}"
        match.error_code = "match_error"
    return _finish(match, hub, link)


def _lane(names: list[str], participants: list[Json], remotes: dict[str, remote.RemoteBot],
          seed: int, number: int) -> dict[str, Any]:
    """The match's bots for lane ``number``: each remote bot's lane, new house bots."""
    lane: dict[str, Any] = {}
    for i, (name, p) in enumerate(zip(names, participants, strict=True)):
        if p["kind"] == "remote":
            lane[name] = remotes[name].lane(number)
        else:
            lane[name] = make_bot(p["house"], random.Random((seed * 1000 + i) * 100 + number))
    return lane


def _note(done: list[int]) -> Callable[[int, int], None]:
    def note(played: int, total: int) -> None:
        done[:] = [played, total]

    return note


def _on_loop(link: remote.Link, play: Callable[[], MatchResult],
             progress: Callable[[int, int], None], done: list[int]) -> MatchResult:
    """Play a match with remote bots on the link's event loop (research/remote.py), this
    thread storing its progress meanwhile (the database is not used on the loop)."""
    future = link.run(play)
    while True:
        try:
            result: MatchResult = future.result(timeout=1.0)
        except concurrent.futures.TimeoutError:
            if done[1]:
                progress(*done)
            continue
        if done[1]:
            progress(*done)
        return result


def _progress(match: MatchRun, every: float = 1.0) -> Callable[[int, int], None]:
    """Stores how many hands a running match has played, at most every ``every`` s
    (and the last), for its progress page."""
    last = [0.0]

    def report(done: int, total: int) -> None:
        now = time.monotonic()
        if done == total or now - last[0] >= every:
            last[0] = now
            MatchRun.objects.filter(pk=match.pk).update(hands_done=done)
            match.hands_done = done

    return report


def _finish(match: MatchRun, hub: remote.Hub | None, link: remote.Link | None) -> MatchRun:
    """Store the outcome; tell the remote bots (if any) that the match is over."""
    match_id = match.pk
    match.finished_at = timezone.now()
    match.save(update_fields=["results", "phh", "status", "error", "error_code", "finished_at"])
    if hub is not None:
        try:
            hub.broadcast({"type": "match_over", "match": match_id, "status": match.status,
                           "results": match.results,
                           "error": ({"code": match.error_code, "message": match.error}
                                     if match.error_code else None)})
        except Exception:
            log.exception("match %s: could not tell the remote bots it is over", match_id)
    if link is not None:
        link.close()
    return match
