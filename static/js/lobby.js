// The lobby: filters and sorting (server side), selection, live updates, and the
// create-table form whose settings fields follow the chosen game's settings schema.
// The columns between "Game" and "Players" are the listed games' listing facts: the
// server sends them with the rows (lobby.selectors.lobby_columns) and each row's
// text for them (row.cells). Server text is only ever inserted with textContent.
import { el, wsUrl } from "./dom.js";
import { schemaFields } from "./schemaform.js";

const form = document.getElementById("filters");
const rows = document.getElementById("table-rows");
const empty = document.getElementById("no-tables");
const live = document.getElementById("lobby-live");
let sort = { key: "name", dir: "asc" };
let selected = null;
let tables = [];
let columns = null; // the fact columns; null: those the server rendered
let pending = null;
const head = document.getElementById("table-head");

function query() {
  const params = new URLSearchParams();
  for (const [k, v] of new FormData(form)) if (String(v).trim()) params.set(k, String(v).trim());
  params.set("sort", sort.key);
  params.set("dir", sort.dir);
  return params;
}

async function refresh() {
  const params = query();
  let data;
  try {
    const response = await fetch(`/lobby/tables.json?${params}`, { headers: { Accept: "application/json" } });
    if (!response.ok) return;
    data = await response.json();
  } catch (error) {
    return; // the server is away: the live socket's reconnect refreshes the list
  }
  tables = data.tables;
  if (data.columns) setColumns(data.columns);
  render();
}

function refreshSoon() {
  clearTimeout(pending);
  pending = setTimeout(refresh, 150);
}

// The header's fact columns (th.fact-col after the Game column), rebuilt when they change.
function setColumns(next) {
  const key = JSON.stringify(next);
  if (columns !== null && key === JSON.stringify(columns)) return;
  const rendered = [...head.querySelectorAll("th.fact-col")];
  if (columns === null && key === JSON.stringify(rendered.map(headerColumn))) {
    columns = next;
    return;
  }
  columns = next;
  for (const th of rendered) th.remove();
  const cells = columns.map((c) => el("th", { class: `fact-col${c.num ? " num" : ""}`, "data-column": c.key },
    el("button", { type: "button", "data-sort": c.sort }, c.label)));
  document.getElementById("game-col").after(...cells);
}

function headerColumn(th) {
  const button = th.querySelector("button");
  return { key: th.dataset.column, label: button.textContent, sort: button.dataset.sort, num: th.classList.contains("num") };
}

function currentColumns() {
  return columns ?? [...head.querySelectorAll("th.fact-col")].map(headerColumn);
}

function render() {
  const factColumns = currentColumns();
  rows.replaceChildren(...tables.map((t) => row(t, factColumns)));
  empty.hidden = tables.length > 0;
  for (const th of document.querySelectorAll("[data-sort]")) {
    const on = th.dataset.sort === sort.key;
    th.parentElement.setAttribute("aria-sort", on ? (sort.dir === "asc" ? "ascending" : "descending") : "none");
    th.classList.toggle("sorted", on);
    th.dataset.dir = on ? sort.dir : "";
  }
  const current = tables.find((t) => t.id === selected);
  showSelected(current || null);
}

function row(t, factColumns) {
  const tr = el("tr", { class: "table-row", tabindex: "0", "data-id": String(t.id) });
  if (t.id === selected) tr.classList.add("selected");
  const search = form.elements.player.value.trim();
  const name = el("td", {}, el("span", { class: "tname" }, t.name));
  if (search) {
    const hits = t.players.filter((p) => p.match).map((p) => p.name);
    if (hits.length) name.append(el("span", { class: "badge found" }, `${hits.join(", ")} here`));
  }
  tr.append(
    name,
    el("td", {}, t.game_name),
    ...factColumns.map((c) => el("td", { class: c.num ? "num" : "", "data-column": c.key }, t.cells?.[c.key] ?? "")),
    el("td", { class: "num" }, `${t.taken}/${t.seat_count}`),
    el("td", { class: "num" }, String(t.free)),
    el("td", { class: "num" }, String(t.avg_pot)),
    el("td", { class: "num" }, String(t.hands_per_hour)),
    el("td", { class: "num" }, `${t.turn_seconds}s`),
  );
  tr.addEventListener("click", () => select(t.id));
  tr.addEventListener("dblclick", () => { location.href = t.url; });
  tr.addEventListener("keydown", (e) => {
    if (e.key === "Enter") location.href = t.url;
    if (e.key === " ") { e.preventDefault(); select(t.id); }
  });
  return tr;
}

function select(id) {
  selected = id;
  render();
}

function showSelected(t) {
  const list = document.getElementById("sel-players");
  const open = document.getElementById("sel-open");
  const hands = document.getElementById("sel-hands");
  if (!t) {
    document.getElementById("sel-name").textContent = "Select a table";
    document.getElementById("sel-game").textContent = "Click a row to see who is playing.";
    list.replaceChildren();
    open.hidden = hands.hidden = true;
    return;
  }
  document.getElementById("sel-name").textContent = t.name;
  const facts = t.facts || {};
  const buyIn = "min_buy_in" in facts ? ` · buy-in ${facts.min_buy_in}–${facts.max_buy_in ?? "no max"}` : "";
  document.getElementById("sel-game").textContent = `${t.game_name}${buyIn} · ${t.turn_seconds}s per action`;
  const items = t.players.map((p) => el("li", { class: p.match ? "match" : "" },
    el("span", { class: "seatno" }, `#${p.seat + 1}`),
    el("span", { class: "pname" }, p.name),
    p.is_bot ? el("span", { class: "badge bot" }, "bot") : "",
    p.state !== "playing" ? el("span", { class: "badge" }, p.state.replaceAll("_", " ")) : "",
    el("span", { class: "stack" }, String(p.stack))));
  if (!items.length) items.push(el("li", { class: "muted" }, "Nobody sits here yet."));
  for (let i = t.taken; i < t.seat_count && i < t.taken + 1; i++) {
    items.push(el("li", { class: "muted" }, `${t.free} free seat${t.free === 1 ? "" : "s"}`));
  }
  list.replaceChildren(...items);
  open.href = t.url;
  open.textContent = t.free ? "Open table · sit or watch" : "Open table · watch";
  open.hidden = false;
  hands.href = `${t.url}hands/`;
  hands.hidden = false;
}

// Sorting: the header's buttons, also those of fact columns added later.
head.addEventListener("click", (event) => {
  const button = event.target.closest("button[data-sort]");
  if (!button) return;
  const key = button.dataset.sort;
  sort = { key, dir: sort.key === key && sort.dir === "asc" ? "desc" : "asc" };
  refresh();
});
form.addEventListener("input", refreshSoon);
form.addEventListener("change", refreshSoon);
form.addEventListener("reset", () => setTimeout(refresh, 0));
form.addEventListener("submit", (e) => { e.preventDefault(); refresh(); });

const createPanel = document.getElementById("create-panel");
// Without JavaScript these are links (?create=1 opens the panel on the server).
document.getElementById("open-create")?.addEventListener("click", (event) => {
  event.preventDefault();
  createPanel.hidden = false;
  createPanel.querySelector("input:not([type=hidden])")?.focus();
});
document.getElementById("close-create")?.addEventListener("click", (event) => {
  event.preventDefault();
  createPanel.hidden = true;
});

// The create form: each hosted game with its settings schema (lobby.forms.games_catalogue).
// The server rendered the fields of one game; picking another renders that game's.
const games = JSON.parse(document.getElementById("games-data")?.textContent || "[]");
const gameSelect = document.querySelector("#create-form select[name=game]");
const settingsBox = document.getElementById("settings-fields");
const TABLE_FIELDS = ["name", "game", "settings_for", "turn_seconds"];
gameSelect?.addEventListener("change", () => {
  const game = games.find((g) => g.key === gameSelect.value);
  if (!game || settingsBox.dataset.game === game.key) return;
  settingsBox.replaceChildren(...schemaFields(game.settings_schema, { skip: TABLE_FIELDS }));
  settingsBox.dataset.game = game.key;
  document.querySelector("#create-form input[name=settings_for]").value = game.key;
});

// Live: the lobby websocket says when a table appears, changes seats or closes;
// a slow poll refreshes stacks, average pots and hands/hour.
function connect(delay = 1000) {
  const socket = new WebSocket(wsUrl("/ws/lobby/"));
  socket.addEventListener("open", () => { live.classList.add("on"); live.textContent = "live"; delay = 1000; });
  socket.addEventListener("message", () => refreshSoon());
  socket.addEventListener("close", () => {
    live.classList.remove("on");
    live.textContent = "reconnecting";
    setTimeout(() => connect(Math.min(delay * 2, 10000)), delay);
  });
}
connect();
setInterval(() => { if (!document.hidden) refresh(); }, 4000);
refresh();
