"""The table service alone: how much one action costs, without websockets or Redis.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/poker_scale \\
        .venv/bin/python bench/service.py --tables 20 --seconds 10

Provisions ``--tables`` heads-up tables with two bots each (``loadtest_setup``'s
bulk provisioning, prefix ``svc<n>``), seats the bots through the service, then
plays round robin over the tables: each step is one ``tables.services.execute``
"act" (call or check) for the seat to act, exactly what the websocket consumer
runs for a bot's ``act`` (fan-out messages are built but only collected, not
sent). Reported per action: wall time, queries. Reference measured in the same
run on the same connection: a bare transaction that locks the table row, reads
it and writes it back (``SELECT … FOR UPDATE`` + ``UPDATE``) — the floor of any
single-writer design that keeps the table in the database. Also measured: the
credential check a websocket runs before every command (``accounts.credentials``:
is the bot's token still the one it connected with?), as a share of an action.
The tables are closed and the bots deleted at the end.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pokersite.settings")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()

    import django

    django.setup()
    from django.db import connection, transaction

    from accounts.credentials import Credential
    from accounts.models import Player
    from tables import fanout, services
    from tables.management.commands.loadtest_setup import provision
    from tables.models import Table

    prefix = f"svc{os.getpid() % 100000}"
    data = provision(count=args.tables, seats=2, prefix=prefix, spectate_every=0)
    bots = {b["id"]: Player.objects.select_related("owner").get(pk=b["id"])
            for t in data["tables"] for b in t["bots"]}
    tables = [t["id"] for t in data["tables"]]
    with fanout.collecting():
        for entry in data["tables"]:
            for seat, bot in enumerate(entry["bots"]):
                player = bots[bot["id"]]
                services.execute(table_id=entry["id"], user=player.owner, bot=player,
                                 command={"type": "sit", "seat": seat, "buy_in": entry["buy_in"]})

    def act_once(table_id: int) -> None:
        table = Table.objects.get(pk=table_id)
        seat = table.to_act_seat
        state = table.state
        occupant = state["seats"][seat]
        player = bots[int(occupant["player_id"])]
        legal = services.get_game(table.game).legal_actions(
            services.get_game(table.game).load(state), seat)
        kind = ("show" if legal.get("can_show") else "check" if legal.get("can_check")
                else "call")
        services.execute(table_id=table_id, user=player.owner, bot=player, command={
            "type": "act", "hand": table.current_hand_id, "version": table.decision_version,
            "action": {"kind": kind}})

    def floor_once(table_id: int) -> None:
        with transaction.atomic(), connection.cursor() as cursor:
            lock = " FOR UPDATE" if connection.features.has_select_for_update else ""
            cursor.execute(f"SELECT state, version FROM tables_table WHERE id = %s{lock}",
                           [table_id])
            state, version = cursor.fetchone()
            cursor.execute("UPDATE tables_table SET state = %s, version = %s WHERE id = %s",
                           [state, version, table_id])

    def measure(step: object, seconds: float) -> tuple[list[float], int]:
        times: list[float] = []
        count = [0]

        def counting(execute, sql, params, many, context):  # type: ignore[no-untyped-def]
            count[0] += 1
            return execute(sql, params, many, context)

        with connection.execute_wrapper(counting), fanout.collecting():
            deadline = time.perf_counter() + seconds
            i = 0
            while time.perf_counter() < deadline:
                started = time.perf_counter()
                step(tables[i % len(tables)])  # type: ignore[operator]
                times.append(time.perf_counter() - started)
                i += 1
        return times, count[0]

    if os.environ.get("PROFILE"):
        import cProfile
        import pstats

        measure(act_once, 1.0)
        profile = cProfile.Profile()
        profile.runcall(measure, act_once, args.seconds)
        pstats.Stats(profile).sort_stats("cumulative").print_stats(45)
        return
    try:
        measure(act_once, 1.0)  # warm-up: caches, first hands
        # The driver's own reads (Table.objects.get per step) are measured apart and
        # taken off the service's figures.
        reads, read_queries = measure(lambda t: Table.objects.get(pk=t), args.seconds / 4)
        acts, act_queries = measure(act_once, args.seconds)
        floors, floor_queries = measure(floor_once, args.seconds / 2)
        by_table = {t["id"]: Credential.of(bots[t["bots"][0]["id"]].owner,
                                           bots[t["bots"][0]["id"]]) for t in data["tables"]}
        checks, check_queries = measure(lambda t: by_table[t].valid(), args.seconds / 4)
    finally:
        Table.objects.filter(pk__in=tables).update(status="closed")
    read_ms = statistics.mean(reads) * 1000
    act_ms = statistics.mean(acts) * 1000 - read_ms
    floor_ms = statistics.mean(floors) * 1000
    print(f"{connection.vendor}, {args.tables} heads-up tables, {len(acts)} actions")
    print(f"{'':34} {'ms/action':>10} {'actions/s':>10} {'queries':>8} {'ratio':>7}")
    print(f"{'floor: lock + read + write row':34} {floor_ms:10.3f} {1000 / floor_ms:10.0f} "
          f"{floor_queries / len(floors):8.1f} {1.0:6.1f}x")
    print(f"{'services.execute act':34} {act_ms:10.3f} {1000 / act_ms:10.0f} "
          f"{act_queries / len(acts) - read_queries / len(reads):8.1f} "
          f"{act_ms / floor_ms:6.1f}x")
    check_ms = statistics.mean(checks) * 1000
    print(f"{'credential check (per command)':34} {check_ms:10.3f} {1000 / check_ms:10.0f} "
          f"{check_queries / len(checks):8.1f} {check_ms / floor_ms:6.1f}x"
          f"   = {100 * check_ms / act_ms:.1f} % of an action")


if __name__ == "__main__":
    main()
