"""``manage.py run_match``: play a batch match between house bots and store the results."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from research import services
from research.models import MatchRun, MatchStatus


class Command(BaseCommand):
    help = "Play house bots against each other on the engine; store mbb/hand with 95 % CIs."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--bots", default="rule_based,random",
                            help="comma-separated house bot names, one per seat")
        parser.add_argument("--hands", type=int, default=1000)
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument("--duplicate", action="store_true",
                            help="replay every deal once per seat rotation")
        parser.add_argument("--structure", choices=services.STRUCTURES, default="NL")
        parser.add_argument("--blinds", default="1/2", help="small/big blind (default 1/2)")
        parser.add_argument("--stack", type=int, default=200, help="stack in big blinds")
        parser.add_argument("--pending", action="store_true",
                            help="instead: play every queued match (e.g. after a restart)")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["pending"]:
            for match_id in MatchRun.objects.filter(status=MatchStatus.QUEUED) \
                    .values_list("pk", flat=True):
                self.report(services.run_match(match_id))
            return
        small, _, big = options["blinds"].partition("/")
        try:
            data = services.validate_match({
                "bots": options["bots"], "hands": options["hands"], "seed": options["seed"],
                "duplicate": options["duplicate"], "structure": options["structure"],
                "small_blind": int(small), "big_blind": int(big or 0),
                "stack_bb": options["stack"]})
        except ValueError as error:
            raise CommandError(str(error)) from None
        match = MatchRun.objects.create(settings=data)
        self.report(services.run_match(match.pk))

    def report(self, match: MatchRun) -> None:
        if match.status != MatchStatus.DONE:
            raise CommandError(f"Match {match.pk} failed: {match.error}")
        results = match.results or {}
        self.stdout.write(f"Match {match.pk}: {match.title}")
        self.stdout.write(f"{results['hands']} hands in {results['seconds']:.1f} s "
                          f"({results['hands_per_second']:,.0f} hands/s)")
        for bot in sorted(results["bots"].values(), key=lambda r: -r["mbb_per_hand"]):
            self.stdout.write(f"  {bot['name']:<20} {bot['mbb_per_hand']:+9.1f} "
                              f"± {bot['ci95']:.1f} mbb/hand  (net {bot['net']:+d})")
        self.stdout.write(f"Results: /research/matches/{match.pk}/")
