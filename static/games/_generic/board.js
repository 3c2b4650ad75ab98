// The generic board: any game the platform hosts, before (or without) a board of its
// own. It shows the seats, whose turn it is, the game's view of the table as JSON
// (snapshot.state, as this viewer may see it) and, on your turn, the legal moves
// from `your_turn.moves` (engine/game.py's descriptors) as plain controls:
//
//   {"kind": "fold", "label": "Fold"}                                   a button
//   {"kind": "raise", "label": "Raise to",
//    "params": {"amount": {"type": "number", "min": 4, "max": 200},    a number field
//               "suit": {"type": "choice", "options": ["s", "h"]},    a select
//               "cards": {"type": "subset", "items": [...],           checkboxes
//                         "min": 0, "max": 3}}}
//
// The move sent is {"kind": ..., <param>: value, ...} (shell.act wraps it in the
// `act` command with the turn's hand and version). The interface is the shell's
// (static/js/table.js); renderMoves() is exported for tests and other boards.
import { el, chips } from "../../js/dom.js";
import { schemaFields, readSchema } from "../../js/schemaform.js";

/** Label for one choice / subset item (strings as they are, anything else as JSON). */
function text(value) {
  return typeof value === "string" ? value : JSON.stringify(value);
}

function paramControl(kind, name, spec, index) {
  const id = `move-${index}-${name}`;
  const label = name.replaceAll("_", " ");
  if (spec.type === "number") {
    return el("label", { class: "gb-param", for: id }, label,
      el("input", { type: "number", id, name, min: spec.min, max: spec.max, step: 1, value: spec.min, inputmode: "numeric", "data-param": name }));
  }
  if (spec.type === "choice") {
    return el("label", { class: "gb-param", for: id }, label,
      el("select", { id, name, "data-param": name },
        ...(spec.options || []).map((option, i) => el("option", { value: String(i) }, text(option)))));
  }
  if (spec.type === "subset") {
    const bounds = spec.min === spec.max ? `exactly ${spec.min}` : `${spec.min} to ${spec.max}`;
    return el("fieldset", { class: "gb-param gb-subset", "data-param": name },
      el("legend", {}, `${label} (${bounds})`),
      ...(spec.items || []).map((item, i) => el("label", { class: "check-label" },
        el("input", { type: "checkbox", value: String(i), name }), text(item))));
  }
  return el("span", { class: "gb-param error" }, `${label}: unknown parameter type ${text(spec.type)}`);
}

/**
 * Read one move's parameters from its form: {action} or {error}.
 */
export function readMove(move, form) {
  const action = { kind: move.kind };
  for (const [name, spec] of Object.entries(move.params || {})) {
    if (spec.type === "number") {
      const n = Number(form.querySelector(`[data-param="${CSS.escape(name)}"]`).value);
      if (!Number.isInteger(n) || n < spec.min || n > spec.max) return { error: `${name}: a whole number from ${spec.min} to ${spec.max}.` };
      action[name] = n;
    } else if (spec.type === "choice") {
      const select = form.querySelector(`[data-param="${CSS.escape(name)}"]`);
      action[name] = spec.options[Number(select.value)];
    } else if (spec.type === "subset") {
      const box = form.querySelector(`fieldset[data-param="${CSS.escape(name)}"]`);
      const picked = [...box.querySelectorAll("input:checked")].map((input) => spec.items[Number(input.value)]);
      if (picked.length < spec.min || picked.length > spec.max) {
        return { error: `${name}: choose ${spec.min === spec.max ? spec.min : `${spec.min} to ${spec.max}`}.` };
      }
      action[name] = picked;
    } else {
      return { error: `${name}: unknown parameter type.` };
    }
  }
  return { action };
}

/**
 * The controls for a list of move descriptors: one form per move (its parameters,
 * then a button with its label). `onMove(action)` gets {"kind", <param>: value}.
 */
export function renderMoves(moves, onMove) {
  const box = el("div", { class: "gb-moves", role: "group", "aria-label": "Your moves" });
  (moves || []).forEach((move, index) => {
    const params = Object.entries(move.params || {});
    const error = el("span", { class: "error gb-error", role: "alert" });
    const form = el("form", { class: `gb-move${params.length ? " with-params" : ""}`, "data-kind": move.kind, novalidate: true },
      ...params.map(([name, spec]) => paramControl(move.kind, name, spec, index)),
      el("button", { type: "submit", class: "gb-act", "data-kind": move.kind }, move.label || move.kind),
      error);
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const result = readMove(move, form);
      error.textContent = result.error || "";
      if (result.action) onMove(result.action);
    });
    box.append(form);
  });
  return box;
}

const STATE_TEXT = { sitting_out: "sitting out", waiting_for_bb: "waiting", disconnected: "disconnected" };

export function createBoard(shell) {
  const status = el("span", { class: "gb-status-text", id: "gb-status" }, "Waiting…");
  const countdown = el("span", { class: "countdown", id: "countdown" });
  const seatsList = el("ol", { class: "gb-seats", id: "gb-seats", "aria-label": "Seats" });
  const movesBox = el("div", { class: "gb-turn", id: "gb-turn", hidden: true });
  const view = el("pre", { class: "gb-view", id: "gb-view", "aria-label": "The game's view of the table (JSON)" });
  shell.slots.main.append(el("section", { class: "gboard panel", id: "gboard" },
    el("div", { class: "gb-head" }, status, countdown),
    seatsList,
    movesBox,
    el("details", { class: "gb-details", open: true }, el("summary", {}, "The game's view (JSON)"), view)));

  // The sit dialog: who sits, and the game's seat options (GameInfo.seat_options).
  const seatSchema = shell.info.seat_options || { type: "object", properties: {} };
  const sitError = el("p", { class: "error", role: "alert" });
  const sitPlayer = el("select", { id: "gb-sit-player" });
  const sitFields = el("div", { class: "gb-sit-fields" });
  const sitTitle = el("h2", { id: "gb-sit-title" }, "Take a seat");
  const sitForm = el("form", { method: "dialog", novalidate: true },
    sitTitle,
    el("label", { class: "field" }, "Who sits", sitPlayer),
    sitFields,
    sitError,
    el("p", { class: "actions" }, el("button", { type: "submit", class: "button", id: "gb-sit-ok" }, "Sit down"),
      el("button", { type: "button", class: "button secondary", id: "gb-sit-cancel" }, "Cancel")));
  const dialog = el("dialog", { id: "gb-sit-dialog", "aria-labelledby": "gb-sit-title" }, sitForm);
  shell.slots.dialogs.append(dialog);
  let sitSeat = null;
  dialog.querySelector("#gb-sit-cancel").addEventListener("click", () => dialog.close());
  sitForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    const player = shell.seatable.find((p) => String(p.id) === sitPlayer.value);
    if (!player) return;
    const { values, errors } = readSchema(seatSchema, sitFields);
    const first = Object.values(errors)[0];
    if (first) { sitError.textContent = first; return; }
    sitError.textContent = "";
    const error = await shell.sit(sitSeat, player, values);
    if (!error) dialog.close();
    else sitError.textContent = error.message || error.code;
  });

  function openSit(seat) {
    sitSeat = seat;
    sitTitle.textContent = `Take seat ${seat + 1}`;
    sitPlayer.replaceChildren(...shell.seatable.map((p) => el("option", { value: String(p.id) },
      p.house ? `${p.name} (house bot)` : p.kind === "bot" ? `${p.name} (your bot)` : p.name)));
    sitFields.replaceChildren(...schemaFields(seatSchema, { idPrefix: "gb-sit-" }));
    sitError.textContent = "";
    dialog.showModal();
  }

  let movesKey = "";
  let viewText = "";

  function toAct(snap) {
    const turn = snap.turn;
    if (!turn) return [];
    return Array.isArray(turn.seats) ? turn.seats : turn.seat !== undefined && turn.seat !== null ? [turn.seat] : [];
  }

  let seatsKey = "";
  function renderSeats(snap) {
    const acting = toAct(snap);
    const free = shell.seatable.length > 0 && shell.connected();
    const mine = snap.you?.seats || [];
    const count = Math.max(snap.info?.seats || 0, (snap.seats || []).length);
    // Rebuilt only when something shown changed: a click never lands on a replaced node.
    const key = JSON.stringify([snap.seats, acting, free, mine, count]);
    if (key === seatsKey) return;
    seatsKey = key;
    const items = [];
    for (let i = 0; i < count; i++) {
      const s = snap.seats?.[i];
      if (!s) {
        const sitButton = free ? el("button", { type: "button", class: "button secondary small-btn", "data-seat": String(i), "aria-label": `Sit in seat ${i + 1}` }, "Sit here") : null;
        sitButton?.addEventListener("click", () => openSit(i));
        items.push(el("li", { class: "gb-seat free", "data-seat": String(i) }, el("span", { class: "muted" }, `Seat ${i + 1} · free`), sitButton));
        continue;
      }
      const classes = ["gb-seat", "taken"];
      if (mine.includes(i)) classes.push("mine");
      if (acting.includes(i)) classes.push("acting");
      items.push(el("li", { class: classes.join(" "), "data-seat": String(i) },
        el("span", { class: "name" }, `${i + 1}. ${s.name}`, s.is_bot ? el("span", { class: "badge bot" }, "bot") : ""),
        shell.info.economy === false ? null : el("span", { class: "stack" }, chips(s.stack)),
        STATE_TEXT[s.state] ? el("span", { class: "badge" }, STATE_TEXT[s.state]) : null,
        acting.includes(i) ? el("span", { class: "badge acting" }, "to act") : null));
    }
    seatsList.replaceChildren(...items);
  }

  function renderTurn(snap) {
    const turn = shell.turn;
    const acting = toAct(snap);
    if (turn) {
      status.textContent = `Your turn — ${shell.nameOf(turn.seat)} · seat ${turn.seat + 1}`;
    } else if (acting.length) {
      status.textContent = `${acting.map((s) => shell.nameOf(s)).join(", ")} to act`;
    } else {
      status.textContent = (snap.you?.seats || []).length ? "Waiting…" : "Watching";
    }
    const moves = turn ? turn.moves || turn.view?.moves || [] : [];
    const key = turn ? JSON.stringify([turn.hand, turn.version, turn.seat, moves]) : "";
    if (key === movesKey) return;
    movesKey = key;
    if (!turn) { movesBox.hidden = true; movesBox.replaceChildren(); return; }
    movesBox.replaceChildren(moves.length
      ? renderMoves(moves, (action) => shell.act(action))
      : el("p", { class: "muted" }, "No moves were sent with this turn."));
    movesBox.hidden = false;
  }

  return {
    key: "_generic",
    render(snap) {
      renderSeats(snap);
      renderTurn(snap);
      const next = JSON.stringify(snap.state ?? null, null, 2);
      if (next !== viewText) { viewText = next; view.textContent = next; }
    },
    tick(leftMs) {
      countdown.textContent = leftMs > 0 && shell.snapshot?.turn ? `${Math.ceil(leftMs / 1000)}s` : "";
      countdown.classList.toggle("urgent", leftMs > 0 && leftMs < 5000);
    },
    describe(e) {
      const line = shell.describe(e);
      if (line !== null) return line;
      const { type, ...rest } = e;
      const fields = Object.keys(rest).length ? ` ${JSON.stringify(rest)}` : "";
      return `${type}${fields}`;
    },
  };
}
