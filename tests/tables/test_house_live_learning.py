"""A house bot at a live table learns as it would offline (docs/house-bots.md).

The defect: the table worker kept one bot instance per house-bot player for every
table and never called ``observe`` or ``hand_over``, so the ``ehs`` bot's opponent
model stayed at its prior. Now every seat has its own instance, told each event of
its table as its seat may see it (the game's projection for ``Viewer.of(seat)``,
as ``botkit.match`` does offline) and each round's end with the final view.

The offline side here is independent of the server's code: each stored round is
replayed with the game contract from its start state, chance and calls; the fresh
bot observes ``game.project_event(e, Viewer.of(seat))`` of every event, is asked
to act at its own decisions (its answer is not used: the stored call is applied)
and gets ``hand_over`` with ``decision_view`` of the final state.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from accounts.models import Player, PlayerKind
from accounts.services import house_owner
from botkit.bot import overrides
from botkit.house import make_bot
from engine.game import RoundEnded, Viewer, decision_view
from engine.registry import get_game
from tables import house, services, worker
from tables.models import Hand, Table

from .helpers import assert_chips_conserved

pytestmark = pytest.mark.django_db

HANDS = 12
EHS_SEAT = 0


@pytest.fixture(autouse=True)
def _real_house_bots(settings: Any) -> Any:
    settings.TABLES = {**settings.TABLES, "HOUSE_BOT_FACTORY": "botkit.house.make_bot"}
    house.reset()
    yield
    house.reset()


def house_bot(name: str, style: str, params: dict[str, Any] | None = None) -> Player:
    return Player.objects.create(owner=house_owner(), name=name, kind=PlayerKind.BOT,
                                 house_strategy=style, house_params=params or {})


def plain(value: Any) -> Any:
    """What a bot has learnt, as plain data (whatever objects it keeps it in)."""
    to_json = getattr(value, "to_json", None)
    if callable(to_json):
        return plain(to_json())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if hasattr(value, "__dict__") and not isinstance(value, type):
        return {k: plain(v) for k, v in vars(value).items()}
    slots = getattr(type(value), "__slots__", None)
    if slots:
        return {k: plain(getattr(value, k)) for k in slots if hasattr(value, k)}
    return value


def learnt(bot: Any) -> dict[str, Any]:
    """The opponent model and any per-opponent tables the bot keeps across rounds."""
    out = {"model": plain(bot.model.to_json())}
    for name in ("actions", "weights", "opponents"):
        if hasattr(bot, name):
            out[name] = plain(getattr(bot, name))
    return out


def offline_replay(table: Table, seat: int, params: dict[str, Any]) -> Any:
    """A fresh ``ehs`` bot told the table's stored rounds as the offline runner would."""
    game = get_game(table.game)
    bot = make_bot("ehs", game=table.game, params=params)
    viewer = Viewer.of(seat)

    def tell(events: list[Any]) -> bool:
        for event in events:
            data = game.project_event(event, viewer)
            if data is not None:
                bot.observe(data)
        return any(isinstance(e, RoundEnded) for e in events)

    for hand in Hand.objects.filter(table=table, ended_at__isnull=False).order_by("number"):
        state = game.load(hand.start_state)
        ended = tell(game.start_round(state, hand.chance))
        for name, *args in hand.calls:
            if ended:
                break
            if name == "note":
                continue
            if name == "apply" and args[0] == seat:
                bot.act(decision_view(game, state, seat))
            ended = tell(getattr(game, name)(state, *args))
        if seat in hand.seats and overrides(bot, "hand_over"):
            bot.hand_over(decision_view(game, state, seat))
    return bot


def play_hands(table: Table, hands: int) -> None:
    for _ in range(hands * 40):
        services.run_house_bots()
        if Hand.objects.filter(table=table, ended_at__isnull=False).count() >= hands:
            return
    raise AssertionError("the house bots did not finish enough hands")


def seat_all(table: Table, user: Any, bots: list[tuple[int, Player]]) -> None:
    for seat, bot in bots:
        services.execute(table_id=table.pk, user=user, command={
            "type": "sit", "seat": seat, "buy_in": 200, "player": bot.pk})


def test_a_live_ehs_bot_learns_exactly_as_offline(table: Any, bob: Any) -> None:
    params = {"samples": 30}
    ehs = house_bot("Live-EHS", "ehs", params)
    seat_all(table, bob, [(EHS_SEAT, ehs), (2, house_bot("Live-Station", "calling_station")),
                          (3, house_bot("Live-Random", "random"))])
    play_hands(table, HANDS)
    worker.housekeeping()  # the worker tells the instances of the rounds that ended
    live = house.instance(table.pk, EHS_SEAT)
    assert live is not None
    finished = Hand.objects.filter(table=table, ended_at__isnull=False).count()
    model = live.model.to_json()
    # It learnt: the players counted in the finished rounds (was: the prior only). The
    # third bot sat down while the first round was running, and joins later.
    assert max(stats["hands"] for stats in model.values()) == finished
    assert all(stats["hands"] >= finished - 3 for stats in model.values())
    assert {str(p.pk) for p in Player.objects.filter(name__in=("Live-Station",
                                                               "Live-Random"))} <= set(model)
    offline = offline_replay(table, EHS_SEAT, params)
    assert learnt(live) == learnt(offline)
    assert_chips_conserved()


def test_each_seat_has_its_own_instance(table: Any, bob: Any) -> None:
    """The same house-bot style at two tables, and two bots of one style at one table:
    never one shared instance."""
    a, b = house_bot("Twin-A", "ehs", {"samples": 20}), house_bot("Twin-B", "ehs",
                                                                   {"samples": 20})
    seat_all(table, bob, [(0, a), (1, b)])
    other = services.create_table(creator=bob, name="Other NL", settings={
        "structure": "NL", "small_blind": 1, "big_blind": 2, "seats": 2})
    seat_all(other, bob, [(0, a), (1, house_bot("Other-Station", "calling_station"))])
    play_hands(table, 3)
    play_hands(other, 3)
    first, second = house.instance(table.pk, 0), house.instance(table.pk, 1)
    elsewhere = house.instance(other.pk, 0)
    assert first is not None and second is not None and elsewhere is not None
    assert len({id(first), id(second), id(elsewhere)}) == 3
    # Each has seen only its own table.
    assert str(b.pk) in first.model.to_json() and str(b.pk) not in elsewhere.model.to_json()


def test_a_restarted_worker_rebuilds_the_instance_from_the_stored_rounds(
        table: Any, bob: Any) -> None:
    params = {"samples": 20}
    ehs = house_bot("Restart-EHS", "ehs", params)
    seat_all(table, bob, [(EHS_SEAT, ehs), (1, house_bot("Restart-Station",
                                                         "calling_station"))])
    play_hands(table, 6)
    before = house.instance(table.pk, EHS_SEAT)
    house.reset()  # the process restarts: every instance is gone
    play_hands(table, 9)  # the next decision rebuilds it from the stored rounds
    worker.housekeeping()
    rebuilt = house.instance(table.pk, EHS_SEAT)
    assert rebuilt is not None and rebuilt is not before
    assert learnt(rebuilt) == learnt(offline_replay(table, EHS_SEAT, params))


def test_a_bot_removed_from_its_seat_drops_its_instance(table: Any, bob: Any) -> None:
    ehs = house_bot("Leaving-EHS", "ehs", {"samples": 20})
    seat_all(table, bob, [(EHS_SEAT, ehs), (1, house_bot("Staying-Station",
                                                         "calling_station"))])
    play_hands(table, 2)
    assert house.instance(table.pk, EHS_SEAT) is not None
    services.execute(table_id=table.pk, user=bob, command={"type": "leave", "seat": EHS_SEAT})
    for _ in range(20):  # a leave during a round takes effect when it ends
        if not table.seats.filter(number=EHS_SEAT).exists():
            break
        services.run_house_bots()
    worker.housekeeping()
    assert house.instance(table.pk, EHS_SEAT) is None
    assert_chips_conserved()


def test_a_changed_style_or_parameters_make_a_fresh_instance(table: Any, bob: Any) -> None:
    ehs = house_bot("Tuned-EHS", "ehs", {"samples": 20})
    seat_all(table, bob, [(EHS_SEAT, ehs), (1, house_bot("Tuned-Station", "calling_station"))])
    play_hands(table, 2)
    before = house.instance(table.pk, EHS_SEAT)
    assert before is not None and before.samples == 20
    Player.objects.filter(pk=ehs.pk).update(house_params={"samples": 40})
    play_hands(table, 4)
    after = house.instance(table.pk, EHS_SEAT)
    assert after is not before and after.samples == 40


class Recorder:
    """A house bot that records what it is told (calls like a calling station)."""

    def __init__(self) -> None:
        self.told: list[Any] = []

    def act(self, view: dict[str, Any]) -> dict[str, Any]:
        legal = view["legal"]
        if legal["can_muck"]:
            return {"kind": "muck"}
        return {"kind": "check"} if legal["can_check"] else {"kind": "call"}

    def observe(self, event: dict[str, Any]) -> None:
        self.told.append(("observe", event))

    def hand_over(self, result: dict[str, Any]) -> None:
        self.told.append(("hand_over", result))


def recorder(strategy: str, game: str = "holdem", params: Any = None) -> Recorder:
    return Recorder()


def test_events_and_round_ends_are_told_as_offline(table: Any, bob: Any,
                                                   settings: Any) -> None:
    """Every observed event and every final view equal the offline runner's."""
    settings.TABLES = {**settings.TABLES,
                       "HOUSE_BOT_FACTORY": "tests.tables.test_house_live_learning.recorder"}
    seat_all(table, bob, [(1, house_bot("Rec-A", "rec")), (4, house_bot("Rec-B", "rec"))])
    play_hands(table, 5)
    worker.housekeeping()
    game = get_game(table.game)
    for seat in (1, 4):
        live = house.instance(table.pk, seat)
        assert live is not None
        expected: list[Any] = []
        for hand in Hand.objects.filter(table=table, ended_at__isnull=False).order_by("number"):
            state = game.load(hand.start_state)
            events = list(game.start_round(state, hand.chance))
            for name, *args in hand.calls:
                if any(isinstance(e, RoundEnded) for e in events):
                    break
                if name != "note":
                    events += getattr(game, name)(state, *args)
            expected += [("observe", d) for d in (game.project_event(e, Viewer.of(seat))
                                                  for e in events) if d is not None]
            expected.append(("hand_over", decision_view(game, state, seat)))
        assert [kind for kind, _ in live.told].count("hand_over") == 5
        assert live.told == expected
        hidden = [d for kind, d in live.told
                  if kind == "observe" and d["type"] == "HoleCardsDealt" and d["player"] != seat]
        assert hidden and all("?" in d["cards"] for d in hidden)  # never another's cards
