// The generic replay (the replay shell's interface, static/js/replay.js): any game's
// finished round, before (or without) a replay module of its own. Every stored event
// is a step (as this viewer may see it: tables.selectors.hand_history has already
// hidden what the viewer may not see); the drawing shows the current step's line,
// the round's players (the seat the event concerns marked) and the event itself as
// pretty-printed JSON. `?board=generic` on the replay page shows any round this way.
import { el } from "../../js/dom.js";

/** The seat an event concerns, if it names one (`player` or `seat`). */
function seatOf(event) {
  if (!event || typeof event !== "object") return null;
  for (const key of ["player", "seat"]) if (Number.isInteger(event[key])) return event[key];
  return null;
}

export function createReplay(shell) {
  const { hand } = shell;
  const line = el("p", { class: "gr-line", id: "gr-line", "aria-live": "polite" });
  const seatsList = el("ol", { class: "gr-seats", id: "gr-seats", "aria-label": "Players" });
  const view = el("pre", { class: "gb-view gr-event", id: "gr-event", "aria-label": "The event (JSON)" });
  shell.slots.main.append(el("section", { class: "gboard greplay panel", id: "greplay" },
    line, seatsList,
    el("details", { class: "gb-details", open: true }, el("summary", {}, "The event (JSON)"), view)));

  const players = [...hand.players].sort((a, b) => a.seat - b.seat);
  const seatItems = players.map((p) => el("li", { class: "gr-seat", "data-seat": String(p.seat) },
    el("span", { class: "name" }, `${p.seat + 1}. ${p.name}`)));
  seatsList.replaceChildren(...seatItems);

  function describe(event) {
    const sentence = shell.describe(event);
    if (sentence !== null) return sentence;
    const { type, ...rest } = event;
    const fields = Object.keys(rest).length ? ` ${JSON.stringify(rest)}` : "";
    return `${type}${fields}`;
  }

  return {
    key: "_generic",
    describe,
    steps(events) {
      return events.map((event) => ({ event, text: describe(event) }));
    },
    render(n, steps) {
      const current = n > 0 ? steps[n - 1] : null;
      const round = `${shell.roundWord.charAt(0).toUpperCase()}${shell.roundWord.slice(1)} #${hand.number}`;
      line.textContent = current
        ? `Step ${n} of ${steps.length}: ${current.text}`
        : `${round}: ${players.length} players, ${steps.length} events. Step forward to see each one.`;
      view.textContent = current ? JSON.stringify(current.event, null, 2) : "";
      const seat = seatOf(current?.event);
      seatItems.forEach((li) => li.classList.toggle("acting", seat !== null && li.dataset.seat === String(seat)));
    },
  };
}
