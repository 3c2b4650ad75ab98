"""The lobby: table list (filters, sorting, player search), create-table form,
and the small JSON endpoints the lobby and the table page read."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from tables import services
from tables.errors import TableError

from . import rulesets, selectors
from .forms import CreateTableForm, games_catalogue
from .public import login_or_public


def _lobby_page(request: HttpRequest, form: CreateTableForm | None = None,
                status: int = 200, form_open: bool | None = None) -> HttpResponse:
    return render(request, "lobby/lobby.html", {
        "form": form or (CreateTableForm(user=request.user)
                         if request.user.is_authenticated else None),
        "form_open": (form is not None and bool(form.errors)) if form_open is None else form_open,
        "games": games_catalogue(request.user),
        "rule_set_games": rulesets.games_with_rule_sets(),
        "sort_keys": selectors.SORT_KEYS,
        # The fact columns before the first refresh (the default game's: Hold'em's).
        "columns": selectors.lobby_columns([]),
    }, status=status)


@login_or_public
def lobby(request: HttpRequest) -> HttpResponse:
    # ?create=1: the "New table" link without JavaScript opens the create panel;
    # with ?game=<key>&rules=<choice> (a rule set's "New table"), that game and rules.
    game = request.GET.get("game")
    if request.GET.get("create") == "1" and game:
        initial = {k: request.GET[k] for k in ("rules",) if request.GET.get(k)}
        form = CreateTableForm(game=game, initial=initial, user=request.user)
        return _lobby_page(request, form, form_open=True)
    return _lobby_page(request, form_open=request.GET.get("create") == "1")


@login_or_public
def tables_json(request: HttpRequest) -> JsonResponse:
    """The filtered, sorted table list (V5, V6, V26) with each table's players (V27),
    and the fact columns of the games listed."""
    flt = selectors.TableFilter.from_query(request.GET)
    rows = selectors.lobby_tables(flt)
    return JsonResponse({"tables": rows, "columns": selectors.lobby_columns(rows, flt.game)})


@require_POST
@login_required
def create_table(request: HttpRequest) -> HttpResponse:
    """Create a table of any hosted game: the form comes from the game's settings
    schema (lobby.forms); the engine validates, and its refusal shows in the form."""
    form = CreateTableForm(request.POST, user=request.user)
    if form.switched:
        # The game was changed without JavaScript: show that game's settings first.
        keep = {k: request.POST.get(k) for k in ("name", "turn_seconds") if request.POST.get(k)}
        return _lobby_page(request, CreateTableForm(game=form.game_key, initial=keep,
                                                    user=request.user),
                           form_open=True)
    if not getattr(request.user, "can_create_tables", False):
        form.add_error(None, "Your account may not create tables.")
    elif form.is_valid():
        try:
            table = services.create_table(
                creator=request.user, name=form.cleaned_data["name"],  # type: ignore[arg-type]
                game=form.game_key, settings=form.settings(),
                turn_seconds=form.cleaned_data["turn_seconds"])
        except TableError as error:
            form.add_table_error(error.code, error.message)
        except rulesets.RuleSetError as error:
            form.add_table_error(error.code, error.message)
        else:
            return redirect("table", table_id=table.pk)
    return _lobby_page(request, form, status=400)


@login_required
def account_json(request: HttpRequest) -> JsonResponse:
    """Balance, players and recent ledger entries for the table's account panel (V32)."""
    return JsonResponse(selectors.account_summary(request.user))
