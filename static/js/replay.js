// Replay of a stored hand on the same table view: forward, back, play.
import { el } from "./dom.js";
import { renderTable } from "../games/holdem/tableview.js";
import { startState, apply, describe } from "../games/holdem/hand.js";

const cfg = JSON.parse(document.getElementById("replay-config").textContent);
const hand = cfg.hand;
const info = cfg.info;
const felt = document.getElementById("felt");
const logEl = document.getElementById("hand-log");
const stepEl = document.getElementById("rp-step");
const playButton = document.getElementById("rp-play");

const bySeat = {};
for (const p of hand.players) bySeat[p.seat] = p;
const nameOf = (seat) => bySeat[seat]?.name || `Seat ${Number(seat) + 1}`;
// Steps: every event that changes what the table shows gets its own step.
const events = hand.events.filter((e) => describe(e, nameOf) !== null || e.type === "HoleCardsDealt");
let step = 0;
let timer = null;

const lines = events.map((e, i) => {
  const li = el("li", { "data-step": String(i + 1) }, describe(e, nameOf) || `Cards dealt to ${nameOf(e.player)}`);
  li.addEventListener("click", () => go(i + 1));
  return li;
});
logEl.replaceChildren(...lines);

function stateAt(n) {
  const seats = {};
  for (const p of hand.players) seats[p.seat] = { name: p.name, stack: p.starting_stack, cards: "" };
  const state = startState({ seats, button: hand.button, smallBlind: info.small_blind });
  for (const e of events.slice(0, n)) apply(state, e);
  return state;
}

function render() {
  const s = stateAt(step);
  const seats = [];
  for (let i = 0; i < info.seats; i++) {
    const p = s.seats[i];
    seats.push(p ? { seat: i, name: p.name, stack: p.stack, bet: p.bet, cards: p.folded ? "" : p.cards, folded: p.folded, action: p.action, blind: s.over ? null : p.blind, handName: p.handName } : null);
  }
  const winners = Object.keys(s.winners).length ? s.winners : null;
  const banner = winners ? Object.entries(winners).map(([seat, a]) => `${nameOf(seat)} wins ${a}`).join(" · ") : null;
  const betTotal = Object.values(s.seats).reduce((a, p) => a + p.bet, 0);
  renderTable(felt, {
    seatCount: info.seats, bottom: 0, button: s.button, board: s.board,
    pots: s.pot + betTotal > 0 ? [{ amount: s.pot + betTotal }] : [], banner, seats,
    actor: null, winners, freeClickable: false,
  });
  lines.forEach((li, i) => li.classList.toggle("current", i === step - 1));
  lines[step - 1]?.scrollIntoView({ block: "nearest" });
  stepEl.textContent = `Step ${step} of ${events.length}`;
}

function go(n) {
  step = Math.max(0, Math.min(events.length, n));
  render();
  if (step === events.length) pause();
}
function pause() { clearInterval(timer); timer = null; playButton.textContent = "▶ Play"; playButton.setAttribute("aria-label", "Play"); }
function play() {
  if (timer) { pause(); return; }
  if (step === events.length) step = 0;
  playButton.textContent = "⏸ Pause";
  playButton.setAttribute("aria-label", "Pause");
  timer = setInterval(() => go(step + 1), 900);
}

document.getElementById("rp-start").addEventListener("click", () => go(0));
document.getElementById("rp-back").addEventListener("click", () => go(step - 1));
document.getElementById("rp-next").addEventListener("click", () => go(step + 1));
document.getElementById("rp-end").addEventListener("click", () => go(events.length));
playButton.addEventListener("click", play);
document.addEventListener("keydown", (e) => {
  if (e.key === "ArrowRight") go(step + 1);
  else if (e.key === "ArrowLeft") go(step - 1);
  else if (e.key === " ") { e.preventDefault(); play(); }
});
render();
