"""Play money: balance == sum of the append-only ledger, always."""

from __future__ import annotations

import itertools
import threading

import pytest
from django.db import connection, transaction
from django.db.models import Sum
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accounts import services
from accounts.errors import InvalidAmount, PlayerDeleted
from accounts.models import AppendOnlyError, LedgerEntry, LedgerKind, Player, User


def ledger_sum(player: Player) -> int:
    return LedgerEntry.objects.filter(player=player).aggregate(s=Sum("amount"))["s"] or 0


def test_new_player_starts_at_zero(alice: User) -> None:
    assert alice.players.get().balance == 0


def test_buy_in_larger_than_balance_goes_negative(alice: User) -> None:
    player = alice.players.get()
    entry = services.buy_in(player=player, chips=500, table_id=7)
    assert (entry.amount, entry.kind, entry.table_id) == (-500, LedgerKind.BUY_IN, 7)
    assert player.balance == -500
    services.cash_out(player=player, chips=650, table_id=7, hand_id=3)
    player.refresh_from_db()
    assert player.balance == 150 == ledger_sum(player)


def test_adjustment_records_who(alice: User, root: User) -> None:
    player = alice.players.get()
    entry = services.adjust(player=player, amount=-20, created_by=root, note="refund")
    assert entry.created_by == root and entry.note == "refund"
    assert player.balance == -20


@pytest.mark.parametrize(
    "call",
    [
        lambda p: services.buy_in(player=p, chips=0),
        lambda p: services.buy_in(player=p, chips=-5),
        lambda p: services.cash_out(player=p, chips=-1),
        lambda p: services.post_ledger_entry(player=p, amount=10, kind="buy_in"),
        lambda p: services.post_ledger_entry(player=p, amount=0, kind="adjustment"),
        lambda p: services.post_ledger_entry(player=p, amount=1.5, kind="adjustment"),
    ],
)
def test_invalid_amounts_are_refused(alice: User, call) -> None:  # type: ignore[no-untyped-def]
    player = alice.players.get()
    with pytest.raises(InvalidAmount):
        call(player)
    player.refresh_from_db()
    assert player.balance == 0 and not LedgerEntry.objects.exists()


def test_no_postings_to_deleted_player(alice: User) -> None:
    player = alice.players.get()
    services.delete_player(player)
    with pytest.raises(PlayerDeleted):
        services.buy_in(player=player, chips=10)


def test_works_inside_an_outer_transaction(alice: User) -> None:
    player = alice.players.get()
    with transaction.atomic():
        Player.objects.select_for_update().get(pk=player.pk)  # e.g. the table service's lock
        services.buy_in(player=player, chips=100)
        services.cash_out(player=player, chips=40)
    player.refresh_from_db()
    assert player.balance == -60 == ledger_sum(player)


def test_outer_rollback_undoes_entry_and_balance(alice: User) -> None:
    player = alice.players.get()
    with pytest.raises(RuntimeError), transaction.atomic():
        services.buy_in(player=player, chips=100)
        raise RuntimeError("the table service failed after the buy-in")
    player.refresh_from_db()
    assert player.balance == 0 and not LedgerEntry.objects.exists()


def test_entries_cannot_be_changed_or_deleted(alice: User) -> None:
    entry = services.buy_in(player=alice.players.get(), chips=10)
    entry.amount = 1_000_000
    with pytest.raises(AppendOnlyError):
        entry.save()
    with pytest.raises(AppendOnlyError):
        entry.delete()
    with pytest.raises(AppendOnlyError):
        LedgerEntry.objects.filter(pk=entry.pk).update(amount=1)
    with pytest.raises(AppendOnlyError):
        LedgerEntry.objects.filter(pk=entry.pk).delete()
    assert LedgerEntry.objects.get().amount == -10


_counter = itertools.count()
operations = st.lists(
    st.one_of(
        st.tuples(st.just("buy_in"), st.integers(1, 10**12)),
        st.tuples(st.just("cash_out"), st.integers(0, 10**12)),
        st.tuples(st.just("adjust"), st.integers(-(10**12), 10**12).filter(bool)),
    ),
    max_size=12,
)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(ops=operations)
def test_balance_always_equals_sum_of_entries(root: User, ops: list[tuple[str, int]]) -> None:
    player = Player.objects.create(owner=root, name=f"prop{next(_counter)}")
    expected = 0
    for kind, chips in ops:
        if kind == "buy_in":
            services.buy_in(player=player, chips=chips)
            expected -= chips
        elif kind == "cash_out":
            services.cash_out(player=player, chips=chips)
            expected += chips
        else:
            services.adjust(player=player, amount=chips, created_by=root)
            expected += chips
        assert player.balance == expected
    player.refresh_from_db()
    assert player.balance == expected == ledger_sum(player)
    assert player.ledger_entries.count() == len(ops)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_buy_ins_never_lose_an_update(alice: User) -> None:
    """Two threads, each with its own connection, buy in for one player at once."""
    player_id = alice.players.get().pk
    barrier = threading.Barrier(2)
    errors: list[BaseException] = []

    def buy(chips: int) -> None:
        try:
            player = Player.objects.get(pk=player_id)  # read the (stale) balance first
            barrier.wait(timeout=10)
            services.buy_in(player=player, chips=chips)
        except BaseException as exc:  # reported to the main thread
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=buy, args=(chips,)) for chips in (100, 250)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert not errors
    player = Player.objects.get(pk=player_id)
    assert player.ledger_entries.count() == 2
    assert player.balance == -350 == ledger_sum(player)
