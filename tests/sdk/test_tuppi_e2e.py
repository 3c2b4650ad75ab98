"""A remote Tuppi agent written with the SDK (``botkit.runner`` and a class with
``act(view)``, tests/sdk/tuppi_agent.py) plays a whole game of Tuppi over the
websocket against three house agents (greedy, strong, random) on a real server,
until the game ends; every move is legal and the final standings include it."""

from __future__ import annotations

import json
import re
import subprocess

from tests.sdk.conftest import PYTHON, ROOT, Server

SETUP = """
import json, os, django
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pokersite.settings")
django.setup()
from accounts.models import Role, User
from accounts.services import create_bot, create_house_bot
from tables import services
student = User.objects.create_user("student", role=Role.TESTER)
_, token = create_bot(owner=student, name="Student")
owner = User.objects.create_user("house", role=Role.TESTER)
table = services.create_table(creator=owner, name="SDK tuppi", game="tuppi", turn_seconds=10,
                              settings={"round_limit": 15})
for seat, strategy in ((1, "greedy"), (2, "strong"), (3, "random")):
    bot = create_house_bot(name=f"House-tuppi-{strategy}", strategy=strategy)
    services.execute(table_id=table.pk, user=owner,
                     command={"type": "sit", "seat": seat, "player": bot.pk})
print(json.dumps({"token": token, "table": table.pk}))
"""

RESULT = """
import json, os, django
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pokersite.settings")
django.setup()
from tables.models import Hand, Table
table = Table.objects.get(pk={table})
events = [e for h in Hand.objects.filter(table=table) for e in h.events]
print(json.dumps({{
    "status": table.status, "standings": table.standings,
    "rounds": Hand.objects.filter(table=table, ended_at__isnull=False).count(),
    "student_moves": sum(e["type"] in ("CardPlayed", "BidPlaced") and e["player"] == 0
                         for e in events),
    "timeouts": sum(e["type"] == "TimedOut" for e in events)}}))
"""


def test_a_remote_sdk_agent_plays_a_game_of_tuppi(server: Server) -> None:
    setup = json.loads(server.manage("-c", SETUP).strip().splitlines()[-1])
    done = subprocess.run(
        [PYTHON, "-m", "botkit.runner", "--server", f"http://127.0.0.1:{server.port}",
         "--token", setup["token"], "--table", str(setup["table"]),
         "--bot", "tests.sdk.tuppi_agent:StudentAgent", "--hands", "1000", "--transport", "ws",
         "--seat", "0", "--no-progress"],
        cwd=ROOT, env={**server.env, "PYTHONUNBUFFERED": "1"}, capture_output=True, text=True,
        timeout=240)
    assert done.returncode == 0, done.stdout + done.stderr
    print(done.stdout)
    found = re.search(r"Summary: (\d+) rounds .* 0 illegal actions replaced", done.stdout)
    assert found, done.stdout + done.stderr
    assert "points/round (95 % CI)" in done.stdout

    result = json.loads(server.manage("-c", RESULT.format(table=setup["table"]))
                        .strip().splitlines()[-1])
    print(result)
    assert result["status"] == "finished"  # the game ended (a tuppi or the round limit)
    assert int(found.group(1)) == result["rounds"] >= 1
    assert result["timeouts"] == 0  # the agent answered every turn itself
    assert result["student_moves"] >= 5 * result["rounds"]
    names = {s["name"] for s in result["standings"]}
    assert "Student" in names and len(result["standings"]) == 4
