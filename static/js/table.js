// The live table: one websocket (/ws/tables/<id>/), snapshot + versioned events,
// heartbeat with a visible connection state, automatic reconnect and resync.
import { el, wsUrl, csrfToken, chips } from "./dom.js";
import { renderTable } from "./tableview.js";
import { startState, apply, describe, logContext } from "./hand.js";
import { actionBar } from "./actions.js";

const cfg = JSON.parse(document.getElementById("table-config").textContent);
const felt = document.getElementById("felt");
const connEl = document.getElementById("conn");
const logEl = document.getElementById("hand-log");
const chatEl = document.getElementById("chat-list");
const toastEl = document.getElementById("toast");

const PING_EVERY = 3000;
const SILENCE_LOST = 7000; // no frame for this long: the connection is lost (< 10 s)

let socket = null;
let snap = null;
let version = 0;
let turn = null; // the your_turn message we may answer
let turnDeadline = 0; // ms clock when the acting seat's time runs out
let handId = null;
let handEvents = [];
let overlay = null; // the finished hand, shown for a moment before the next one
let seatable = cfg.seatable || [];
let houseSeats = cfg.house_seats || [];
let lastHeard = Date.now();
let retries = 0;
let downSince = null;
let requestId = 0;
const pending = new Map(); // request_id -> {ok, fail}: answers for dialogs that wait
const chatIds = new Set();
const logCtx = logContext();

// ------------------------------------------------------------ connection
function setConn(state, text) {
  connEl.dataset.state = state;
  connEl.textContent = text;
}

function send(message, answer = null) {
  if (!socket || socket.readyState !== WebSocket.OPEN) {
    const text = "Not connected: the message was not sent.";
    if (answer?.fail) answer.fail({ message: text }); else toast(text);
    return false;
  }
  const id = ++requestId;
  if (answer) pending.set(id, answer);
  socket.send(JSON.stringify({ ...message, request_id: id }));
  return true;
}

// A command whose answer (ack or error) a dialog waits for.
function request(message) {
  return new Promise((resolve) => {
    send(message, { ok: () => resolve(null), fail: (m) => resolve(m) });
  });
}

function connect() {
  socket = new WebSocket(wsUrl(cfg.ws));
  const me = socket;
  me.addEventListener("open", () => {
    retries = 0;
    downSince = null;
    lastHeard = Date.now();
    setConn("connected", "Connected");
  });
  me.addEventListener("message", (event) => {
    lastHeard = Date.now();
    if (connEl.dataset.state !== "connected") setConn("connected", "Connected");
    let message;
    try { message = JSON.parse(event.data); } catch { return; }
    handle(message);
  });
  me.addEventListener("close", (event) => {
    if (socket !== me) return;
    socket = null;
    if (event.code === 4401 || event.code === 4404 || event.code === 4410) {
      setConn("lost", event.code === 4410 ? "Table closed" : "Not allowed");
      return;
    }
    downSince = downSince || Date.now();
    retries += 1;
    setConn(retries > 1 ? "lost" : "reconnecting", retries > 1 ? "Connection lost — retrying…" : "Reconnecting…");
    const delay = Math.min(500 * 2 ** (retries - 1), 4000);
    setTimeout(connect, delay);
  });
}

setInterval(() => {
  if (socket && socket.readyState === WebSocket.OPEN) {
    if (Date.now() - lastHeard > SILENCE_LOST) {
      setConn("lost", "Connection lost — retrying…");
      retries = Math.max(retries, 1);
      socket.close();
      return;
    }
    socket.send(JSON.stringify({ type: "ping" }));
  }
}, PING_EVERY);

// -------------------------------------------------------------- messages
function handle(m) {
  switch (m.type) {
    case "snapshot": applySnapshot(m); break;
    case "events": applyEvents(m); break;
    case "private": applyPrivate(m); break;
    case "your_turn": setTurn(m); break;
    case "chat": addChat(m); break;
    case "error": onError(m); break;
    case "ack": {
      const answer = pending.get(m.request_id);
      pending.delete(m.request_id);
      if (answer) answer.ok(m);
      break;
    }
    default: break; // pong
  }
}

function resync() { send({ type: "snapshot" }); }

function applySnapshot(m) {
  snap = m;
  version = m.version;
  logCtx.smallBlind = m.info.small_blind;
  flushLog();
  turn = null;
  if (m.turn) turnDeadline = Date.now() + (m.turn.time_left ?? 0) * 1000;
  for (const c of m.chat || []) addChat(c);
  if (m.hand !== handId) {
    handId = m.hand;
    // Keep what the events already told about this hand; the log endpoint fills the rest.
    const first = handEvents[0];
    if (!(first && first.type === "HandStarted" && first.number === m.state.hand_number)) handEvents = [];
    loadLog();
  }
  render();
}

async function loadLog() {
  const response = await fetch(cfg.log_url, { headers: { Accept: "application/json" } });
  if (!response.ok) return;
  const data = await response.json();
  seatable = data.seatable;
  houseSeats = data.house_seats;
  if (data.hand === handId) {
    const fresh = logEl.childElementCount === 0;
    handEvents = data.events;
    if (fresh) for (const e of handEvents) logLine(e);
  }
  render();
}

function applyEvents(m) {
  if (m.version <= version) return; // already seen (a snapshot was newer)
  const gap = m.version > version + 1;
  version = m.version;
  if (m.turn) turnDeadline = Date.now() + (m.turn.time_left ?? 0) * 1000;
  for (const e of m.events) {
    if (e.type === "HandStarted") handEvents = [];
    handEvents.push(e);
    logLine(e);
    if (e.type === "HandEnded") showFinished();
  }
  if (m.events.some((e) => /Seated|Left|StoodUp/.test(e.type))) loadLog();
  // Chips moved for one of my players: the account panel shows it at once.
  const seated = (snap?.you?.seats || []).length > 0;
  if (m.events.some((e) => /Seated|Left|StoodUp|ChipsAdded/.test(e.type) || (seated && e.type === "HandEnded"))) refreshAccount();
  if (gap || !overlay) resync();
}

function applyPrivate(m) {
  for (const e of m.events) {
    if (e.type !== "HoleCardsDealt") continue;
    const i = handEvents.findIndex((x) => x.type === "HoleCardsDealt" && x.player === e.player);
    if (i >= 0) handEvents[i] = e; else handEvents.push(e);
    logLine(e);
  }
  render();
}

function onError(m) {
  const answer = pending.get(m.request_id);
  if (answer) {
    pending.delete(m.request_id);
    answer.fail(m);
    return;
  }
  toast(m.message || m.code);
  if (["stale_version", "not_your_turn", "wrong_hand"].includes(m.code)) resync();
}

// The hand that just ended stays on the table (cards shown, pot to the winner) a moment.
function showFinished() {
  const finished = reduceHand(handEvents);
  const showing = overlay !== null;
  overlay = finished;
  // Never extended: with fast bots hands end more often than the pause lasts.
  if (!showing) setTimeout(() => { overlay = null; resync(); }, 2500);
  render();
}

function seatNames() {
  const names = {};
  (snap?.seats || []).forEach((s, i) => { if (s) names[i] = s; });
  return names;
}

function reduceHand(events) {
  // Seat stacks are written back when a hand ends: during a hand they are its starting stacks.
  const seats = {};
  const hand = snap?.state?.hand;
  for (const [i, s] of Object.entries(seatNames())) {
    const hp = hand?.players.find((p) => p.player === Number(i));
    seats[i] = { name: s.name, isBot: s.is_bot, stack: s.stack, cards: hp ? hp.cards : "" };
  }
  const state = startState({ seats, button: snap?.state?.button, smallBlind: snap?.info?.small_blind || 1 });
  const started = events.findIndex((e) => e.type === "HandStarted");
  for (const e of events.slice(Math.max(started, 0))) apply(state, e);
  return state;
}

// --------------------------------------------------------------- render
function nameOf(seat) {
  return snap?.seats?.[seat]?.name || `Seat ${Number(seat) + 1}`;
}

// Lines about a seat we cannot name yet (someone just sat down) wait for the
// snapshot that names them, and so does everything after them (keeps the order).
let heldLines = [];
function logLine(e) {
  if (heldLines.length || (e.player !== undefined && !snap?.seats?.[e.player])) {
    heldLines.push(e);
    return;
  }
  writeLine(e);
}

function flushLog() {
  const lines = heldLines;
  heldLines = [];
  for (const e of lines) writeLine(e);
}

function writeLine(e) {
  const text = describe(e, nameOf, logCtx);
  if (!text) return;
  logEl.append(el("li", { class: `log-${e.type}` }, text));
  while (logEl.childElementCount > 300) logEl.firstElementChild.remove();
  logEl.scrollTop = logEl.scrollHeight;
}

const STATE_TEXT = { sitting_out: "Sitting out", waiting_for_bb: "Waiting for BB", disconnected: "Disconnected" };

function model() {
  const info = snap.info;
  const you = snap.you.seats;
  const hand = snap.state.hand;
  const reduced = reduceHand(handEvents);
  const seats = [];
  for (let i = 0; i < info.seats; i++) {
    const s = snap.seats[i];
    if (!s) { seats.push(null); continue; }
    const hp = hand?.players.find((p) => p.player === i);
    const r = reduced.seats[i] || {};
    const shown = overlay?.seats[i];
    seats.push({
      seat: i, name: s.name, isBot: s.is_bot, mine: you.includes(i),
      stack: overlay && shown ? shown.stack : hp ? hp.stack : s.stack,
      bet: overlay ? 0 : hp ? hp.bet : 0,
      cards: overlay && shown ? shown.cards : hp && !hp.folded ? hp.cards : "",
      folded: overlay && shown ? shown.folded : hp ? hp.folded : false,
      action: overlay && shown ? shown.action : hand && !hand.is_over ? r.action : null,
      blind: hand && !hand.is_over && !overlay && hand.street === "preflop" ? r.blind : null,
      handName: overlay && shown ? shown.handName : "",
      out: STATE_TEXT[s.state] || (!hp && hand && !overlay ? "Next hand" : null),
    });
  }
  const actor = overlay ? null : hand?.actor ?? null;
  const timeLeft = Math.max(0, turnDeadline - Date.now());
  const total = overlay ? Object.values(overlay.winners).reduce((a, b) => a + b, 0) : 0;
  return {
    seatCount: info.seats,
    bottom: you.length ? you[0] : 0,
    button: overlay ? overlay.button : snap.state.button,
    board: overlay ? overlay.board : hand?.board || "",
    pots: overlay ? (total ? [{ amount: total }] : []) : hand?.pots || [],
    banner: overlay ? winnersText(overlay) : null,
    seats,
    actor,
    timer: actor !== null && snap.turn ? timeLeft / 1000 / info.turn_seconds : 0,
    winners: overlay ? overlay.winners : null,
    playingSeat: turn ? turn.seat : null,
    freeClickable: seatable.length > 0 && connEl.dataset.state === "connected",
    onSeatClick: openSit,
  };
}

function winnersText(state) {
  return Object.entries(state.winners).map(([seat, amount]) => `${state.seats[seat]?.name || seat} wins ${chips(amount)}`).join(" · ");
}

function render() {
  if (!snap) return;
  renderTable(felt, model());
  bar.update(turn, snap, overlay);
  renderMySeats();
}

// ---------------------------------------------------------------- acting
function setTurn(m) {
  turn = m;
  turnDeadline = Date.now() + (m.time_left ?? 0) * 1000;
  render();
}

const bar = actionBar({
  act(action) {
    if (!turn) return;
    const t = turn;
    if (send({ type: "act", hand: t.hand, version: t.version, seat: t.seat, action })) {
      turn = null;
      render();
    }
  },
  nameOf,
});

setInterval(() => {
  const left = Math.max(0, turnDeadline - Date.now());
  const fill = felt.querySelector(".timer-fill");
  if (fill && snap) fill.style.width = `${Math.min(100, (left / 10 / snap.info.turn_seconds))}%`;
  bar.tick(left, turn);
}, 250);

// ------------------------------------------------------------ your seats
function seatCommand(type, seat, extra = {}) {
  send({ type, seat, ...extra });
}

const SEAT_STATUS = {
  sitting_out: "Sitting out", waiting_for_bb: "Waiting for the big blind",
  disconnected: "Disconnected", new: "Joins next hand",
};

function inHand(seat) {
  const hand = snap?.state?.hand;
  return Boolean(hand && !hand.is_over && hand.players.some((p) => p.player === seat));
}

let mySeatsKey = "";
function renderMySeats() {
  const box = document.getElementById("my-seats");
  const key = JSON.stringify([snap.you.seats.map((i) => [snap.seats[i], snap.state.seats[i]?.status, inHand(i), stackOf(i)]),
    cfg.can_manage_bots && houseSeats.map((i) => snap.seats[i]?.name), turn?.seat, seatable.length]);
  if (key === mySeatsKey) return;
  mySeatsKey = key;
  const items = [];
  for (const i of snap.you.seats) {
    const s = snap.seats[i];
    const status = snap.state.seats[i]?.status;
    const away = s.state === "sitting_out" || status === "sitting_out";
    const waiting = s.state === "waiting_for_bb" || status === "waiting_for_bb";
    const buttons = [];
    const add = (label, fn, cls = "", aria = null) => {
      const b = el("button", { type: "button", class: `button secondary small-btn ${cls}`, "aria-label": aria }, label);
      b.addEventListener("click", fn);
      buttons.push(b);
    };
    if (away) add("Sit in", () => seatCommand("sit_in", i), "", `Sit in ${s.name}`);
    else add("Sit out", () => seatCommand("sit_out", i), "", `Sit out ${s.name}`);
    if ((status === "new" || away) && !waiting) add("Wait for BB", () => seatCommand("wait_for_bb", i), "", `Wait for the big blind with ${s.name}`);
    add("Add chips", () => openChips(i), "", `Add chips for ${s.name}`);
    add("Leave", () => seatCommand("leave", i), "danger-outline", `Leave with ${s.name}`);
    const stateText = inHand(i) ? (away ? "Sits out after this hand" : "In the hand")
      : SEAT_STATUS[s.state] || SEAT_STATUS[status] || "Playing";
    items.push(el("div", { class: `my-seat${turn && turn.seat === i ? " active" : ""}`, "data-seat": String(i) },
      el("span", { class: "who" }, s.name, s.is_bot ? el("span", { class: "badge bot" }, "bot") : "",
        el("span", { class: "muted small" }, ` · seat ${i + 1} · ${chips(stackOf(i))}`)),
      el("span", { class: `seat-state state-${s.state === "playing" ? status || "playing" : s.state}`, "data-testid": "seat-state" }, stateText),
      ...buttons));
  }
  if (cfg.can_manage_bots) {
    for (const i of houseSeats) {
      const s = snap.seats[i];
      if (!s) continue;
      const b = el("button", { type: "button", class: "button secondary small-btn danger-outline", "aria-label": `Remove ${s.name}` }, "Remove bot");
      b.addEventListener("click", () => postHouse({ remove: i }));
      items.push(el("div", { class: "my-seat house" }, el("span", { class: "who" }, `${s.name} · seat ${i + 1}`, el("span", { class: "badge bot" }, "house bot")), b));
    }
  }
  if (!items.length) {
    items.push(el("p", { class: "muted small" }, seatable.length ? "You are watching. Click a free seat to sit down." : "You are watching this table."));
  }
  box.replaceChildren(...items);
}

// ------------------------------------------------------- add-chips dialog
const chipsDialog = document.getElementById("chips-dialog");
const chipsAmount = document.getElementById("chips-amount");
const chipsError = document.getElementById("chips-error");
let chipsSeat = null;

// The stack the felt shows: a finished hand's result, else the running hand's, else the seat's.
function stackOf(seat) {
  const shown = overlay?.seats[seat];
  if (shown) return shown.stack;
  const hp = snap.state.hand?.players.find((p) => p.player === seat);
  return hp && !snap.state.hand.is_over ? hp.stack : snap.seats[seat].stack;
}

function chipsRoom(seat) {
  const max = snap.info.max_buy_in;
  return max ? Math.max(0, max - stackOf(seat)) : null;
}

function openChips(seat) {
  chipsSeat = seat;
  const s = snap.seats[seat];
  const max = snap.info.max_buy_in;
  const room = chipsRoom(seat);
  document.getElementById("chips-who").textContent = `${s.name} (seat ${seat + 1})`;
  document.getElementById("chips-limit").textContent = max
    ? `Stack ${chips(stackOf(seat))} · table maximum ${chips(max)}: you may add up to ${chips(room)}.`
    : `Stack ${chips(stackOf(seat))} · this table has no maximum.`;
  document.getElementById("chips-note").textContent = inHand(seat)
    ? "This player is in the running hand: the chips are added when it ends."
    : "";
  chipsAmount.min = "1";
  if (room) chipsAmount.max = String(room); else chipsAmount.removeAttribute("max");
  chipsAmount.value = room ? String(room) : "";
  chipsError.textContent = "";
  chipsDialog.showModal();
}

document.getElementById("chips-cancel").addEventListener("click", () => chipsDialog.close());
document.getElementById("chips-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const amount = parseInt(chipsAmount.value, 10);
  if (!(amount > 0)) { chipsError.textContent = "Enter how many chips to add (a whole number above 0)."; return; }
  const seat = chipsSeat;
  chipsError.textContent = "";
  const error = await request({ type: "add_chips", seat, amount });
  if (!error) { chipsDialog.close(); refreshAccount(); return; }
  let text = error.message || error.code;
  if (error.code === "above_max_buy_in" && snap.info.max_buy_in) {
    text += ` ${snap.seats[seat]?.name || "This player"} has ${chips(stackOf(seat))}: add at most ${chips(chipsRoom(seat))}.`;
  }
  chipsError.textContent = text;
});

async function postHouse(body) {
  const response = await fetch(cfg.house_url, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken() },
    body: JSON.stringify(body),
  });
  const data = await response.json().catch(() => ({}));
  if (!response.ok) { toast(data.error?.message || "That did not work."); return false; }
  loadLog();
  return true;
}

// -------------------------------------------------------------- sit dialog
const dialog = document.getElementById("sit-dialog");
const sitPlayer = document.getElementById("sit-player");
const sitAmount = document.getElementById("sit-amount");
const sitRange = document.getElementById("sit-range");
const sitError = document.getElementById("sit-error");
let sitSeat = null;

function openSit(seat) {
  sitSeat = seat;
  const info = snap.info;
  const max = info.max_buy_in || info.min_buy_in * 5;
  document.getElementById("sit-seat").textContent = String(seat + 1);
  document.getElementById("sit-limits").textContent = `(${chips(info.min_buy_in)} – ${info.max_buy_in ? chips(info.max_buy_in) : "no maximum"})`;
  sitPlayer.replaceChildren(...seatable.map((p) => el("option", { value: String(p.id) },
    p.house ? `${p.name} (house bot)` : p.kind === "bot" ? `${p.name} (your bot)` : p.name)));
  for (const input of [sitAmount, sitRange]) { input.min = info.min_buy_in; input.max = max; input.step = 1; }
  sitAmount.value = sitRange.value = String(max);
  sitError.textContent = "";
  document.getElementById("sit-wait").checked = false;
  dialog.showModal();
}
sitRange.addEventListener("input", () => { sitAmount.value = sitRange.value; });
sitAmount.addEventListener("input", () => { sitRange.value = sitAmount.value; });
document.getElementById("sit-cancel").addEventListener("click", () => dialog.close());
document.getElementById("sit-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const player = seatable.find((p) => String(p.id) === sitPlayer.value);
  const buyIn = parseInt(sitAmount.value, 10);
  const min = snap.info.min_buy_in;
  const max = snap.info.max_buy_in;
  if (!(buyIn >= min) || (max && buyIn > max)) {
    sitError.textContent = `The buy-in is between ${min} and ${max || "any amount"}.`;
    return;
  }
  if (!player) return;
  if (player.house) {
    if (await postHouse({ player: player.id, seat: sitSeat, buy_in: buyIn })) dialog.close();
    return;
  }
  sitError.textContent = "";
  const error = await request({ type: "sit", seat: sitSeat, buy_in: buyIn, player: player.id, wait_for_bb: document.getElementById("sit-wait").checked });
  if (error) { sitError.textContent = error.message || error.code; return; }
  dialog.close();
  refreshAccount();
});

// ------------------------------------------------------------------ chat
function addChat(m) {
  if (m.id && chatIds.has(m.id)) return;
  if (m.id) chatIds.add(m.id);
  chatEl.append(el("li", {}, el("b", {}, m.name), ": ", m.text));
  chatEl.scrollTop = chatEl.scrollHeight;
}
document.getElementById("chat-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const input = document.getElementById("chat-input");
  const text = input.value.trim();
  if (text && send({ type: "chat", text })) input.value = "";
});

// --------------------------------------------------------------- account
const accountPanel = document.getElementById("account-panel");
async function loadAccount() {
  const response = await fetch(cfg.account_url, { headers: { Accept: "application/json" } });
  if (!response.ok) return;
  const a = await response.json();
  const body = document.getElementById("account-body");
  body.replaceChildren(
    el("p", { class: "balance" }, "Balance ", el("strong", { id: "account-balance" }, chips(a.balance))),
    el("ul", { class: "acct-players" }, ...a.players.map((p) => el("li", {},
      el("span", {}, p.name, p.kind === "bot" ? el("span", { class: "badge bot" }, "bot") : ""),
      el("span", { class: p.balance < 0 ? "neg" : "pos" }, chips(p.balance)),
      p.table ? el("span", { class: "muted small" }, ` at ${p.table}`) : ""))),
    el("h3", {}, "Recent ledger"),
    el("ol", { class: "ledger", id: "account-ledger" }, ...a.ledger.map((e) => el("li", { title: new Date(e.at).toLocaleString() },
      el("span", { class: "muted small" }, `${e.player} · ${e.kind}${e.note ? ` · ${e.note}` : ""}`),
      el("span", { class: e.amount < 0 ? "neg" : "pos" }, chips(e.amount))))),
    el("p", { class: "small" }, el("a", { href: "/account/" }, "Open my account page")),
  );
}
accountPanel.addEventListener("toggle", () => { if (accountPanel.open) loadAccount(); });

// ----------------------------------------------------------------- misc
let toastTimer = null;
function toast(text) {
  toastEl.textContent = text;
  toastEl.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { toastEl.hidden = true; }, 4000);
}

// Refresh the account panel when chips moved (sit, leave, add chips).
function refreshAccount() { if (accountPanel.open) loadAccount(); }
setInterval(refreshAccount, 5000);

setConn("connecting", "Connecting…");
connect();
