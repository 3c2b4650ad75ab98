"""``manage.py demo_data``: idempotent demo users, players and bots for development.

Runs the steps registered with :func:`accounts.demo.demo_step` (each installed
app may contribute steps in its ``demo.py``). Refuses to run with DEBUG off,
because the demo logins have public passwords.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.utils.module_loading import autodiscover_modules

from accounts.demo import STEPS


class Command(BaseCommand):
    help = "Create (or refresh) demo users, players and bots. Development only (DEBUG on)."

    def handle(self, *args: Any, **options: Any) -> None:
        if not settings.DEBUG:
            raise CommandError(
                "demo_data refuses to run with DEBUG off: it creates logins with public "
                "passwords. Use it only on a development server."
            )
        autodiscover_modules("demo")
        for _order, _name, step in sorted(STEPS, key=lambda s: (s[0], s[1])):
            step(self.stdout)
        self.stdout.write(self.style.SUCCESS("Demo data ready."))
