"""Bot API tokens: generated here, stored only as a SHA-256 hash.

A token is ``pkb_`` + ``secrets.token_urlsafe(32)`` (256 bits of entropy). The
prefix makes a token recognisable (to a secret scanner, in a log) and keeps it
from starting with ``-``, which a command line would read as an option. A plain
SHA-256 is enough to store it: unlike passwords, it cannot be guessed from a
dictionary, so a slow hash buys nothing. Lookup is by the hash (an indexed,
unique column), so there is no secret-dependent comparison to time.
"""

from __future__ import annotations

import hashlib
import secrets

from django.utils import timezone

from .models import PersonalToken, Player

TOKEN_BYTES = 32
TOKEN_PREFIX = "pkb_"  # a bot's token: it plays
PERSONAL_PREFIX = "pkp_"  # a user's personal token: its scopes say what it may do


def generate_token(prefix: str = TOKEN_PREFIX) -> str:
    """A new raw token; give it to the owner once and store only :func:`hash_token`."""
    return prefix + secrets.token_urlsafe(TOKEN_BYTES)


def hash_token(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()


def player_for_bot_token(raw: str) -> Player | None:
    """The live bot whose current token is ``raw``, or None.

    A deleted bot has no token hash, and regenerating replaces the hash, so old
    tokens find nothing.
    """
    if not raw:
        return None
    return (
        Player.objects.live()
        .select_related("owner")
        .filter(token_hash=hash_token(raw), owner__is_active=True)
        .first()
    )


def personal_token_for(raw: str) -> PersonalToken | None:
    """The personal token ``raw`` of an active user, or None; notes when it was used
    (at most once a minute, so a busy script does not write on every request)."""
    if not raw.startswith(PERSONAL_PREFIX):
        return None
    token = (PersonalToken.objects.select_related("owner")
             .filter(token_hash=hash_token(raw), owner__is_active=True).first())
    if token is not None:
        now = timezone.now()
        if token.last_used_at is None or (now - token.last_used_at).total_seconds() > 60:
            PersonalToken.objects.filter(pk=token.pk).update(last_used_at=now)
            token.last_used_at = now
    return token
