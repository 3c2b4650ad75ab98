// Poker replay (the replay shell's interface, static/js/replay.js), every variant:
// the stored hand on the same felt as the live table. Every event that changes what
// the felt shows is a step (hole cards dealt included, even face down); the felt at
// step n is the hand's start (the players' starting stacks, the button) with the
// first n steps folded in by hand.js: stud's up cards, draws, hi-lo halves.
import { el } from "../../js/dom.js";
import { renderTable } from "./tableview.js";
import { startState, apply, describe, logContext, variantOf, winnersLine, winTag } from "./hand.js";

export function createReplay(shell) {
  const { hand, info, nameOf } = shell;
  const variant = variantOf(hand.game || info.game);
  const felt = el("div", { id: "felt", class: "felt", role: "region", "aria-label": "Replayed table" });
  shell.slots.main.append(felt);
  shell.slots.note.textContent = `You see the cards you may see: your own players'${variant.stud ? ", those dealt face up" : ""}, those shown at showdown`
    + `${shell.seesEverything ? ", and (superuser) every card" : ""}.`;
  const seatCount = info.seats || Math.max(0, ...hand.players.map((p) => p.seat + 1));

  function stateAt(steps, n) {
    const seats = {};
    for (const p of hand.players) seats[p.seat] = { name: p.name, stack: p.starting_stack, cards: "" };
    const state = startState({ seats, button: hand.button, smallBlind: info.small_blind, bringIn: Boolean(variant.bringIn) });
    for (const s of steps.slice(0, n)) apply(state, s.event);
    return state;
  }

  let shown = null; // the last render's arguments: redrawn when the layout changes
  window.matchMedia?.("(max-width: 640px)").addEventListener?.("change", () => { if (shown) draw(...shown); });

  function draw(n, steps) {
    shown = [n, steps];
    const s = stateAt(steps, n);
    const seats = [];
    for (let i = 0; i < seatCount; i++) {
      const p = s.seats[i];
      seats.push(p ? {
        seat: i, mine: shell.mySeats.includes(i), name: p.name, stack: p.stack, bet: p.bet, cards: p.folded ? "" : p.cards, up: p.up, draws: p.draws,
        folded: p.folded, action: p.action, blind: s.over ? null : p.blind, handName: p.handName,
        winText: p.wins.length ? winTag(p) : "",
        allIn: !s.over && !p.folded && Boolean(p.cards) && p.stack === 0,
      } : null);
    }
    const winners = Object.keys(s.winners).length ? s.winners : null;
    const banner = winners ? winnersLine(s, nameOf) : null;
    const betTotal = Object.values(s.seats).reduce((a, p) => a + p.bet, 0);
    renderTable(felt, {
      seatCount, bottom: shell.bottomSeat ?? 0, button: variant.stud ? null : s.button, board: s.board, boardSlots: variant.board || 0,
      pots: s.pot + betTotal > 0 ? [{ amount: s.pot + betTotal }] : [], banner, seats,
      actor: null, winners, freeClickable: false,
    });
  }

  return {
    key: "holdem",
    describe: (e) => describe(e, nameOf),
    steps(events) {
      const ctx = logContext();
      ctx.smallBlind = info.small_blind ?? ctx.smallBlind;
      ctx.stud = Boolean(variant.stud);
      ctx.bringInGame = Boolean(variant.bringIn);
      const out = [];
      for (const event of events) {
        const text = describe(event, nameOf, ctx);
        if (text !== null || event.type === "HoleCardsDealt") out.push({ event, text: text || `Cards dealt to ${nameOf(event.player)}` });
      }
      return out;
    },
    render: draw,
  };
}
