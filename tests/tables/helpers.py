"""Helpers for driving tables through the service in tests."""

from __future__ import annotations

import random
from typing import Any

from tables import selectors, services
from tables.models import Table


def sit(table: Any, user: Any, seat: int, buy_in: int = 200, **extra: Any) -> int:
    command = {"type": "sit", "seat": seat, "buy_in": buy_in, **extra}
    return services.execute(table_id=table.pk, user=user, command=command).version


def turn(table_id: int) -> tuple[int | None, int | None, int | None, dict[str, Any]]:
    """(seat to act, hand id, decision version, legal actions of the actor)."""
    table = Table.objects.get(pk=table_id)
    if table.to_act_seat is None:
        return None, None, None, {}
    from engine.registry import get_game
    from tables.handlog import current_state

    game = get_game(table.game)
    state = current_state(game, table)  # (a live table's: its round's calls replayed)
    return (table.to_act_seat, table.current_hand_id, table.decision_version,
            game.legal_actions(state, table.to_act_seat))


def random_action(legal: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    options: list[dict[str, Any]] = []
    if legal["can_show"]:
        options += [{"kind": "show"}, {"kind": "muck"}]
    if legal["can_fold"]:
        options.append({"kind": "fold"})
    if legal["can_check"]:
        options += [{"kind": "check"}] * 3
    if legal["call_amount"]:
        options += [{"kind": "call"}] * 3
    if legal["sized_kind"]:
        low, high = legal["min_raise_to"], legal["max_raise_to"]
        amount = rng.choice([low, high, rng.randint(low, high)])
        options.append({"kind": legal["sized_kind"], "amount": amount})
    return rng.choice(options)


def act(table_id: int, user: Any, action: dict[str, Any], **extra: Any) -> int:
    _seat, hand, version, _ = turn(table_id)
    command = {"type": "act", "hand": hand, "version": version, "action": action, **extra}
    return services.execute(table_id=table_id, user=user, command=command).version


def assert_chips_conserved() -> None:
    """Balances + every chip on every table == 0 (no superuser adjustments in tests)."""
    assert selectors.total_balances() + selectors.chips_on_tables() == 0
