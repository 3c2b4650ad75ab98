"""What a long-lived connection was authenticated with, and ending it when that ends.

A websocket is authenticated once, at its handshake, but it may stay open for hours.
Two mechanisms keep it from outliving its credentials (docs/security.md, "Sessions
and tokens"):

* **Checked on every command.** :class:`Credential` records, at the handshake, the bot
  token's hash or the session key and the user's password hash; :meth:`Credential.valid`
  re-reads them with one indexed query, in the same database call as the command it
  guards, so a rotated or deleted token, a logged-out session, a changed password or
  a deactivated account is refused (``session_ended``) even if no message announced it.
* **Closed at once.** :func:`announce` tells every process, after the commit, to close
  the connections of a bot, a session or a user (the channel-layer groups below; each
  consumer joins its own). If the channel layer is down the announcement is lost, and
  the first check above refuses the connection's next command instead.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.contrib.auth.signals import user_logged_out
from django.db import transaction
from django.db.models import Exists
from django.db.models.signals import pre_save
from django.dispatch import Signal, receiver
from django.utils import timezone

from .models import Player, User

log = logging.getLogger(__name__)
REVOKED = "auth.revoked"  # the channel-layer message type (handler: auth_revoked)
announced = Signal()
"""Sent with ``groups`` and ``reason`` as :func:`announce` sends its messages: live
tables (tables.owner) hand it to their processes' connections their own way."""


def bot_group(bot_id: int) -> str:
    return f"auth.bot.{bot_id}"


def user_group(user_id: int) -> str:
    """The user's own (session) connections."""
    return f"auth.user.{user_id}"


def owner_group(user_id: int) -> str:
    """The connections of the user's bots (they end when the owner is deactivated)."""
    return f"auth.owner.{user_id}"


def session_group(session_key: str) -> str:
    # A hash: the session key itself is a secret and group names end up in Redis.
    return "auth.session." + hashlib.sha256(session_key.encode()).hexdigest()[:32]


@dataclass(frozen=True)
class Credential:
    """How one connection was authenticated (exactly one of a bot token or a session)."""

    user_id: int
    bot_id: int | None = None
    token_hash: str | None = None
    session_key: str | None = None
    password: str = ""  # the user's password hash at the handshake

    @classmethod
    def of(cls, user: Any, bot: Player | None, session: Any = None) -> Credential | None:
        """The credential of an authenticated scope (``None`` for an anonymous one)."""
        if user is None or not user.is_authenticated:
            return None
        if bot is not None:
            return cls(user_id=user.pk, bot_id=bot.pk, token_hash=bot.token_hash)
        key = getattr(session, "session_key", None)
        return cls(user_id=user.pk, session_key=key, password=user.password)

    @property
    def groups(self) -> list[str]:
        """The channel-layer groups through which :func:`announce` reaches the connection."""
        if self.bot_id is not None:
            return [bot_group(self.bot_id), owner_group(self.user_id)]
        groups = [user_group(self.user_id)]
        if self.session_key:
            groups.append(session_group(self.session_key))
        return groups

    def valid(self) -> bool:
        """Whether the credential still holds: one indexed query (see module doc)."""
        if self.bot_id is not None:
            return bool(self.token_hash) and Player.objects.filter(
                pk=self.bot_id, token_hash=self.token_hash, deleted_at__isnull=True,
                owner_id=self.user_id, owner__is_active=True).exists()
        if not self.session_key:
            return False
        users = User.objects.filter(pk=self.user_id, is_active=True, password=self.password)
        if settings.SESSION_ENGINE == "django.contrib.sessions.backends.db":
            from django.contrib.sessions.models import Session

            live = Session.objects.filter(session_key=self.session_key,
                                          expire_date__gt=timezone.now())
            return users.filter(Exists(live)).exists()
        from importlib import import_module

        store = import_module(settings.SESSION_ENGINE).SessionStore
        return users.exists() and bool(store().exists(self.session_key))


def still_valid(credentials: list[Credential]) -> set[Credential]:
    """The ones of ``credentials`` that still hold: every bot token in one query (a
    process re-checks all its connections at once, tables.owner), sessions one by one."""
    bots = [c for c in credentials if c.bot_id is not None and c.token_hash]
    rows = {pk: (token, owner) for pk, token, owner in Player.objects.filter(
        pk__in=[c.bot_id for c in bots], deleted_at__isnull=True, owner__is_active=True,
    ).values_list("pk", "token_hash", "owner_id")} if bots else {}
    valid = {c for c in bots if rows.get(c.bot_id) == (c.token_hash, c.user_id)}
    valid.update(c for c in credentials if c.bot_id is None and c.valid())
    return valid


# ------------------------------------------------------------------ announcing


def announce(*groups: str, reason: str) -> None:
    """After the commit, close every connection in ``groups`` (best effort: if the
    channel layer is down, :meth:`Credential.valid` refuses their next command)."""
    def send() -> None:
        layer = get_channel_layer()
        for group in groups if layer is not None else ():
            try:
                async_to_sync(layer.group_send)(group, {"type": REVOKED, "reason": reason})
            except Exception as error:  # the per-command check is the backstop
                log.warning("could not announce %s to %s: %s", reason, group, error)
        for _receiver, error in announced.send_robust(None, groups=groups, reason=reason):
            if error is not None:
                log.warning("could not announce %s: %s", reason, error)

    transaction.on_commit(send)


def bot_revoked(bot_id: int, reason: str = "token_revoked") -> None:
    announce(bot_group(bot_id), reason=reason)


def user_revoked(user_id: int, reason: str) -> None:
    """Every connection of the user: their sessions' and their bots'."""
    announce(user_group(user_id), owner_group(user_id), reason=reason)


@receiver(user_logged_out)
def _logged_out(sender: Any, request: Any, user: Any, **kwargs: Any) -> None:
    key = getattr(getattr(request, "session", None), "session_key", None)
    if key:
        announce(session_group(key), reason="logged_out")


@receiver(pre_save, sender=User)
def _user_changing(sender: Any, instance: User, update_fields: Any = None, **kwargs: Any) -> None:
    """A changed password ends the user's session connections (the browser that changed
    it reconnects with its updated session); deactivation ends all of them."""
    if instance.pk is None:
        return
    if update_fields is not None and not {"password", "is_active"} & set(update_fields):
        return  # e.g. last_login on every login: no query
    old = User.objects.filter(pk=instance.pk).values("password", "is_active").first()
    if old is None:
        return
    if old["is_active"] and not instance.is_active:
        user_revoked(instance.pk, "account_deactivated")
    elif old["password"] != instance.password:
        announce(user_group(instance.pk), reason="password_changed")
