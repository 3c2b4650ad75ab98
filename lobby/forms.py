"""The create-table form, generated from the chosen game's settings schema.

Every hosted game (:data:`engine.registry.GAMES`) describes its settings as a JSON
schema (``Game.settings_schema()``: ``type: object`` with ``properties``). The
form has the table's own fields (``name``, ``game``, ``turn_seconds``) and one
Django field per property of the chosen game's schema, converted by type:

========================  =====================================================
schema                    field (value sent to the engine)
========================  =====================================================
``integer``               whole number within ``minimum``/``maximum`` (never
                          beyond ±``MAX_CHIPS``); empty: left out (the engine's
                          default)
``["integer", "null"]``   the same; empty: ``None``
``string`` + ``enum``     a choice (``enumTitles`` names the options)
``string``                one line of text (``maxLength``, else 200; no control
                          characters)
``boolean``               a checkbox
========================  =====================================================

``title`` is the label, ``description`` the help text, ``default`` the initial
value, a name in ``required`` may not be empty. The engine stays the authority:
``tables.services.create_table`` validates the settings and its refusal
(``TableError``) is shown in the form (:meth:`CreateTableForm.add_table_error`).

The browser renders the same fields from the same schemas (``static/js/schemaform.js``)
when the user picks another game; without JavaScript the page shows the default
game's fields (or, after a submit, those of the game submitted).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from django import forms
from django.forms.boundfield import BoundField

from accounts.validators import validate_plain_text
from engine.game import MAX_CHIPS
from engine.registry import GAMES

from . import rulesets

Json = dict[str, Any]

# The table's own fields; a game setting of the same name would collide.
TABLE_FIELDS = ("name", "game", "settings_for", "turn_seconds")


def games_catalogue(user: Any = None) -> list[Json]:
    """Every hosted game for the browser: ``info`` plus ``settings_schema`` (with the
    user's saved rule sets among the rule-set choices: lobby.rulesets)."""
    return [{**game.info.to_json(),
             "settings_schema": rulesets.with_saved(game.settings_schema(), key, user)}
            for key, game in GAMES.items()]


def default_game() -> str:
    return next(iter(GAMES))


def _properties(schema: Json) -> dict[str, Json]:
    props = schema.get("properties", {}) if isinstance(schema, dict) else {}
    return {name: spec for name, spec in props.items()
            if isinstance(spec, dict) and name not in TABLE_FIELDS}


def _types(spec: Json) -> set[str]:
    kind = spec.get("type", "string")
    return set(kind) if isinstance(kind, list) else {kind}


def _label(name: str, spec: Json) -> str:
    return str(spec.get("title") or name.replace("_", " ").capitalize())


def schema_field(name: str, spec: Json, required: bool) -> forms.Field:
    """One Django form field for one schema property."""
    types = _types(spec)
    common: Json = {"label": _label(name, spec), "help_text": spec.get("description", ""),
                    "initial": spec.get("default")}
    if "enum" in spec:
        titles = spec.get("enumTitles") or {}
        choices = [(str(v), str(titles.get(str(v), v))) for v in spec["enum"]]
        if "null" in types:
            choices = [("", "—"), *choices]
        return forms.TypedChoiceField(
            choices=choices, coerce=_enum_coercer(spec["enum"]), empty_value=None,
            required="null" not in types, **common)
    if "boolean" in types:
        return forms.BooleanField(required=False, **common)
    # Input bounds (docs/security.md): no number beyond ±MAX_CHIPS, whatever the schema.
    low = max(spec.get("minimum", -MAX_CHIPS), -MAX_CHIPS)
    high = min(spec.get("maximum", MAX_CHIPS), MAX_CHIPS)
    if "integer" in types:
        field = forms.IntegerField(min_value=low, max_value=high,
                                   required=required and "null" not in types, **common)
        field.widget.attrs["inputmode"] = "numeric"
        return field
    if "number" in types:
        return forms.FloatField(min_value=low, max_value=high,
                                required=required and "null" not in types, **common)
    return forms.CharField(max_length=spec.get("maxLength", 200), required=required,
                           strip=True, validators=[validate_plain_text], **common)


def _enum_coercer(values: list[Any]) -> Callable[[str], Any]:
    by_text = {str(v): v for v in values}
    return lambda text: by_text[text]


# Sentences for constraints between settings that a JSON schema cannot state. They
# only make the refusal clearer and attach it to a field; the engine checks the same.
def _holdem_checks(form: CreateTableForm, data: Json) -> None:
    small, big = data.get("small_blind"), data.get("big_blind")
    if small and big and small >= big:
        form.add_error("small_blind", "The small blind must be less than the big blind.")
    low, high = data.get("min_buy_in"), data.get("max_buy_in")
    if low and high and low > high:
        form.add_error("max_buy_in", "The maximum buy-in is below the minimum.")


def _stud_checks(form: CreateTableForm, data: Json) -> None:
    bring_in, small_bet = data.get("bring_in"), data.get("big_blind")
    if bring_in and small_bet and bring_in > small_bet:
        form.add_error("bring_in", "The bring-in cannot exceed the small bet.")
    _holdem_checks(form, data)


CROSS_CHECKS: dict[str, Callable[[CreateTableForm, Json], None]] = {
    key: _stud_checks if "bring_in" in game.settings_schema().get("properties", {})
    else _holdem_checks
    for key, game in GAMES.items() if key == "holdem" or game.info.client == "holdem"
}
"""Every poker variant's checks (the games drawn by the poker board)."""


class CreateTableForm(forms.Form):
    """``CreateTableForm(data)``: the fields of the game ``data["game"]`` (else the
    default game). :meth:`settings` is what goes to ``create_table``."""

    name = forms.CharField(max_length=80, help_text="Unique, shown in the lobby.",
                           validators=[validate_plain_text])
    game = forms.ChoiceField(label="Game")
    # The game whose settings fields were on the page when it was submitted: the
    # game selector changed without JavaScript means "show that game's fields".
    settings_for = forms.CharField(required=False, widget=forms.HiddenInput)
    turn_seconds = forms.IntegerField(min_value=3, max_value=3600, initial=30,
                                      label="Time per action (s)")

    def __init__(self, data: Any = None, game: str | None = None,
                 initial: Json | None = None, user: Any = None) -> None:
        super().__init__(data, initial=initial)
        chosen = data.get("game") if data is not None else game
        self.game_key = chosen if chosen in GAMES else default_game()
        self.user = user
        self.schema: Json = rulesets.with_saved(GAMES[self.game_key].settings_schema(),
                                                self.game_key, user)
        self.fields["game"].choices = [(key, g.info.title) for key, g in GAMES.items()]
        self.fields["game"].initial = self.game_key
        self.fields["settings_for"].initial = self.game_key
        required = set(self.schema.get("required", []))
        turn = self.fields.pop("turn_seconds")
        self.setting_names = list(_properties(self.schema))
        for name, spec in _properties(self.schema).items():
            self.fields[name] = schema_field(name, spec, name in required)
        self.fields["turn_seconds"] = turn
        # Another game was chosen without JavaScript: the page must first show its fields.
        self.switched = (data is not None and data.get("game") in GAMES
                         and data.get("settings_for") not in (None, "", self.game_key))

    # -- the template renders the groups separately (the settings may be swapped)
    @property
    def head_fields(self) -> list[BoundField]:
        return [self["name"], self["game"]]

    @property
    def setting_fields(self) -> list[BoundField]:
        return [self[name] for name in self.setting_names]

    @property
    def tail_fields(self) -> list[BoundField]:
        return [self["turn_seconds"]]

    def clean(self) -> Json:
        data = super().clean()
        check = CROSS_CHECKS.get(self.game_key)
        if check is not None:
            check(self, data)
        return data

    def settings(self) -> Json:
        """The game settings from the cleaned data: an empty optional number is left
        out (the engine's default), or ``None`` where the schema allows null."""
        out: Json = {}
        props = _properties(self.schema)
        for name in self.setting_names:
            value = self.cleaned_data.get(name)
            if value in (None, ""):
                if "null" in _types(props[name]):
                    out[name] = None
                continue
            out[name] = value
        # A saved rule set ("saved:<pk>") goes to the engine as the rule set itself.
        return rulesets.resolve_settings(out, self.game_key, self.user)

    def add_table_error(self, code: str, message: str) -> None:
        """Show the table service's refusal next to the field it is about."""
        field: str | None = {"name_taken": "name", "bad_name": "name",
                             "unknown_game": "game"}.get(code)
        if field is None and "turn time" in message:
            field = "turn_seconds"
        if field is None:
            hits = [(m.start(), name) for name in self.setting_names
                    if (m := re.search(rf"\b{re.escape(name)}\b", message))]
            field = min(hits)[1] if hits else None
        self.add_error(field, message)
