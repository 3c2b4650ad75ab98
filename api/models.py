"""Stored answers to commands sent with an ``Idempotency-Key`` header."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import models
from django.utils import timezone

KEY_LIFETIME = timedelta(hours=24)


class IdempotentRequest(models.Model):
    """The first answer to (caller, key): a repeat gets it back and changes nothing."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    bot_id = models.BigIntegerField(default=0)  # 0: the user's session, else the bot acting
    key = models.CharField(max_length=100)
    fingerprint = models.CharField(max_length=64)  # SHA-256 of table id + command
    status_code = models.PositiveSmallIntegerField()
    response = models.JSONField()
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "bot_id", "key"],
                                               name="api_idempotent_request_unique_key")]

    def __str__(self) -> str:
        return f"{self.key} ({self.status_code})"

    @classmethod
    def purge_expired(cls) -> int:
        return cls.objects.filter(created_at__lt=timezone.now() - KEY_LIFETIME).delete()[0]
