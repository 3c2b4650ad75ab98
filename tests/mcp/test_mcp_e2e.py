"""The MCP server (agents/, docs/mcp.md) end to end: a real Daphne (tests/mcp/conftest.py)
and the MCP SDK's own client over Streamable HTTP.

* An agent lists the tables, sits at a heads-up Hold'em table against a house bot,
  plays 20 hands choosing from the legal moves with a reason each, chats, leaves; then
  a solitaire dice game on a table it creates, to the end; every chip is conserved and
  the reasons are stored with the hands, in the owner's hand history.
* Authentication: no token, a malformed one, a wrong one, a revoked one → 401 JSON.
* Bad input: unknown table, not seated, not your turn, an illegal move, a wrong
  amount, an oversized reason or chat line, arguments of the wrong type → a tool
  error with a stable code, and the table is unchanged.
* Matches: a batch match of house bots started and followed to its results.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx2
import pytest
from mcp import MCPError

from .client import Agent, connect
from .conftest import McpServer

HANDS = 20


def choose(moves: list[dict[str, Any]], decision: int) -> tuple[str, dict[str, Any]]:
    """A simple policy over the generic descriptors: check, else call; every third
    decision a minimum bet or raise when there is one."""
    by_kind = {m["kind"]: m for m in moves}
    for sized in ("raise", "bet"):
        if sized in by_kind and decision % 3 == 0:
            amount = by_kind[sized]["params"]["amount"]["min"]
            return sized, {"amount": amount}
    for kind in ("check", "call", "muck"):
        if kind in by_kind:
            return kind, {}
    return moves[0]["kind"], {}


async def play_holdem(agent: Agent, table: int) -> int:
    """Play until HANDS hands are finished; return the number of decisions made."""
    hands: set[int] = set()
    decisions = 0
    deadline = time.monotonic() + 60
    while len(hands) <= HANDS:  # the (HANDS+1)-th hand started: HANDS are finished
        assert time.monotonic() < deadline, f"only {len(hands)} hands"
        state = await agent.ok("wait_for_my_turn", table_id=table, timeout=10)
        if state["hand"] is not None:
            hands.add(state["hand"])
        assert state["reason"] in ("your_turn", "hand_ended", "timeout"), state["reason"]
        if state["reason"] != "your_turn":
            continue
        kind, params = choose(state["moves"], decisions)
        after = await agent.ok("act", table_id=table, kind=kind, params=params,
                               reason=f"decision {decisions}: {kind} with my cards")
        assert after["accepted"] == {"kind": kind, **params}
        decisions += 1
    return decisions


async def play_dice(agent: Agent) -> dict[str, Any]:
    created = await agent.ok("create_table", name="MCP dice", game="dice",
                             settings={"seats": 1, "rules": "mini"}, turn_seconds=60)
    assert created["turn_seconds"] == 60 and created["game"] == "dice"
    table = created["table"]
    await agent.ok("sit", table_id=table)
    deadline = time.monotonic() + 30
    while True:
        assert time.monotonic() < deadline
        state = await agent.ok("wait_for_my_turn", table_id=table, timeout=10)
        if state["reason"] == "game_over":
            break
        if state["reason"] != "your_turn":
            continue
        moves = {m["kind"]: m for m in state["moves"]}
        turn = state["view"].get("turn") or {}
        if "roll" in moves and turn.get("rolls_left") == 2:
            await agent.ok("act", table_id=table, kind="roll", params={"hold": [0, 1]},
                           reason="keep the first two dice")
        else:
            box = moves["score"]["params"]["box"]["options"][0]
            await agent.ok("act", table_id=table, kind="score", params={"box": box})
    assert state["standings"], state
    left = await agent.ok("leave", table_id=table)
    assert left["left"]
    return state


def test_agent_plays_holdem_and_dice(mcp_server: McpServer) -> None:
    chips = mcp_server.chips()
    table = mcp_server.setup["holdem"]

    async def main() -> None:
        async with connect(mcp_server.url, mcp_server.setup["token"]) as agent:
            tools = {t.name for t in (await agent.session.list_tools()).tools}
            assert {"list_tables", "sit", "wait_for_my_turn", "get_state", "act", "chat",
                    "leave", "create_table", "start_match", "match_status"} <= tools
            listed = await agent.ok("list_tables", game="holdem", free_seats=1)
            row = next(t for t in listed["tables"] if t["id"] == table)
            assert row["turn_seconds"] == 60 and row["free"] == 1
            assert row["settings"]["big_blind"] == 2
            seated = await agent.ok("sit", table_id=table, buy_in=20000)  # never busts
            assert seated["seats_mine"] == [1]
            said = await agent.ok("chat", table_id=table, text="gl hf")
            assert said["message"] == "gl hf" and said["name"] == "Agent"
            decisions = await play_holdem(agent, table)
            assert decisions >= 10
            state = await agent.ok("get_state", table_id=table)
            assert "House-RuleBased" in state["hud"]
            assert state["hud"]["House-RuleBased"]["hands"] >= 1
            assert "VPIP" in state["text"] and state["last_hand"]["players"]
            await agent.ok("leave", table_id=table)
            for _ in range(50):  # a leave in a hand takes effect when it ends
                if not (await agent.ok("whoami"))["seats"]:
                    break
                await asyncio.sleep(0.1)
            assert (await agent.ok("whoami"))["seats"] == []
            await play_dice(agent)

    started = time.monotonic()
    asyncio.run(main())
    assert time.monotonic() - started < 60
    assert mcp_server.chips() == chips  # every chip conserved
    stored = mcp_server.inspect(table)
    assert stored["hands"] >= HANDS
    assert stored["reasons"] and all(r.startswith("decision ") for r in stored["reasons"])
    reasons_in_the_hand_history(mcp_server)


def test_agent_plays_a_tuppi_round(mcp_server: McpServer) -> None:
    """The fourth player of a Tuppi table (three house agents): bids and plays its cards
    from the generic descriptors until the round ends, then leaves."""
    table = mcp_server.setup["tuppi"]

    async def main() -> None:
        async with connect(mcp_server.url, mcp_server.setup["token"]) as agent:
            seated = await agent.ok("sit", table_id=table)
            assert seated["seats_mine"] == [1] and seated["game"] == "tuppi"
            kinds: list[str] = []
            first_round = None
            deadline = time.monotonic() + 30
            while True:
                assert time.monotonic() < deadline, kinds
                state = await agent.ok("wait_for_my_turn", table_id=table, timeout=10)
                number = state["view"].get("number")
                first_round = number if first_round is None else first_round
                if state["reason"] == "hand_ended" or number != first_round:
                    break
                if state["reason"] != "your_turn":
                    continue
                assert "Current trick" in state["text"] and "YOUR TURN" in state["text"]
                move = state["moves"][0]
                params = {name: spec["options"][0]
                          for name, spec in (move.get("params") or {}).items()}
                await agent.ok("act", table_id=table, kind=move["kind"], params=params)
                kinds.append(move["kind"])
            assert kinds[0] in ("rami", "nolo") and kinds.count("play") >= 1, kinds
            left = await agent.ok("leave", table_id=table)
            assert left["table"] == table

    asyncio.run(main())


def reasons_in_the_hand_history(mcp_server: McpServer) -> None:
    """The reasons given are in the hand history the owner's bot reads (REST API)."""
    token = mcp_server.setup["token"]
    base = f"http://127.0.0.1:{mcp_server.port}/api/v1"
    with httpx2.Client(headers={"Authorization": f"Bearer {token}"}, timeout=30) as http:
        hands = http.get(f"{base}/hands/", params={"table": mcp_server.setup["holdem"]})
        assert hands.status_code == 200, hands.text
        reasons = []
        for row in hands.json()["results"][:10]:
            detail = http.get(f"{base}/hands/{row['id']}/").json()
            reasons += [p["reason"] for p in detail["policies"] if "reason" in p]
        assert reasons and all(r.startswith("decision ") for r in reasons)


def test_refuses_missing_bad_and_revoked_tokens(mcp_server: McpServer) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    headers = {"Accept": "application/json, text/event-stream"}
    cases = [({}, "not_authenticated"),
             ({"Authorization": "Bearer"}, "malformed_token"),
             ({"Authorization": "Basic abc"}, "malformed_token"),
             ({"Authorization": "Bearer pkb_nonsense"}, "invalid_token"),
             ({"Authorization": f"Bearer {mcp_server.setup['revoked']}"}, "invalid_token")]
    for extra, code in cases:
        response = httpx2.post(mcp_server.url, json=body, headers={**headers, **extra},
                               timeout=10)
        assert response.status_code == 401, (extra, response.text)
        assert response.json()["error"]["code"] == code
        assert response.headers["www-authenticate"].startswith("Bearer")

    token = {"Authorization": f"Bearer {mcp_server.setup['token']}"}
    stream = httpx2.get(mcp_server.url, headers={**token, "Accept": "text/event-stream"},
                        timeout=10)  # no SSE stream: said at once, not held open
    assert stream.status_code == 405 and stream.json()["error"]["code"] == "method_not_allowed"
    answer = httpx2.post(mcp_server.url, headers={**headers, **token}, timeout=10, json={
        "jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "whoami", "arguments": {}}})  # plain JSON-RPC, no session
    assert answer.json()["result"]["structuredContent"]["bot"]["name"] == "Agent"
    huge = httpx2.post(mcp_server.url, headers={**headers, **token}, timeout=10, json={
        "jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "chat", "arguments": {"table_id": 1, "text": "x" * 300_000}}})
    assert huge.status_code == 413 and huge.json()["error"]["code"] == "request_too_large"

    async def sdk_client() -> None:  # the SDK's client gets the 401 too
        async with connect(mcp_server.url, mcp_server.setup["revoked"]):
            raise AssertionError("connected with a revoked token")

    with pytest.raises(BaseExceptionGroup) as raised:  # the SDK's error for the 401
        asyncio.run(sdk_client())
    assert raised.group_contains(MCPError)
    assert not raised.group_contains(AssertionError)


def test_bad_input_is_refused_and_changes_nothing(mcp_server: McpServer) -> None:
    async def main() -> None:
        async with connect(mcp_server.url, mcp_server.setup["token"]) as agent:
            assert await agent.refused("get_state", table_id=999999) == "table_not_found"
            assert await agent.refused("sit", table_id=999999) == "table_not_found"
            assert await agent.refused("act", table_id=999999, kind="fold") \
                == "table_not_found"
            assert await agent.refused("get_state", table_id="abc") == "invalid_arguments"
            assert await agent.refused("act", table_id=1) == "invalid_arguments"  # no kind
            assert await agent.refused("teleport", table_id=1) == "unknown_tool"
            created = await agent.ok("create_table", name="MCP lonely", turn_seconds=45,
                                     settings={"structure": "NL", "small_blind": 1,
                                               "big_blind": 2, "seats": 2})
            table = created["table"]
            assert await agent.refused("act", table_id=table, kind="fold") == "not_seated"
            assert await agent.refused("create_table", name="MCP lonely") == "name_taken"
            assert await agent.refused("create_table", name="x", turn_seconds=1) \
                == "bad_settings"
            await agent.ok("sit", table_id=table, buy_in=100)
            assert await agent.refused("sit", table_id=table) in ("already_seated",
                                                                  "table_full")
            # Alone at the table: no hand, never this bot's turn.
            before = await agent.ok("get_state", table_id=table)
            assert await agent.refused("act", table_id=table, kind="check") == "not_your_turn"
            assert await agent.refused("chat", table_id=table, text="x" * 501) \
                == "chat_too_long"
            assert await agent.refused("leave", table_id=999999) == "table_not_found"
            after = await agent.ok("get_state", table_id=table)
            assert after["version"] == before["version"]
            await agent.ok("leave", table_id=table)

            # At the Hold'em table with the house bot, on the bot's own turn.
            holdem = mcp_server.setup["holdem"]
            await agent.ok("sit", table_id=holdem, buy_in=200)
            state = await agent.ok("wait_for_my_turn", table_id=holdem, timeout=10)
            while state["reason"] != "your_turn":
                state = await agent.ok("wait_for_my_turn", table_id=holdem, timeout=10)
            version = state["version"]
            assert await agent.refused("act", table_id=holdem, kind="dance") in \
                ("bad_action", "illegal_action")
            sized = next((m for m in state["moves"] if m["kind"] in ("bet", "raise")), None)
            assert sized is not None, state["moves"]  # 200 chips against a deep house bot
            low = sized["params"]["amount"]["min"]
            # The game's own codes pass through (poker: bad_amount; engine.game: the
            # generic illegal_amount / malformed_action).
            assert await agent.refused("act", table_id=holdem, kind=sized["kind"],
                                       params={"amount": low - 1}) in ("bad_amount",
                                                                       "illegal_amount")
            assert await agent.refused("act", table_id=holdem, kind=sized["kind"],
                                       params={"amount": "lots"}) in (
                "bad_amount", "malformed_action", "malformed_message")
            legal = state["moves"][0]["kind"]
            assert await agent.refused("act", table_id=holdem, kind=legal,
                                       reason="why " * 1000) == "reason_too_long"
            assert await agent.refused("act", table_id=holdem, kind=legal,
                                       reason="bad\x00text") == "invalid_text"
            assert await agent.refused("act", table_id=holdem, kind=legal,
                                       params={"pad": "x" * 10000}) == "too_large"
            same = await agent.ok("get_state", table_id=holdem)
            assert same["version"] == version and same["your_turn"]
            await agent.ok("leave", table_id=holdem)

    chips = mcp_server.chips()
    asyncio.run(main())
    assert mcp_server.chips() == chips


def test_start_a_match_and_follow_it(mcp_server: McpServer) -> None:
    async def main() -> None:
        async with connect(mcp_server.url, mcp_server.setup["token"]) as agent:
            assert await agent.refused("start_match", bots=["nobody", "random"]) \
                == "bad_match"
            assert await agent.refused("match_status", match_id=999999) == "match_not_found"
            match = await agent.ok("start_match", bots=["rule_based", "random"], hands=40,
                                   seed=3)
            assert match["status"] in ("queued", "running", "done")
            deadline = time.monotonic() + 30
            while match["status"] not in ("done", "failed"):
                assert time.monotonic() < deadline
                await asyncio.sleep(0.2)
                match = await agent.ok("match_status", match_id=match["id"])
            assert match["status"] == "done", match
            assert set(match["results"]["bots"]) == {"rule_based", "random"}
            assert match["results"]["hands"] == 40

    asyncio.run(main())
