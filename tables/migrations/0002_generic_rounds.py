"""Tables of any game: settings and listing facts as JSON, rounds with their chance
input, hidden events and the game's record, results with public detail and secret
parts, final standings. Existing Hold'em data is carried over without loss."""

import hashlib
import json
import tomllib

from django.db import migrations, models
import django.db.models.deletion

HIDDEN = "??"


def rules_digest(game, settings):
    text = json.dumps({"game": game, "settings": settings}, sort_keys=True,
                      separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:40]


def forward(apps, schema_editor):
    Table = apps.get_model("tables", "Table")
    Hand = apps.get_model("tables", "Hand")
    HandPlayer = apps.get_model("tables", "HandPlayer")
    for table in Table.objects.all().iterator():
        settings = dict((table.state or {}).get("settings") or {})
        table.settings = settings
        table.facts = {"structure": table.structure, "small_blind": table.small_blind,
                       "big_blind": table.big_blind, "ante": table.ante,
                       "min_buy_in": table.min_buy_in, "max_buy_in": table.max_buy_in}
        table.rules = rules_digest(table.game, settings)
        table.save(update_fields=["settings", "facts", "rules"])
    for hand in Hand.objects.all().iterator():
        players = sorted(HandPlayer.objects.filter(hand=hand), key=lambda p: p.position)
        by_position = {p.position: p for p in players}
        participants = []
        for position, seat in enumerate(hand.seats or []):
            player = by_position.get(position)
            participants.append(str(player.player_id) if player and player.player_id else "")
        if hand.ended_at is None:  # a hand in progress: its players are at the table
            state = hand.table.state or {}
            seats = state.get("seats") or []
            participants = [(seats[s] or {}).get("player_id", "") if s < len(seats) else ""
                            for s in hand.seats or []]
        hidden = []
        for index, event in enumerate(hand.events or []):
            if event.get("type") == "HoleCardsDealt":
                cards = event.get("cards", "")
                hidden.append([index, event.get("player"),
                               {**event, "cards": HIDDEN * (len(cards) // 2)}])
        fields = {}
        if hand.phh:
            try:
                fields = tomllib.loads(hand.phh)
            except tomllib.TOMLDecodeError:
                fields = {}
        hand.participants = participants
        hand.chance = {"deck": hand.deck} if hand.deck else {}
        hand.hidden = hidden
        hand.record = {"fields": fields, "seats": list(hand.seats or []),
                       "shown": [p.position for p in players if p.shown]}
        hand.save(update_fields=["participants", "chance", "hidden", "record"])
        for player in players:
            player.detail = {"position": player.position, "starting_stack": player.starting_stack,
                             "shown": player.hole_cards if player.shown else None}
            player.secret = {"cards": player.hole_cards}
            player.save(update_fields=["detail", "secret"])


def backward(apps, schema_editor):
    Hand = apps.get_model("tables", "Hand")
    HandPlayer = apps.get_model("tables", "HandPlayer")
    for hand in Hand.objects.all().iterator():
        hand.deck = (hand.chance or {}).get("deck", "")
        hand.setup = {}
        hand.phh = ""
        hand.save(update_fields=["deck", "setup", "phh"])
    for player in HandPlayer.objects.all().iterator():
        player.starting_stack = (player.detail or {}).get("starting_stack", 0)
        player.hole_cards = (player.secret or {}).get("cards", "")
        player.shown = bool((player.detail or {}).get("shown"))
        player.save(update_fields=["starting_stack", "hole_cards", "shown"])


class Migration(migrations.Migration):

    dependencies = [
        ("accounts", "0001_initial"),
        ("tables", "0001_initial"),
    ]

    operations = [
        migrations.AddField("table", "settings", models.JSONField(default=dict)),
        migrations.AddField("table", "facts", models.JSONField(default=dict)),
        migrations.AddField("table", "rules", models.CharField(
            blank=True, db_index=True, max_length=40)),
        migrations.AddField("table", "standings", models.JSONField(blank=True, null=True)),
        migrations.AlterField("table", "game", models.CharField(
            db_index=True, default="holdem", max_length=32)),
        migrations.AlterField("table", "status", models.CharField(
            choices=[("waiting", "Waiting for players"), ("running", "Running"),
                     ("closed", "Closed"), ("finished", "Finished")],
            db_index=True, default="waiting", max_length=10)),
        migrations.AddField("hand", "participants", models.JSONField(default=list)),
        migrations.AddField("hand", "chance", models.JSONField(default=dict)),
        migrations.AddField("hand", "hidden", models.JSONField(default=list)),
        migrations.AddField("hand", "record", models.JSONField(default=dict)),
        migrations.AddField("hand", "start_state", models.JSONField(blank=True, null=True)),
        migrations.AddField("hand", "calls", models.JSONField(default=list)),
        migrations.AlterField("hand", "button", models.SmallIntegerField(blank=True, null=True)),
        migrations.AddField("handplayer", "score", models.BigIntegerField(blank=True, null=True)),
        migrations.AddField("handplayer", "detail", models.JSONField(default=dict)),
        migrations.AddField("handplayer", "secret", models.JSONField(default=dict)),
        migrations.AlterField("handplayer", "net", models.BigIntegerField(default=0)),
        migrations.RunPython(forward, backward),
        migrations.RemoveField("hand", "deck"),
        migrations.RemoveField("hand", "setup"),
        migrations.RemoveField("hand", "phh"),
        migrations.RemoveField("handplayer", "starting_stack"),
        migrations.RemoveField("handplayer", "hole_cards"),
        migrations.RemoveField("handplayer", "shown"),
        migrations.CreateModel(
            name="Standing",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True,
                                           serialize=False, verbose_name="ID")),
                ("game", models.CharField(db_index=True, max_length=32)),
                ("rules", models.CharField(db_index=True, max_length=40)),
                ("name", models.CharField(max_length=64)),
                ("seat", models.PositiveSmallIntegerField()),
                ("rank", models.PositiveSmallIntegerField()),
                ("score", models.BigIntegerField(default=0)),
                ("finished_at", models.DateTimeField(db_index=True)),
                ("player", models.ForeignKey(
                    null=True, on_delete=django.db.models.deletion.SET_NULL,
                    related_name="standings", to="accounts.player")),
                ("table", models.ForeignKey(
                    on_delete=django.db.models.deletion.CASCADE,
                    related_name="final_standings", to="tables.table")),
            ],
            options={"ordering": ["-score", "finished_at"]},
        ),
    ]
