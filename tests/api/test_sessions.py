"""The sessions API (/api/v1/sessions/...), the batch match's statistics and CSV, the
player statistics' filters, and the session pages: rights, refusals with stable codes,
numbers of the hand-made histories of tests/research/test_sessions.py."""

from __future__ import annotations

import csv
import io
from typing import Any

import pytest

from accounts.models import Player
from research import sessions
from research.models import MatchRun, Session
from tests.api.conftest import client_for
from tests.research.test_sessions import make_hand_made, make_people, make_played

pytestmark = pytest.mark.django_db


@pytest.fixture
def hand_made(db: None) -> dict[str, Any]:
    return make_hand_made(make_people())


@pytest.fixture
def played(db: None, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    return make_played(make_people(), monkeypatch)


def body(response: Any) -> str:
    return b"".join(response.streaming_content).decode() if response.streaming else \
        response.content.decode()


def create(client: Any, **data: Any) -> Any:
    return client.post("/api/v1/sessions/", {"name": "Evening", **data}, format="json")


def test_create_read_change_delete(hand_made: dict[str, Any]) -> None:
    users = hand_made["users"]
    bob = client_for(users["bob"])
    response = create(bob, tables=[hand_made["first"].pk], players=["alice"],
                      start="2026-11-20", notes="first look")
    assert response.status_code == 201, response.content
    data = response.json()
    assert data["tables"] == [{"id": hand_made["first"].pk, "name": "Hand-made"}]
    assert data["players"][0]["name"] == "alice" and data["end"] is None
    assert data["start"].startswith("2026-11-20T00:00") and data["created_by"] == "bob"
    url = f"/api/v1/sessions/{data['id']}/"
    assert bob.get(url).json()["notes"] == "first look"
    listed = bob.get("/api/v1/sessions/").json()
    assert listed["count"] == 1 and listed["results"][0]["id"] == data["id"]
    changed = bob.patch(url, {"name": "Late", "players": []}, format="json")
    assert changed.status_code == 200, changed.content
    assert changed.json()["name"] == "Late" and changed.json()["players"] == []
    assert changed.json()["tables"][0]["name"] == "Hand-made"  # untouched
    assert bob.delete(url).status_code == 204
    assert bob.get(url).status_code == 404 and not Session.objects.exists()


def test_stats_csv_and_phh_of_a_session(hand_made: dict[str, Any]) -> None:
    bob = client_for(hand_made["users"]["bob"])
    session = create(bob, tables=[hand_made["first"].pk]).json()
    stats = bob.get(f"/api/v1/sessions/{session['id']}/stats")
    assert stats.status_code == 200
    data = stats.json()
    assert data["hands"] == 5 and data["session"]["id"] == session["id"]
    rows = {r["name"]: r for r in data["players"]}
    assert {n: r["net"] for n, r in rows.items()} == {"alice": -271, "bob": -191, "carol": 462}
    assert rows["bob"]["stats"]["three_bet"] == pytest.approx(1 / 3)
    assert rows["carol"]["stats"]["cbet"] == 1.0
    assert rows["bob"]["stats"]["fold_to_flop_bet"] == 0.5
    assert data["cumulative"]["series"]["alice"] == [-1, 3, 1, 129, -271]
    # Hand-made rows have no buy-ins: the ledger says 0 for them.
    assert data["ledger_checked"] and rows["alice"]["ledger"] == 0
    response = bob.get(f"/api/v1/sessions/{session['id']}/csv")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    assert f"session-{session['id']}.csv" in response["Content-Disposition"]
    table = list(csv.DictReader(io.StringIO(body(response))))
    assert len(table) == 15 and sum(int(r["net"]) for r in table) == 0
    phh = bob.get(f"/api/v1/sessions/{session['id']}/phh")
    assert phh.status_code == 200 and phh["Content-Type"].startswith("text/plain")
    assert body(phh) == ""  # hand-made rows have no round record to export


def test_phh_of_played_hands_over_the_api(played: dict[str, Any]) -> None:
    from engine.phh import loads_all

    users = played["users"]
    bob = client_for(users["bob"])
    session = create(bob, tables=[played["table"].pk]).json()
    text = body(bob.get(f"/api/v1/sessions/{session['id']}/phh"))
    parsed = loads_all(text)
    hands = sessions.session_hands(Session.objects.get(pk=session["id"]))
    assert [name for name, _ in parsed] == [str(pk) for pk in hands.values_list("pk",
                                                                                flat=True)]
    assert all(not isinstance(h, Exception) for _, h in parsed)
    # bob sat at the table: his own cards are there, the others' unshown ones are not.
    assert "????" in text


def test_rights(hand_made: dict[str, Any], anon: Any) -> None:
    users = hand_made["users"]
    mine = create(client_for(users["bob"])).json()["id"]
    for path in ("", f"{mine}/", f"{mine}/stats", f"{mine}/phh", f"{mine}/csv"):
        url = f"/api/v1/sessions/{path}"
        assert anon.get(url).status_code == 401, url
        refused = client_for(users["alice"]).get(url)  # a player: no research rights
        assert refused.status_code == 403, url
        if path:
            other = client_for(users["tess"]).get(url)  # another tester: not theirs
            assert other.status_code == 404, url
            assert other.json()["error"]["code"] == "session_not_found"
            assert client_for(users["root"]).get(url).status_code == 200, url
    tess = client_for(users["tess"])
    assert tess.patch(f"/api/v1/sessions/{mine}/", {"name": "x"},
                      format="json").status_code == 404
    assert tess.delete(f"/api/v1/sessions/{mine}/").status_code == 404
    assert tess.get("/api/v1/sessions/").json()["count"] == 0
    assert client_for(users["root"]).get("/api/v1/sessions/").json()["count"] == 1
    assert create(client_for(users["alice"])).status_code == 403
    assert anon.post("/api/v1/sessions/", {"name": "x"}, format="json").status_code == 401


@pytest.mark.parametrize(("data", "code"), [
    ({"name": ""}, "invalid_request"),
    ({}, "invalid_request"),
    ({"name": "x" * 500}, "invalid_request"),
    ({"name": "a\u0000b"}, "invalid_text"),
    ({"tables": "nope"}, "invalid_request"),
    ({"tables": {"a": 1}}, "invalid_request"),
    ({"tables": [999999]}, "unknown_table"),
    ({"tables": [True]}, "unknown_table"),
    ({"tables": [10**30]}, "unknown_table"),
    ({"tables": list(range(1, 5000))}, "too_many_tables"),
    ({"players": ["nobody"]}, "unknown_player"),
    ({"players": ["x"] * 1000}, "too_many_players"),
    ({"start": "2026-13-01"}, "bad_time"),
    ({"start": "tomorrow"}, "bad_time"),
    ({"end": "2026-11-20T25:00"}, "bad_time"),
    ({"start": "x" * 1000}, "bad_time"),
    ({"start": "2026-11-21", "end": "2026-11-20"}, "bad_time_window"),
    ({"notes": "x" * 10_000}, "invalid_request"),
])
def test_bad_input_is_400_with_a_code(hand_made: dict[str, Any], data: dict[str, Any],
                                      code: str) -> None:
    bob = client_for(hand_made["users"]["bob"])
    payload = {"name": "ok", **data} if "name" not in data and data else data
    response = bob.post("/api/v1/sessions/", payload, format="json")
    assert response.status_code == 400, response.content
    assert response.json()["error"]["code"] == code, response.json()
    mine = create(bob).json()["id"]
    if data and "name" not in data:
        patched = bob.patch(f"/api/v1/sessions/{mine}/", data, format="json")
        assert patched.status_code == 400 and patched.json()["error"]["code"] == code
    assert bob.get("/api/v1/sessions/9999999/").status_code == 404


def test_player_stats_filters(hand_made: dict[str, Any]) -> None:
    client = client_for(hand_made["users"]["alice"])
    first = hand_made["first"].pk
    data = client.get("/api/v1/players/alice/stats/",
                      {"table": first, "since": "2026-11-20T15:00:00Z"}).json()
    assert (data["stats"]["hands"], data["stats"]["net"]) == (2, -272)
    assert data["filters"] == {"since": "2026-11-20T15:00:00+00:00", "until": None,
                               "table": first}
    assert data["stats"]["three_bet"] is None and "cbet" in data["stats"]
    whole = client.get("/api/v1/players/bob/stats/", {"until": "2026-11-20"}).json()
    assert whole["stats"]["net"] == -191 and whole["stats"]["three_bet"] == pytest.approx(1 / 3)
    lifetime = client.get("/api/v1/players/alice/stats/").json()
    assert "filters" not in lifetime
    for query, code in (({"since": "soon"}, "bad_time"), ({"until": "2026-02-31"}, "bad_time"),
                        ({"table": "abc"}, "invalid_request"),
                        ({"table": "99999999"}, "unknown_table"),
                        ({"table": "0"}, "invalid_request"),
                        ({"since": "2026-11-21", "until": "2026-11-20"}, "bad_time_window")):
        response = client.get("/api/v1/players/alice/stats/", query)
        assert response.status_code == 400, query
        assert response.json()["error"]["code"] == code, query


@pytest.fixture
def match(db: None) -> MatchRun:
    from research.services import run_match, validate_match

    run = MatchRun.objects.create(settings=validate_match({
        "bots": ["rule_based", "random", "calling_station"], "hands": 60, "seed": 4}))
    return run_match(run.pk)


def test_match_stats_and_csv(match: MatchRun, hand_made: dict[str, Any]) -> None:
    client = client_for(hand_made["users"]["alice"])
    data = client.get(f"/api/v1/matches/{match.pk}/stats").json()
    assert data["hands"] == match.results["hands"] == 60
    bots = {b["name"]: b for b in data["bots"]}
    assert set(bots) == {"rule_based", "random", "calling_station"}
    for name, row in bots.items():
        assert row["net"] == match.results["bots"][name]["net"], name  # == the match's books
        assert row["hands"] == 60
        assert {"three_bet", "cbet", "fold_to_flop_bet", "vpip"} <= set(row)
    assert bots["calling_station"]["pfr"] == 0.0
    response = client.get(f"/api/v1/matches/{match.pk}/csv")
    assert response.status_code == 200
    rows = list(csv.DictReader(io.StringIO(body(response))))
    assert len(rows) == 180
    for name in bots:
        assert sum(int(r["net"]) for r in rows if r["player"] == name) == bots[name]["net"]
        mine = [r for r in rows if r["player"] == name]
        assert sum(int(r["vpip"]) for r in mine) / 60 == pytest.approx(bots[name]["vpip"])
    # No stored hands: 404 with a code.
    MatchRun.objects.filter(pk=match.pk).update(phh="")
    for suffix in ("stats", "csv"):
        missing = client.get(f"/api/v1/matches/{match.pk}/{suffix}")
        assert missing.status_code == 404
        assert missing.json()["error"]["code"] == "phh_not_stored"
    assert client.get("/api/v1/matches/999999/stats").status_code == 404


# ------------------------------------------------------------------ pages


def test_session_pages(hand_made: dict[str, Any], client: Any) -> None:
    users = hand_made["users"]
    client.force_login(users["bob"])
    assert client.get("/research/sessions/").status_code == 200
    assert client.get("/research/sessions/new/").status_code == 200
    bad = client.post("/research/sessions/new/", {"name": "x", "tables": "999999"})
    assert bad.status_code == 400 and "There is no table" in bad.content.decode()
    bad = client.post("/research/sessions/new/", {"name": "x", "start": "2026-11-21T00:00",
                                                   "end": "2026-11-20T00:00"})
    assert bad.status_code == 400
    response = client.post("/research/sessions/new/", {
        "name": "Evening", "tables": "Hand-made", "players": "", "start": "", "end": "",
        "notes": ""})
    assert response.status_code == 302, response.content
    session = Session.objects.get()
    assert response["Location"] == f"/research/sessions/{session.pk}/"
    page = client.get(response["Location"]).content.decode()
    assert 'id="session-hands">5<' in page and "<svg" in page and "polyline" in page
    assert 'data-player="carol"' in page and "+462" in page and "3-bet" in page
    listing = client.get("/research/sessions/").content.decode()
    assert "Evening" in listing and "Hand-made" in listing
    csv_page = client.get(f"/research/sessions/{session.pk}/csv")
    assert len(body(csv_page).splitlines()) == 16
    assert client.get(f"/research/sessions/{session.pk}/phh").status_code == 200
    edit = client.get(f"/research/sessions/{session.pk}/edit/").content.decode()
    assert f'value="{hand_made["first"].pk}"' in edit
    changed = client.post(f"/research/sessions/{session.pk}/edit/", {
        "name": "Evening 2", "tables": "", "players": "dave", "start": "", "end": "",
        "notes": "only dave"})
    assert changed.status_code == 302
    page = client.get(f"/research/sessions/{session.pk}/").content.decode()
    assert 'id="session-hands">1<' in page and "only dave" in page
    assert client.get(f"/research/sessions/{session.pk}/delete/").status_code == 200
    assert client.post(f"/research/sessions/{session.pk}/delete/").status_code == 302
    assert not Session.objects.exists()


def test_session_page_rights(hand_made: dict[str, Any], client: Any) -> None:
    users = hand_made["users"]
    session = sessions.save_session(user=users["bob"], data={"name": "bob's"})
    url = f"/research/sessions/{session.pk}/"
    assert client.get(url).status_code == 302  # anonymous: to the login page
    client.force_login(users["alice"])
    assert client.get("/research/sessions/").status_code == 403
    client.force_login(users["tess"])
    for suffix in ("", "edit/", "delete/", "csv", "phh"):
        assert client.get(url + suffix).status_code == 404
    assert client.post(url + "delete/").status_code == 404
    client.force_login(users["root"])
    assert client.get(url).status_code == 200


def test_match_stats_page(match: MatchRun, hand_made: dict[str, Any], client: Any) -> None:
    client.force_login(hand_made["users"]["alice"])
    page = client.get(f"/research/matches/{match.pk}/stats/").content.decode()
    assert 'data-bot="calling_station"' in page and "C-bet" in page
    assert len(body(client.get(f"/research/matches/{match.pk}/csv")).splitlines()) == 181
    MatchRun.objects.filter(pk=match.pk).update(phh="")
    assert 'id="no-stats"' in client.get(f"/research/matches/{match.pk}/stats/").content.decode()
    assert client.get(f"/research/matches/{match.pk}/csv").status_code == 404
    assert Player.objects.filter(name="alice").exists()


def test_tokens(hand_made: dict[str, Any]) -> None:
    """A personal token with the ``bots`` scope manages sessions; a bot token does not."""
    from accounts.services import create_bot, create_personal_token

    bob = hand_made["users"]["bob"]
    _token, raw = create_personal_token(owner=bob, name="research", scopes=["bots"])
    script = client_for(token=raw)
    made = create(script, tables=["Hand-made"])
    assert made.status_code == 201, made.content
    assert script.get(f"/api/v1/sessions/{made.json()['id']}/stats").json()["hands"] == 5
    _bot, bot_token = create_bot(owner=bob, name="Skynet")
    refused = client_for(token=bot_token).get("/api/v1/sessions/")
    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == "token_scope"


def test_throttled_like_the_other_endpoints(hand_made: dict[str, Any], settings: Any) -> None:
    rates = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK,
                               "DEFAULT_THROTTLE_RATES": {**rates, "create": "2/min"}}
    bob = client_for(hand_made["users"]["bob"])
    assert [create(bob).status_code for _ in range(3)] == [201, 201, 429]
    assert create(bob).json()["error"]["details"]["scope"] == "create"
    assert bob.get("/api/v1/sessions/").status_code == 200  # reads: the default scope


def test_downloads_stream_under_asgi(hand_made: dict[str, Any]) -> None:
    """Under Daphne the exports go out through an asynchronous iterator (Django would read
    a synchronous one whole into memory first, with a warning)."""
    import warnings

    from asgiref.sync import async_to_sync
    from django.test import AsyncClient

    session = sessions.save_session(user=hand_made["users"]["bob"],
                                    data={"name": "asgi", "tables": ["Hand-made"]})
    client = AsyncClient()
    client.force_login(hand_made["users"]["bob"])

    async def fetch(url: str) -> tuple[Any, str]:
        response = await client.get(url)
        parts = [part async for part in response.streaming_content]
        return response, b"".join(parts).decode()

    with warnings.catch_warnings():  # "must consume synchronous iterators" would fail
        warnings.filterwarnings("error", message=".*synchronous iterators")
        for url in (f"/api/v1/sessions/{session.pk}/csv", f"/research/sessions/{session.pk}/csv"):
            response, text = async_to_sync(fetch)(url)
            assert response.status_code == 200, url
            assert response.is_async and len(text.splitlines()) == 16
