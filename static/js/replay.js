// The replay shell: a finished round of any game, step by step (lobby.pages.replay,
// templates/tables/replay.html). It owns what every replay does whatever the game:
// the step controls (start, back, play/pause, next, end), the keyboard (← back,
// → forward, space play/pause), the step log (one line per step, click to jump)
// and the step counter; the players panel (name, starting stack if any, net, score)
// is rendered by the server. What the round looks like at a step is drawn by a
// replay module, static/games/<game key>/replay.js, or static/games/_generic/replay.js
// for a game without one (the server says which: cfg.replay_url; ?board=generic
// forces the generic one). If the game's module fails to load or to start, the
// generic one is used. The module is imported while module script elements hold the
// page's load event (see load()), so the replay is drawn before the page's load event.
//
// The events are the stored round as this viewer may see it (cfg.hand.events, from
// tables.selectors.hand_history: already privacy-filtered, a hidden value replaced
// by its public form), so a replay module never has to hide anything.
//
// ------------------------------------------------------------ replay interface
//
//   export function createReplay(shell) -> replay
//
// createReplay fills shell.slots.main (the drawing area; shell.slots.note is the
// sentence under the controls saying what the viewer may see) and returns an object:
//
//   steps(events)    the round's steps, in order: [{event, text}] — `text` is the
//                    step's log line, `event` what it stands for (or any value the
//                    module's render() understands). Optional: by default every
//                    event is a step, its line describe(event) (or the platform's
//                    sentence, or the event type).
//   render(n, steps) required: draw the round after the first n steps (0: before
//                    the first, steps.length: the end). Called on every move, in
//                    any order (back, jumps), so it draws from the steps, not from
//                    what it drew last.
//   describe(event)  optional: an event's log line (string), or null.
//   key              optional: the module's name (default: its folder).
//
// The shell given to createReplay:
//
//   shell.cfg                  the page config (hand, info, game_info, replay_url...)
//   shell.hand                 the round: {id, table, game, number, button, started_at,
//                              ended_at, players: [{seat, name, net, score, ...game
//                              detail, e.g. poker's starting_stack and cards}],
//                              events, phh}
//   shell.info, shell.gameInfo the table (tables.selectors.table_info: seats,
//                              settings, facts flat) and the game's info (GameInfo)
//   shell.roundWord            the game's round name ("hand", "deal"...)
//   shell.slots                {main, note}
//   shell.player(seat)         the hand.players entry of a seat (or undefined)
//   shell.nameOf(seat)         its name ("Seat 3" if none)
//   shell.describe(event)      the platform's sentence for its own events, or null
//   shell.seesEverything       the viewer is a superuser (sees every hidden value)
//   shell.mySeats              the seats of the viewer's own players (cfg.my_seats)
//   shell.bottomSeat           the seat to draw at the bottom, as the live table does:
//                              the viewer's first own seat, else 0
//
// The module's key is exposed as window.__replay and #replay-page[data-replay].
import { el } from "./dom.js";
import { describePlatform } from "./platform.js";

const cfg = JSON.parse(document.getElementById("replay-config").textContent);
const hand = cfg.hand;
const pageEl = document.getElementById("replay-page");
const logEl = document.getElementById("hand-log");
const stepEl = document.getElementById("rp-step");
const playButton = document.getElementById("rp-play");
const PLAY_EVERY = 900;

const bySeat = {};
for (const p of hand.players) bySeat[p.seat] = p;
const nameOf = (seat) => bySeat[seat]?.name || `Seat ${Number(seat) + 1}`;
const gameInfo = cfg.game_info || cfg.info?.game_info || {};
const roundWord = gameInfo.round_name || "round";

const shell = {
  cfg,
  hand,
  info: cfg.info || {},
  gameInfo,
  roundWord,
  slots: { main: document.getElementById("replay-main"), note: document.getElementById("rp-note") },
  player: (seat) => bySeat[seat],
  nameOf,
  describe: (event) => describePlatform(event, nameOf, roundWord),
  seesEverything: Boolean(cfg.sees_everything),
  mySeats: Array.isArray(cfg.my_seats) ? cfg.my_seats : [],
  get bottomSeat() { return this.mySeats.length ? this.mySeats[0] : 0; },
};

let replay = null;
let steps = [];
let lines = [];
let step = 0;
let timer = null;

function defaultSteps(events) {
  return events.map((event) => ({
    event,
    text: replay.describe?.(event) ?? shell.describe(event) ?? String(event.type),
  }));
}

// The sentence under the controls as the server wrote it (a module may replace it).
const emptyNote = shell.slots.note.textContent;

/** Make the replay from a loaded module and show step 0 (throws if the module fails). */
function mount(module, url) {
  pause();
  shell.slots.main.replaceChildren();
  shell.slots.note.textContent = emptyNote;
  const made = module.createReplay(shell);
  const key = made.key || url.split("/").slice(-2, -1)[0];
  replay = made;
  steps = replay.steps ? replay.steps(hand.events || []) : defaultSteps(hand.events || []);
  lines = steps.map((s, i) => {
    const li = el("li", { "data-step": String(i + 1) }, s.text);
    li.addEventListener("click", () => go(i + 1));
    return li;
  });
  logEl.replaceChildren(...lines);
  step = 0;
  render();
  pageEl.dataset.replay = key;
  window.__replay = key;
}

/**
 * Load the first module of `urls` that works and mount it, before the page's load
 * event. The module is imported with import(), which does not delay that event, so a
 * module script element for the same URL holds it meanwhile: an element delays the
 * load event until it has run, runs the same module instance as import() (one module
 * map; no second fetch, no second evaluation), and while import() has not settled,
 * each element that has run puts in the next one. (A same-origin blob: loader with a
 * static import did this before; the Content-Security-Policy, script-src 'self',
 * forbids blob: and data: scripts.)
 */
function load(urls) {
  const [url, ...rest] = urls;
  if (!url) {
    replay = null;
    stepEl.textContent = "This round cannot be shown";
    shell.slots.main.replaceChildren(el("p", { class: "error", role: "alert" }, "No replay could be loaded."));
    return;
  }
  let settled = false;
  const failed = (error) => {
    console.error(`The replay ${url} did not load:`, error);
    load(rest);
  };
  const absolute = new URL(url, document.baseURI).href; // one URL: one module instance
  import(absolute).then((module) => {
    settled = true;
    try { mount(module, url); } catch (error) { failed(error); }
  }, (error) => {
    settled = true;
    failed(error);
  });
  let holds = 0;
  const hold = () => {
    if (settled || ++holds > 200) return;
    const script = el("script", { type: "module", src: absolute });
    const next = () => { script.remove(); hold(); };
    script.addEventListener("load", next);
    script.addEventListener("error", next);
    document.head.append(script);
  };
  hold();
}

function render() {
  if (!replay) return;
  replay.render(step, steps);
  lines.forEach((li, i) => li.classList.toggle("current", i === step - 1));
  keepInLog(lines[step - 1]);
  stepEl.textContent = `Step ${step} of ${steps.length}`;
}

/** Scroll the step log (only the log: never the page, whose board would leave the
 * screen on a phone, where the log is below it) so that `li` is in view. */
function keepInLog(li) {
  if (!li || logEl.scrollHeight <= logEl.clientHeight) return;
  const box = logEl.getBoundingClientRect();
  const line = li.getBoundingClientRect();
  if (line.top < box.top) logEl.scrollTop += line.top - box.top;
  else if (line.bottom > box.bottom) logEl.scrollTop += line.bottom - box.bottom;
}

function go(n) {
  if (!replay) return;
  step = Math.max(0, Math.min(steps.length, n));
  render();
  if (step === steps.length) pause();
}

function pause() {
  clearInterval(timer);
  timer = null;
  playButton.textContent = "▶ Play";
  playButton.setAttribute("aria-label", "Play");
}

function play() {
  if (!replay) return;
  if (timer) { pause(); return; }
  if (step === steps.length) step = 0;
  playButton.textContent = "⏸ Pause";
  playButton.setAttribute("aria-label", "Pause");
  timer = setInterval(() => go(step + 1), PLAY_EVERY);
}

document.getElementById("rp-start").addEventListener("click", () => go(0));
document.getElementById("rp-back").addEventListener("click", () => go(step - 1));
document.getElementById("rp-next").addEventListener("click", () => go(step + 1));
document.getElementById("rp-end").addEventListener("click", () => go(steps.length));
playButton.addEventListener("click", play);
document.addEventListener("keydown", (e) => {
  if (e.altKey || e.ctrlKey || e.metaKey) return;
  if (e.key === "ArrowRight") go(step + 1);
  else if (e.key === "ArrowLeft") go(step - 1);
  else if (e.key === " ") { e.preventDefault(); play(); }
});

load([...new Set([cfg.replay_url, cfg.generic_replay_url].filter(Boolean))]);
