"""Variance reduction: raw, duplicate and AIVAT estimates of long house-bot matches.

Run from the repository root (one pairing per process, so two cores can share)::

    nice .venv/bin/python bench/aivat.py --pairing rule_based,calling_station --structure NL
    nice .venv/bin/python bench/aivat.py --pairing rule_based,random --structure FL
    nice .venv/bin/python bench/aivat.py --all --hands 20000 --markdown

Each pairing is one duplicate match (``hands`` in total: ``hands / n`` deals of
``n`` seatings; heads-up by default, ``--pairing a,b,c`` for three players) with
AIVAT on (``botkit.match.play_match(..., aivat=True)``).  One match
gives every estimate of the first bot's mbb/hand: *raw* (the variance over single
hands, as a plain match of the same length would have it: each hand of a duplicate
match is a plain hand), *duplicate* (over the deal pairs), *AIVAT* (each hand
corrected) and *AIVAT + duplicate*, each with its 95 % half-width and its variance
reduction (raw variance / its variance = how many times fewer hands it needs).
``--no-policy`` rows repeat the match with the bots' policies withheld (chance
corrections only), so the action correction's share shows.  ``--model-hands N``
first learns a value model (pre-flop table and betas, ``botkit.aivat.ValueModel``)
from a separate match of ``N`` hands of the same pairing on another seed
(``seed + 1000003``, fresh bots) and evaluates the match again with it: the value
function is frozen before the evaluated data.  The same match without AIVAT is
timed too: the estimator's cost per hand.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from botkit.bot import Json
from botkit.house import make_bot
from botkit.match import MatchSettings, learn_value_model, play_match

PAIRINGS = [("rule_based", "calling_station", "NL"), ("rule_based", "random", "FL"),
            ("rule_based", "random", "NL"), ("random", "random", "NL")]


class Withheld:
    """A bot whose policy is not reported (no ``send_policy``): chance terms only."""

    def __init__(self, bot: Any) -> None:
        self.bot = bot

    def act(self, view: Json) -> Json:
        answer: Json = self.bot.act(view)
        answer.pop("policy", None)
        return answer

    def new_match(self) -> None:
        self.bot.new_match()


def bots(kinds: list[str], seed: int, withhold: bool) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for i, kind in enumerate(kinds):
        bot = make_bot(kind, random.Random(seed * 1000 + i))
        name = kind if kind not in out else f"{kind}#{i + 1}"
        out[name] = Withheld(bot) if withhold else bot
    return out


def measure(kinds: list[str], structure: str, hands: int, seed: int, no_policy: bool,
            model_hands: int = 0) -> Json:
    settings = MatchSettings(structure=structure)
    started = time.perf_counter()
    plain = play_match(bots(kinds, seed, False), settings, hands=hands, seed=seed,
                       duplicate=True, record=False)
    plain_seconds = time.perf_counter() - started
    started = time.perf_counter()
    result = play_match(bots(kinds, seed, False), settings, hands=hands, seed=seed,
                        duplicate=True, record=False, aivat=True)
    seconds = time.perf_counter() - started
    name = next(iter(result.bots))
    row: Json = {"pairing": " vs ".join(kinds), "structure": structure,
                 "hands": result.hands, "seed": seed, "bot": name,
                 "estimates": result.bots[name].estimates,
                 "decisions_with_policy": (result.aivat or {}).get("decisions"),
                 "seconds_without_aivat": plain_seconds, "seconds_with_aivat": seconds,
                 "aivat_seconds": (result.aivat or {}).get("seconds"),
                 "ms_per_hand": 1000 * (seconds - plain_seconds) / result.hands,
                 "same_nets": [b.net for b in plain.bots.values()]
                 == [b.net for b in result.bots.values()]}
    if no_policy:
        bare = play_match(bots(kinds, seed, True), settings, hands=hands, seed=seed,
                          duplicate=True, record=False, aivat=True)
        row["no_policy"] = bare.bots[name].estimates
    if model_hands:
        started = time.perf_counter()
        model = learn_value_model(bots(kinds, seed + 7, False), settings,
                                  hands=model_hands, seed=seed + 1_000_003)
        row["model_seconds"] = time.perf_counter() - started
        row["model"] = model.to_json()
        learnt = play_match(bots(kinds, seed, False), settings, hands=hands, seed=seed,
                            duplicate=True, record=False, aivat=True, aivat_model=model)
        row["with_model"] = learnt.bots[name].estimates
    return row


def markdown(rows: list[Json]) -> str:
    def cell(e: Json | None, ratio: bool = True) -> str:
        if not e:
            return "–"
        text = f"{e['mbb_per_hand']:+,.0f} ± {e['ci95']:,.0f}"
        if ratio and e.get("variance_reduction") is not None:
            text += f" (×{e['variance_reduction']:.2f})"
        return text

    lines = ["| pairing (first bot's result) | hands | raw | duplicate | AIVAT | AIVAT + duplicate "
             "| AIVAT, no policies | AIVAT, learnt model | AIVAT + dup., learnt model "
             "| ms/hand |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in rows:
        e = r["estimates"]
        bare = (r.get("no_policy") or {}).get("aivat")
        model = r.get("with_model") or {}
        lines.append(f"| {r['pairing']} {r['structure']} | {r['hands']:,} | "
                     f"{cell(e['raw'], False)} | {cell(e.get('duplicate'))} | "
                     f"{cell(e.get('aivat'))} | {cell(e.get('aivat_duplicate'))} | "
                     f"{cell(bare)} | {cell(model.get('aivat'))} | "
                     f"{cell(model.get('aivat_duplicate'))} | {r['ms_per_hand']:.2f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairing", help="first,second[,third...] (house bots)")
    parser.add_argument("--structure", default="NL", choices=("NL", "PL", "FL"))
    parser.add_argument("--all", action="store_true", help="every pairing of PAIRINGS")
    parser.add_argument("--hands", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-policy", action="store_true",
                        help="also the match with the policies withheld")
    parser.add_argument("--model-hands", type=int, default=0,
                        help="also learn a value model from a separate match of this many "
                             "hands (another seed) and evaluate with it")
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--out", type=Path, help="append each row as a JSON line")
    args = parser.parse_args(argv)
    plan: list[tuple[list[str], str]]
    if args.all:
        plan = [([first, second], structure) for first, second, structure in PAIRINGS]
    elif args.pairing:
        plan = [(args.pairing.split(","), args.structure)]
    else:
        parser.error("--pairing A,B or --all")
    rows = []
    for kinds, structure in plan:
        row = measure(kinds, structure, args.hands, args.seed, args.no_policy,
                      args.model_hands)
        rows.append(row)
        if args.out:
            with args.out.open("a") as out:
                out.write(json.dumps(row) + "\n")
        if not args.markdown:
            print(json.dumps(row, indent=1), flush=True)
    if args.markdown:
        print(markdown(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
