"""The dice game's rule sets as user data and its top 10 per rule set (docs/dice.md,
"Rule sets in the browser", "Top 10"): games played through the table service to the
end, the seed's entry rule (every solitaire game, only the winner of a game of several
players), separate lists per rule-set identity; the editor's endpoints (validation,
saving, a new identity on change), the create-table form with a saved rule set."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from engine.registry import GAMES
from lobby.models import RuleSet
from lobby.rulesets import top10
from tables import services
from tables.models import Standing, Table, TableStatus

pytestmark = pytest.mark.django_db

# One box and one roll: a game is one move per player.
QUICK = {"name": "Quick chance", "dice": 5, "faces": 6, "rolls": 1,
         "combinations": [{"id": "chance", "family": "chance"}]}
QUICK_ID = GAMES["dice"].validate_rule_set(QUICK)["id"]
VALIDATE = "/games/dice/rule-sets/validate.json"
SAVE = "/games/dice/rule-sets/save.json"


def client_of(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def post(client: Client, url: str, body: Any) -> Any:
    text = body if isinstance(body, str) else json.dumps(body)
    return client.post(url, text, content_type="application/json")


def play(creator: Any, name: str, users: list[Any], rules: Any = None) -> Table:
    """A dice table for ``users`` (one seat each) played to the end: every turn
    writes its dice into the first open box."""
    table = services.create_table(creator=creator, name=name, game="dice", settings={
        "seats": len(users), "rules": rules if rules is not None else QUICK})
    for seat, user in enumerate(users):
        services.execute(table_id=table.pk, user=user,
                         command={"type": "sit", "seat": seat})
    game = GAMES["dice"]
    for _ in range(200):
        table.refresh_from_db()
        if table.status == TableStatus.FINISHED:
            return table
        seat = table.to_act_seat
        assert seat is not None
        state = game.load(table.state)
        box = next(m for m in game.legal_moves(state, seat) if m["kind"] == "score")
        action = {"kind": "score", "box": box["params"]["box"]["options"][0]}
        services.execute(table_id=table.pk, user=users[seat], command={
            "type": "act", "hand": table.current_hand_id, "version": table.decision_version,
            "action": action})
    raise AssertionError("the game did not end")


def test_every_solitaire_game_enters_its_rule_sets_top10(alice: Any) -> None:
    tables = [play(alice, f"Solo {i}", [alice]) for i in range(3)]
    entries = top10("dice", QUICK_ID)
    assert sorted(e["table"] for e in entries) == sorted(t.pk for t in tables)
    assert [e["score"] for e in entries] == sorted((e["score"] for e in entries), reverse=True)
    assert all(e["name"] == "alice" and e["place"] == 1 for e in entries)
    rows = Standing.objects.filter(table__in=tables)
    assert {r.rule_set for r in rows} == {QUICK_ID} and all(r.listed for r in rows)


def test_only_the_winner_of_a_multiplayer_game_enters(alice: Any, bob: Any,
                                                     root: Any) -> None:
    table = play(alice, "Three", [alice, bob, root])
    winners = {s["name"] for s in table.standings if s["rank"] == 1}
    losers = {s["name"] for s in table.standings if s["rank"] > 1}
    entries = top10("dice", QUICK_ID)
    assert {e["name"] for e in entries} == winners and winners
    assert all(e["place"] == 1 for e in entries)
    # Every standing is stored (the table's result), the losers just are not listed.
    stored = Standing.objects.filter(table=table)
    assert stored.count() == 3
    assert {s.name for s in stored if not s.listed} == losers
    # The rule set's top 10 over the API: the same; the settings-digest leaderboard
    # (the platform's results of these exact settings) still lists every finish.
    client = client_of(alice)
    top = client.get("/api/v1/games/dice/leaderboard/", {"rule_set": QUICK_ID}).json()
    assert {e["name"] for e in top["results"]} == winners
    digest = client.get("/api/v1/games/dice/leaderboard/", {"rules": table.rules})
    assert {e["name"] for e in digest.json()["results"]} == {"alice", "bob", "root"}


def test_separate_lists_per_rule_set_identity(alice: Any, bob: Any) -> None:
    solo = play(alice, "Solo", [alice])
    duo = play(alice, "Duo", [alice, bob])  # other settings, same rule set: one list
    renamed = play(alice, "Renamed", [bob], {**QUICK, "name": "Another name"})
    two_rolls = {**QUICK, "rolls": 2}
    other = play(alice, "Two rolls", [alice], two_rolls)
    other_id = GAMES["dice"].validate_rule_set(two_rolls)["id"]
    assert other_id != QUICK_ID and solo.rules != duo.rules
    assert {e["table"] for e in top10("dice", QUICK_ID)} == {solo.pk, duo.pk, renamed.pk}
    assert [e["table"] for e in top10("dice", other_id)] == [other.pk]
    # Over the API and on the page.
    client = client_of(alice)
    data = client.get("/api/v1/games/dice/leaderboard/", {"rule_set": other_id}).json()
    assert data["rule_set"] == other_id and [e["table"] for e in data["results"]] == [other.pk]
    html = client.get(f"/games/dice/leaderboard/?rule_set={QUICK_ID}").content.decode()
    assert 'id="rule-set-identity"' in html and "Quick chance" in html
    # One row per entry (three tables; two if the duo's players tied and both won).
    entries = top10("dice", QUICK_ID)
    assert len(entries) >= 3 and html.count('class="num score"') == len(entries)
    # The finished table links to its rule set's top 10.
    assert f"?rule_set={QUICK_ID}" in client.get(f"/tables/{solo.pk}/").content.decode()


def test_top10_is_ten_best(alice: Any) -> None:
    for i in range(12):
        play(alice, f"Solo {i}", [alice])
    entries = top10("dice", QUICK_ID)
    scores = sorted((s.score for s in Standing.objects.all()), reverse=True)
    assert len(entries) == 10 and [e["score"] for e in entries] == scores[:10]


def test_bad_rule_set_identity_is_refused(alice: Any) -> None:
    client = client_of(alice)
    response = client.get("/api/v1/games/dice/leaderboard/", {"rule_set": "no way!"})
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_request"
    assert client.get("/games/dice/leaderboard/?rule_set=%3Cx%3E").status_code == 400


# ------------------------------------------------------------------ the editor


def test_validation_gives_the_games_code_and_sentence(alice: Any) -> None:
    client = client_of(alice)
    response = post(client, VALIDATE, QUICK)
    assert response.status_code == 200
    assert response.json()["id"] == QUICK_ID and response.json()["saved"] is None
    house = {**QUICK, "dice": 4, "combinations": [{"id": "house", "family": "full_house"}]}
    response = post(client, VALIDATE, house)
    assert response.status_code == 400
    assert response.json()["error"] == {
        "code": "rules_full_house",
        "message": "Combination 'house' (full_house): a full house needs an odd number of "
                   "dice, at least 3 (dice = 4)."}
    for body, code in [("{nope", "malformed_json"), ("[1, 2]", "rules_malformed"),
                       ({**QUICK, "dice": 0}, "rules_dice"),
                       ({**QUICK, "combinations": []}, "rules_count")]:
        response = post(client, VALIDATE, body)
        assert (response.status_code, response.json()["error"]["code"]) == (400, code), body


def test_endpoints_refuse_cleanly(alice: Any) -> None:
    anonymous = post(Client(), VALIDATE, QUICK)
    assert anonymous.status_code == 401
    assert anonymous.json()["error"]["code"] == "not_authenticated"
    client = client_of(alice)
    response = client.get(VALIDATE)
    assert response.status_code == 405 and response.json()["error"]["code"] == \
        "method_not_allowed"
    response = post(client, "/games/holdem/rule-sets/validate.json", QUICK)
    assert response.status_code == 404 and response.json()["error"]["code"] == "unknown_game"
    for body in [QUICK, {"rules": QUICK, "edit": "x"}, {"rules": QUICK, "edit": 2**70},
                 {"rules": QUICK, "extra": 1},
                 {"rules": QUICK, "based_on": "<b>"}]:
        response = post(client, SAVE, body)
        assert response.status_code == 400, body
        assert response.json()["error"]["code"] == "malformed_request"
    assert post(client, SAVE, "x" * 70000).json()["error"]["code"] == "too_large"
    response = client.get("/games/holdem/rule-sets/")
    assert response.status_code == 400 and b"has no rule sets" in response.content


def test_csrf_is_required() -> None:
    client = Client(enforce_csrf_checks=True)
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.create_user("carol", "c@example.com", "pw-12345678")
    client.force_login(user)
    assert post(client, VALIDATE, QUICK).status_code == 403


def test_save_rename_and_new_identity(alice: Any, bob: Any) -> None:
    client = client_of(alice)
    response = post(client, SAVE, {"rules": QUICK, "based_on": "71ad65ca05479ddc"})
    assert response.status_code == 201
    saved = response.json()["rule_set"]
    assert (saved["rules_id"], saved["name"], saved["based_on"]) == (
        QUICK_ID, "Quick chance", "71ad65ca05479ddc")
    assert saved["url"] == f"/games/dice/rule-sets/{saved['id']}/"
    # A rename keeps the row and the identity.
    response = post(client, SAVE, {"rules": {**QUICK, "name": "Renamed"}, "edit": saved["id"]})
    assert response.status_code == 200 and response.json()["created"] is False
    row = RuleSet.objects.get(pk=saved["id"])
    assert (row.name, row.rules_id) == ("Renamed", QUICK_ID)
    # Changing what is played (dice, faces, rolls...) makes a new rule set.
    response = post(client, SAVE, {"rules": {**QUICK, "faces": 8}, "edit": saved["id"]})
    assert response.status_code == 201 and response.json()["new_identity"] is True
    new = response.json()["rule_set"]
    assert new["id"] != saved["id"] and new["rules_id"] != QUICK_ID
    assert new["based_on"] == QUICK_ID
    assert RuleSet.objects.filter(owner=alice).count() == 2
    # Someone else's rule set is copied, never edited.
    response = post(client_of(bob), SAVE, {"rules": QUICK, "edit": saved["id"]})
    assert response.status_code == 404 and response.json()["error"]["code"] == \
        "unknown_rule_set"
    # An invalid rule set is not saved.
    response = post(client, SAVE, {"rules": {**QUICK, "rolls": 10}})
    assert response.json()["error"]["code"] == "rules_rolls"


def test_pages(alice: Any, bob: Any) -> None:
    row, _ = __import__("lobby.rulesets", fromlist=["save"]).save(alice, GAMES["dice"], QUICK)
    client = client_of(alice)
    html = client.get("/games/dice/rule-sets/").content.decode()
    assert "Yatzy" in html and "Quick chance" in html and QUICK_ID in html
    assert f"rules=saved:{row.pk}" in html
    editor = client.get(f"/games/dice/rule-sets/{row.pk}/").content.decode()
    assert 'id="rule-set-config"' in editor and '"edit": ' + str(row.pk) in editor
    # Another user sees it read-only, with a copy link.
    other = client_of(bob).get(f"/games/dice/rule-sets/{row.pk}/").content.decode()
    assert '"readonly": true' in other and f"from=saved:{row.pk}" in other
    new = client.get("/games/dice/rule-sets/new/?from=mini").content.decode()
    assert "My Mini (4 dice)" in new and '"based_on": "5835307e4a997425"' in new
    assert client.get("/games/dice/rule-sets/99999/").status_code == 404


def test_a_table_with_a_saved_rule_set(alice: Any, bob: Any) -> None:
    from lobby.rulesets import save

    row, _ = save(alice, GAMES["dice"], QUICK)
    client = client_of(alice)
    lobby = client.get("/lobby/?create=1&game=dice&rules=saved:" + str(row.pk)).content.decode()
    assert f'value="saved:{row.pk}" selected' in lobby and "Quick chance (saved)" in lobby
    response = client.post("/lobby/create/", {
        "name": "My quick one", "game": "dice", "settings_for": "dice", "seats": 1,
        "rules": f"saved:{row.pk}", "turn_seconds": 30})
    assert response.status_code == 302, response.content.decode()[:2000]
    table = Table.objects.get(name="My quick one")
    assert table.settings["rules"]["id"] == QUICK_ID and table.facts["rules_id"] == QUICK_ID
    # Another user's saved rule set is not among bob's choices.
    response = client_of(bob).post("/lobby/create/", {
        "name": "Not mine", "game": "dice", "settings_for": "dice", "seats": 1,
        "rules": f"saved:{row.pk}", "turn_seconds": 30})
    assert response.status_code == 400 and not Table.objects.filter(name="Not mine").exists()
