"""Run inside the browser tests' server environment: ``python seed.py <json>``.

Creates the personas and the house bots; prints nothing. Separate from the
server process so that the tests only talk to it over HTTP like a browser.
"""

from __future__ import annotations

import json
import os
import sys

import django

sys.path.insert(0, os.getcwd())
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pokersite.settings")
django.setup()

from accounts.models import Role, User  # noqa: E402
from accounts.services import create_house_bot, register_user  # noqa: E402

PASSWORD = "Browser-test-pw-1"


def main() -> None:
    for name, role in (("alice", Role.PLAYER), ("carol", Role.PLAYER), ("dave", Role.PLAYER),
                       ("erin", Role.PLAYER), ("frank", Role.PLAYER),
                       ("bob", Role.TESTER), ("root", Role.SUPERUSER)):
        if not User.objects.filter(username=name).exists():
            user = register_user(username=name, password=PASSWORD)
            user.role = role
            user.save()
    owner = User.objects.filter(username="housekeeper").first() or register_user(
        username="housekeeper", password=PASSWORD)
    owner.role = Role.TESTER
    owner.save()
    for name, strategy in (("Station-A", "calling_station"), ("Station-B", "calling_station"),
                           ("Station-C", "calling_station"),
                           # for tests of their own (the lobby test counts Station-C's tables)
                           ("Station-D", "calling_station"), ("Station-E", "calling_station"),
                           ("Station-F", "calling_station")):
        create_house_bot(name=name, strategy=strategy)
    print(json.dumps({"ok": True}))


if __name__ == "__main__":
    main()
