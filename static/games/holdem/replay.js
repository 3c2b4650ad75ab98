// Texas Hold'em replay (the replay shell's interface, static/js/replay.js): the
// stored hand on the same felt as the live table. Every event that changes what the
// felt shows is a step (hole cards dealt included, even face down); the felt at step
// n is the hand's start (the players' starting stacks, the button) with the first n
// steps folded in by hand.js.
import { el } from "../../js/dom.js";
import { renderTable } from "./tableview.js";
import { startState, apply, describe } from "./hand.js";

export function createReplay(shell) {
  const { hand, info, nameOf } = shell;
  const felt = el("div", { id: "felt", class: "felt", role: "region", "aria-label": "Replayed table" });
  shell.slots.main.append(felt);
  shell.slots.note.textContent = "You see the cards you may see: your own players', those shown at showdown"
    + `${shell.seesEverything ? ", and (superuser) every card" : ""}.`;
  const seatCount = info.seats || Math.max(0, ...hand.players.map((p) => p.seat + 1));

  function stateAt(steps, n) {
    const seats = {};
    for (const p of hand.players) seats[p.seat] = { name: p.name, stack: p.starting_stack, cards: "" };
    const state = startState({ seats, button: hand.button, smallBlind: info.small_blind });
    for (const s of steps.slice(0, n)) apply(state, s.event);
    return state;
  }

  return {
    key: "holdem",
    describe: (e) => describe(e, nameOf),
    steps(events) {
      return events
        .filter((e) => describe(e, nameOf) !== null || e.type === "HoleCardsDealt")
        .map((event) => ({ event, text: describe(event, nameOf) || `Cards dealt to ${nameOf(event.player)}` }));
    },
    render(n, steps) {
      const s = stateAt(steps, n);
      const seats = [];
      for (let i = 0; i < seatCount; i++) {
        const p = s.seats[i];
        seats.push(p ? { seat: i, name: p.name, stack: p.stack, bet: p.bet, cards: p.folded ? "" : p.cards, folded: p.folded, action: p.action, blind: s.over ? null : p.blind, handName: p.handName } : null);
      }
      const winners = Object.keys(s.winners).length ? s.winners : null;
      const banner = winners ? Object.entries(winners).map(([seat, a]) => `${nameOf(seat)} wins ${a}`).join(" · ") : null;
      const betTotal = Object.values(s.seats).reduce((a, p) => a + p.bet, 0);
      renderTable(felt, {
        seatCount, bottom: 0, button: s.button, board: s.board,
        pots: s.pot + betTotal > 0 ? [{ amount: s.pot + betTotal }] : [], banner, seats,
        actor: null, winners, freeClickable: false,
      });
    },
  };
}
