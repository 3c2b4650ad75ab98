"""``manage.py loadtest_setup``: tables and bots with tokens for ``bench/load.py``.

Bulk inserts (no per-row service calls), so 1,000 tables with 2,000+ bots take a
few seconds. Everything is named ``<prefix>-…`` so that :mod:`loadtest_check` and
:mod:`loadtest_cleanup` find it again. A prefix is used once: run it again with
a new prefix (``bench/load.py`` makes one per run) or clean up first.

Writes ``var/loadtest/<prefix>.json``: the tables (id, seats) and for each one
the bots to seat, the spectator bot (every ``--spectate-every``-th table) and the
extra idle watcher bots, each with its raw token.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.utils import timezone

from accounts.models import Player, PlayerKind, Role, User
from accounts.tokens import generate_token, hash_token
from engine.registry import get_game
from tables.models import Table
from tables.runtime import rules_digest

BLINDS = {"structure": "NL", "small_blind": 1, "big_blind": 2}


class Command(BaseCommand):
    help = "Create N tables and bots with tokens for the load generator (bench/load.py)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--tables", type=int, required=True)
        parser.add_argument("--seats", type=int, choices=(2, 6), default=2)
        parser.add_argument("--prefix", default="lt", help="Names start with '<prefix>-'.")
        parser.add_argument("--spectate-every", type=int, default=10,
                            help="A spectator bot at every K-th table (0: none).")
        parser.add_argument("--watchers", type=int, default=0,
                            help="Extra idle watcher bots, spread over the tables.")
        parser.add_argument("--turn-seconds", type=int, default=5)
        parser.add_argument("--out", default="",
                            help="JSON file (default var/loadtest/<prefix>.json)")

    def handle(self, *args: Any, **options: Any) -> None:
        count, seats, prefix = options["tables"], options["seats"], options["prefix"]
        if not 1 <= count <= 20000:
            raise CommandError("--tables is 1 to 20000.")
        if not prefix.isalnum() or len(prefix) > 8:
            raise CommandError("--prefix is 1 to 8 letters or digits.")
        if Table.objects.filter(name__startswith=f"{prefix}-").exists():
            raise CommandError(f"Tables named '{prefix}-…' exist: use another prefix or "
                               f"run loadtest_cleanup --prefix {prefix}.")
        out = Path(options["out"] or settings.VAR_DIR / "loadtest" / f"{prefix}.json")
        data = provision(count=count, seats=seats, prefix=prefix,
                         spectate_every=options["spectate_every"],
                         watchers=options["watchers"], turn_seconds=options["turn_seconds"])
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(data))
        out.chmod(0o600)  # raw tokens
        self.stdout.write(f"{count} tables, {data['bots']} bots -> {out}")


def provision(*, count: int, seats: int, prefix: str, spectate_every: int = 10,
              watchers: int = 0, turn_seconds: int = 5) -> dict[str, Any]:
    """Create everything in one transaction and return the description (with tokens)."""
    game = get_game("holdem")
    validated = game.validate_settings({**BLINDS, "seats": seats})
    state = game.dump(game.create(validated))
    settings_json, listing = game.settings_json(validated), game.listing(validated)
    now = timezone.now()
    with transaction.atomic():
        owner, _ = User.objects.get_or_create(username=f"{prefix}-owner",
                                              defaults={"role": Role.TESTER})
        if owner.role != Role.TESTER:
            raise CommandError(f"{owner.username} exists and is not a tester.")
        tables = Table.objects.bulk_create([
            Table(name=f"{prefix}-t{i:05d}", game="holdem", game_name=listing.name,
                  settings=settings_json, facts=listing.facts,
                  rules=rules_digest("holdem", settings_json), structure="NL",
                  small_blind=1, big_blind=2, ante=0, seat_count=seats,
                  min_buy_in=validated.min_buy_in, max_buy_in=validated.max_buy_in,
                  turn_seconds=turn_seconds, creator=owner, state=state)
            for i in range(count)], batch_size=500)
        wanted: list[tuple[str, str, int]] = []  # (name, role, table index)
        for i in range(count):
            wanted += [(f"{prefix}-t{i:05d}s{s}", "seat", i) for s in range(seats)]
            if spectate_every and i % spectate_every == 0:
                wanted.append((f"{prefix}-t{i:05d}sp", "spectator", i))
        wanted += [(f"{prefix}-w{j:05d}", "watcher", j % count) for j in range(watchers)]
        tokens = [generate_token() for _ in wanted]
        Player.objects.bulk_create([
            Player(owner=owner, name=name, kind=PlayerKind.BOT, token_hash=hash_token(token),
                   token_created_at=now, description="load test")
            for (name, _, _), token in zip(wanted, tokens, strict=True)], batch_size=1000)
    ids = dict(Player.objects.filter(owner=owner).values_list("name", "pk"))
    described: list[dict[str, Any]] = [
        {"id": t.pk, "seats": seats, "buy_in": validated.max_buy_in, "bots": [],
         "spectator": None, "watchers": []} for t in tables]
    for (name, role, index), token in zip(wanted, tokens, strict=True):
        bot = {"id": ids[name], "name": name, "token": token}
        entry = described[index]
        if role == "seat":
            entry["bots"].append(bot)
        elif role == "spectator":
            entry["spectator"] = bot
        else:
            entry["watchers"].append(bot)
    return {"prefix": prefix, "seats": seats, "turn_seconds": turn_seconds,
            "tables": described, "bots": len(wanted)}
