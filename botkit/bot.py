"""The bot interface: one method, ``act(view) -> action``, and three optional hooks.

A bot sees exactly what a remote bot receives over the server's websocket in its
``your_turn`` message (see :func:`botkit.view.make_view` and ``docs/bots.md``) and
answers with a JSON action::

    {"kind": "fold" | "check" | "call" | "bet" | "raise" | "show" | "muck", "amount": int}

``amount`` is only for ``bet``/``raise`` and is the *raise-to* total for the street,
as in the engine.  In any game the view's ``"moves"`` describe the legal answers
generically (:mod:`engine.game`: ``{"kind", "label", "params"}``), so a bot that
reads only them plays every game.  The hooks are optional; :class:`Bot` gives
no-op defaults.

>>> class AlwaysCheckOrFold(Bot):
...     def act(self, view):
...         return {"kind": "check"} if view["legal"]["can_check"] else {"kind": "fold"}
>>> AlwaysCheckOrFold().act({"legal": {"can_check": False}})
{'kind': 'fold'}
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

__all__ = ["Bot", "BotLike", "Json", "overrides"]

Json = dict[str, Any]


@runtime_checkable
class BotLike(Protocol):
    """Anything with ``act``: the only required method."""

    def act(self, view: Json) -> Json:
        """Choose an action for the situation ``view``."""
        ...


class Bot:
    """Base class with no-op hooks; subclasses implement :meth:`act`."""

    name = "bot"

    def act(self, view: Json) -> Json:
        """Choose a legal action for ``view`` (a ``your_turn`` view)."""
        raise NotImplementedError

    def new_match(self) -> None:
        """Forget everything learnt: a new match or duplicate series starts."""

    def observe(self, event: Json) -> None:
        """Every event of the table as this bot's seat may see it (for opponent modelling)."""

    def hand_over(self, result: Json) -> None:
        """The hand ended; ``result`` is the final view of the table for this bot's seat."""


def overrides(bot: object, hook: str) -> bool:
    """True if ``bot`` defines ``hook`` itself (so callers can skip no-op hooks cheaply).

    >>> overrides(Bot(), "observe"), overrides(object(), "observe")
    (False, False)
    """
    method = getattr(type(bot), hook, None)
    return method is not None and method is not getattr(Bot, hook)
