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

from .models import Player

TOKEN_BYTES = 32
TOKEN_PREFIX = "pkb_"


def generate_token() -> str:
    """A new raw token; give it to the owner once and store only :func:`hash_token`."""
    return TOKEN_PREFIX + secrets.token_urlsafe(TOKEN_BYTES)


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
