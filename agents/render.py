"""A bot's view of a table as compact text for a language model.

Pure functions over the JSON the server already builds (the snapshot of
``tables.selectors.snapshot`` and its ``your_turn``): Hold'em and the other poker
games, the dice game, and a generic fallback (the game's public view as compact
JSON) for any other game. The legal moves are always the generic descriptors
(``view["moves"]``), so every game can be played from the text alone.
"""

from __future__ import annotations

import json
from typing import Any

Json = dict[str, Any]
GENERIC_LIMIT = 3000  # characters of a game's view in the generic fallback


def compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str)


def describe_move(spec: Json) -> str:
    """One descriptor as a line: its kind, label and parameters with their ranges."""
    parts = []
    for name, param in (spec.get("params") or {}).items():
        kind = param.get("type")
        if kind == "number":
            parts.append(f"{name}={param.get('min')}..{param.get('max')}")
        elif kind == "choice":
            parts.append(f"{name} one of {compact(param.get('options'))}")
        elif kind == "subset":
            parts.append(f"{name}: {param.get('min')}-{param.get('max')} distinct of "
                         f"{compact(param.get('items'))}")
        else:
            parts.append(f"{name}: {compact(param)}")
    label = spec.get("label") or spec.get("kind")
    text = f"- {spec.get('kind')} ({label})"
    return text + (": " + "; ".join(parts) if parts else "")


def render_moves(moves: list[Json]) -> str:
    if not moves:
        return "No moves now."
    return "Your legal moves (call act with kind and params):\n" + "\n".join(
        describe_move(m) for m in moves)


def _hud_line(name: str, hud: Json | None) -> str:
    if not hud:
        return ""
    def pct(value: Any) -> str:
        return "-" if value is None else f"{round(100 * value)}%"
    af = hud.get("af")
    return (f" [HUD {hud.get('hands', 0)} hands: VPIP {pct(hud.get('vpip'))}, "
            f"PFR {pct(hud.get('pfr'))}, AF {'-' if af is None else round(af, 1)}]")


def render_poker(state: Json, seats: list[Any], me: list[int], hud: dict[str, Json]) -> list[str]:
    lines = []
    hand = state.get("hand") or {}
    names = {s["seat"]: s["name"] for s in seats if s}
    if hand:
        pot = sum(int(p.get("amount", 0)) for p in hand.get("pots") or [])
        lines.append(f"Street: {hand.get('street')}  Board: {hand.get('board') or '-'}  "
                     f"Pot: {pot}")
        players = hand.get("players") or []
        last = len(players) - 1
        for p in players:
            seat = p.get("player")
            role = "button" if p.get("position") == last else ""
            flags = []
            if seat in me:
                flags.append("YOU")
            if p.get("folded"):
                flags.append("folded")
            if hand.get("actor") == seat and not hand.get("is_over"):
                flags.append("to act")
            name = names.get(seat, f"seat {seat}")
            lines.append(
                f"  seat {seat} {name}{' (' + role + ')' if role else ''}: stack {p.get('stack')}"
                f", bet {p.get('bet')}, cards {p.get('cards') or '-'}"
                f"{' [' + ', '.join(flags) + ']' if flags else ''}"
                f"{'' if seat in me else _hud_line(name, hud.get(name))}")
    else:
        lines.append("No hand in progress.")
        for s in seats:
            if s:
                mine = " [YOU]" if s["seat"] in me else ""
                lines.append(f"  seat {s['seat']} {s['name']}: stack {s['stack']}, {s['state']}"
                             f"{mine}{'' if mine else _hud_line(s['name'], hud.get(s['name']))}")
    return lines


def render_dice(state: Json, seats: list[Any], me: list[int], view: Json | None) -> list[str]:
    lines = []
    rules = state.get("rules") or {}
    boxes = [b.get("id") or b.get("name") for b in rules.get("combinations") or []
             if isinstance(b, dict)]
    for sheet in state.get("sheets") or []:
        open_boxes = [boxes[i] if i < len(boxes) else str(i)
                      for i, v in enumerate(sheet.get("boxes") or []) if v is None]
        mine = " [YOU]" if sheet.get("seat") in me else ""
        lines.append(f"  seat {sheet.get('seat')}{mine}: total {sheet.get('total')}, "
                     f"open boxes {', '.join(map(str, open_boxes)) or '-'}")
    turn = state.get("turn") or {}
    if turn:
        lines.append(f"Turn of seat {turn.get('seat')}: dice {turn.get('dice')}, roll "
                     f"{turn.get('roll')}, rolls left {turn.get('rolls_left')}")
        scores = turn.get("scores") or []
        if scores and turn.get("seat") in me:
            options = [f"{boxes[i] if i < len(boxes) else i}={v}"
                       for i, v in enumerate(scores) if v is not None]
            lines.append("Points per open box now: " + ", ".join(options))
    if state.get("standings"):
        lines.append("Standings: " + compact(state["standings"]))
    return lines


def render_tuppi(state: Json, seats: list[Any], me: list[int]) -> list[str]:
    names = {s["seat"]: s["name"] for s in seats if s}
    teams = state.get("teams") or []
    lines = [f"Score (team 0, team 1): {state.get('score')}; teams: "
             + "; ".join(f"team {i}: " + ", ".join(names.get(p, f"seat {p}") for p in team)
                         for i, team in enumerate(teams))]
    round_ = state.get("round") or {}
    if round_:
        lines.append(f"Round: phase {round_.get('phase')}, mode {round_.get('mode') or '-'}, "
                     f"declarer {round_.get('declarer')}, dealer {round_.get('dealer')}, "
                     f"team tricks {round_.get('team_tricks')}")
        for p in round_.get("players") or []:
            seat = p.get("player")
            mine = " [YOU]" if seat in me else ""
            lines.append(f"  seat {seat} {names.get(seat, '')} (team {p.get('team')}){mine}: "
                         f"{p.get('count')} cards {p.get('cards') or ''}, bid "
                         f"{p.get('bid') or '-'}, tricks {p.get('tricks')}")
        trick = round_.get("trick") or []
        lines.append("Current trick: " + (", ".join(
            f"seat {t.get('player')} {t.get('card')}" for t in trick) or "-"))
        done = round_.get("tricks") or []
        if done:
            lines.append("Finished tricks: " + "; ".join(
                f"{' '.join(t.get('cards') or [])} (led by {t.get('leader')}, won by "
                f"{t.get('winner')})" for t in done))
    if state.get("last"):
        lines.append("Last round: " + compact(state["last"]))
    if state.get("result"):
        lines.append("Result: " + compact(state["result"]))
    return lines


def render_generic(state: Json) -> list[str]:
    text = compact(state)
    if len(text) > GENERIC_LIMIT:
        text = text[:GENERIC_LIMIT] + "…"
    return ["Game view (JSON): " + text]


def render(snapshot: Json, turn: Json | None, hud: dict[str, Json] | None = None) -> str:
    """The snapshot as the bot sees it, its turn's moves and the opponents' HUD."""
    info = snapshot.get("info") or {}
    seats = snapshot.get("seats") or []
    me = (snapshot.get("you") or {}).get("seats") or []
    state = (turn or {}).get("view") or snapshot.get("state") or {}
    lines = [f"Table {snapshot.get('table')} “{info.get('name')}” — {info.get('game_name')} "
             f"(game {info.get('game')}), version {snapshot.get('version')}, "
             f"hand {snapshot.get('hand')}, turn time {info.get('turn_seconds')} s, "
             f"status {info.get('status')}"]
    lines.append(f"You: seat {', '.join(map(str, me))}" if me else "You are not seated here.")
    game = info.get("game")
    if isinstance(state.get("hand"), dict | type(None)) and "button" in state:
        lines += render_poker(state, seats, me, hud or {})
    elif game == "dice":
        lines += render_dice(state, seats, me, turn)
    elif game == "tuppi":
        lines += render_tuppi(state, seats, me)
    else:
        lines += render_generic({k: v for k, v in state.items()
                                 if k not in ("moves", "legal", "time_left")})
    if turn:
        lines.append(f"YOUR TURN (seat {turn.get('seat')}, {turn.get('time_left')} s left).")
        lines.append(render_moves(turn.get("moves") or []))
    else:
        to_act = (snapshot.get("turn") or {})
        lines.append(f"Not your turn (to act: {compact(to_act)}).")
    return "\n".join(lines)
