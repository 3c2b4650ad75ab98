"""Workflows that change accounts, players and play money.

Every change of a balance goes through :func:`post_ledger_entry`. Services raise
:class:`accounts.errors.AccountsError` subclasses (stable ``code`` + one clear
sentence) and leave the database unchanged when they refuse. Ownership (which
user may touch which player) is checked by the caller, which looks the player up
among the user's own players; role rights are checked here as well, so that no
caller can forget them.
"""

from __future__ import annotations

import json
from typing import Any

from django.apps import apps
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from engine.game import MAX_CHIPS

from . import credentials
from .errors import (
    BalanceLimit,
    InvalidAmount,
    InvalidName,
    InvalidParams,
    InvalidStyle,
    InvalidText,
    NameTaken,
    NotAllowed,
    PlayerDeleted,
    PlayerSeated,
    StyleCannotPlay,
)
from .models import (
    LedgerEntry,
    LedgerKind,
    PersonalToken,
    Player,
    PlayerKind,
    Role,
    TokenScope,
    User,
)
from .selectors import player_is_seated, player_name_taken
from .tokens import PERSONAL_PREFIX, generate_token, hash_token
from .validators import player_name_problem, text_problem

# ---------------------------------------------------------------------------
# Users and players


def _check_new_name(name: str, *, current: Player | None = None) -> None:
    problem = text_problem(name)  # a control character: invalid_text, as for any text
    if problem:
        raise InvalidText(problem)
    problem = player_name_problem(name)
    if problem:
        raise InvalidName(problem)
    if current is not None and current.name.lower() == name.lower():
        return  # a change of case only
    if player_name_taken(name):
        raise NameTaken(f"The name “{name}” is already taken by another player.")


def _save_new_player(player: Player) -> Player:
    """Insert, turning a lost race on the unique name into :class:`NameTaken`."""
    try:
        with transaction.atomic():
            player.save()
    except IntegrityError as exc:
        raise NameTaken(f"The name “{player.name}” is already taken by another player.") from exc
    return player


def register_user(*, username: str, password: str, email: str = "") -> User:
    """Create a player-role user and their first human player, named after them.

    The password must already be validated (the registration form does it).
    """
    _check_new_name(username)
    with transaction.atomic():
        user = User.objects.create_user(username, email, password, role=Role.PLAYER)
        _save_new_player(Player(owner=user, name=username, kind=PlayerKind.HUMAN))
    return user


def create_human_player(*, owner: User, name: str) -> Player:
    """Another human player for the same user (several seats from one browser, V33)."""
    if not owner.can_play:
        raise NotAllowed("Your account may not have players.")
    _check_new_name(name)
    return _save_new_player(Player(owner=owner, name=name, kind=PlayerKind.HUMAN))


def create_bot(*, owner: User, name: str, description: str = "") -> tuple[Player, str]:
    """Create a bot owned by a tester (or superuser); return it and its raw token.

    The raw token is returned once and never stored; show it to the owner now.
    """
    if not owner.can_manage_bots:
        raise NotAllowed("Only testers and superusers may create bots.")
    _check_new_name(name)
    problem = text_problem(description, multiline=True)
    if problem:
        raise InvalidText(problem)
    raw = generate_token()
    bot = Player(
        owner=owner,
        name=name,
        kind=PlayerKind.BOT,
        description=description,
        token_hash=hash_token(raw),
        token_created_at=timezone.now(),
    )
    return _save_new_player(bot), raw


def regenerate_bot_token(bot: Player) -> str:
    """Replace the bot's token; the old one stops working at once. Returns the new raw token."""
    if not bot.is_bot:
        raise NotAllowed("Only bots have API tokens.")
    if bot.is_house:
        raise NotAllowed("House bots have no API token: the server plays them.")
    if bot.is_deleted or bot.owner is None:
        raise PlayerDeleted(f"The bot “{bot.name}” has been deleted.")
    if not bot.owner.can_manage_bots:
        raise NotAllowed("Only testers and superusers may manage bots.")
    raw = generate_token()
    bot.token_hash = hash_token(raw)
    bot.token_created_at = timezone.now()
    bot.save(update_fields=["token_hash", "token_created_at"])
    credentials.bot_revoked(bot.pk)
    return raw


def rename_player(player: Player, *, name: str) -> Player:
    if player.is_deleted:
        raise PlayerDeleted(f"The player “{player.name}” has been deleted.")
    _check_new_name(name, current=player)
    player.name = name
    try:
        with transaction.atomic():
            player.save(update_fields=["name"])
    except IntegrityError as exc:
        raise NameTaken(f"The name “{name}” is already taken by another player.") from exc
    return player


def _soft_delete(player: Player) -> None:
    if player_is_seated(player):
        raise PlayerSeated(
            f"“{player.name}” is sitting at a table; leave the table first, then delete it."
        )
    player.owner = None
    player.token_hash = None
    player.deleted_at = timezone.now()
    player.save(update_fields=["owner", "token_hash", "deleted_at"])
    if player.is_bot:
        credentials.bot_revoked(player.pk, "bot_deleted")


def delete_player(player: Player) -> None:
    """Soft-delete a player: keep it (and its name) for histories and the ledger.

    Refused while the player sits at a table, so a seat never points at a deleted
    player. A bot's token stops working.
    """
    if player.is_deleted:
        return
    if (player.is_bot and not player.is_house and player.owner is not None
            and not player.owner.can_manage_bots):
        raise NotAllowed("Only testers and superusers may delete bots.")
    with transaction.atomic():
        _soft_delete(Player.objects.select_for_update().get(pk=player.pk))
    player.refresh_from_db()


def delete_user(user: User) -> None:
    """Delete a user account; its players are soft-deleted, their histories kept.

    Refused (nothing changed) while any of the user's players sits at a table, and
    for the system account (it owns the house bots).
    """
    if user.is_system:
        raise NotAllowed("The system account owns the house bots and cannot be deleted.")
    with transaction.atomic():
        for player in Player.objects.live().select_for_update().filter(owner=user):
            _soft_delete(player)
        credentials.user_revoked(user.pk, "account_deleted")
        user.delete()


# ---------------------------------------------------------------------------
# House bots and the system account that owns them

HOUSE_USERNAME = "house"


def house_owner() -> User:
    """The system account that owns every house bot; made on first use.

    Not a person: role :attr:`~accounts.models.Role.SYSTEM` (no rights), inactive, no
    usable password (``User.save`` and a constraint keep it so), no player of its own.
    A house bot owned by a person would be that person's player: offered its turns,
    its hole cards shown to them as their own. Testers and superusers seat and remove
    house bots through their right ``can_manage_bots`` instead (tables.services).
    Usually called ``house``; if a person already has that username, ``house-2``...
    """
    existing = User.objects.filter(role=Role.SYSTEM).order_by("pk").first()
    if existing is not None:
        return existing
    for suffix in ("", *(f"-{n}" for n in range(2, 100))):
        username = HOUSE_USERNAME + suffix
        if User.objects.filter(username__iexact=username).exists():
            continue
        try:
            with transaction.atomic():
                user = User(username=username, role=Role.SYSTEM, is_active=False)
                user.set_unusable_password()
                user.save()
        except IntegrityError:  # a concurrent first use made it (or took the name)
            existing = User.objects.filter(role=Role.SYSTEM).order_by("pk").first()
            if existing is not None:
                return existing
            continue
        return user
    raise NotAllowed("No free username for the system account.")  # pragma: no cover


def create_house_bot(*, name: str, strategy: str, description: str = "") -> Player:
    """The house bot ``name`` playing ``strategy``, owned by :func:`house_owner`.

    Idempotent: an existing live house bot of that name is returned (handed to the
    system account if a person owned it). A name taken by any other player is
    :class:`NameTaken`. House bots have no token: the server plays them.
    """
    if not isinstance(strategy, str) or not 1 <= len(strategy) <= 40:
        raise NotAllowed("A house bot needs a strategy name of 1 to 40 characters.")
    existing = Player.objects.filter(name__iexact=name).first()
    if existing is not None:
        if not existing.is_house or existing.is_deleted:
            raise NameTaken(f"The name “{name}” is already taken by another player.")
        adopt_house_bots()
        existing.refresh_from_db()
        return existing
    problem = player_name_problem(name)
    if problem:
        raise InvalidName(problem)
    return _save_new_player(Player(
        owner=house_owner(), name=name, kind=PlayerKind.BOT, house_strategy=strategy,
        description=description or f"House bot ({strategy}).",
    ))


def house_bot_styles() -> dict[str, list[str]]:
    """Every house-bot style a hosted game has (``botkit.house.house_bots``): style ->
    the keys of the games it plays, in the registry's order."""
    from botkit.house import house_bots
    from engine.registry import GAMES

    styles: dict[str, list[str]] = {}
    for key in GAMES:
        for style in house_bots(key):
            styles.setdefault(style, []).append(key)
    return styles


def house_bot_params(style: str) -> dict[str, Any]:
    """The parameters ``style`` takes in any hosted game: name -> JSON schema."""
    from botkit.house import style_params
    from engine.registry import GAMES

    return style_params(style, list(GAMES))


MAX_PARAMS_JSON = 2000  # characters of a house bot's parameters as JSON


def _check_style(style: Any, params: Any) -> tuple[str, dict[str, Any]]:
    from botkit.house import check_params
    from engine.registry import GAMES

    styles = house_bot_styles()
    if not isinstance(style, str) or style not in styles:
        known = ", ".join(sorted(styles))
        raise InvalidStyle(f"There is no house-bot style {str(style)[:40]!r} (known: {known}).")
    if params is None:
        params = {}
    try:
        if len(json.dumps(params)) > MAX_PARAMS_JSON:
            raise InvalidParams(f"The parameters are at most {MAX_PARAMS_JSON} characters "
                                "of JSON.")
        checked = check_params(style, params, list(GAMES))
    except (ValueError, TypeError, KeyError) as exc:
        raise InvalidParams(str(exc).strip("'\"")) from None
    return style, checked


def check_house_bot(style: Any, params: Any) -> tuple[str, dict[str, Any]]:
    """A house-bot style and its parameters, checked (``invalid_style``,
    ``invalid_params``); for forms that save the player themselves (the admin)."""
    return _check_style(style, params)


def _check_description(description: Any) -> str:
    if not isinstance(description, str) or len(description) > 2000:
        raise InvalidText("A description is text of at most 2000 characters.")
    problem = text_problem(description, multiline=True)
    if problem:
        raise InvalidText(problem)
    return description


def _seated_games(player: Player) -> list[str]:
    """The games of the tables ``player`` sits at (looked up through the app registry:
    accounts does not import tables)."""
    try:
        seat_model = apps.get_model("tables", "Seat")
    except LookupError:
        return []
    return list(seat_model.objects.filter(player=player)
                .values_list("table__game", flat=True).distinct())


def add_house_bot(*, by: User, name: str, style: str, params: Any = None,
                  description: str = "") -> Player:
    """A new house bot made by a tester or superuser (the web page, the API, the admin):
    owned by the system account, played by the table worker with ``style`` and
    ``params``. Unlike :func:`create_house_bot` (the demo data's, idempotent) a taken
    name is refused (``name_taken``)."""
    if not by.can_manage_bots:
        raise NotAllowed("Only testers and superusers may manage house bots.")
    if not isinstance(name, str):
        raise InvalidName("A name is text.")
    _check_new_name(name)
    style, checked = _check_style(style, params)
    description = _check_description(description)
    return _save_new_player(Player(
        owner=house_owner(), name=name, kind=PlayerKind.BOT, house_strategy=style,
        house_params=checked, description=description or f"House bot ({style})."))


def update_house_bot(bot: Player, *, by: User, name: str | None = None,
                     style: str | None = None, params: Any = None,
                     description: str | None = None) -> Player:
    """Rename a house bot, change its style, parameters or description (``None``:
    unchanged). A new style must play the game of every table the bot sits at
    (``style_cannot_play``); at a table its next decision is made by a fresh instance
    with the new settings (tables.house)."""
    if not by.can_manage_bots:
        raise NotAllowed("Only testers and superusers may manage house bots.")
    if not bot.is_house or bot.is_deleted:
        raise NotAllowed("Only live house bots are managed here.")
    if name is not None:
        if not isinstance(name, str):
            raise InvalidName("A name is text.")
        _check_new_name(name, current=bot)
    new_style = bot.house_strategy if style is None else style
    new_params = bot.house_params if params is None and style is None else params
    new_style, checked = _check_style(new_style, new_params)
    if new_style != bot.house_strategy:
        plays = house_bot_styles()[new_style]
        cannot = sorted(set(_seated_games(bot)) - set(plays))
        if cannot:
            raise StyleCannotPlay(f"“{bot.name}” sits at a table of {', '.join(cannot)}, "
                                  f"which the style {new_style!r} does not play; remove "
                                  "it from that table first.")
    if description is not None:
        description = _check_description(description)
    with transaction.atomic():
        locked = Player.objects.select_for_update().get(pk=bot.pk)
        if name is not None:
            locked.name = name
        locked.house_strategy, locked.house_params = new_style, checked
        if description is not None:
            locked.description = description
        try:
            with transaction.atomic():
                locked.save(update_fields=["name", "house_strategy", "house_params",
                                           "description"])
        except IntegrityError as exc:
            raise NameTaken(f"The name “{name}” is already taken by another player.") from exc
    bot.refresh_from_db()
    return bot


def delete_house_bot(bot: Player, *, by: User) -> None:
    """Delete a house bot (kept for histories, like every player). Refused while it
    sits at a table (``player_seated``: remove it from the table first — it leaves
    through the leave path and its stack is cashed out through the ledger)."""
    if not by.can_manage_bots:
        raise NotAllowed("Only testers and superusers may manage house bots.")
    if not bot.is_house:
        raise NotAllowed("Only house bots are managed here.")
    try:
        seat_model = apps.get_model("tables", "Seat")
    except LookupError:
        seat_model = None
    if seat_model is not None:
        tables = sorted(seat_model.objects.filter(player=bot)
                        .values_list("table__name", flat=True))
        if tables:
            raise PlayerSeated(f"“{bot.name}” sits at {', '.join(tables)}: remove it from the "
                               "table first (its chips are cashed out), then delete it.")
    delete_player(bot)


def adopt_house_bots() -> int:
    """Give every live house bot that a person owns to the system account; returns
    how many moved (the data migration ``0003`` did the same for existing rows)."""
    strays = Player.objects.live().house().exclude(owner__role=Role.SYSTEM)
    if not strays.exists():
        return 0
    return strays.update(owner=house_owner(), token_hash=None, token_created_at=None)


# ---------------------------------------------------------------------------
# Play money


MAX_BALANCE = 1000 * MAX_CHIPS
"""The most a balance may be, either way (10**15: inside the 64-bit column and the
integers JavaScript reads exactly). Buy-ins and adjustments that would cross it are
refused (``balance_limit``); a cash-out never is, nor a house bot's rebuy (a refused
rebuy would stop its table; it would take a million maximal rebuys lost to matter)."""


def post_ledger_entry(
    *,
    player: Player,
    amount: int,
    kind: LedgerKind | str,
    table_id: int | None = None,
    hand_id: int | None = None,
    note: str = "",
    created_by: User | None = None,
) -> LedgerEntry:
    """Append one ledger entry and move the player's cached balance by ``amount``.

    The only writer of ``Player.balance``. The player row is locked for the
    duration of the (possibly outer) transaction, and the balance is updated with
    an F() expression, so concurrent postings for one player never lose an update.
    Safe inside an outer transaction: ``atomic`` then becomes a savepoint.
    ``player.balance`` is refreshed on the given instance.
    """
    kind = LedgerKind(kind)
    if isinstance(amount, bool) or not isinstance(amount, int):
        raise InvalidAmount("The amount must be a whole number of chips.")
    sign_ok = {
        LedgerKind.BUY_IN: amount < 0,
        LedgerKind.CASH_OUT: amount >= 0,
        LedgerKind.ADJUSTMENT: amount != 0,
    }[kind]
    if not sign_ok:
        raise InvalidAmount(f"{amount} chips is not a valid amount for a {kind.label.lower()}.")
    # A buy-in or an adjustment is at most MAX_CHIPS, and keeps the balance within
    # ±MAX_BALANCE. A cash-out gives back what a table held: never refused for its size
    # (the chips would be stuck at the table).
    if kind != LedgerKind.CASH_OUT and abs(amount) > MAX_CHIPS:
        raise InvalidAmount(f"An amount is at most {MAX_CHIPS} chips; {amount} is not.")
    with transaction.atomic():
        locked = (Player.objects.select_for_update()
                  .only("pk", "deleted_at", "balance", "house_strategy").get(pk=player.pk))
        if locked.is_deleted:
            raise PlayerDeleted(f"The player “{player.name}” has been deleted.")
        if (kind != LedgerKind.CASH_OUT and not locked.is_house
                and not -MAX_BALANCE <= locked.balance + amount <= MAX_BALANCE):
            raise BalanceLimit(f"A balance stays within ±{MAX_BALANCE} chips; this "
                               f"{kind.label.lower()} would take it to {locked.balance + amount}.")
        entry = LedgerEntry.objects.create(
            player_id=player.pk,
            amount=amount,
            kind=kind,
            table_id=table_id,
            hand_id=hand_id,
            note=note,
            created_by=created_by,
        )
        Player.objects.filter(pk=player.pk).update(balance=F("balance") + amount)
    player.refresh_from_db(fields=["balance"])
    return entry


def buy_in(
    *, player: Player, chips: int, table_id: int | None = None, note: str = ""
) -> LedgerEntry:
    """Take ``chips`` (> 0) from the balance to a table; the balance may go negative (V16)."""
    if isinstance(chips, bool) or not isinstance(chips, int) or chips <= 0:
        raise InvalidAmount("A buy-in must be a positive whole number of chips.")
    return post_ledger_entry(
        player=player, amount=-chips, kind=LedgerKind.BUY_IN, table_id=table_id, note=note
    )


def cash_out(
    *,
    player: Player,
    chips: int,
    table_id: int | None = None,
    hand_id: int | None = None,
    note: str = "",
) -> LedgerEntry:
    """Credit the chips a player takes from a table (0 when leaving busted)."""
    if isinstance(chips, bool) or not isinstance(chips, int) or chips < 0:
        raise InvalidAmount("A cash-out must be zero or a positive whole number of chips.")
    return post_ledger_entry(
        player=player,
        amount=chips,
        kind=LedgerKind.CASH_OUT,
        table_id=table_id,
        hand_id=hand_id,
        note=note,
    )


def adjust(*, player: Player, amount: int, created_by: User, note: str = "") -> LedgerEntry:
    """A superuser's correction of a balance. The caller checks ``can_manage_users``."""
    return post_ledger_entry(
        player=player,
        amount=amount,
        kind=LedgerKind.ADJUSTMENT,
        note=note,
        created_by=created_by,
    )


# ---------------------------------------------------------------------------
# Personal API tokens (docs/security.md, "Token scopes")

PERSONAL_SCOPES = (TokenScope.BOTS.value,)
MAX_PERSONAL_TOKENS = 20


def create_personal_token(*, owner: User, name: str, scopes: list[str]) -> tuple[
        PersonalToken, str]:
    """A new personal token of ``owner`` with ``scopes``; returns it and the raw token
    (shown once; only its hash is stored)."""
    scopes = sorted(set(scopes))
    if not scopes or any(scope not in PERSONAL_SCOPES for scope in scopes):
        raise NotAllowed(f"A personal token's scopes are some of: {', '.join(PERSONAL_SCOPES)}.")
    if TokenScope.BOTS.value in scopes and not owner.can_manage_bots:
        raise NotAllowed("Only testers and superusers may manage bots.")
    problem = player_name_problem(name) if name else "Give the token a name."
    if problem:
        raise InvalidName(problem)
    if PersonalToken.objects.filter(owner=owner).count() >= MAX_PERSONAL_TOKENS:
        raise NotAllowed(f"At most {MAX_PERSONAL_TOKENS} personal tokens; revoke one first.")
    raw = generate_token(PERSONAL_PREFIX)
    token = PersonalToken.objects.create(owner=owner, name=name, scopes=scopes,
                                         token_hash=hash_token(raw))
    return token, raw


def revoke_personal_token(token: PersonalToken) -> None:
    """The token stops working at once (every request looks it up)."""
    token.delete()
