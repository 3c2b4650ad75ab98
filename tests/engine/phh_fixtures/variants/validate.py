"""Check the real-hand variant fixtures against pokerkit (a test-only reference).

Usage (from the project root):

    .venv/bin/python tests/engine/phh_fixtures/variants/validate.py

For every ``*.phh`` file below this folder, the hand is loaded with
``pokerkit.HandHistory.load``, all its states are iterated, and the stacks of
the last state are compared exactly with the file's ``finishing_stacks``.
One line is printed per file:

    OK             <path>  <stacks>
    MISMATCH       <path>  got=<pokerkit stacks> expected=<finishing_stacks>
    ERROR          <path>  <exception>   (pokerkit could not replay it)
    INVALID        <path>  ...   (no finishing_stacks / wrong folder)
    EXPECTED-FAIL  <path>  ...   (files under mismatch/: known not to replay)
    UNEXPECTED-OK  <path>  ...   (a file under mismatch/ that now replays)

Files below ``mismatch/`` are documented in README.md. The exit status is 0
when every file outside ``mismatch/`` is OK, 1 otherwise.
"""

from __future__ import annotations

import sys
import tomllib
import warnings
from decimal import Decimal
from pathlib import Path

HERE = Path(__file__).resolve().parent

# Folder name -> PHH variant code ('/' cannot appear in a folder name).
CODES = {
    "FT": "FT", "NT": "NT", "NS": "NS", "PO": "PO", "FO8": "FO/8",
    "F7S": "F7S", "F7S8": "F7S/8", "FR": "FR", "N2L1D": "N2L1D",
    "F2L3D": "F2L3D", "FB": "FB",
}


def check(path: Path) -> tuple[str, str]:
    """Replay one file in pokerkit; return (status, detail).

    status is one of OK, MISMATCH, ERROR (pokerkit could not replay it) or
    INVALID (the file lacks finishing_stacks or sits in the wrong folder).
    """
    from pokerkit import HandHistory

    raw = tomllib.loads(path.read_text(encoding="utf-8"), parse_float=Decimal)
    expected = raw.get("finishing_stacks")
    code = CODES.get(path.parent.name)
    if code is not None and raw.get("variant") != code:
        return "INVALID", (
            f"variant {raw.get('variant')!r} != folder code {code!r}"
        )
    if expected is None:
        return "INVALID", "no finishing_stacks in file"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            with path.open("rb") as fp:
                hh = HandHistory.load(fp)
            states = list(hh)
            state = states[-1] if states else None
        except Exception as exc:
            return "ERROR", f"{type(exc).__name__}: {exc}"
    got = list(state.stacks)
    if got == list(expected):
        return "OK", str([str(x) for x in got]).replace("'", "")
    return "MISMATCH", (
        f"got={[str(x) for x in got]} "
        f"expected={[str(x) for x in expected]}"
    ).replace("'", "")


def main() -> int:
    try:
        import pokerkit  # noqa: F401
    except ImportError:
        print("pokerkit is not installed in this interpreter", file=sys.stderr)
        return 2
    failures = 0
    counts: dict[str, int] = {}
    for path in sorted(HERE.rglob("*.phh")):
        rel = path.relative_to(HERE).as_posix()
        known_bad = rel.startswith("mismatch/")
        status, detail = check(path)
        ok = status == "OK"
        if known_bad:
            label = "UNEXPECTED-OK" if ok else "EXPECTED-FAIL"
            if not ok:
                detail = f"{status} {detail}"
        else:
            label = status
            if ok:
                counts[path.parent.name] = counts.get(path.parent.name, 0) + 1
            else:
                failures += 1
        print(f"{label:<14} {rel}  {detail}")
    summary = ", ".join(f"{k}={counts.get(k, 0)}" for k in CODES)
    print(f"-- validated OK per code: {summary}; failures outside mismatch/: "
          f"{failures}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
