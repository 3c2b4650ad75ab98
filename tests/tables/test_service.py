"""The table service: seating, acting, versions, staleness, ledger, hand history."""

from __future__ import annotations

from typing import Any

import pytest

from accounts.models import Player
from engine.game import Viewer
from tables import selectors, services
from tables.errors import TableError
from tables.models import Hand, Seat, Table, TableStatus

from .helpers import act, assert_chips_conserved, sit, turn

pytestmark = pytest.mark.django_db


def command(table: Any, user: Any, **data: Any) -> int:
    return services.execute(table_id=table.pk, user=user, command=data).version


def test_sit_buys_in_and_two_players_start_a_hand(table: Any, alice: Any, bob: Any) -> None:
    assert sit(table, alice, 0) == 1
    alice_player = Player.objects.get(name="alice")
    assert alice_player.balance == -200
    assert Seat.objects.get(table=table, number=0).player == alice_player
    assert sit(table, bob, 3) == 2
    table.refresh_from_db()
    assert table.status == TableStatus.RUNNING
    assert table.current_hand is not None and table.to_act_seat == 0
    assert table.decision_version == 2 and table.deadline is not None
    assert_chips_conserved()


def test_every_command_bumps_the_version_once_and_stale_actions_are_refused(
        table: Any, alice: Any, bob: Any, carol: Any) -> None:
    sit(table, alice, 0)
    sit(table, bob, 1)
    seat, hand, version, _ = turn(table.pk)
    user = {0: alice, 1: bob}[seat]
    # An unrelated command bumps the version but not the turn.
    assert sit(table, carol, 4) == 3
    assert turn(table.pk)[2] == version
    act_command = {"type": "act", "hand": hand, "version": version, "action": {"kind": "call"}}
    assert services.execute(table_id=table.pk, user=user, command=act_command).version == 4
    with pytest.raises(TableError) as error:  # the duplicate
        services.execute(table_id=table.pk, user=user, command=act_command)
    assert error.value.code in {"stale_version", "not_your_turn"}
    table.refresh_from_db()
    assert table.version == 4


@pytest.mark.parametrize(("data", "code"), [
    ({"type": "act", "hand": 999, "version": 2, "action": {"kind": "call"}}, "wrong_hand"),
    ({"type": "act", "version": 2, "action": {"kind": "call"}}, "malformed_message"),
    ({"type": "dance"}, "unknown_type"),
    ({"type": "sit", "seat": 9, "buy_in": 200}, "bad_seat"),
    ({"type": "sit", "seat": 2, "buy_in": 10}, "below_min_buy_in"),
    ({"type": "sit", "seat": 2, "buy_in": "lots"}, "malformed_message"),
    ({"type": "sit_in"}, "not_sitting_out"),
])
def test_refused_commands_change_nothing(table: Any, alice: Any, bob: Any, data: dict[str, Any],
                                         code: str) -> None:
    sit(table, alice, 0)
    sit(table, bob, 1)
    before = Table.objects.get(pk=table.pk)
    user = alice if "sit" not in data.get("type", "") or data["type"] == "sit_in" else bob
    if data["type"] == "sit":
        user = alice  # alice is seated already: bad seat/amount is checked first
    with pytest.raises(TableError) as error:
        services.execute(table_id=table.pk, user=user, command=data)
    if code == "below_min_buy_in":
        assert error.value.code in {"below_min_buy_in", "already_seated", "bad_amount"}
    else:
        assert error.value.code in {code, "already_seated"}
    after = Table.objects.get(pk=table.pk)
    assert (after.version, after.state) == (before.version, before.state)
    assert_chips_conserved()


def test_a_sit_with_an_unknown_option_is_refused(table: Any, alice: Any) -> None:
    """A misspelt option (here: wait_for_bb) is refused, not silently dropped."""
    with pytest.raises(TableError) as error:
        command(table, alice, type="sit", seat=0, buy_in=200, wait_for_big_blind=True)
    assert error.value.code == "malformed_message" and "wait_for_big_blind" in str(error.value)
    table.refresh_from_db()
    assert table.version == 0 and not Seat.objects.filter(table=table).exists()
    assert_chips_conserved()
    assert command(table, alice, type="sit", seat=0, buy_in=200, wait_for_bb=True) == 1


def test_out_of_turn(table: Any, alice: Any, bob: Any) -> None:
    sit(table, alice, 0)
    sit(table, bob, 1)
    seat, hand, version, _ = turn(table.pk)
    other = {0: bob, 1: alice}[seat]
    with pytest.raises(TableError) as error:
        services.execute(table_id=table.pk, user=other, command={
            "type": "act", "hand": hand, "version": version, "action": {"kind": "fold"}})
    assert error.value.code == "not_your_turn"


def test_a_finished_hand_is_stored_before_the_next_and_leave_cashes_out(
        table: Any, alice: Any, bob: Any) -> None:
    sit(table, alice, 0)
    sit(table, bob, 1)
    users = {0: alice, 1: bob}
    seat, *_ = turn(table.pk)
    act(table.pk, users[seat], {"kind": "fold"})  # the winner mucks at once (auto-muck)
    hands = list(Hand.objects.filter(table=table).order_by("number"))
    assert len(hands) == 2 and hands[0].ended_at is not None and hands[1].ended_at is None
    first = hands[0]
    assert first.players.count() == 2 and sum(p.net for p in first.players.all()) == 0
    phh = selectors.export_round(first, Viewer.superuser())
    assert "variant = \"NT\"" in phh and "d dh p1" in phh
    assert_chips_conserved()
    command(table, alice, type="leave")  # folded (now or in turn), seat freed at the hand's end
    assert_chips_conserved()
    if turn(table.pk)[0] == 1:
        act(table.pk, bob, {"kind": "fold"})
    assert not Seat.objects.filter(table=table, player__name="alice").exists()
    assert Player.objects.get(name="alice").balance + Player.objects.get(name="bob").balance == \
        -sum(s.stack for s in Seat.objects.filter(table=table))


def test_hand_history_privacy(table: Any, alice: Any, bob: Any, carol: Any, root: Any) -> None:
    sit(table, alice, 0)
    sit(table, bob, 1)
    users = {0: alice, 1: bob}
    seat, *_ = turn(table.pk)
    act(table.pk, users[seat], {"kind": "fold"})  # the winner mucks at once (auto-muck)
    hand = Hand.objects.filter(table=table, ended_at__isnull=False).get()
    cards = {p.seat: p.secret["cards"] for p in hand.players.all()}
    for_root = selectors.hand_history(hand.pk, root)
    assert {p["seat"]: p["cards"] for p in for_root["players"]} == cards
    for_alice = selectors.hand_history(hand.pk, alice)
    seen = {p["seat"]: p["cards"] for p in for_alice["players"]}
    assert seen[0] == cards[0] and seen[1] == "????"
    for_carol = selectors.hand_history(hand.pk, carol)
    assert all(p["cards"] == "????" for p in for_carol["players"])
    text = str(for_carol)
    assert cards[0] not in text and cards[1] not in text
    assert cards[0] in str(for_alice) and cards[1] not in str(for_alice)


def test_add_chips_and_sit_out_in(table: Any, alice: Any, bob: Any) -> None:
    sit(table, alice, 0, buy_in=100)
    command(table, alice, type="add_chips", amount=50)
    assert Player.objects.get(name="alice").balance == -150
    command(table, alice, type="sit_out")
    assert Seat.objects.get(number=0).state == "sitting_out"
    command(table, alice, type="sit_in")
    command(table, alice, type="sit_out")
    command(table, alice, type="wait_for_bb")
    assert Seat.objects.get(number=0).state == "waiting_for_bb"
    assert_chips_conserved()


def test_bot_owner_seats_bot_and_players_cannot(table: Any, alice: Any, bob: Any) -> None:
    from accounts.services import create_bot

    skynet, _ = create_bot(owner=bob, name="Skynet")
    command(table, bob, type="sit", seat=2, buy_in=200, player=skynet.pk)
    assert Seat.objects.get(number=2).player == skynet
    with pytest.raises(TableError) as error:
        command(table, alice, type="sit", seat=3, buy_in=200, player=skynet.pk)
    assert error.value.code == "not_your_player"


def test_testers_seat_and_remove_anyones_house_bots(table: Any, alice: Any, bob: Any,
                                                    root: Any) -> None:
    from accounts.models import PlayerKind

    house = Player.objects.create(owner=root, name="House-Station", kind=PlayerKind.BOT,
                                  house_strategy="calling_station")
    for user in (alice,):  # a player may neither seat nor remove a house bot
        with pytest.raises(TableError) as error:
            command(table, user, type="sit", seat=1, buy_in=200, player=house.pk)
        assert error.value.code in {"not_your_player", "not_allowed"}
    command(table, bob, type="sit", seat=1, buy_in=200, player=house.pk)  # bob: a tester
    assert Seat.objects.get(number=1).player == house
    sit(table, alice, 0)
    with pytest.raises(TableError) as error:
        command(table, alice, type="leave", seat=1)
    assert error.value.code == "not_your_seat"
    command(table, bob, type="leave", seat=1)
    assert_chips_conserved()


def test_lobby_hears_of_new_tables_and_seat_changes_not_of_every_hand(
        alice: Any, bob: Any, monkeypatch: Any,
        django_capture_on_commit_callbacks: Any) -> None:
    from tables import fanout

    sent: list[Any] = []
    monkeypatch.setattr(fanout, "publish", sent.extend)

    def heard() -> list[Any]:
        messages = [message for group, message in sent if group == fanout.LOBBY_GROUP]
        sent.clear()
        return messages

    with django_capture_on_commit_callbacks(execute=True):
        table = services.create_table(creator=alice, name="Announced", settings={
            "structure": "NL", "small_blind": 1, "big_blind": 2, "seats": 2})
    assert heard() == [{"type": "table_changed", "table": table.pk, "reason": "created"}]
    with django_capture_on_commit_callbacks(execute=True):
        sit(table, alice, 0)
    assert [m["table"] for m in heard()] == [table.pk]
    with django_capture_on_commit_callbacks(execute=True):
        sit(table, bob, 1)  # the first hand starts: seats and status changed
    assert len(heard()) == 1
    with django_capture_on_commit_callbacks(execute=True):
        seat, _, _, _ = turn(table.pk)
        act(table.pk, alice if seat == 0 else bob, {"kind": "fold"})
    assert heard() == []  # a hand was played, nobody sat or left: the lobby polls for stacks


def test_chips_added_during_a_hand_are_paid_for_when_they_arrive(table: Any, alice: Any,
                                                                  bob: Any) -> None:
    sit(table, alice, 0, buy_in=100)
    sit(table, bob, 1, buy_in=100)  # a hand starts: alice is in it
    command(table, alice, type="add_chips", amount=50)
    assert Player.objects.get(name="alice").balance == -100  # nothing moved yet
    assert Seat.objects.get(number=0).stack <= 100
    while True:  # the hand ends: the chips reach the stack and the ledger, once
        seat, _hand, _version, legal = turn(table.pk)
        if Hand.objects.filter(ended_at__isnull=False).exists():
            break
        user = alice if seat == 0 else bob
        act(table.pk, user, {"kind": "check"} if legal["can_check"] else
            {"kind": "call"} if legal["call_amount"] else {"kind": "muck"})
    assert Player.objects.get(name="alice").balance == -150
    assert_chips_conserved()
