"""Account pages: thin views that read with selectors and change through services."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import login, logout
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.cache import patch_cache_control
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST

from . import services, throttle
from .errors import AccountsError
from .forms import (
    BotForm,
    DeleteAccountForm,
    HouseBotForm,
    PersonalTokenForm,
    PlayerNameForm,
    RegistrationForm,
)
from .models import PersonalToken, Player, User
from .permissions import right_required
from .selectors import ledger_of, players_of

LEDGER_PAGE_SIZE = 25


def home(request: HttpRequest) -> HttpResponse:
    return render(request, "home.html")


def register(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("account")
    form = RegistrationForm(request.POST or None)
    if request.method == "POST":
        # At most N accounts per client address and hour (accounts/throttle.py): checked
        # before any validation, counted just before the account is made.
        wait = throttle.registration_wait(request)
        if not wait and form.is_valid():
            wait = throttle.claim_registration(request)
            if not wait:
                try:
                    user = services.register_user(
                        username=form.cleaned_data["username"],
                        password=form.cleaned_data["password1"],
                        email=form.cleaned_data.get("email", ""),
                    )
                except AccountsError as exc:
                    form.add_error("username", exc.message)
                else:
                    login(request, user, backend="django.contrib.auth.backends.ModelBackend")
                    messages.success(request, f"Welcome, {user.username}! Your player is ready.")
                    return redirect("account")
        if wait:
            return _registration_throttled(request, wait)
    return render(request, "registration/register.html", {"form": form})


def _registration_throttled(request: HttpRequest, wait: int) -> HttpResponse:
    """The form again (what was typed, passwords excepted), 429 and why."""
    form = RegistrationForm(initial={"username": request.POST.get("username", ""),
                                     "email": request.POST.get("email", "")})
    messages.error(request, "Too many accounts were registered from your address in the last "
                            f"hour. Please try again in {throttle.wait_text(wait)}.")
    response = render(request, "registration/register.html", {"form": form}, status=429)
    response["Retry-After"] = str(wait)
    return response


def _own_player(request: HttpRequest, player_id: int) -> Player:
    """One of the logged-in user's live players; anyone else's is a 404."""
    assert isinstance(request.user, User)
    return get_object_or_404(players_of(request.user), pk=player_id)


def _account_page(
    request: HttpRequest,
    *,
    player_form: PlayerNameForm | None = None,
    bot_form: BotForm | None = None,
    token_form: PersonalTokenForm | None = None,
    status: int = 200,
) -> HttpResponse:
    assert isinstance(request.user, User)
    page = Paginator(ledger_of(request.user), LEDGER_PAGE_SIZE).get_page(request.GET.get("page"))
    context = {
        "players": players_of(request.user),
        "ledger_page": page,
        "player_form": player_form or PlayerNameForm(),
        "bot_form": bot_form or BotForm(),
        "token_form": token_form or PersonalTokenForm(),
        "personal_tokens": PersonalToken.objects.filter(owner=request.user),
    }
    return render(request, "accounts/account.html", context, status=status)


@login_required
def account(request: HttpRequest) -> HttpResponse:
    return _account_page(request)


@require_POST
@right_required("can_play")
def player_add(request: HttpRequest) -> HttpResponse:
    form = PlayerNameForm(request.POST)
    if form.is_valid():
        try:
            player = services.create_human_player(
                owner=request.user, name=form.cleaned_data["name"]
            )  # type: ignore[arg-type]
        except AccountsError as exc:
            form.add_error("name", exc.message)
        else:
            messages.success(request, f"Player “{player.name}” added.")
            return redirect("account")
    return _account_page(request, player_form=form, status=400)


@right_required("can_play")
def player_rename(request: HttpRequest, player_id: int) -> HttpResponse:
    player = _own_player(request, player_id)
    form = PlayerNameForm(request.POST or None, initial={"name": player.name})
    if request.method == "POST" and form.is_valid():
        old_name = player.name
        try:
            services.rename_player(player, name=form.cleaned_data["name"])
        except AccountsError as exc:
            form.add_error("name", exc.message)
        else:
            messages.success(request, f"“{old_name}” is now called “{player.name}”.")
            return redirect("account")
    return render(request, "accounts/player_rename.html", {"player": player, "form": form})


@right_required("can_play")
def player_delete(request: HttpRequest, player_id: int) -> HttpResponse:
    player = _own_player(request, player_id)
    if request.method == "POST":
        try:
            services.delete_player(player)
        except AccountsError as exc:
            messages.error(request, exc.message)
        else:
            messages.success(request, f"“{player.name}” was deleted.")
        return redirect("account")
    return render(request, "accounts/player_delete.html", {"player": player})


@never_cache  # the page shows a raw bot token: Cache-Control: no-store
@require_POST
@right_required("can_manage_bots")
def bot_add(request: HttpRequest) -> HttpResponse:
    form = BotForm(request.POST)
    if form.is_valid():
        try:
            bot, token = services.create_bot(
                owner=request.user,  # type: ignore[arg-type]
                name=form.cleaned_data["name"],
                description=form.cleaned_data["description"],
            )
        except AccountsError as exc:
            form.add_error("name", exc.message)
        else:
            # Rendered, not redirected: the raw token is never stored, only shown now.
            return render(request, "accounts/bot_token.html", {"bot": bot, "token": token})
    return _account_page(request, bot_form=form, status=400)


@never_cache  # the page shows a raw bot token: Cache-Control: no-store
@require_POST
@right_required("can_manage_bots")
def bot_token_regenerate(request: HttpRequest, player_id: int) -> HttpResponse:
    bot = _own_player(request, player_id)
    try:
        token = services.regenerate_bot_token(bot)
    except AccountsError as exc:
        messages.error(request, exc.message)
        return redirect("account")
    return render(request, "accounts/bot_token.html", {"bot": bot, "token": token, "new": True})


@require_POST
@right_required("can_manage_bots")
def personal_token_add(request: HttpRequest) -> HttpResponse:
    form = PersonalTokenForm(request.POST)
    if form.is_valid():
        try:
            token, raw = services.create_personal_token(
                owner=request.user,  # type: ignore[arg-type]
                name=form.cleaned_data["name"], scopes=form.cleaned_data["scopes"])
        except AccountsError as exc:
            form.add_error("name", exc.message)
        else:
            response = render(request, "accounts/personal_token.html",
                              {"personal": token, "token": raw})
            patch_cache_control(response, no_store=True)  # a secret is on this page
            return response
    return _account_page(request, token_form=form, status=400)


@require_POST
@login_required
def personal_token_revoke(request: HttpRequest, token_id: int) -> HttpResponse:
    token = get_object_or_404(PersonalToken, pk=token_id, owner=request.user)
    services.revoke_personal_token(token)
    messages.success(request, f"The token “{token.name}” was revoked.")
    return redirect("account")


@login_required
def account_delete(request: HttpRequest) -> HttpResponse:
    user = request.user
    assert isinstance(user, User)
    form = DeleteAccountForm(user, request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            services.delete_user(user)
        except AccountsError as exc:
            form.add_error(None, exc.message)
        else:
            logout(request)
            messages.success(request, "Your account was deleted. Your hand histories remain.")
            return redirect("home")
    return render(request, "accounts/account_delete.html", {"form": form})


# ------------------------------------------------------------ house bots


def _house_bot(player_id: int) -> Player:
    return get_object_or_404(Player.objects.live().house(), pk=player_id)


def _styles() -> list[dict[str, object]]:
    return [{"style": style, "games": games, "params": services.house_bot_params(style)}
            for style, games in services.house_bot_styles().items()]


@right_required("can_manage_bots")
def house_bots(request: HttpRequest) -> HttpResponse:
    """Every house bot (the server plays them), and a form to create one (tester+)."""
    form = HouseBotForm(request.POST or None)
    status = 200
    if request.method == "POST":
        if form.is_valid():
            try:
                bot = services.add_house_bot(by=request.user, **form.cleaned_data)  # type: ignore[arg-type]
            except AccountsError as exc:
                form.add_error("params" if exc.code == "invalid_params" else
                               "style" if exc.code == "invalid_style" else "name", exc.message)
            else:
                messages.success(request, f"House bot “{bot.name}” created: seat it at a table "
                                          "from the table page.")
                return redirect("house_bots")
        status = 400
    bots = (Player.objects.live().house().order_by("name")
            .prefetch_related("seats__table"))
    return render(request, "accounts/house_bots.html",
                  {"bots": bots, "form": form, "styles": _styles()}, status=status)


@right_required("can_manage_bots")
def house_bot_edit(request: HttpRequest, house_bot_id: int) -> HttpResponse:
    import json

    bot = _house_bot(house_bot_id)
    initial = {"name": bot.name, "style": bot.house_strategy,
               "params": json.dumps(bot.house_params), "description": bot.description}
    form = HouseBotForm(request.POST or None, initial=initial)
    status = 200
    if request.method == "POST":
        if form.is_valid():
            try:
                services.update_house_bot(bot, by=request.user, **form.cleaned_data)  # type: ignore[arg-type]
            except AccountsError as exc:
                form.add_error("params" if exc.code == "invalid_params" else
                               "style" if exc.code in ("invalid_style", "style_cannot_play")
                               else "name", exc.message)
            else:
                messages.success(request, f"House bot “{bot.name}” saved.")
                return redirect("house_bots")
        status = 400
    return render(request, "accounts/house_bot_edit.html",
                  {"bot": bot, "form": form, "styles": _styles()}, status=status)


@right_required("can_manage_bots")
def house_bot_delete(request: HttpRequest, house_bot_id: int) -> HttpResponse:
    bot = _house_bot(house_bot_id)
    if request.method == "POST":
        try:
            services.delete_house_bot(bot, by=request.user)  # type: ignore[arg-type]
        except AccountsError as exc:
            messages.error(request, exc.message)
        else:
            messages.success(request, f"House bot “{bot.name}” was deleted.")
        return redirect("house_bots")
    return render(request, "accounts/house_bot_delete.html", {"bot": bot})
