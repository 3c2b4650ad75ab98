// The table shell: what every live table does whatever the game. One websocket
// (/ws/tables/<id>/, docs/protocol.md): snapshot + versioned events, a resync on
// a version gap (or a pong whose version is ahead: a silent gap), heartbeat with a
// visible connection state, automatic reconnect (also after 1013 "try again later");
// requests answered by ack/error; the turn timer; the event log (lines wait for the
// snapshot that names a new seat); "your seats"; chat; the game account; toasts.
// What the game looks like is drawn by a board module, loaded with import() from
// static/games/<game key>/board.js, or static/games/_generic/board.js for a game
// without a board of its own (the server says which: cfg.board_url).
//
// ------------------------------------------------------------ board interface
//
//   export function createBoard(shell) -> board
//
// createBoard fills the empty elements shell.slots.main (the playing area),
// .foot (below "your seats") and .dialogs, and returns the board: an object with
// these methods, all optional except render:
//
//   render(snapshot)   draw everything from the latest snapshot; called after
//                      every snapshot and whenever the shell's state changed (turn,
//                      seatable players, log). Cheap and idempotent.
//   applyEvents(msg)   an `events` message, in version order, before its lines are
//                      logged; msg.events may hold types the board does not know
//                      (ignore them). The shell then asks for a fresh snapshot
//                      unless holding() is true (a version gap always resyncs).
//   applyPrivate(msg)  a `private` message (own hidden values, e.g. hole cards).
//   loadRound(log)     the running round's events so far ({hand, number, events},
//                      from cfg.log_url) after a reload or a new round.
//   onTurn(turn)       a `your_turn` message, or null when it was answered or is
//                      over (shell.turn holds it too; render() follows).
//   tick(leftMs)       four times a second: ms left on the acting seat's clock.
//   describe(event)    the log line for an event: a string, or null for none.
//                      Without it the shell's generic sentences are used.
//   holding()          true while the board shows something (a finished round)
//                      that a new snapshot must not replace yet.
//   seatPanel(seat)    the "your seats" entry of one of your seats:
//                      {chips, status, stateClass, buttons: [{label, aria, cls, run}]}.
//                      Without it: the seat's stack and state, Sit out/in, Leave.
//
// The shell given to createBoard:
//
//   shell.cfg, shell.info        the page config; the game's info (GameInfo.to_json())
//   shell.slots                  {main, foot, dialogs}
//   shell.snapshot, shell.turn   the latest snapshot; the your_turn we may answer (or null)
//   shell.seatable, shell.houseSeats   who the user may seat here; house-bot seats
//   shell.connected()            the socket is open and heard from
//   shell.nameOf(seat)           the name sitting there ("Seat 3" if none)
//   shell.send(msg)              send a command (false if not connected)
//   shell.request(msg)           Promise: null on ack, the error message otherwise
//   shell.act(action)            answer the current turn: {type: "act", hand, version,
//                                seat, action} from shell.turn
//   shell.sit(seat, player, options)  seat one of shell.seatable (house bots through
//                                cfg.house_url); Promise: null or the error
//   shell.resync()               ask for a fresh snapshot
//   shell.render()               redraw (board and "your seats")
//   shell.toast(text), shell.refreshAccount()
//   shell.describe(event)        the generic sentence for platform events, or null
//   shell.timeLeft()             ms left on the acting seat's clock
//
// The board's key is exposed as window.__board and #table-page[data-board].
//
// While the connection is lost the shell lays a "Reconnecting…" notice
// (#conn-overlay) over the playing area and makes the area inert (no clicks, no
// focus, no shortcuts) until the snapshot of the resync has arrived: every board
// gets it.
import { el, wsUrl, csrfToken, chips } from "./dom.js";
import { capital, describePlatform as platformSentence } from "./platform.js";

const cfg = JSON.parse(document.getElementById("table-config").textContent);
const pageEl = document.getElementById("table-page");
const connEl = document.getElementById("conn");
const logEl = document.getElementById("hand-log");
const chatEl = document.getElementById("chat-list");
const toastEl = document.getElementById("toast");
const mySeatsEl = document.getElementById("my-seats");
const areaEl = document.querySelector(".table-area");
const info = cfg.game_info || {};
const roundWord = info.round_name || "round";

const PING_EVERY = 3000;
const SILENCE_LOST = 7000; // no frame for this long: the connection is lost (< 10 s)

let board = null;
let socket = null;
let snap = null;
let version = 0;
let logged = 0; // the newest version whose events are in the hand log
let turn = null; // the your_turn message we may answer
let turnDeadline = 0; // ms clock when the acting seat's time runs out
let roundId = null;
let seatable = cfg.seatable || [];
let houseSeats = cfg.house_seats || [];
let lastHeard = Date.now();
let retries = 0;
let synced = false; // a snapshot arrived since the connection (re)opened
let requestId = 0;
const pending = new Map(); // request_id -> {ok, fail}: answers for dialogs that wait
const chatIds = new Set();

// ------------------------------------------------------------ connection
function setConn(state, text) {
  connEl.dataset.state = state;
  connEl.textContent = text;
  renderOverlay();
}

// The reconnect overlay: from a lost connection until the resync's snapshot. The
// playing area's parts are made inert (the notice itself stays readable).
const overlayText = el("p", { class: "conn-detail" });
const overlayEl = el("div", { class: "conn-overlay", id: "conn-overlay", role: "alert", hidden: true },
  el("div", { class: "conn-box" },
    el("span", { class: "conn-spinner", "aria-hidden": "true" }),
    el("p", { class: "conn-title" }, "Reconnecting…"),
    overlayText));
areaEl?.append(overlayEl);
let overlayShown = false;
function renderOverlay() {
  const state = connEl.dataset.state;
  const show = retries > 0 && !synced && (state === "reconnecting" || state === "lost" || state === "connected");
  overlayText.textContent = state === "connected"
    ? "Connected again: bringing the table up to date…"
    : "The connection to the table was lost. The table is paused here until it is back.";
  if (show === overlayShown) return;
  overlayShown = show;
  overlayEl.hidden = !show;
  if (!areaEl) return;
  areaEl.setAttribute("aria-busy", String(show));
  for (const part of areaEl.children) if (part !== overlayEl) part.inert = show;
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
    synced = false;
    if (event.code === 4401 || event.code === 4404 || event.code === 4410) {
      setConn("lost", event.code === 4410 ? "Table closed" : "Not allowed");
      return;
    }
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
  try {
    switch (m.type) {
      case "snapshot": applySnapshot(m); break;
      case "events": applyEvents(m); break;
      case "private": applyPrivate(m); break;
      case "your_turn": setTurn(m); break;
      case "chat": addChat(m); chatArrived(); break;
      case "error": onError(m); break;
      case "ack": {
        const answer = pending.get(m.request_id);
        pending.delete(m.request_id);
        if (answer) answer.ok(m);
        break;
      }
      case "pong": onPong(m); break;
      default: break; // types this client does not know
    }
  } catch (error) {
    // A board that cannot draw something must not stop the connection: start over
    // from a snapshot, and still report the error.
    if (m.type !== "snapshot") resync();
    setTimeout(() => { throw error; });
  }
}

function resync() { send({ type: "snapshot" }); }

// A pong carries the table's committed version. Ahead of what arrived here means
// messages were lost on the way (e.g. the server could not reach its broker): resync,
// unless the missing events arrive within half a second (they were only in flight).
function onPong(m) {
  const ahead = m.version;
  if (typeof ahead !== "number" || ahead <= version) return;
  setTimeout(() => { if (version < ahead) resync(); }, 500);
}

function applySnapshot(m) {
  // Older than events already applied on this connection (built before them, sent
  // after them): it would take the table back and name nobody who just sat down.
  if (synced && m.version < version) {
    resync();
    return;
  }
  snap = m;
  // The resync is done: the overlay goes, the retries start over.
  synced = true;
  retries = 0;
  renderOverlay();
  version = m.version;
  flushLog();
  setTurn(null, false);
  if (m.turn) turnDeadline = Date.now() + (m.turn.time_left ?? 0) * 1000;
  for (const c of m.chat || []) addChat(c);
  if (m.hand !== roundId) {
    roundId = m.hand;
    // An empty log is filled from the server (the round so far); else the lines of
    // events this snapshot overtook are still to come.
    if (logEl.childElementCount === 0) logged = Math.max(logged, m.version);
    loadLog();
  }
  render();
}

// A JSON read that may fail quietly: null when the server is away or says no (the
// socket's reconnect and resync bring the page up to date again).
async function getJson(url) {
  try {
    const response = await fetch(url, { headers: { Accept: "application/json" } });
    return response.ok ? await response.json() : null;
  } catch (error) {
    return null;
  }
}

async function loadLog() {
  const data = await getJson(cfg.log_url);
  if (!data) return;
  seatable = data.seatable;
  houseSeats = data.house_seats;
  if (data.hand === roundId) {
    const fresh = logEl.childElementCount === 0;
    board.loadRound?.(data);
    if (fresh) for (const e of data.events) logLine(e);
  }
  render();
}

const SEATS_CHANGED = /Seated|Left|StoodUp|SeatTaken|SeatFreed/;
const MONEY_MOVED = /Seated|Left|StoodUp|ChipsAdded|BuyIn|CashOut/;

function applyEvents(m) {
  if (m.version <= version) {
    // Already in the snapshot that overtook it: only its log lines are new.
    if (m.version > logged && Array.isArray(m.events)) {
      logged = m.version;
      for (const e of m.events) logLine(e);
    }
    return;
  }
  logged = m.version;
  const gap = m.version > version + 1;
  version = m.version;
  if (m.turn) turnDeadline = Date.now() + (m.turn.time_left ?? 0) * 1000;
  const events = Array.isArray(m.events) ? m.events : [];
  board.applyEvents?.({ ...m, events });
  for (const e of events) logLine(e);
  if (events.some((e) => SEATS_CHANGED.test(e.type))) loadLog();
  // Chips moved for one of my players: the account panel shows it at once.
  const seated = (snap?.you?.seats || []).length > 0;
  if (events.some((e) => MONEY_MOVED.test(e.type) || (seated && /Ended$/.test(e.type)))) refreshAccount();
  if (gap || !board.holding?.()) resync();
}

function applyPrivate(m) {
  const events = Array.isArray(m.events) ? m.events : [];
  board.applyPrivate?.({ ...m, events });
  for (const e of events) logLine(e);
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

// ------------------------------------------------------------ the event log
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
  let text = null;
  try {
    text = board.describe ? board.describe(e) : describePlatform(e);
  } catch (error) {
    console.error(error);
  }
  if (!text) return;
  logEl.append(el("li", { class: `log-${e.type}` }, text));
  while (logEl.childElementCount > 300) logEl.firstElementChild.remove();
  logEl.scrollTop = logEl.scrollHeight;
}

/** The sentence for the platform's own events (engine/game.py), or null. */
function describePlatform(e) {
  return platformSentence(e, nameOf, roundWord);
}

// ---------------------------------------------------------------- render
function render() {
  if (!snap || !board) return;
  renderStandings(snap.info);
  board.render(snap);
  renderMySeats();
}

// The final standings of a game that ended (the page rendered them if it had).
const standingsEl = document.getElementById("standings");
let standingsKey = null;
function renderStandings(tableInfo) {
  const places = Array.isArray(tableInfo?.standings) ? [...tableInfo.standings].sort((a, b) => a.rank - b.rank) : [];
  const key = JSON.stringify(places);
  if (!standingsEl || key === standingsKey) return;
  standingsKey = key;
  standingsEl.hidden = places.length === 0;
  document.getElementById("standings-list").replaceChildren(...places.map((s) => el("li", { "data-rank": String(s.rank) },
    el("span", { class: "rank" }, `${s.rank}.`), " ", el("span", { class: "pname" }, s.name || nameOf(s.seat)),
    " ", el("span", { class: "score" }, String(s.score)))));
}

// ---------------------------------------------------------------- turns
function setTurn(m, redraw = true) {
  const changed = turn !== m;
  turn = m;
  if (m) turnDeadline = Date.now() + (m.time_left ?? 0) * 1000;
  if (changed) board.onTurn?.(m);
  if (redraw) render();
}

function act(action) {
  if (!turn) return false;
  const t = turn;
  if (!send({ type: "act", hand: t.hand, version: t.version, seat: t.seat, action })) return false;
  setTurn(null);
  return true;
}

setInterval(() => {
  if (board && snap) board.tick?.(Math.max(0, turnDeadline - Date.now()));
}, 250);

// ------------------------------------------------------------ your seats
const SEAT_STATE = { playing: "Playing", sitting_out: "Sitting out", disconnected: "Disconnected" };

function defaultSeatPanel(i) {
  const s = snap.seats[i];
  const away = s.state === "sitting_out";
  const command = (type) => () => send({ type, seat: i });
  return {
    chips: info.economy === false ? null : s.stack,
    status: SEAT_STATE[s.state] || capital(String(s.state || "playing").replaceAll("_", " ")),
    stateClass: s.state || "playing",
    buttons: [
      away ? { label: "Sit in", aria: `Sit in ${s.name}`, run: command("sit_in") }
        : { label: "Sit out", aria: `Sit out ${s.name}`, run: command("sit_out") },
      { label: "Leave", aria: `Leave with ${s.name}`, cls: "danger-outline", run: command("leave") },
    ],
  };
}

let mySeatsKey = "";
function renderMySeats() {
  const mine = snap.you.seats.filter((i) => snap.seats[i]).map((i) => {
    const s = snap.seats[i];
    return { seat: i, name: s.name, isBot: s.is_bot, ...(board.seatPanel ? board.seatPanel(i) : defaultSeatPanel(i)) };
  });
  const house = cfg.can_manage_bots ? houseSeats.filter((i) => snap.seats[i]).map((i) => [i, snap.seats[i].name]) : [];
  const free = (snap.seats || []).some((s) => !s);
  const key = JSON.stringify([mine, house, turn?.seat, seatable.length, free]); // run() is left out
  if (key === mySeatsKey) return;
  mySeatsKey = key;
  const items = [];
  for (const p of mine) {
    const buttons = (p.buttons || []).map((spec) => {
      const b = el("button", { type: "button", class: `button secondary small-btn ${spec.cls || ""}`, "aria-label": spec.aria || null }, spec.label);
      b.addEventListener("click", spec.run);
      return b;
    });
    const place = p.chips === null || p.chips === undefined ? ` · seat ${p.seat + 1}` : ` · seat ${p.seat + 1} · ${chips(p.chips)}`;
    items.push(el("div", { class: `my-seat${turn && turn.seat === p.seat ? " active" : ""}`, "data-seat": String(p.seat) },
      el("span", { class: "who" }, p.name, p.isBot ? el("span", { class: "badge bot" }, "bot") : "",
        el("span", { class: "muted small" }, place)),
      el("span", { class: `seat-state state-${p.stateClass}`, "data-testid": "seat-state" }, p.status),
      ...buttons));
  }
  for (const [i, name] of house) {
    const b = el("button", { type: "button", class: "button secondary small-btn danger-outline", "aria-label": `Remove ${name}` }, "Remove bot");
    b.addEventListener("click", () => postHouse({ remove: i }));
    items.push(el("div", { class: "my-seat house" }, el("span", { class: "who" }, `${name} · seat ${i + 1}`, el("span", { class: "badge bot" }, "house bot")), b));
  }
  if (!items.length) {
    items.push(el("p", { class: "muted small", "data-testid": "watching" }, !free ? "The table is full — you are watching this table."
      : seatable.length ? "You are watching. Click a free seat to sit down." : "You are watching this table."));
  }
  mySeatsEl.replaceChildren(...items);
}

// Seat a house bot, or remove one ({remove: seat}); null or the error (also toasted).
async function postHouse(body) {
  let response;
  try {
    response = await fetch(cfg.house_url, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken() },
      body: JSON.stringify(body),
    });
  } catch (failure) {
    const error = { message: "Not connected: try again in a moment." };
    toast(error.message);
    return error;
  }
  const data = await response.json().catch(() => ({}));
  if (!response.ok) {
    const error = data.error || { message: "That did not work." };
    toast(error.message || "That did not work.");
    return error;
  }
  loadLog();
  return null;
}

async function sit(seat, player, options = {}) {
  if (player.house) return postHouse({ ...options, player: player.id, seat });
  const error = await request({ ...options, type: "sit", seat, player: player.id });
  if (!error) refreshAccount();
  return error;
}

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
  const a = await getJson(cfg.account_url);
  if (!a) return;
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
accountPanel?.addEventListener("toggle", () => { if (accountPanel.open) loadAccount(); });

// Refresh the account panel when chips moved (sit, leave, add chips).
function refreshAccount() { if (accountPanel?.open) loadAccount(); }
setInterval(refreshAccount, 5000);

// ----------------------------------------------------------------- misc
let toastTimer = null;
function toast(text) {
  toastEl.textContent = text;
  toastEl.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { toastEl.hidden = true; }, 4000);
}

// ------------------------------------------------------------- the board
const shell = {
  cfg,
  info,
  slots: {
    main: document.getElementById("board-main"),
    foot: document.getElementById("board-foot"),
    dialogs: document.getElementById("board-dialogs"),
  },
  get snapshot() { return snap; },
  get turn() { return turn; },
  get seatable() { return seatable; },
  get houseSeats() { return houseSeats; },
  connected: () => connEl.dataset.state === "connected",
  nameOf,
  send: (message) => send(message),
  request,
  act,
  sit,
  resync,
  render,
  toast,
  refreshAccount,
  describe: describePlatform,
  timeLeft: () => Math.max(0, turnDeadline - Date.now()),
};

async function loadBoard() {
  const urls = [cfg.board_url, cfg.generic_board_url].filter(Boolean);
  for (const url of urls) {
    try {
      const module = await import(url);
      for (const slot of Object.values(shell.slots)) slot.replaceChildren();
      const made = module.createBoard(shell);
      const key = made.key || url.split("/").slice(-2, -1)[0];
      pageEl.dataset.board = key;
      window.__board = key;
      return made;
    } catch (error) {
      console.error(`The board ${url} did not load:`, error);
    }
  }
  throw new Error("No board could be loaded.");
}

// ---------------------------------------------------------------- log and chat tabs
// On narrow screens (the media query of site.css's "log and chat tabs" block) the
// log and the chat panels are two tabs below the playing area: a tablist with roving
// focus (arrows, Home, End), the unselected panel hidden. At desktop width the tab bar
// is hidden and both panels show, without tab roles.
let chatArrived = () => {};
function setUpSideTabs() {
  const list = document.getElementById("side-tabs");
  if (!list) return;
  const tabs = [...list.querySelectorAll("[role=tab]")];
  const panelOf = (tab) => document.getElementById(tab.getAttribute("aria-controls"));
  const narrow = window.matchMedia("(max-width: 700px)");
  let selected = tabs[0];
  function select(tab, focus = false) {
    selected = tab;
    for (const t of tabs) {
      const on = t === tab;
      t.setAttribute("aria-selected", String(on));
      t.tabIndex = on ? 0 : -1;
      if (on) delete t.dataset.unread;
      if (narrow.matches) panelOf(t).hidden = !on;
    }
    if (focus) tab.focus();
  }
  function layout() {
    list.hidden = !narrow.matches;
    for (const t of tabs) {
      const panel = panelOf(t);
      if (narrow.matches) {
        panel.setAttribute("role", "tabpanel");
        panel.setAttribute("aria-labelledby", t.id);
      } else {
        panel.removeAttribute("role");
        panel.removeAttribute("aria-labelledby");
        panel.hidden = false;
      }
    }
    select(selected);
  }
  list.addEventListener("click", (e) => {
    const tab = e.target.closest("[role=tab]");
    if (tab) select(tab);
  });
  list.addEventListener("keydown", (e) => {
    const i = tabs.indexOf(document.activeElement);
    if (i < 0) return;
    const to = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: tabs.length - 1 }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    select(tabs[(to + tabs.length) % tabs.length], true);
  });
  // A chat line arriving while the chat tab is hidden marks the tab (not the lines
  // of the first snapshot: they were said before the page opened).
  const chatTab = document.getElementById("tab-chat");
  chatArrived = () => {
    if (chatTab && narrow.matches && selected !== chatTab) chatTab.dataset.unread = "1";
  };
  narrow.addEventListener("change", layout);
  layout();
}
setUpSideTabs();

setConn("connecting", "Connecting…");
loadBoard().then((made) => {
  board = made;
  connect();
}, (error) => {
  setConn("lost", "This table cannot be shown");
  toast(error.message);
});
