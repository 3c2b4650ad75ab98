"""Users with three role levels, their players (humans and bots) and play money.

Rights are properties on :class:`User` (``can_play``, ``can_manage_bots``, ...);
nothing outside this module compares role numbers. Money changes only through
:func:`accounts.services.post_ledger_entry`, which appends a :class:`LedgerEntry`
and updates the cached :attr:`Player.balance` in the same transaction.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.contrib.auth.models import UserManager as DjangoUserManager
from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower

from .validators import PLAYER_NAME_MAX, validate_player_name


class Role(models.IntegerChoices):
    """A lower number is a higher role, with every right of the roles below it."""

    SUPERUSER = 1, "Superuser"
    TESTER = 2, "Tester"
    PLAYER = 3, "Player"
    # The system account that owns the house bots (accounts.services.house_owner):
    # no right at all, always inactive, no usable password: it never logs in.
    SYSTEM = 4, "System"


class UserManager(DjangoUserManager["User"]):
    """Django's manager, except that a superuser is made by giving role 1."""

    def create_superuser(  # type: ignore[override]
        self, username: str, email: str | None = None, password: str | None = None, **extra: Any
    ) -> User:
        extra["role"] = Role.SUPERUSER
        return self._create_user(username, email, password, **extra)

    def create_user(  # type: ignore[override]
        self, username: str, email: str | None = None, password: str | None = None, **extra: Any
    ) -> User:
        extra.setdefault("role", Role.PLAYER)
        return self._create_user(username, email, password, **extra)


class User(AbstractUser):
    """A login. The role is the source of truth; Django's flags are derived from it.

    ``is_superuser`` and ``is_staff`` are set by :meth:`save` from the role (only
    superusers may use the admin), and a database constraint rejects any row where
    they disagree, so no code path (bulk update, raw SQL, admin) can split them.
    Likewise a :attr:`Role.SYSTEM` account is always inactive with an unusable
    password (:meth:`save` makes it so; a constraint rejects anything else).
    """

    role = models.PositiveSmallIntegerField(choices=Role.choices, default=Role.PLAYER)

    objects = UserManager()  # type: ignore[misc]

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=(
                    Q(role=Role.SUPERUSER, is_superuser=True, is_staff=True)
                    | (~Q(role=Role.SUPERUSER) & Q(is_superuser=False, is_staff=False))
                ),
                name="accounts_user_superuser_flag_matches_role",
            ),
            models.CheckConstraint(
                condition=~Q(role=Role.SYSTEM) | Q(is_active=False, password__startswith="!"),
                name="accounts_user_system_never_logs_in",
            ),
        ]

    def save(self, *args: Any, **kwargs: Any) -> None:
        self.is_superuser = self.is_staff = self.role == Role.SUPERUSER
        derived = {"is_superuser", "is_staff"}
        if self.role == Role.SYSTEM:
            self.is_active = False
            if self.has_usable_password():
                self.set_unusable_password()
            derived |= {"is_active", "password"}
        update_fields = kwargs.get("update_fields")
        if update_fields is not None and ("role" in update_fields or self.role == Role.SYSTEM):
            kwargs["update_fields"] = {*update_fields, *derived}
        super().save(*args, **kwargs)

    @property
    def is_system(self) -> bool:
        """The system account (owner of the house bots), not a person."""
        return self.role == Role.SYSTEM

    def _has_role(self, role: Role) -> bool:
        return bool(self.is_active) and self.role <= role

    # One property per right. Anonymous users have none of them (see permissions.py).
    @property
    def can_play(self) -> bool:
        """Sit at tables with one's own human players."""
        return self._has_role(Role.PLAYER)

    @property
    def can_create_tables(self) -> bool:
        """Create new games (tables) with chosen settings."""
        return self._has_role(Role.PLAYER)

    @property
    def can_manage_bots(self) -> bool:
        """Create, own and delete bots, and seat them at tables."""
        return self._has_role(Role.TESTER)

    @property
    def can_see_all_cards(self) -> bool:
        """See every player's hole cards, live and in hand histories."""
        return self._has_role(Role.SUPERUSER)

    @property
    def can_manage_users(self) -> bool:
        """Use the admin: users, roles, players and balance adjustments."""
        return self._has_role(Role.SUPERUSER)


class PlayerKind(models.TextChoices):
    HUMAN = "human", "Human"
    BOT = "bot", "Bot"


class PlayerQuerySet(models.QuerySet["Player"]):
    def live(self) -> PlayerQuerySet:
        return self.filter(deleted_at__isnull=True)

    def house(self) -> PlayerQuerySet:
        """House bots (played by the server; owned by the system account)."""
        return self.exclude(house_strategy="")


class Player(models.Model):
    """Someone who sits at a table: a user's human player or one of their bots.

    A player is never hard-deleted: hand histories and the ledger refer to it.
    Deleting detaches it from its owner, clears its token and sets ``deleted_at``;
    the name stays reserved so histories remain unambiguous.
    """

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="players",
    )
    name = models.CharField(max_length=PLAYER_NAME_MAX, validators=[validate_player_name])
    kind = models.CharField(max_length=8, choices=PlayerKind.choices, default=PlayerKind.HUMAN)
    description = models.TextField(blank=True, max_length=2000)
    # Cached sum of this player's ledger entries; written only by post_ledger_entry.
    balance = models.BigIntegerField(default=0, editable=False)
    # SHA-256 hex of the bot's API token; the raw token is shown once and never stored.
    token_hash = models.CharField(max_length=64, null=True, blank=True, unique=True, editable=False)
    token_created_at = models.DateTimeField(null=True, blank=True, editable=False)
    # A server-side ("house") bot plays with this botkit strategy; the table worker
    # makes it act. Empty for humans and for remote bots (which connect with a token).
    # House bots belong to the system account (accounts.services.house_owner), never
    # to a person: an owner is offered the player's turns and sees its cards.
    house_strategy = models.CharField(max_length=40, blank=True, default="")
    # The house bot's parameters for its style (botkit.house.check_params), e.g.
    # {"samples": 200} for ehs; {} for the style's defaults and for everyone else.
    house_params = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    deleted_at = models.DateTimeField(null=True, blank=True, editable=False)

    objects = PlayerQuerySet.as_manager()

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(
                Lower("name"),
                name="accounts_player_name_ci_unique",
                violation_error_message="This name is already taken by another player.",
            ),
            # A live player always has an owner; a deleted one never has.
            models.CheckConstraint(
                condition=(
                    Q(owner__isnull=False, deleted_at__isnull=True)
                    | Q(owner__isnull=True, deleted_at__isnull=False)
                ),
                name="accounts_player_owner_iff_live",
            ),
            models.CheckConstraint(
                condition=Q(kind=PlayerKind.BOT) | Q(token_hash__isnull=True),
                name="accounts_player_only_bots_have_tokens",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def is_bot(self) -> bool:
        return self.kind == PlayerKind.BOT

    @property
    def is_deleted(self) -> bool:
        return self.deleted_at is not None

    @property
    def is_house(self) -> bool:
        """A house bot: the server plays it (``house_strategy``)."""
        return bool(self.house_strategy)


class LedgerKind(models.TextChoices):
    BUY_IN = "buy_in", "Buy-in"
    CASH_OUT = "cash_out", "Cash-out"
    ADJUSTMENT = "adjustment", "Adjustment"


class AppendOnlyError(Exception):
    """Raised on any attempt to change or delete a ledger entry."""


class LedgerEntryQuerySet(models.QuerySet["LedgerEntry"]):
    def update(self, **kwargs: Any) -> int:
        raise AppendOnlyError("Ledger entries cannot be changed; post a new adjustment instead.")

    def delete(self) -> tuple[int, dict[str, int]]:
        raise AppendOnlyError("Ledger entries cannot be deleted; post a new adjustment instead.")


class LedgerEntry(models.Model):
    """One movement of play money. Append-only: the history is the truth.

    ``amount`` is signed chips as seen from the player's balance: a buy-in is
    negative (chips leave the balance for the table), a cash-out positive.
    ``table_id``/``hand_id`` are plain integers, not foreign keys: tables are never
    hard-deleted and the ledger must not depend on the tables app's schema.
    """

    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="ledger_entries")
    amount = models.BigIntegerField()
    kind = models.CharField(max_length=16, choices=LedgerKind.choices)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    table_id = models.BigIntegerField(null=True, blank=True)
    hand_id = models.BigIntegerField(null=True, blank=True)
    note = models.CharField(max_length=200, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )

    objects = LedgerEntryQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name_plural = "ledger entries"
        constraints = [
            models.CheckConstraint(
                condition=(
                    Q(kind=LedgerKind.BUY_IN, amount__lt=0)
                    | Q(kind=LedgerKind.CASH_OUT, amount__gte=0)
                    | (Q(kind=LedgerKind.ADJUSTMENT) & ~Q(amount=0))
                ),
                name="accounts_ledgerentry_amount_sign_matches_kind",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} {self.amount:+d} for {self.player_id}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise AppendOnlyError(
                "Ledger entries cannot be changed; post a new adjustment instead."
            )
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        raise AppendOnlyError("Ledger entries cannot be deleted; post a new adjustment instead.")


class TokenScope(models.TextChoices):
    """What a personal API token may do (docs/security.md, "Token scopes").

    A bot token has the implicit scope ``play`` (its tables, matches, own profile and
    statistics) and nothing else; managing bots needs the owner's session or a
    personal token with ``bots``.
    """

    PLAY = "play", "Play as the bot (bot tokens only)"
    BOTS = "bots", "Manage your bots: create, regenerate tokens, delete"


class PersonalToken(models.Model):
    """A user's API token for scripts that manage their bots. Stored as a SHA-256
    hash like bot tokens (:mod:`accounts.tokens`); the raw token is shown once."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                              related_name="personal_tokens")
    name = models.CharField(max_length=60)
    scopes = models.JSONField(default=list)  # TokenScope values, never "play"
    token_hash = models.CharField(max_length=64, unique=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.name} ({', '.join(self.scopes)})"
