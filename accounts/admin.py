"""The admin, for superusers only (``is_staff`` is derived from role 1).

Users: role filter and search, change the role, deactivate, delete (players are
soft-deleted through the service; the system account that owns the house bots
cannot be deleted). Players: search, kind and house-bot filters, read-only
balance, an "adjust balance" action that posts ledger entries. Ledger: read-only.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse

from . import services
from .errors import AccountsError
from .forms import AdjustBalanceForm
from .models import LedgerEntry, PersonalToken, Player, PlayerKind, User


@admin.register(User)
class UserAdmin(DjangoUserAdmin):
    list_display = ("username", "email", "role", "is_active", "date_joined", "last_login")
    list_filter = ("role", "is_active")
    search_fields = ("username", "email", "first_name", "last_name")
    ordering = ("username",)
    # is_superuser / is_staff follow the role; groups and permissions are unused.
    fieldsets = (
        (None, {"fields": ("username", "password")}),
        ("Personal info", {"fields": ("first_name", "last_name", "email")}),
        ("Role and access", {"fields": ("role", "is_active")}),
        ("Important dates", {"fields": ("last_login", "date_joined")}),
    )
    add_fieldsets = (
        (None, {"classes": ("wide",), "fields": ("username", "role", "password1", "password2")}),
    )
    readonly_fields = ("last_login", "date_joined")
    actions = ["deactivate"]

    @admin.action(description="Deactivate selected users (they can no longer log in)")
    def deactivate(self, request: HttpRequest, queryset: QuerySet[User]) -> None:
        count = 0
        for user in queryset.filter(is_active=True):
            user.is_active = False
            user.save(update_fields=["is_active"])
            count += 1
        self.message_user(request, f"{count} user(s) deactivated.", messages.SUCCESS)

    def delete_model(self, request: HttpRequest, obj: User) -> None:
        try:
            services.delete_user(obj)
        except AccountsError as exc:
            self.message_user(
                request, f"{obj.username} was not deleted: {exc.message}", messages.ERROR
            )

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[User]) -> None:
        for user in queryset:
            self.delete_model(request, user)


class LiveFilter(admin.SimpleListFilter):
    title = "status"
    parameter_name = "status"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("live", "Live"), ("deleted", "Deleted")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Player]) -> QuerySet[Player]:
        if self.value() == "live":
            return queryset.filter(deleted_at__isnull=True)
        if self.value() == "deleted":
            return queryset.filter(deleted_at__isnull=False)
        return queryset


class HouseFilter(admin.SimpleListFilter):
    title = "house bot"
    parameter_name = "house"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("yes", "House bots (owned by the system account)"), ("no", "Others")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Player]) -> QuerySet[Player]:
        if self.value() == "yes":
            return queryset.exclude(house_strategy="")
        if self.value() == "no":
            return queryset.filter(house_strategy="")
        return queryset


class PlayerAdminForm(forms.ModelForm):  # type: ignore[type-arg]
    """A house bot's style and parameters are checked as on the "House bots" page
    (``accounts.services.check_house_bot``)."""

    class Meta:
        model = Player
        fields = ("name", "house_strategy", "house_params", "description")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if "house_strategy" in self.fields:
            self.fields["house_strategy"] = forms.ChoiceField(
                label="Style", choices=[(s, s) for s in services.house_bot_styles()],
                help_text="The house-bot style the table worker plays it with.")
        if "house_params" in self.fields:
            self.fields["house_params"].help_text = (
                'The style\'s parameters as a JSON object, e.g. {"samples": 200} for ehs.')
            self.fields["house_params"].required = False

    def clean(self) -> dict[str, Any]:
        data: dict[str, Any] = super().clean() or {}
        if "house_strategy" in self.fields and not self.errors:
            try:
                data["house_strategy"], data["house_params"] = services.check_house_bot(
                    data.get("house_strategy"), data.get("house_params") or {})
            except AccountsError as exc:
                raise forms.ValidationError(exc.message, code=exc.code) from None
        return data


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    """Players; "Add player" makes a house bot (people's players and bots are made
    from "My account"). A house bot's style and parameters may be changed here."""

    form = PlayerAdminForm
    list_display = ("name", "kind", "house_strategy", "owner", "balance", "created_at",
                    "deleted_at")
    list_filter = ("kind", HouseFilter, LiveFilter)
    search_fields = ("name", "owner__username")
    list_select_related = ("owner",)
    fields = ("name", "kind", "house_strategy", "house_params", "owner", "description",
              "balance", "created_at", "deleted_at")
    readonly_fields = ("kind", "house_strategy", "house_params", "owner", "balance",
                       "created_at", "deleted_at")
    actions = ["adjust_balance", "soft_delete"]

    def get_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        if obj is None:  # adding: a house bot
            return ("name", "house_strategy", "house_params", "description")
        return self.fields

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        if obj is None:
            return ()
        if obj.is_house and not obj.is_deleted:
            return tuple(f for f in self.readonly_fields
                         if f not in ("house_strategy", "house_params"))
        return self.readonly_fields

    def save_model(self, request: HttpRequest, obj: Player, form: Any, change: bool) -> None:
        if not change:  # a new house bot belongs to the system account
            obj.owner, obj.kind = services.house_owner(), PlayerKind.BOT
            if not obj.description:
                obj.description = f"House bot ({obj.house_strategy})."
        super().save_model(request, obj, form, change)

    def has_add_permission(self, request: HttpRequest) -> bool:
        # Only house bots are added here; people's players and bots come from "My
        # account" (names, tokens, ownership).
        return bool(getattr(request.user, "can_manage_users", False))

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # never hard-deleted; see the "soft_delete" action

    @admin.action(description="Delete selected players (kept for hand histories)")
    def soft_delete(self, request: HttpRequest, queryset: QuerySet[Player]) -> None:
        for player in queryset.live():  # type: ignore[attr-defined]
            try:
                services.delete_player(player)
            except AccountsError as exc:
                self.message_user(request, exc.message, messages.ERROR)
            else:
                self.message_user(request, f"“{player.name}” deleted.", messages.SUCCESS)

    @admin.action(description="Adjust balance of selected players…")
    def adjust_balance(
        self, request: HttpRequest, queryset: QuerySet[Player]
    ) -> HttpResponse | None:
        """Intermediate page: the amount and a note, then one adjustment per player."""
        if not request.user.can_manage_users:  # type: ignore[union-attr]
            self.message_user(request, "Only superusers may adjust balances.", messages.ERROR)
            return None
        form = AdjustBalanceForm(request.POST if "apply" in request.POST else None)
        if form.is_valid():
            done = 0
            for player in queryset:
                try:
                    services.adjust(
                        player=player,
                        amount=form.cleaned_data["amount"],
                        note=form.cleaned_data["note"],
                        created_by=request.user,  # type: ignore[arg-type]
                    )
                except AccountsError as exc:
                    self.message_user(request, f"{player.name}: {exc.message}", messages.ERROR)
                else:
                    done += 1
            self.message_user(request, f"Adjusted {done} balance(s).", messages.SUCCESS)
            return None
        context = {
            **self.admin_site.each_context(request),
            "title": "Adjust balance",
            "form": form,
            "players": queryset,
            "opts": self.model._meta,
            "action_checkbox_name": admin.helpers.ACTION_CHECKBOX_NAME,
        }
        return TemplateResponse(request, "admin/accounts/adjust_balance.html", context)


@admin.register(LedgerEntry)
class LedgerEntryAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    """Read-only: the ledger is append-only and written by the services."""

    list_display = (
        "created_at",
        "player",
        "kind",
        "amount",
        "table_id",
        "hand_id",
        "created_by",
        "note",
    )
    list_filter = ("kind",)
    search_fields = ("player__name", "note")
    list_select_related = ("player", "created_by")
    date_hierarchy = "created_at"

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(PersonalToken)
class PersonalTokenAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    """Superusers see and revoke (delete) personal tokens; the raw token is never stored."""

    list_display = ["name", "owner", "scopes", "created_at", "last_used_at"]
    search_fields = ["name", "owner__username"]
    readonly_fields = ["owner", "name", "scopes", "created_at", "last_used_at"]

    def has_add_permission(self, request: Any) -> bool:
        return False  # made by their owners, who see the raw token once
