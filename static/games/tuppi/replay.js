// Tuppi replay (the replay shell's interface, static/js/replay.js): a stored round
// step by step on the live board's table (board.css). The events are the round as
// this viewer may see it (tables.selectors.hand_history has hidden the rest): the
// hands the viewer may see are dealt face up and lose each card as it is played;
// the others are card counts. Every bid, revealed bid, card, trick and the round's
// score is a step; the table at step n is folded from the first n steps.
import { el } from "../../js/dom.js";
import {
  cardBack, cardFace, describeTuppi, position, roundSentence, splitCards, teamNames, teamOf,
} from "./tuppi.js";

const CARD_ORDER = "23456789TJQKA";
const SUIT_ORDER = "cdhs";
function sortCards(cards) {
  return [...cards].sort((a, b) => SUIT_ORDER.indexOf(a[1]) - SUIT_ORDER.indexOf(b[1])
    || CARD_ORDER.indexOf(a[0]) - CARD_ORDER.indexOf(b[0]));
}

/** The round after `events`: seats (hand, count, bid, tricks), trick, contract, result. */
function fold(events) {
  const s = {
    dealer: null, mode: null, declarer: null, leader: null, trick: [], last: null, teamTricks: [0, 0],
    seats: [0, 1, 2, 3].map(() => ({ cards: null, count: 0, bid: null, hasBid: false, tricks: 0 })),
    result: null, turn: null,
  };
  for (const e of events) {
    const seat = s.seats[e.player];
    switch (e.type) {
      case "Dealt": s.dealer = e.dealer; s.seats.forEach((p) => { p.count = 13; }); break;
      case "CardsDealt": if (e.cards) seat.cards = sortCards(splitCards(e.cards)); break;
      case "BidPlaced": seat.hasBid = true; if (e.bid) seat.bid = e.bid; break;
      case "BidRevealed": seat.bid = e.bid; break;
      case "ContractSet": s.mode = e.mode; s.declarer = e.declarer; s.leader = e.leader; s.turn = e.leader; break;
      case "CardPlayed":
        if (s.trick.length === 0) s.last = null;
        s.trick.push({ player: e.player, card: e.card });
        seat.count -= 1;
        if (seat.cards) seat.cards = seat.cards.filter((c) => c !== e.card);
        s.turn = (e.player + 1) % 4;
        break;
      case "TrickWon":
        s.seats[e.player].tricks += 1;
        s.teamTricks = e.tricks;
        s.last = { cards: s.trick, winner: e.player, number: e.number };
        s.trick = [];
        s.turn = e.player;
        break;
      case "RoundScored": s.result = e; s.turn = null; break;
      default: break;
    }
  }
  return s;
}

export function createReplay(shell) {
  const { hand, nameOf } = shell;
  const seats = {};
  for (const pos of ["top", "left", "right", "bottom"]) seats[pos] = el("div", { class: `tp-seat pos-${pos}` });
  const trick = el("div", { class: "tp-trick", id: "tp-trick", role: "group", "aria-label": "The trick" });
  const caption = el("p", { class: "tp-caption", id: "tp-caption" });
  const round = el("p", { class: "tp-round", id: "tp-round" });
  const result = el("p", { class: "tp-status", id: "tp-result", "aria-live": "polite" });
  shell.slots.main.append(el("section", { class: "tp-board tp-replay", id: "tuppi", role: "region", "aria-label": "Replayed Tuppi round" },
    round,
    el("div", { class: "tp-table" }, seats.top, seats.left, el("div", { class: "tp-centre" }, trick, caption), seats.right, seats.bottom),
    result));
  shell.slots.note.textContent = `You see the hands you may see: your own players'${shell.seesEverything ? " and (superuser) every hand" : ""}; `
    + "the others only as the cards they played. Bids stay hidden unless they were shown.";

  let bottom = 0;
  const describe = (e) => describeTuppi(e, nameOf, shell.describe);

  return {
    key: "tuppi",
    describe,
    steps(events) {
      const visible = events.find((e) => e.type === "CardsDealt" && e.cards);
      // The viewer's own seat at the bottom (as the live table), else the hand it sees.
      bottom = shell.mySeats?.length ? shell.mySeats[0] : visible ? visible.player : 0;
      // Every event with a sentence (another seat's CardsDealt, a count only, has none).
      return events.map((event) => ({ event, text: describe(event) })).filter((step) => step.text !== null);
    },
    render(n, steps) {
      const s = fold(steps.slice(0, n).map((step) => step.event));
      const contract = s.mode === "rami" ? `rami by ${nameOf(s.declarer)}` : s.mode === "nolo" ? "nolo" : "secret bids";
      round.textContent = `Round #${hand.number}${s.dealer !== null ? ` · ${nameOf(s.dealer)} deals` : ""} · ${contract}`
        + ` · tricks ${s.teamTricks[0]}–${s.teamTricks[1]} (${teamNames(0, nameOf)} – ${teamNames(1, nameOf)})`;
      for (let seat = 0; seat < 4; seat++) {
        const p = s.seats[seat];
        const box = seats[position(seat, bottom)];
        box.className = `tp-seat pos-${position(seat, bottom)} team-${teamOf(seat)}${s.turn === seat ? " acting" : ""}`;
        box.dataset.seat = String(seat);
        const badges = [];
        if (s.dealer === seat) badges.push(el("span", { class: "badge tp-dealer" }, "D"));
        if (s.declarer === seat) badges.push(el("span", { class: "badge tp-declarer" }, "rami"));
        else if (p.bid) badges.push(el("span", { class: "badge tp-shown" }, `bid ${p.bid}`));
        else if (p.hasBid && !s.mode) badges.push(el("span", { class: "badge tp-bid-state done" }, "has bid"));
        const cards = p.cards
          ? p.cards.map((c) => cardFace(c, { cls: "mini" }))
          : Array.from({ length: Math.max(0, p.count) }, () => cardBack("mini"));
        box.replaceChildren(
          el("div", { class: "tp-seat-head" }, el("span", { class: "tp-name" }, nameOf(seat)),
            el("span", { class: "tp-meta" }, `${p.count} ${p.count === 1 ? "card" : "cards"} · ${p.tricks} ${p.tricks === 1 ? "trick" : "tricks"}`)),
          ...(badges.length ? [el("div", { class: "tp-badges" }, ...badges)] : []),
          ...(cards.length ? [el("div", { class: `tp-backs${p.cards ? " faces" : ""}` }, ...cards)] : []));
      }
      const shown = s.trick.length ? s.trick : s.last ? s.last.cards : [];
      const winner = s.trick.length ? null : s.last?.winner;
      trick.replaceChildren(...shown.map(({ player, card }) => cardFace(card, {
        cls: `pos-${position(player, bottom)}${player === winner ? " winner" : ""}`, attrs: { "data-player": String(player) },
      })));
      caption.textContent = s.trick.length ? `Trick ${s.teamTricks[0] + s.teamTricks[1] + 1}`
        : s.last ? `${nameOf(s.last.winner)} takes trick ${s.last.number}` : "";
      result.textContent = s.result ? roundSentence(s.result, nameOf) : "";
    },
  };
}
