"""House bots: reference opponents of different levels and styles, per game.

Hold'em has four styles of its own (``random``, ``calling_station``,
``rule_based``, ``ehs``: :data:`HOUSE_BOTS`, the styles ``GameInfo.house_bots``
lists); ``uniform`` (:class:`UniformBot`, a uniformly random legal move read from
``view["moves"]``) plays every game. For a game without bots of its own,
``random`` is ``uniform``.

>>> house_bots("holdem")
['random', 'calling_station', 'rule_based', 'ehs', 'uniform']
>>> make_bot("calling_station").act({"legal": {"can_muck": False, "can_check": True}})
{'kind': 'check'}
>>> type(make_bot("uniform", game="holdem")).__name__
'UniformBot'

Some styles take parameters (:data:`PARAMETERS`, a small JSON schema per bot class:
whole numbers and numbers with bounds): ``make_bot("ehs", params={"samples": 200})``.
:func:`params_schema` gives a style's schema for a game, :func:`check_params` checks a
JSON object against every game's schema of the style:

>>> make_bot("ehs", params={"samples": 200}).samples
200
>>> check_params("ehs", {"samples": 5})
Traceback (most recent call last):
...
ValueError: “samples” is at least 10.
"""

from __future__ import annotations

import inspect
import random
from collections.abc import Callable
from typing import Any

from botkit.bot import Bot, Json
from botkit.dice import BOTS as DICE_BOTS
from botkit.dice import ExpectedValueBot
from botkit.house.calling_station import CallingStation
from botkit.house.ehs import EHSBot
from botkit.house.random_bot import RandomBot
from botkit.house.rule_based import RuleBasedBot
from botkit.house.uniform import UniformBot
from botkit.house.variant_rules import VariantRuleBot
from botkit.tuppi import BOTS as TUPPI_BOTS
from botkit.tuppi import StrongBot
from engine.poker.variants import VARIANTS

__all__ = ["GAME_BOTS", "GENERIC_BOTS", "HOUSE_BOTS", "PARAMETERS", "CallingStation", "EHSBot",
           "RandomBot", "RuleBasedBot", "UniformBot", "VariantRuleBot", "WeightedRandomBot",
           "check_params", "house_bots", "make_bot", "params_schema", "style_params"]

Factory = Callable[[random.Random | None], Bot]

GENERIC_BOTS: dict[str, Factory] = {"uniform": UniformBot}
"""Bots that play any game (they read only ``view["moves"]``)."""

HOUSE_BOTS: dict[str, Factory] = {
    "random": RandomBot,
    "calling_station": CallingStation,
    "rule_based": RuleBasedBot,
    "ehs": EHSBot,
    **GENERIC_BOTS,
}
"""Hold'em: bot name -> constructor taking an optional ``random.Random``."""

VARIANT_BOTS: dict[str, Factory] = {
    "random": RandomBot,
    "calling_station": CallingStation,
    "rule_based": VariantRuleBot,
    **GENERIC_BOTS,
}
"""The other poker variants: random, calling station and the rule-based bot
(:class:`VariantRuleBot`: Monte-Carlo equity against pot odds, and draw rules)."""

GAME_BOTS: dict[str, dict[str, Factory]] = {
    "holdem": HOUSE_BOTS, **{key: VARIANT_BOTS for key in VARIANTS if key != "holdem"},
    "tuppi": {**TUPPI_BOTS, **GENERIC_BOTS}, "dice": {**DICE_BOTS, **GENERIC_BOTS}}
"""Game key -> its house bots (a game not listed has the generic ones)."""


def _bots(game: str) -> dict[str, Factory]:
    own = GAME_BOTS.get(game)
    if own is not None:
        return own
    return {"random": UniformBot, **GENERIC_BOTS}


def house_bots(game: str = "holdem") -> list[str]:
    """The house-bot styles that can play ``game`` (any key: unknown games get the generic
    ones)."""
    return list(_bots(game))


class WeightedRandomBot(RandomBot):
    """``random`` with parameters: the action kind is drawn with the weights ``fold``,
    ``check_call`` and ``bet_raise`` (each kind's weight among those legal; draws,
    the bring-in, show and muck as :class:`RandomBot`)."""

    def __init__(self, rng: random.Random | None = None, fold: float = 1.0,
                 check_call: float = 1.0, bet_raise: float = 1.0) -> None:
        super().__init__(rng)
        self.weights = {"fold": fold, "check": check_call, "call": check_call,
                        "bet": bet_raise, "raise": bet_raise}

    def act(self, view: Json) -> Json:
        legal = view["legal"]
        if legal.get("draw") is not None or legal.get("bring_in") is not None \
                or legal["can_show"] or legal["can_muck"]:
            return super().act(view)
        kinds = [k for k, ok in (("fold", legal["can_fold"]), ("check", legal["can_check"]),
                                 ("call", legal["call_amount"] is not None)) if ok]
        if legal["sized_kind"] is not None:
            kinds.append(legal["sized_kind"])
        weights = [self.weights[k] for k in kinds]
        if not any(weights):
            weights = [1.0] * len(kinds)
        kind = self.rng.choices(kinds, weights)[0]
        if kind in ("bet", "raise"):
            return {"kind": kind,
                    "amount": self.rng.randint(legal["min_raise_to"], legal["max_raise_to"])}
        return {"kind": kind}


def _weighted_random(rng: random.Random | None, **params: Any) -> Bot:
    return WeightedRandomBot(rng, **params) if params else RandomBot(rng)


def _default(cls: type, name: str) -> Any:
    """The constructor's default for ``name`` (so the schema follows the bot)."""
    return inspect.signature(cls).parameters[name].default


def _weight(what: str) -> Json:
    return {"type": "number", "minimum": 0, "maximum": 100, "default": 1,
            "description": f"Relative weight of {what} (0: never while another kind is legal)."}


PARAMETERS: dict[Factory, tuple[dict[str, Json], Callable[..., Bot]]] = {
    EHSBot: ({"samples": {
        "type": "integer", "minimum": 10, "maximum": 5000,
        "default": _default(EHSBot, "samples"),
        "description": "Monte-Carlo samples for the hand potentials (PPOT/NPOT) per "
                       "decision: more is stronger and slower."}},
        lambda rng, **params: EHSBot(rng, **params)),
    RandomBot: ({"fold": _weight("folding"), "check_call": _weight("checking or calling"),
                 "bet_raise": _weight("betting or raising")}, _weighted_random),
    StrongBot: ({"samples": {
        "type": "integer", "minimum": 1, "maximum": 400,
        "default": _default(StrongBot, "samples"),
        "description": "Sampled deals per card decision (more is stronger and slower)."},
                 "bid_samples": {
        "type": "integer", "minimum": 1, "maximum": 400,
        "default": _default(StrongBot, "bid_samples"),
        "description": "Sampled deals per bid."}},
        lambda rng, **params: StrongBot(rng, **params)),
    ExpectedValueBot: ({"bonus_weight": {
        "type": "number", "minimum": 0, "maximum": 20,
        "default": _default(ExpectedValueBot, "bonus_weight"),
        "description": "How much the upper-section bonus counts in its choices."}},
        lambda rng, **params: ExpectedValueBot(rng, **params)),
}
"""Bot classes that take parameters: their JSON-schema properties (``integer`` or
``number`` with ``minimum``/``maximum``/``default``) and how to build one with them."""

MAX_PARAMS_LENGTH = 2000  # characters of a parameter object's JSON


def params_schema(name: str, game: str = "holdem") -> Json:
    """The JSON schema of style ``name``'s parameters in ``game`` (no properties: it
    takes none). Raises ``KeyError`` like :func:`make_bot`."""
    factory = _factory(name, game)
    properties = PARAMETERS[factory][0] if factory in PARAMETERS else {}
    return {"type": "object", "properties": properties, "additionalProperties": False}


def style_params(name: str, games: list[str] | None = None) -> dict[str, Json]:
    """Every parameter style ``name`` takes in any of ``games`` (default: every game
    with bots of its own, and any other): name -> its schema."""
    out: dict[str, Json] = {}
    for game in games if games is not None else [*GAME_BOTS, "other"]:
        bots = _bots(game)
        if name in bots:
            out.update(params_schema(name, game)["properties"])
    return out


def _check_value(name: str, spec: Json, value: Any) -> None:
    kind = spec["type"]
    if kind == "integer" and type(value) is not int:
        raise ValueError(f"“{name}” must be a whole number.")
    if kind == "number" and (type(value) not in (int, float) or value != value
                             or value in (float("inf"), float("-inf"))):
        raise ValueError(f"“{name}” must be a number.")
    if "minimum" in spec and value < spec["minimum"]:
        raise ValueError(f"“{name}” is at least {spec['minimum']}.")
    if "maximum" in spec and value > spec["maximum"]:
        raise ValueError(f"“{name}” is at most {spec['maximum']}.")


def check_params(name: str, params: Any, games: list[str] | None = None) -> Json:
    """``params`` checked for style ``name`` (in ``games``, default every game): a JSON
    object of known parameters with values in range. Returns it; raises ``ValueError``
    with one clear sentence, or ``KeyError`` for a style no game has."""
    if not isinstance(params, dict):
        raise ValueError("The parameters are a JSON object, e.g. {\"samples\": 200}.")
    known = style_params(name, games)
    if not known and not any(name in _bots(g) for g in (games or [*GAME_BOTS, "other"])):
        raise KeyError(f"No house-bot style called {name!r}.")
    for key, value in params.items():
        if key not in known:
            takes = ", ".join(sorted(known)) or "none"
            raise ValueError(f"The style {name!r} has no parameter “{key}” "
                             f"(it takes: {takes}).")
        _check_value(key, known[key], value)
    return dict(params)


def _factory(name: str, game: str) -> Factory:
    bots = _bots(game)
    try:
        return bots[name]
    except KeyError:
        known = ", ".join(sorted(bots))
        raise KeyError(f"No house bot called {name!r} for {game} (known: {known}).") from None


def make_bot(name: str, rng: random.Random | None = None, game: str = "holdem",
             params: Json | None = None) -> Bot:
    """A fresh house bot for ``game``; pass a seeded ``rng`` for reproducible play.

    ``params`` (checked by :func:`check_params`) set the style's parameters; those the
    style's bot for this game does not take are ignored (a parameter of ``ehs``'s
    Hold'em bot means nothing to another game's bot of the same name).
    Raises ``KeyError`` (with the known names) for a name that does not play ``game``.
    """
    factory = _factory(name, game)
    if params and factory in PARAMETERS:
        properties, build = PARAMETERS[factory]
        mine = {k: v for k, v in params.items() if k in properties}
        if mine:
            return build(rng, **mine)
    return factory(rng)
