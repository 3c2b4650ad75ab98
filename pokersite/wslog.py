"""Autobahn's debug messages are formatted only when they are logged.

Autobahn (under Daphne) writes a debug message for every websocket frame it sends
or receives: ``log.debug("{func} sent {data_len} bytes for peer {peer}",
func=hltype(self.sendData), peer=hlval(self.peer), …)``. The logger drops the
message unless debug logging is on, but the arguments are computed first, and
``hltype``/``hlval`` colour their text with ``click.style`` when click is installed
(it is: uvicorn and schemathesis bring it). Each connection also pretty-prints its
whole configuration (``pformat``) for a debug message. Profiled in a Daphne process
at the overload cap: 4.7 % of its CPU on frames, 0.9 % on connections
(docs/benchmarks.md, "twenty-fourth session").

``install()`` gives the two modules that do this lazy versions of the three
functions: each returns a small object that formats to the very same text, but only
when the message is formatted (``str``/``format``, as the logger does).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

MODULES = ("autobahn.websocket.protocol", "autobahn.twisted.websocket")
NAMES = ("hltype", "hlval", "pformat")


class Deferred:
    """``fn(*args, **kwargs)``, computed when it is turned into text."""

    __slots__ = ("args", "fn", "kwargs")

    def __init__(self, fn: Callable[..., str], args: tuple, kwargs: dict) -> None:
        self.fn, self.args, self.kwargs = fn, args, kwargs

    def __str__(self) -> str:
        return self.fn(*self.args, **self.kwargs)

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    def __repr__(self) -> str:
        return str(self)


def lazy(fn: Callable[..., str]) -> Callable[..., Deferred]:
    def deferred(*args: Any, **kwargs: Any) -> Deferred:
        return Deferred(fn, args, kwargs)

    deferred.__wrapped__ = fn  # type: ignore[attr-defined]
    deferred.__name__ = f"lazy_{fn.__name__}"
    return deferred


def install() -> None:
    """Patch the loaded modules (once; a no-op without autobahn)."""
    import importlib

    try:
        modules = [importlib.import_module(name) for name in MODULES]
    except ImportError:  # pragma: no cover - autobahn comes with Daphne
        return
    from autobahn.websocket.protocol import Timings

    for module in modules:
        for name in NAMES:
            fn = getattr(module, name, None)
            if fn is not None and not hasattr(fn, "__wrapped__"):
                setattr(module, name, lazy(fn))
    # The one use of ``pformat`` outside a log message: ``Timings.__str__`` must
    # return text itself.
    pformat = modules[0].pformat.__wrapped__
    Timings.__str__ = lambda self: pformat(self._timings)  # type: ignore[method-assign]
