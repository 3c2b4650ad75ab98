"""Command line: ``python -m engine.phh replay PATH...`` and ``python -m engine.phh simulate``.

``replay`` prints one JSON object per hand per line::

    {"source": "hands.phhs#3", "variant": "NT", "finishing_stacks": [10310, 9900]}
    {"source": "odd.phh", "error": "unsupported variant FX"}

``simulate`` plays random hands and writes one ``.phh`` file per hand::

    python -m engine.phh simulate --variant NT --players 6 --hands 100 --seed 1 --out var/sim

Every variant code of :data:`engine.phh.replay.CODES` is accepted: the eleven of the
PHH spec and this project's own (``PT``, ``NO``, ``PO/8``, ``F5S``, ``P5D``, ``NSK``,
... : ``docs/phh.md``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from engine.phh.notation import HandHistory, NotationError, load_path
from engine.phh.replay import CODES, ReplayError, replay
from engine.phh.simulate import simulate

__all__ = ["main", "replay_line"]


def replay_line(source: str, history: HandHistory | NotationError) -> dict[str, object]:
    """The JSON object ``replay`` prints for one hand.

    >>> replay_line("x.phh", NotationError("missing required field 'actions'"))
    {'source': 'x.phh', 'error': "missing required field 'actions'"}
    """
    if isinstance(history, NotationError):
        return {"source": source, "error": str(history)}
    try:
        result = replay(history)
    except (ReplayError, NotationError) as error:
        return {"source": source, "error": str(error)}
    return {
        "source": source,
        "variant": history.variant,
        "finishing_stacks": history.to_file_units(result.finishing_stacks),
    }


def _files(paths: list[Path]) -> list[Path] | None:
    """The files to read: each file as given, a directory's ``.phh``/``.phhs`` files
    (recursively, sorted); ``None`` if a path does not exist."""
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            files += sorted(p for p in path.rglob("*") if p.suffix in (".phh", ".phhs")
                            and p.is_file())
        elif path.is_file():
            files.append(path)
        else:
            print(f"error: no such file: {path}", file=sys.stderr)
            return None
    return files


def _replay(paths: list[Path]) -> int:
    files = _files(paths)
    if files is None:
        return 2
    for path in files:
        try:
            hands = load_path(path)
        except (OSError, UnicodeDecodeError, NotationError) as error:
            print(json.dumps({"source": str(path), "error": str(error)}))
            continue
        for source, history in hands:
            print(json.dumps(replay_line(source, history)))
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    parser = argparse.ArgumentParser(prog="python -m engine.phh", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    replay_parser = commands.add_parser(
        "replay", help="replay .phh/.phhs files (a directory: its files, recursively)")
    replay_parser.add_argument("paths", nargs="+", type=Path, metavar="PATH")
    sim = commands.add_parser("simulate", help="play random hands, write .phh files")
    sim.add_argument("--variant", choices=sorted(CODES), default="NT", metavar="CODE",
                     help="a PHH variant code: " + " ".join(sorted(CODES)))
    sim.add_argument("--players", type=int, default=6, choices=range(2, 11), metavar="N")
    sim.add_argument("--hands", type=int, default=100, metavar="K")
    sim.add_argument("--seed", type=int, default=0, metavar="S")
    sim.add_argument("--out", type=Path, required=True, metavar="DIR")
    sim.add_argument("--antes", action="store_true", help="random uniform or big-blind antes")
    sim.add_argument("--short-stacks", action="store_true", help="some stacks below 10 BB")
    args = parser.parse_args(argv)
    if args.command == "replay":
        return _replay(args.paths)
    if args.hands < 0:
        parser.error("--hands must not be negative")
    try:
        paths = simulate(
            variant=args.variant,
            players=args.players,
            hands=args.hands,
            seed=args.seed,
            out=args.out,
            antes=args.antes,
            short_stacks=args.short_stacks,
        )
    except ValueError as error:  # e.g. more players than the variant deals to
        parser.error(str(error))
    print(f"wrote {len(paths)} hands to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
