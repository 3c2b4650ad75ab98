"""Request validation and response shapes (also the OpenAPI schema)."""

from __future__ import annotations

from rest_framework import serializers

from accounts.validators import PLAYER_NAME_MAX

MAX_CHIPS = 10**12  # no amount above this (the database holds 64-bit integers)


class ErrorDetailSerializer(serializers.Serializer):
    code = serializers.CharField(help_text="Stable machine-readable code, e.g. `stale_version`.")
    message = serializers.CharField(help_text="One sentence for a human.")
    details = serializers.DictField(help_text="Extra data, e.g. `scope` and `wait_seconds`.")


class ErrorSerializer(serializers.Serializer):
    error = ErrorDetailSerializer()


class MeSerializer(serializers.Serializer):
    username = serializers.CharField()
    role = serializers.CharField()
    rights = serializers.DictField(child=serializers.BooleanField())
    bot = serializers.DictField(allow_null=True)
    players = serializers.ListField(child=serializers.DictField())


class TableSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    game = serializers.CharField()
    game_name = serializers.CharField()
    structure = serializers.CharField()
    small_blind = serializers.IntegerField()
    big_blind = serializers.IntegerField()
    ante = serializers.IntegerField()
    seats = serializers.IntegerField()
    players = serializers.IntegerField()
    free_seats = serializers.IntegerField()
    min_buy_in = serializers.IntegerField()
    max_buy_in = serializers.IntegerField(allow_null=True)
    turn_seconds = serializers.IntegerField()
    status = serializers.CharField()
    created_at = serializers.DateTimeField()
    player_names = serializers.ListField(child=serializers.CharField())


class TableCreateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=80)
    game = serializers.ChoiceField(choices=["holdem"], default="holdem")
    structure = serializers.ChoiceField(choices=["NL", "PL", "FL"], default="NL")
    small_blind = serializers.IntegerField(min_value=1, max_value=MAX_CHIPS // 1000, default=1)
    big_blind = serializers.IntegerField(min_value=1, max_value=MAX_CHIPS // 1000, default=2)
    ante = serializers.IntegerField(min_value=0, max_value=MAX_CHIPS // 1000, default=0)
    seats = serializers.IntegerField(min_value=2, max_value=10, default=6)
    min_buy_in = serializers.IntegerField(min_value=1, max_value=MAX_CHIPS, required=False)
    max_buy_in = serializers.IntegerField(min_value=1, max_value=MAX_CHIPS, required=False,
                                          allow_null=True)
    turn_seconds = serializers.IntegerField(min_value=3, max_value=3600, required=False)


class CommandSerializer(serializers.Serializer):
    """A table command, exactly as on the websocket (docs/protocol.md)."""

    type = serializers.ChoiceField(
        choices=["sit", "leave", "sit_out", "sit_in", "wait_for_bb", "add_chips", "act"])
    seat = serializers.IntegerField(min_value=0, max_value=9, required=False)
    buy_in = serializers.IntegerField(min_value=1, max_value=MAX_CHIPS, required=False)
    amount = serializers.IntegerField(min_value=1, max_value=MAX_CHIPS, required=False)
    player = serializers.IntegerField(min_value=1, required=False)
    wait_for_bb = serializers.BooleanField(required=False)
    hand = serializers.IntegerField(min_value=0, required=False,
                                    help_text="act: the hand id of `your_turn`.")
    version = serializers.IntegerField(min_value=0, required=False,
                                       help_text="act: the version of `your_turn`.")
    action = serializers.DictField(
        required=False,
        help_text='act: {"kind": "fold|check|call|bet|raise|show|muck", "amount": raise-to}.')


class CommandResultSerializer(serializers.Serializer):
    table = serializers.IntegerField()
    version = serializers.IntegerField()


class WaitSerializer(serializers.Serializer):
    changed = serializers.BooleanField(help_text="The version is above `since`.")
    version = serializers.IntegerField()
    your_turn = serializers.DictField(allow_null=True,
                                      help_text="The `your_turn` message if you are to act.")
    snapshot = serializers.DictField(help_text="The table as you may see it.")


class HandSummarySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    table = serializers.IntegerField()
    table_name = serializers.CharField()
    number = serializers.IntegerField()
    started_at = serializers.DateTimeField()
    ended_at = serializers.DateTimeField()
    players = serializers.ListField(child=serializers.DictField())


class BotSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    description = serializers.CharField()
    balance = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    token_created_at = serializers.DateTimeField(allow_null=True)


class BotCreateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=PLAYER_NAME_MAX)
    description = serializers.CharField(max_length=2000, required=False, default="",
                                        allow_blank=True)


class BotTokenSerializer(BotSerializer):
    token = serializers.CharField(help_text="Shown once: store it now.")


class MatchCreateSerializer(serializers.Serializer):
    bots = serializers.ListField(
        child=serializers.JSONField(), min_length=2, max_length=10,
        help_text="One per seat: a house bot name (\"rule_based\") or a remote bot "
                  "{\"remote\": \"<bot player name>\"} (also \"remote:<name>\"), played by its "
                  "owner with the SDK over /ws/matches/<id>/.")
    hands = serializers.IntegerField(min_value=1, default=1000)
    seed = serializers.IntegerField(min_value=0, max_value=2**62, default=1)
    duplicate = serializers.BooleanField(default=False)
    structure = serializers.ChoiceField(choices=["NL", "PL", "FL"], default="NL")
    small_blind = serializers.IntegerField(min_value=1, max_value=1_000_000, default=1)
    big_blind = serializers.IntegerField(min_value=1, max_value=1_000_000, default=2)
    stack_bb = serializers.IntegerField(min_value=1, max_value=10_000, default=200)
    turn_seconds = serializers.FloatField(
        required=False, allow_null=True, default=None,
        help_text="Remote bots: seconds per decision (default 10); then the default action.")
    connect_seconds = serializers.FloatField(
        required=False, allow_null=True, default=None,
        help_text="Remote bots: seconds to wait for every remote bot to connect (default 120).")


class MatchSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    title = serializers.CharField()
    status = serializers.ChoiceField(choices=["queued", "waiting", "running", "done", "failed"])
    settings = serializers.DictField()
    participants = serializers.ListField(child=serializers.DictField())
    results = serializers.DictField(allow_null=True)
    error = serializers.CharField()
    error_code = serializers.CharField()
    created_by = serializers.CharField(allow_null=True)
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    has_phh = serializers.BooleanField()


class PlayerStatsSerializer(serializers.Serializer):
    player = serializers.DictField()
    stats = serializers.DictField()
    last_hand_id = serializers.IntegerField()
    cumulative = serializers.DictField()
