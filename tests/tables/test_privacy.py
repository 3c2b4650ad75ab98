"""Privacy (V19, V35): every message each viewer receives, over many random hands."""

from __future__ import annotations

import random
from typing import Any

import pytest

from tables import fanout, services
from tables.models import Hand, HandPlayer

from .helpers import assert_chips_conserved, random_action, sit, turn
from .privacy import assert_private, dealt_cards

HANDS = 200


@pytest.mark.django_db
def test_service_fanout_never_leaks_over_many_hands(
        table: Any, alice: Any, bob: Any, carol: Any, dave: Any, root: Any,
        monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Any) -> None:
    """Every group message of HANDS random hands, delivered as the consumer would."""
    sent: list[tuple[str, dict[str, Any]]] = []
    monkeypatch.setattr(fanout, "publish", lambda batch: sent.extend(batch))
    rng = random.Random(7)
    users = {0: alice, 2: bob, 3: carol, 5: root}  # root plays too: superusers see all anyway
    for seat, user in users.items():
        with django_capture_on_commit_callbacks(execute=True):
            sit(table, user, seat, buy_in=rng.choice([40, 100, 200]))
    while Hand.objects.filter(table=table, ended_at__isnull=False).count() < HANDS:
        seat, hand, version, legal = turn(table.pk)
        if seat is None:  # busted players: rebuy and sit in
            for _number, user in users.items():
                for command in ({"type": "add_chips", "amount": 100}, {"type": "sit_in"}):
                    try:
                        with django_capture_on_commit_callbacks(execute=True):
                            services.execute(table_id=table.pk, user=user, command=command)
                    except services.TableError:
                        pass
            continue
        with django_capture_on_commit_callbacks(execute=True):
            services.execute(table_id=table.pk, user=users[seat], command={
                "type": "act", "hand": hand, "version": version,
                "action": random_action(legal, rng)})
    assert_chips_conserved()
    public = fanout.public_group(table.pk)
    everything = fanout.omniscient_group(table.pk)
    ids = {seat: str(user.players.get().pk) for seat, user in users.items()}

    def inbox(groups: set[str]) -> list[dict[str, Any]]:
        return [message for group, message in sent if group in groups]

    checked = 0
    for seat in (0, 2, 3):
        messages = inbox({public, fanout.player_group(table.pk, ids[seat])})
        checked += assert_private(messages, {seat})
        own = {c for s, c in dealt_cards(messages) if s == seat and "?" not in c}
        # they do get their own cards: those of every finished hand they were dealt in
        # (how many depends on the deck: busted players sit out until the rebuy)
        played = set(HandPlayer.objects.filter(hand__table=table, seat=seat)
                     .values_list("secret__cards", flat=True))
        assert played and played <= own
    spectator = inbox({public})
    checked += assert_private(spectator, set())
    # The superuser observer sees every dealt card.
    omniscient = inbox({everything})
    seen = {c for _, c in dealt_cards(omniscient)}
    stored = set(HandPlayer.objects.filter(hand__table=table)
                 .values_list("secret__cards", flat=True))
    assert stored <= seen and all("?" not in c for c in seen)
    assert checked > HANDS  # many foreign hole cards were checked hidden
