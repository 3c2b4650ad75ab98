"""Daphne on uvloop's event loop.

    python -m pokersite.serve -b 127.0.0.1 -p 8000 pokersite.asgi:application

takes Daphne's own arguments (``daphne --help``) and runs Daphne; it only chooses the
event loop first. Daphne installs Twisted's asyncio reactor on a loop it makes when
``daphne.server`` is imported, before the application is loaded, so the loop's policy
has to be set before that import: hence a launcher, not a line in ``pokersite/asgi.py``.

uvloop (libuv, written in C) runs the same coroutines, callbacks and Twisted's socket
readers and writers with less of the interpreter's time per turn of the loop: measured
in docs/benchmarks.md ("Scale", eleventh session). ``ASYNC_LOOP=asyncio`` keeps the
standard library's loop (to measure against; anything else is refused).
"""

import asyncio
import os
import sys

LOOPS = ("uvloop", "asyncio")


def choose_loop(name: str | None = None) -> str:
    """Set the event loop policy named by ``name`` (default: $ASYNC_LOOP or uvloop)."""
    name = name or os.environ.get("ASYNC_LOOP") or "uvloop"
    if name not in LOOPS:
        raise SystemExit(f"ASYNC_LOOP={name!r}: expected one of {', '.join(LOOPS)}")
    if name == "uvloop":
        import uvloop

        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    return name


def main() -> None:
    choose_loop()
    if "twisted.internet.reactor" in sys.modules:  # pragma: no cover - a guard
        raise SystemExit("a Twisted reactor was installed before the event loop was chosen")
    from daphne.cli import CommandLineInterface

    CommandLineInterface.entrypoint()


if __name__ == "__main__":
    main()
