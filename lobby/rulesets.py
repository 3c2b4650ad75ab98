"""Rule sets as user data (docs/dice.md, "Rule sets in the browser"): the list, the
editor page, live validation and saving, and the top-10 per rule-set identity.

Only games that describe their rule sets (``Game.rule_sets()`` is not ``None``: the
dice game) have these pages; the game validates (``Game.validate_rule_set``) and
names the identity (the normalised rule set's ``id``). Every refusal is JSON
``{"error": {"code", "message"}}`` with a stable code, never a 500.
"""

from __future__ import annotations

import re
from typing import Any

from django.contrib.auth.decorators import login_required
from django.db import IntegrityError, transaction
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET

from engine.errors import EngineError
from engine.registry import GAMES, Game
from tables import selectors as table_selectors
from tables.wire import load_json

from .models import RuleSet

Json = dict[str, Any]
SAVED_KEY = re.compile(r"saved:([0-9]{1,12})")  # a saved rule set in a settings form
RULE_SET_ID = re.compile(r"[A-Za-z0-9_-]{1,40}")  # Game.rule_set_id / RuleSet.rules_id
MAX_RULE_SETS = 100  # per user and game
MAX_BODY = 64 * 1024  # a rule set of 30 combinations is ~3 KB
TOP = 10


class RuleSetError(Exception):
    """A refused request: a stable ``code``, a clear sentence, an HTTP status."""

    def __init__(self, code: str, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.code, self.message, self.status = code, message, status

    def response(self) -> JsonResponse:
        return JsonResponse({"error": {"code": self.code, "message": self.message}},
                            status=self.status)


# ------------------------------------------------------------------ queries


class NoRuleSets(Exception):
    """The page asked for names no game with rule sets (400), or no such rule set
    (404)."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def editable_game(key: str) -> tuple[Game, Json]:
    """The game ``key`` and its rule-set description; NoRuleSets if it has none."""
    game = GAMES.get(key)
    description = game.rule_sets() if game is not None else None
    if game is None or description is None:
        raise NoRuleSets(f"{game.info.title if game else 'That game'} has no rule sets.")
    return game, description


def _not_found(view: Any) -> Any:
    """A page's NoRuleSets as a page of the site saying so."""

    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        try:
            result: HttpResponse = view(request, *args, **kwargs)
            return result
        except NoRuleSets as error:
            return render(request, "lobby/rule_sets.html", {"error": str(error)},
                          status=error.status)

    wrapped.__name__, wrapped.__doc__ = view.__name__, view.__doc__
    return wrapped


def games_with_rule_sets() -> list[str]:
    return [key for key, game in GAMES.items() if game.rule_sets() is not None]


def saved_of(user: Any, game: str) -> list[RuleSet]:
    """The user's own saved rule sets of ``game``, by name."""
    if not getattr(user, "is_authenticated", False):
        return []
    return list(RuleSet.objects.filter(owner=user, game=game).select_related("owner"))


def saved_choices(user: Any, game: str) -> dict[str, str]:
    """``{"saved:<pk>": "name (mine)"}``: the create-table form's extra choices."""
    return {f"saved:{r.pk}": f"{r.name} (saved)" for r in saved_of(user, game)}


def with_saved(schema: Json, game: str, user: Any) -> Json:
    """A game's settings schema with the user's saved rule sets added to the choices
    of the setting that takes a rule set (``Game.rule_sets()["setting"]``), as
    ``"saved:<pk>"``; the schema itself for other games (or without saved ones)."""
    engine_game = GAMES.get(game)
    description = engine_game.rule_sets() if engine_game is not None else None
    setting = (description or {}).get("setting")
    props = schema.get("properties") if isinstance(schema, dict) else None
    spec = props.get(setting) if isinstance(props, dict) and setting else None
    if not isinstance(spec, dict) or not isinstance(spec.get("enum"), list):
        return schema
    extra = saved_choices(user, game)
    if not extra:
        return schema
    titles = {**(spec.get("enumTitles") or {}), **extra}
    spec = {**spec, "enum": [*spec["enum"], *extra], "enumTitles": titles}
    return {**schema, "properties": {**props, setting: spec}}


def resolve_settings(settings: Json, game: str, user: Any) -> Json:
    """Settings with a ``"saved:<pk>"`` rule set replaced by the saved rule set."""
    engine_game = GAMES.get(game)
    description = engine_game.rule_sets() if engine_game is not None else None
    setting = (description or {}).get("setting")
    if not setting or setting not in settings:
        return settings
    return {**settings, setting: resolve_saved(settings[setting], user, game)}


def resolve_saved(value: Any, user: Any, game: str) -> Any:
    """A settings value ``"saved:<pk>"`` (one of ``user``'s saved rule sets of
    ``game``) as the rule set itself; any other value unchanged."""
    match = SAVED_KEY.fullmatch(value) if isinstance(value, str) else None
    if match is None:
        return value
    row = RuleSet.objects.filter(pk=int(match.group(1)), owner=user, game=game).first()
    if row is None:
        raise RuleSetError("unknown_rule_set", "That saved rule set does not exist (or is "
                           "not yours).", 404)
    return row.data


def top10(game: str, rule_set: str, limit: int = TOP) -> list[Json]:
    """The top-10 of one rule-set identity (the game's entry rule applied)."""
    return table_selectors.leaderboard(game, None, limit, rule_set=rule_set)


def rule_set_name(game: Game, rule_set: str) -> str:
    """A name for an identity: shipped, else saved, else ``""``."""
    description = game.rule_sets() or {}
    for rules in (description.get("shipped") or {}).values():
        if rules.get("id") == rule_set:
            return str(rules.get("name", ""))
    row = RuleSet.objects.filter(game=game.info.key, rules_id=rule_set).order_by("id").first()
    return row.name if row else ""


# ------------------------------------------------------------------ writes


def validate(game: Game, data: Any) -> Json:
    """The game's normalised rule set; RuleSetError with the game's code and sentence."""
    try:
        rules = game.validate_rule_set(data)
    except EngineError as error:
        raise RuleSetError(error.code, error.reason) from None
    except (TypeError, ValueError, KeyError, AttributeError):
        raise RuleSetError("rules_malformed", "That is not a rule set.") from None
    if not isinstance(rules, dict) or not RULE_SET_ID.fullmatch(str(rules.get("id", ""))):
        raise RuleSetError("rules_malformed", "That is not a rule set.")
    return rules


def save(user: Any, game: Game, data: Any, edit: int | None = None,
         based_on: str = "") -> tuple[RuleSet, bool]:
    """Save a rule set for ``user``: ``(row, created)``. Editing one's own rule set
    (``edit``) keeps its row when the identity is unchanged (a rename); a change to
    what is played makes a new rule set (the old one keeps its tables and top-10).
    The same rules saved twice by one user are one row."""
    rules = validate(game, data)
    key = game.info.key
    with transaction.atomic():
        mine = RuleSet.objects.select_for_update().filter(owner=user, game=key)
        original = None
        if edit is not None:
            original = mine.filter(pk=edit).first()
            if original is None:
                raise RuleSetError("unknown_rule_set", "That saved rule set does not exist "
                                   "(or is not yours).", 404)
        row = mine.filter(rules_id=rules["id"]).first()
        if row is not None:  # a rename, or rules this user already saved
            row.name, row.data = rules["name"][:60], rules
            row.save(update_fields=["name", "data", "updated_at"])
            return row, False
        if mine.count() >= MAX_RULE_SETS:
            raise RuleSetError("too_many_rule_sets", f"You have {MAX_RULE_SETS} saved rule "
                               "sets of this game; that is the most.")
        source = original.rules_id if original is not None else based_on
        try:
            row = RuleSet.objects.create(owner=user, game=key, name=rules["name"][:60],
                                         rules_id=rules["id"], data=rules,
                                         based_on=source[:40])
        except IntegrityError:  # pragma: no cover - the lock above serialises saves
            raise RuleSetError("conflict", "Saved twice at once; try again.", 409) from None
    return row, True


# ------------------------------------------------------------------ endpoints


def _body(request: HttpRequest) -> Any:
    if len(request.body or b"") > MAX_BODY:
        raise RuleSetError("too_large", f"A rule set is at most {MAX_BODY // 1024} KB of JSON.",
                           413)
    try:
        return load_json((request.body or b"").decode())
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise RuleSetError("malformed_json", "Send the rule set as a JSON object.") from None


def _json_endpoint(view: Any) -> Any:
    """Login (as JSON), POST, and RuleSetError as its JSON answer."""

    def wrapped(request: HttpRequest, game: str) -> JsonResponse:
        if request.method != "POST":
            response = RuleSetError("method_not_allowed", "POST a JSON body.", 405).response()
            response["Allow"] = "POST"
            return response
        if not request.user.is_authenticated:
            return RuleSetError("not_authenticated", "Log in first.", 401).response()
        try:
            if game not in GAMES or GAMES[game].rule_sets() is None:
                raise RuleSetError("unknown_game", "This game has no rule sets.", 404)
            result: JsonResponse = view(request, GAMES[game])
            return result
        except RuleSetError as error:
            return error.response()

    wrapped.__name__ = view.__name__
    wrapped.__doc__ = view.__doc__
    return wrapped


@_json_endpoint
def validate_json(request: HttpRequest, game: Game) -> JsonResponse:
    """``POST`` a rule set: ``{"rules": normalised, "id", "top10_url"}``, or 400 with
    the game's code and sentence (the editor's live validation)."""
    rules = validate(game, _body(request))
    saved = RuleSet.objects.filter(owner=request.user, game=game.info.key,
                                   rules_id=rules["id"]).first()
    return JsonResponse({"rules": rules, "id": rules["id"],
                         "saved": saved.pk if saved else None})


@_json_endpoint
def save_json(request: HttpRequest, game: Game) -> JsonResponse:
    """``POST {"rules": {...}, "edit": <pk> | null, "based_on": <identity>}``: the
    saved rule set (``created``: a new row, i.e. a new identity or first save)."""
    body = _body(request)
    if not isinstance(body, dict) or "rules" not in body or set(body) - {
            "rules", "edit", "based_on"}:
        raise RuleSetError("malformed_request", 'Send {"rules": {...}, "edit": id or null}.')
    edit, based_on = body.get("edit"), body.get("based_on") or ""
    if edit is not None and (type(edit) is not int or not 1 <= edit < 2**63):
        raise RuleSetError("malformed_request", "edit is the id of one of your rule sets.")
    if not isinstance(based_on, str) or (based_on and not RULE_SET_ID.fullmatch(based_on)):
        raise RuleSetError("malformed_request", "based_on is a rule-set identity.")
    row, created = save(request.user, game, body["rules"], edit, based_on)
    return JsonResponse({"rule_set": {**row.to_json(), "url": _editor_url(row)},
                         "created": created, "edited": edit is not None,
                         "new_identity": created and edit is not None},
                        status=201 if created else 200)


def _editor_url(row: RuleSet) -> str:
    return reverse("rule_set", args=[row.game, row.pk])


# ------------------------------------------------------------------ pages


@require_GET
@login_required
@_not_found
def rule_sets_page(request: HttpRequest, game: str) -> HttpResponse:
    """Shipped and saved rule sets of a game, each with its top-10 link."""
    engine_game, description = editable_game(game)
    shipped = [{"key": k, "name": r["name"], "rules_id": r["id"], "rules": r}
               for k, r in (description.get("shipped") or {}).items()]
    mine = saved_of(request.user, game)
    others = list(RuleSet.objects.filter(game=game).exclude(owner=request.user)
                  .select_related("owner").order_by("-updated_at")[:50])
    return render(request, "lobby/rule_sets.html", {
        "game": engine_game.info.to_json(), "shipped": shipped, "mine": mine,
        "others": others})


@require_GET
@login_required
@_not_found
def editor_page(request: HttpRequest, game: str, pk: int | None = None) -> HttpResponse:
    """The editor: a saved rule set (its owner edits; anyone copies), or a new one from
    ``?from=<shipped key>`` / ``?from=saved:<pk>`` (default: the game's default)."""
    engine_game, description = editable_game(game)
    row = None
    if pk is not None:
        row = RuleSet.objects.select_related("owner").filter(pk=pk, game=game).first()
        if row is None:
            raise NoRuleSets("There is no such rule set.", 404)
        rules, based_on = row.data, row.based_on
    else:
        source = request.GET.get("from", "") or str(description.get("default", ""))
        shipped = description.get("shipped") or {}
        match = SAVED_KEY.fullmatch(source)
        copied = (RuleSet.objects.filter(pk=int(match.group(1)), game=game).first()
                  if match else None)
        if copied is not None:
            rules = copied.data
        elif source in shipped:
            rules = shipped[source]
        else:
            rules = next(iter(shipped.values()), {})
        based_on = str(rules.get("id", ""))
        rules = {**rules, "name": f"My {rules.get('name', 'rules')}"[:60]}
        rules.pop("id", None)
    own = row is not None and row.owner_id == request.user.pk
    rules_id = row.rules_id if row else ""
    return render(request, "lobby/rule_set_editor.html", {
        "game": engine_game.info.to_json(), "row": row, "own": own,
        "top10": top10(game, rules_id) if rules_id else [],
        "config": {
            "game": game, "rules": rules, "editor": description, "edit": row.pk if own else None,
            "based_on": based_on, "readonly": row is not None and not own,
            # The identity the editor compares with: this rule set's, or the copied one's.
            "identity": row.rules_id if row is not None else based_on,
            "validate_url": reverse("rule_set_validate", args=[game]),
            "save_url": reverse("rule_set_save", args=[game]),
            "leaderboard_url": reverse("leaderboard", args=[game]),
            "lobby_url": reverse("lobby"),
            "copy_url": (reverse("rule_set_new", args=[game]) + f"?from=saved:{row.pk}"
                         if row is not None else None),
        },
    })
