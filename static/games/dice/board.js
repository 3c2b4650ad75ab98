// The dice board (docs/dice.md): Yatzy and every rule set of engine/dice, in the
// table shell (static/js/table.js, "board interface").
//
// The game's view (snapshot.state) is public: the rule set, one score sheet per
// seat, and the turn (dice, roll, rolls left, what every box would score now). On
// your turn the dice are toggles (click, tap, or the keys 1–9) and Roll re-rolls the
// others ({"kind": "roll", "hold": [...]}); a box of the sheet scores the dice
// ({"kind": "score", "box": id}). The keys: 1–9 hold, R (or Enter on the dice) rolls.
// When the game is over the final sheet stays, with the rule set's top 10
// (GET /api/v1/games/dice/leaderboard/?rule_set=<rules id>).
import { el } from "../../js/dom.js";

// Pips on a 3 × 3 grid (cells 0..8), for faces 1..9.
const PIPS = {
  1: [4], 2: [0, 8], 3: [0, 4, 8], 4: [0, 2, 6, 8], 5: [0, 2, 4, 6, 8],
  6: [0, 2, 3, 5, 6, 8], 7: [0, 2, 3, 4, 5, 6, 8], 8: [0, 1, 2, 3, 5, 6, 7, 8],
  9: [0, 1, 2, 3, 4, 5, 6, 7, 8],
};

function dieFace(face) {
  const on = new Set(PIPS[face] || []);
  return el("span", { class: "dd-pips", "aria-hidden": "true" },
    ...Array.from({ length: 9 }, (_, i) => el("span", { class: on.has(i) ? "pip on" : "pip" })));
}

export function createBoard(shell) {
  const status = el("p", { class: "dd-status", id: "dd-status", role: "status", "aria-live": "polite" }, "Waiting…");
  const countdown = el("span", { class: "countdown", id: "countdown" });
  const seatsBox = el("ol", { class: "dd-seats", id: "dd-seats", "aria-label": "Seats" });
  const diceBox = el("div", { class: "dd-dice", id: "dd-dice", role: "group", "aria-label": "Dice: press to hold" });
  const rollButton = el("button", { type: "button", class: "dd-roll", id: "dd-roll", disabled: true }, "Roll");
  const rollNote = el("span", { class: "dd-roll-note muted small", id: "dd-roll-note" });
  const sheet = el("table", { class: "dd-sheet", id: "dd-sheet", "aria-label": "Score sheet" });
  const over = el("section", { class: "dd-over", id: "dd-over", hidden: true, "aria-label": "Game over" });
  const rulesName = el("span", { class: "dd-rules muted small", id: "dd-rules" });
  const tableBox = el("div", { class: "dd-table", id: "dd-table" }, diceBox,
    el("div", { class: "dd-roll-bar" }, rollButton, rollNote));
  shell.slots.main.append(el("section", { class: "dboard panel", id: "dboard" },
    el("div", { class: "dd-head" }, status, countdown),
    rulesName,
    seatsBox,
    tableBox,
    over,
    el("div", { class: "dd-sheet-wrap" }, sheet)));

  // ------------------------------------------------------------ state
  let view = null; // snapshot.state
  let holds = new Set(); // indices of the dice held for the next roll
  let holdKey = ""; // the turn the holds belong to
  let busy = false; // a move is on its way
  let top10Key = "";
  let eventsVersion = 0; // the last events message seen
  let eventsAt = 0; // when (ms)

  // The decision we may answer. The shell forgets its your_turn for a moment when a
  // snapshot arrives (the your_turn follows it): while the snapshot shows the very
  // same decision (same seat, roll, dice and sheet), the last one still holds, so a
  // click in that moment is not lost and the controls do not flicker.
  let lastTurn = null;
  let answered = ""; // the decision we sent a move for

  function decisionKey(state) {
    const t = state?.turn;
    if (!t) return "";
    const sheet = state.sheets?.find((s) => s.seat === t.seat);
    return JSON.stringify([t.seat, t.roll, t.dice, sheet?.boxes]);
  }

  function currentTurn() {
    const turn = shell.turn;
    if (turn) lastTurn = turn;
    const candidate = turn || lastTurn;
    if (!candidate || !view?.turn || view.over || candidate.seat !== view.turn.seat) return null;
    const key = decisionKey(candidate.view);
    if (!turn && key !== decisionKey(view)) return null;
    return key === answered ? null : candidate;
  }

  function myTurn() {
    return currentTurn() !== null;
  }

  function moveOf(kind) {
    const turn = currentTurn();
    return (turn?.moves || turn?.view?.moves || []).find((m) => m.kind === kind) || null;
  }

  function maxHold() {
    return moveOf("roll")?.params?.hold?.max ?? (view ? view.rules.dice - 1 : 0);
  }

  function canRoll() {
    return myTurn() && !busy && Boolean(moveOf("roll")) && holds.size <= maxHold();
  }

  function turnKey() {
    const t = view?.turn;
    if (!t) return "";
    const written = view.sheets?.find((s) => s.seat === t.seat)?.boxes.filter((b) => b !== null).length ?? 0;
    return `${t.seat}:${written}`;
  }

  // ------------------------------------------------------------ actions
  function send(action) {
    const turn = currentTurn();
    if (busy || !turn) return;
    busy = true;
    answered = decisionKey(turn.view);
    if (shell.turn === turn) shell.act(action);
    else shell.send({ type: "act", hand: turn.hand, version: turn.version, seat: turn.seat, action });
    draw();
    // The events and the next your_turn clear busy; a refusal (toast) resyncs.
    setTimeout(() => { busy = false; draw(); }, 1500);
  }

  function toggle(index) {
    if (!myTurn() || !moveOf("roll") || !view?.turn || index >= view.turn.dice.length) return;
    if (holds.has(index)) holds.delete(index); else holds.add(index);
    draw();
  }

  function roll() {
    if (!canRoll()) return;
    send({ kind: "roll", hold: [...holds].sort((a, b) => a - b) });
  }

  function score(box) {
    if (!myTurn() || busy) return;
    send({ kind: "score", box });
  }

  rollButton.addEventListener("click", roll);

  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target;
    if (target instanceof HTMLElement && (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName))) return;
    if (document.querySelector("dialog[open]")) return;
    if (/^[1-9]$/.test(event.key)) {
      if (!myTurn()) return;
      event.preventDefault();
      toggle(Number(event.key) - 1);
    } else if (event.key === "r" || event.key === "R") {
      if (!myTurn()) return;
      event.preventDefault();
      roll();
    }
  });

  // ------------------------------------------------------------ drawing
  function nameOfSeat(seat) { return shell.nameOf(seat); }

  function drawStatus() {
    if (!view) { status.textContent = "Waiting…"; return; }
    const t = view.turn;
    if (view.over) status.textContent = "Game over";
    else if (!t) {
      const empty = Array.from({ length: view.seats }, (_, i) => shell.snapshot?.seats?.[i]).filter((s) => !s).length;
      status.textContent = empty ? `Waiting for ${empty} more player${empty === 1 ? "" : "s"}` : "Starting…";
    } else if (myTurn()) {
      status.textContent = `Your turn · roll ${t.roll} of ${view.rules.rolls}` +
        (t.rolls_left ? ` · ${t.rolls_left} left` : " · score a box");
    } else {
      status.textContent = `${nameOfSeat(t.seat)} is playing · roll ${t.roll} of ${view.rules.rolls}`;
    }
  }

  let seatsKey = "";
  function drawSeats(snap) {
    const mine = snap.you?.seats || [];
    const free = shell.seatable.length > 0 && shell.connected() && !view?.turn && !view?.over;
    const key = JSON.stringify([snap.seats, mine, free, view?.seats, view?.turn?.seat, shell.seatable.map((p) => p.id)]);
    if (key === seatsKey) return;
    seatsKey = key;
    const count = view?.seats || snap.info?.seats || 0;
    const items = [];
    for (let i = 0; i < count; i++) {
      const s = snap.seats?.[i];
      if (!s) {
        const who = free ? el("select", { class: "dd-who", "aria-label": `Who sits in seat ${i + 1}`, "data-seat": String(i) },
          ...shell.seatable.map((p) => el("option", { value: String(p.id) },
            p.house ? `${p.name} (house bot)` : p.kind === "bot" ? `${p.name} (your bot)` : p.name))) : null;
        const sit = free ? el("button", { type: "button", class: "button small-btn", "data-seat": String(i), "aria-label": `Sit in seat ${i + 1}` }, "Sit here") : null;
        sit?.addEventListener("click", async () => {
          const player = shell.seatable.find((p) => String(p.id) === who.value) || shell.seatable[0];
          sit.disabled = true;
          const error = await shell.sit(i, player, {});
          if (error) { shell.toast(error.message || error.code); sit.disabled = false; }
        });
        items.push(el("li", { class: "dd-seat free", "data-seat": String(i) },
          el("span", { class: "muted" }, `Seat ${i + 1} · free`), shell.seatable.length > 1 ? who : null, sit));
        continue;
      }
      const classes = ["dd-seat", "taken"];
      if (mine.includes(i)) classes.push("mine");
      if (view?.turn?.seat === i && !view.over) classes.push("acting");
      items.push(el("li", { class: classes.join(" "), "data-seat": String(i) },
        el("span", { class: "name" }, s.name), s.is_bot ? el("span", { class: "badge bot" }, "bot") : null,
        s.state && s.state !== "playing" ? el("span", { class: "badge" }, s.state.replaceAll("_", " ")) : null));
    }
    seatsBox.replaceChildren(...items);
    seatsBox.hidden = count <= 1 && Boolean(snap.seats?.[0]);
  }

  function drawDice() {
    const t = view?.turn;
    const key = turnKey();
    if (key !== holdKey) { holdKey = key; holds = new Set(); }
    if (!t) {
      diceBox.replaceChildren(...(view && !view.over ? Array.from({ length: view.rules.dice }, (_, i) =>
        el("span", { class: "dd-die blank", "aria-label": `Die ${i + 1}: not rolled` })) : []));
      diceBox.hidden = !view || view.over;
      rollButton.disabled = true;
      rollButton.textContent = "Roll";
      rollNote.textContent = "";
      return;
    }
    diceBox.hidden = false;
    const active = myTurn() && Boolean(moveOf("roll"));
    diceBox.replaceChildren(...t.dice.map((face, i) => {
      const held = holds.has(i);
      const die = el("button", {
        type: "button", class: `dd-die${held ? " held" : ""}`, "data-die": String(i), "data-face": String(face),
        "aria-pressed": held ? "true" : "false", disabled: !active,
        "aria-label": `Die ${i + 1}: ${face}${held ? ", held" : ""}`,
        title: active ? `Key ${i + 1}: hold or release` : "",
      }, dieFace(face), el("span", { class: "dd-face" }, String(face)), el("span", { class: "dd-key", "aria-hidden": "true" }, String(i + 1)));
      die.addEventListener("click", () => toggle(i));
      return die;
    }));
    const left = t.rolls_left;
    rollButton.textContent = left ? `Roll (${left} left)` : "No rolls left";
    rollButton.disabled = !canRoll();
    if (!myTurn()) rollNote.textContent = "";
    else if (!left) rollNote.textContent = "Choose a box to score.";
    else if (holds.size > maxHold()) rollNote.textContent = "Release a die: holding them all is no roll.";
    else rollNote.textContent = holds.size ? `Holding ${holds.size}: the others are rolled (keys 1–${t.dice.length}, R rolls)` : `Press dice to hold them (keys 1–${t.dice.length}, R rolls)`;
  }

  function drawSheet(snap) {
    if (!view) { sheet.replaceChildren(); return; }
    const rules = view.rules;
    const sheets = view.sheets?.length ? view.sheets : Array.from({ length: view.seats }, (_, seat) => ({
      seat, boxes: rules.combinations.map(() => null), upper: 0, bonus: 0, total: 0, retired: false,
    }));
    const t = view.turn;
    const mine = new Set(snap.you?.seats || []);
    const open = new Set(moveOf("score")?.params?.box?.options || []);
    const bonusBoxes = new Set(rules.bonus ? rules.bonus.boxes : []);
    const head = el("thead", {}, el("tr", {},
      el("th", { scope: "col", class: "dd-box-col" }, "Box"),
      ...sheets.map((s) => el("th", {
        scope: "col", class: `dd-player${t?.seat === s.seat && !view.over ? " acting" : ""}${mine.has(s.seat) ? " mine" : ""}`,
        "data-seat": String(s.seat),
      }, nameOfSeat(s.seat), s.retired ? el("span", { class: "badge" }, "left") : null))));
    const rows = rules.combinations.map((combo, index) => {
      const cells = sheets.map((s) => {
        const written = s.boxes[index];
        if (written !== null && written !== undefined) {
          return el("td", { class: `num dd-written${written === 0 ? " scratch" : ""}`, "data-seat": String(s.seat) }, String(written));
        }
        const preview = t && t.seat === s.seat && !view.over ? t.scores[index] : null;
        if (preview === null || preview === undefined) return el("td", { class: "num dd-open", "data-seat": String(s.seat) }, "");
        if (mine.has(s.seat) && myTurn() && open.has(combo.id)) {
          const button = el("button", {
            type: "button", class: `dd-score${preview ? "" : " zero"}`, "data-box": combo.id, disabled: busy,
            "aria-label": `Score ${preview} in ${combo.name}`,
          }, preview ? String(preview) : "0");
          button.addEventListener("click", () => score(combo.id));
          return el("td", { class: "num dd-open now", "data-seat": String(s.seat) }, button);
        }
        return el("td", { class: "num dd-open preview", "data-seat": String(s.seat) }, String(preview));
      });
      return el("tr", { "data-box": combo.id, class: bonusBoxes.has(combo.id) ? "upper" : "" },
        el("th", { scope: "row", class: "dd-box-name", title: combo.family }, combo.name), ...cells);
    });
    const foot = [];
    if (rules.bonus) {
      foot.push(el("tr", { class: "dd-sum" }, el("th", { scope: "row" }, `Upper (bonus at ${rules.bonus.threshold})`),
        ...sheets.map((s) => el("td", { class: "num" }, String(s.upper)))));
      foot.push(el("tr", { class: "dd-sum" }, el("th", { scope: "row" }, `Bonus (${rules.bonus.points})`),
        ...sheets.map((s) => el("td", { class: "num" }, String(s.bonus)))));
    }
    foot.push(el("tr", { class: "dd-total" }, el("th", { scope: "row" }, "Total"),
      ...sheets.map((s) => el("td", { class: "num", "data-seat": String(s.seat), "data-total": String(s.total) }, String(s.total)))));
    sheet.replaceChildren(head, el("tbody", {}, ...rows), el("tfoot", {}, ...foot));
  }

  async function loadTop10() {
    const id = view?.rules?.id;
    if (!id) return;
    const list = over.querySelector("#dd-top10");
    try {
      const response = await fetch(`/api/v1/games/dice/leaderboard/?rule_set=${encodeURIComponent(id)}`,
        { headers: { Accept: "application/json" }, credentials: "same-origin" });
      if (!response.ok) throw new Error(String(response.status));
      const data = await response.json();
      const table = shell.cfg.table;
      list.replaceChildren(...data.results.map((e) => el("li", { class: e.table === table ? "here" : "", "data-table": String(e.table) },
        el("span", { class: "pname" }, e.name || "—"), " ", el("span", { class: "score" }, String(e.score)),
        e.table === table ? el("span", { class: "badge" }, "this game") : null)));
      if (!data.results.length) list.replaceChildren(el("li", { class: "muted" }, "No finishes yet."));
    } catch {
      list.replaceChildren(el("li", { class: "muted" }, "The top 10 could not be loaded."));
    }
  }

  function drawOver() {
    over.hidden = !view?.over;
    tableBox.hidden = Boolean(view?.over);
    if (!view?.over) return;
    const key = `${view.rules.id}:${JSON.stringify(view.standings)}`;
    if (key === top10Key) return;
    top10Key = key;
    const places = [...(view.standings || [])].sort((a, b) => a.rank - b.rank);
    const link = shell.cfg.leaderboard_url;
    over.replaceChildren(
      el("h2", {}, "Game over"),
      el("ol", { class: "dd-standings", id: "dd-standings" }, ...places.map((p) => el("li", {},
        el("span", { class: "pname" }, nameOfSeat(p.seat)), " ", el("span", { class: "score" }, String(p.score))))),
      el("h3", {}, `Top 10: ${view.rules.name}`),
      el("ol", { class: "dd-top10", id: "dd-top10" }, el("li", { class: "muted" }, "Loading…")),
      link ? el("p", { class: "small" }, el("a", { href: link, id: "dd-top10-link" }, "The whole list")) : null);
    loadTop10();
  }

  function draw() {
    const snap = shell.snapshot;
    if (!snap) return;
    view = snap.state || null;
    rulesName.textContent = view ? `${view.rules.name} · ${view.rules.dice} dice, ${view.rules.faces} faces, ${view.rules.rolls} rolls` : "";
    drawStatus();
    if (!view?.turn || view.over) countdown.textContent = "";
    drawSeats(snap);
    drawDice();
    drawSheet(snap);
    drawOver();
  }

  return {
    key: "dice",
    render() { draw(); },
    onTurn(turn) {
      busy = false;
      if (turn) { lastTurn = turn; answered = ""; }
    },
    applyEvents(msg) {
      busy = false;
      eventsVersion = Math.max(eventsVersion, msg?.version ?? 0);
      eventsAt = Date.now();
    },
    tick(leftMs) {
      // Events arrived but no snapshot after them (the resync was refused, e.g. rate
      // limited): the sheet would stay behind. Ask again, at most once a second.
      if (eventsVersion > (shell.snapshot?.version ?? 0) && Date.now() - eventsAt > 1000) {
        eventsAt = Date.now();
        shell.resync();
      }
      countdown.textContent = leftMs > 0 && view?.turn && !view.over ? `${Math.ceil(leftMs / 1000)}s` : "";
      countdown.classList.toggle("urgent", leftMs > 0 && leftMs < 5000);
    },
    describe(e) {
      const who = e.player !== undefined ? shell.nameOf(e.player) : "";
      if (e.type === "DiceRolled") {
        const held = e.held?.length ? ` (held ${e.held.length})` : "";
        return `${who} rolls ${e.dice.join(" ")}${held}`;
      }
      if (e.type === "BoxScored") {
        const name = view?.rules?.combinations?.find((c) => c.id === e.box)?.name || e.box;
        return `${who} scores ${e.points} in ${name}${e.bonus ? ` (+${e.bonus} bonus)` : ""} · total ${e.total}`;
      }
      if (e.type === "PlayerRetired") return `${who} retires`;
      return shell.describe(e);
    },
  };
}
