"""Request validation and response shapes (also the OpenAPI schema)."""

from __future__ import annotations

import json
from typing import Any

from rest_framework import serializers

from accounts.validators import PLAYER_NAME_MAX, validate_multiline_text, validate_plain_text
from engine.game import MAX_CHIPS  # no amount above this (docs/security.md, "Input bounds")
from engine.registry import GAMES

MAX_BLIND = MAX_CHIPS // 100  # Hold'em's largest blind or ante (its settings schema)


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


class GameSerializer(serializers.Serializer):
    """A registered game: ``engine.game.GameInfo.to_json()`` plus its settings schema."""

    key = serializers.CharField(help_text="The `game` of a table, e.g. `holdem`.")
    title = serializers.CharField()
    min_players = serializers.IntegerField()
    max_players = serializers.IntegerField()
    economy = serializers.BooleanField(help_text="Chips bought in and cashed out; else scores.")
    ends = serializers.BooleanField(help_text="The game ends (standings); else a cash game.")
    teams = serializers.IntegerField(help_text="Partnerships; 0 = everyone for themself.")
    round_name = serializers.CharField(help_text="`hand`, `deal`, `game`...")
    seat_commands = serializers.ListField(child=serializers.CharField())
    seat_options = serializers.DictField(help_text="JSON schema of the `sit` command's options.")
    house_bots = serializers.ListField(child=serializers.CharField())
    house_bot_styles = serializers.ListField(
        child=serializers.DictField(), help_text='Every house-bot style that plays the game '
        'with its parameters\' JSON schema: [{"style": "ehs", "params": {...}}] '
        '(docs/house-bots.md).')
    export_format = serializers.CharField(help_text="`phh` for poker; empty = JSON.")
    stats = serializers.ListField(child=serializers.CharField())
    settings_schema = serializers.DictField(
        help_text="JSON schema (`type: object`) of the `settings` of `POST /api/v1/tables/`.")


class TableSerializer(serializers.Serializer):
    """A table in lists: the game, its settings and listing facts. The listing facts
    are also repeated flat (Hold'em: ``structure``, ``small_blind``..., as clients of
    the first API version read them)."""

    id = serializers.IntegerField()
    name = serializers.CharField()
    game = serializers.CharField(help_text="The game's key (`GET /api/v1/games/`).")
    game_name = serializers.CharField(help_text="The game's name for these settings.")
    game_info = serializers.DictField(required=False,
                                      help_text="The game's description (as in `/games/`).")
    settings = serializers.DictField(
        allow_null=True, help_text="The game's settings, defaults filled in.")
    facts = serializers.DictField(
        allow_null=True, help_text="The game's listing facts (Hold'em: structure, blinds, "
        "ante, buy-ins).")
    seats = serializers.IntegerField()
    players = serializers.IntegerField()
    free_seats = serializers.IntegerField()
    turn_seconds = serializers.IntegerField()
    rules = serializers.CharField(
        help_text="Digest of the game and its settings: tables with the same rules share a "
        "leaderboard (`GET /api/v1/games/<key>/leaderboard/?rules=`).")
    status = serializers.CharField(help_text="`waiting`, `running`, `closed` or `finished` "
                                   "(a game that ended).")
    standings = serializers.ListField(child=serializers.DictField(), required=False,
                                      allow_null=True,
                                      help_text="Final standings of a game that ended: "
                                      "`[{\"seat\", \"player_id\", \"rank\", \"score\", "
                                      "\"name\"}]`.")
    created_at = serializers.DateTimeField()
    player_names = serializers.ListField(child=serializers.CharField())
    structure = serializers.CharField(required=False, help_text="Hold'em fact.")
    small_blind = serializers.IntegerField(required=False, help_text="Hold'em fact.")
    big_blind = serializers.IntegerField(required=False, help_text="Hold'em fact.")
    ante = serializers.IntegerField(required=False, help_text="Hold'em fact.")
    min_buy_in = serializers.IntegerField(required=False, help_text="Hold'em fact.")
    max_buy_in = serializers.IntegerField(required=False, allow_null=True,
                                          help_text="Hold'em fact (null: no maximum).")


class LeaderboardEntrySerializer(serializers.Serializer):
    """One finish: a player's place in the final standings of one finished table."""

    rank = serializers.IntegerField(help_text="Position on this leaderboard (1 = best).")
    name = serializers.CharField(help_text="The player's name when the game ended.")
    player = serializers.IntegerField(allow_null=True, help_text="The player's id (null if "
                                      "the player was removed).")
    score = serializers.IntegerField(help_text="The final score (higher is better).")
    place = serializers.IntegerField(help_text="The place at its table (1 = winner).")
    table = serializers.IntegerField()
    table_name = serializers.CharField()
    rules = serializers.CharField(help_text="The rule set (digest) it was played under.")
    game_name = serializers.CharField(help_text="The game's name for those settings.")
    finished_at = serializers.DateTimeField()


class LeaderboardSerializer(serializers.Serializer):
    game = serializers.CharField(help_text="The game's key.")
    title = serializers.CharField()
    ends = serializers.BooleanField(help_text="False: a cash game, whose tables never finish "
                                    "(its leaderboard stays empty).")
    rules = serializers.CharField(allow_null=True,
                                  help_text="The rule set asked for; null: every rule set.")
    rule_set = serializers.CharField(allow_null=True, help_text="The rule-set identity "
                                     "asked for (`?rule_set=`); null: not asked.")
    settings = serializers.DictField(allow_null=True, help_text="That rule set's settings "
                                     "(null without `rules`, or for an unknown digest).")
    game_name = serializers.CharField(allow_null=True,
                                      help_text="That rule set's name, e.g. the listing name.")
    limit = serializers.IntegerField()
    results = LeaderboardEntrySerializer(many=True, help_text="Best first: highest score, "
                                         "then earliest finish.")


# The flat Hold'em fields of the first API version: still accepted, mapped into
# ``settings`` when ``settings`` is absent.
HOLDEM_FLAT_FIELDS = ("structure", "small_blind", "big_blind", "ante", "seats", "min_buy_in",
                      "max_buy_in")
MAX_SETTINGS_BYTES = 10_000


def _check_settings_values(value: Any, depth: int = 0) -> None:
    """No huge numbers, no deep nesting: the game validates the meaning."""
    if depth > 5:
        raise serializers.ValidationError("The settings are nested too deeply.")
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return
    if isinstance(value, int | float):
        if not -MAX_CHIPS <= value <= MAX_CHIPS:
            raise serializers.ValidationError(f"A number is out of range (±{MAX_CHIPS}).")
        return
    items = value.values() if isinstance(value, dict) else value
    for item in items:
        _check_settings_values(item, depth + 1)


class TableCreateSerializer(serializers.Serializer):
    """``{"name", "game", "settings", "turn_seconds"}``; or, for Hold'em, the flat fields
    of the first API version instead of ``settings``."""

    name = serializers.CharField(max_length=80, validators=[validate_plain_text])
    game = serializers.ChoiceField(
        choices=[], default="holdem",
        help_text="A game's key from `GET /api/v1/games/` (default `holdem`).")
    settings = serializers.DictField(
        required=False,
        help_text="The game's settings, validated by the game: see `settings_schema` in "
        "`GET /api/v1/games/`. Hold'em: `structure`, `small_blind`, `big_blind`, `ante`, "
        "`seats`, `min_buy_in`, `max_buy_in`.")
    turn_seconds = serializers.IntegerField(min_value=3, max_value=3600, required=False)
    structure = serializers.ChoiceField(choices=["NL", "PL", "FL"], required=False,
                                        help_text="Hold'em, without `settings` (default NL).")
    small_blind = serializers.IntegerField(min_value=1, max_value=MAX_BLIND,
                                           required=False, help_text="Hold'em (default 1).")
    big_blind = serializers.IntegerField(min_value=1, max_value=MAX_BLIND,
                                         required=False, help_text="Hold'em (default 2).")
    ante = serializers.IntegerField(min_value=0, max_value=MAX_BLIND, required=False,
                                    help_text="Hold'em (default 0).")
    seats = serializers.IntegerField(min_value=2, max_value=10, required=False,
                                     help_text="Hold'em (default 6).")
    min_buy_in = serializers.IntegerField(min_value=1, max_value=MAX_CHIPS, required=False,
                                          help_text="Hold'em (default 20 big blinds).")
    max_buy_in = serializers.IntegerField(
        min_value=1, max_value=MAX_CHIPS, required=False, allow_null=True,
        help_text="Hold'em (default 100 big blinds, FL none; null = no maximum).")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["game"].choices = list(GAMES)  # read now: games may be registered later

    def validate_settings(self, value: dict[str, Any]) -> dict[str, Any]:
        if len(json.dumps(value)) > MAX_SETTINGS_BYTES:
            raise serializers.ValidationError(
                f"The settings are longer than {MAX_SETTINGS_BYTES} characters.")
        _check_settings_values(value)
        return value

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        flat = {name: attrs.pop(name) for name in HOLDEM_FLAT_FIELDS if name in attrs}
        if "settings" in attrs:
            if flat:
                raise serializers.ValidationError({name: [
                    "Send either `settings` or the flat Hold'em fields, not both."]
                    for name in flat})
        else:
            attrs["settings"] = flat
        return attrs


class CommandSerializer(serializers.Serializer):
    """A table command, exactly as on the websocket (docs/protocol.md)."""

    type = serializers.ChoiceField(
        choices=["sit", "leave", "sit_out", "sit_in", "wait_for_bb", "add_chips", "act",
                 "skip_formalities"])
    seat = serializers.IntegerField(min_value=0, max_value=9, required=False)
    buy_in = serializers.IntegerField(min_value=1, max_value=MAX_CHIPS, required=False)
    amount = serializers.IntegerField(min_value=1, max_value=MAX_CHIPS, required=False)
    player = serializers.IntegerField(min_value=1, required=False)
    wait_for_bb = serializers.BooleanField(required=False)
    on = serializers.BooleanField(
        required=False, help_text="skip_formalities: answer show-or-muck prompts with muck "
        "at once (on for people when they sit, off for bots).")
    hand = serializers.IntegerField(min_value=0, required=False,
                                    help_text="act: the hand id of `your_turn`.")
    version = serializers.IntegerField(min_value=0, required=False,
                                       help_text="act: the version of `your_turn`.")
    action = serializers.DictField(
        required=False,
        help_text='act: {"kind": "fold|check|call|bet|raise|show|muck", "amount": raise-to}.')
    policy = serializers.ListField(
        child=serializers.DictField(), required=False, max_length=64,
        help_text='act, optional: the probability of each move, [{"move": {...}, "p": 0.4}, '
        '...] (docs/protocol.md, Policies); stored with the hand, seen only by the seat\'s '
        'owner and superusers.')


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
    name = serializers.CharField(max_length=PLAYER_NAME_MAX, validators=[validate_plain_text])
    description = serializers.CharField(max_length=2000, required=False, default="",
                                        allow_blank=True, validators=[validate_multiline_text])


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
    aivat = serializers.BooleanField(
        required=False, help_text="Hold'em: AIVAT-corrected results beside raw and duplicate "
        "(docs/aivat.md; about 1–5 ms of CPU per hand). Default true, false with lanes.")
    lanes = serializers.IntegerField(
        required=False, help_text="Remote bots: deals played at once, 1 to 16 (default 1; "
        "more needs aivat false). Every message to a bot then names its lane "
        "(docs/protocol.md, \"Lanes\").")
    game = serializers.CharField(
        required=False, max_length=32,
        help_text="A registered game (GET /api/v1/games/); default Texas Hold'em, whose "
                  "table is structure, blinds and stack_bb.")
    settings = serializers.JSONField(
        required=False, help_text="Another game's table settings (its settings_schema).")
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
