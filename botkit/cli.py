"""The ``pokerbot`` command: ``pokerbot conformance ...`` runs the bot conformance suite
(:mod:`botkit.conformance`, docs/conformance.md); anything else is the headless runner
(:func:`botkit.runner.main`, unchanged)."""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    """Dispatch on the first argument."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["conformance"]:
        from botkit.conformance import main as conformance

        return conformance(args[1:])
    from botkit.runner import main as runner

    return runner(args)


if __name__ == "__main__":
    sys.exit(main())
