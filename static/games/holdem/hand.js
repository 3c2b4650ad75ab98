// A hand's events (seat-labelled, as the server stores and sends them) folded into
// what the table shows: stacks, bets, pot, board, cards, the current round's
// actions, winners; and a readable hand log. Used live and by the replay, for every
// poker variant (engine/poker/variants.py): the hole cards of a seat grow street by
// street (HoleCardsDealt face down, UpCardsDealt face up: stud), a draw takes cards
// out (PlayerDrew: how many; CardsDiscarded: which, for their owner) and deals the
// replacements; a hi-lo pot is awarded in a high and a low half.
import { chips } from "../../js/dom.js";
import { splitCards } from "./cards.js";

const SUIT = { s: "♠", h: "♥", d: "♦", c: "♣" };
export function cardText(text) {
  const out = [];
  for (let i = 0; i + 1 < (text || "").length; i += 2) {
    const c = text.slice(i, i + 2);
    out.push(c === "??" ? "🂠" : `${c[0] === "T" ? "10" : c[0]}${SUIT[c[1]] || c[1]}`);
  }
  return out.join(" ");
}

/**
 * What the board needs to know of a variant (engine/poker/variants.py): community
 * cards (`board`: the slots shown), stud (`stud`: cards dealt face up; no dealer
 * button; `bringIn`: its first street's name when the lowest card brings in), draws,
 * hi-lo split pots, the hole cards a player holds at most (`cards`).
 */
export const VARIANTS = {
  holdem: { board: 5, cards: 2 },
  omaha: { board: 5, cards: 4 },
  omaha8: { board: 5, cards: 4, split: true },
  short_deck: { board: 5, cards: 2 },
  five_card_draw: { draws: 1, cards: 5 },
  single_draw: { draws: 1, cards: 5 },
  triple_draw: { draws: 3, cards: 5 },
  badugi: { draws: 3, cards: 4 },
  soko: { stud: true, cards: 5 },
  five_card_stud: { stud: true, bringIn: "second", cards: 5 },
  stud: { stud: true, bringIn: "third", cards: 7 },
  stud8: { stud: true, bringIn: "third", cards: 7, split: true },
  razz: { stud: true, bringIn: "third", cards: 7 },
};
export function variantOf(key) { return VARIANTS[key] || VARIANTS.holdem; }

const hidden = (text) => /\?/.test(text || "");

function blankSeat(extra = {}) {
  return { name: "", stack: 0, cards: "", up: [], bet: 0, folded: false, action: null, blind: null,
    handName: "", draws: [], wins: [], ...extra };
}

/**
 * Initial state: seats = {seat: {name, stack, cards, up, isBot, mine}}; `bringIn`:
 * a stud game with a bring-in (the first bet or raise of the hand completes it).
 */
export function startState({ seats, button = null, smallBlind = 1, bringIn = false }) {
  const state = { seats: {}, board: "", pot: 0, button, street: "preflop", winners: {}, over: false, smallBlind, sbSeen: false,
    actor: null, acted: false, completing: Boolean(bringIn), awards: [] };
  for (const [seat, s] of Object.entries(seats)) {
    const cards = s.cards || "";
    const up = Array.isArray(s.up) && s.up.length === cards.length / 2 ? [...s.up] : splitCards(cards).map(() => false);
    state.seats[seat] = blankSeat({ ...s, cards, up });
  }
  return state;
}

function seatOf(state, seat) {
  if (!state.seats[seat]) state.seats[seat] = blankSeat({ name: `Seat ${Number(seat) + 1}` });
  return state.seats[seat];
}

function collect(state) {
  for (const s of Object.values(state.seats)) { state.pot += s.bet; s.bet = 0; }
}

// A betting round ended (the next street's cards, a draw): bets to the pot, actions cleared.
function nextStreet(state) {
  collect(state);
  for (const s of Object.values(state.seats)) if (!s.folded) s.action = null;
  state.acted = false;
  state.completing = false;
}

function dealt(state, p, cards, up) {
  if (state.acted) nextStreet(state);
  p.cards += cards;
  for (let i = 0; i < cards.length / 2; i++) p.up.push(up);
}

// Take cards out of a hand (a draw): those named, or `count` hidden ones.
function takeOut(p, codes, count = 0) {
  const list = splitCards(p.cards);
  const keep = list.map(() => true);
  for (const code of codes) {
    const k = list.findIndex((c, i) => keep[i] && c === code);
    if (k >= 0) keep[k] = false;
  }
  for (let i = list.length - 1; i >= 0 && count > 0; i--) {
    if (keep[i] && list[i] === "??") { keep[i] = false; count--; }
  }
  p.cards = list.filter((_, i) => keep[i]).join("");
  p.up = p.up.filter((_, i) => keep[i]);
}

// The events that change what the felt shows; anything else (seating, platform
// events such as BuyIn / CashOut, types this client does not know) leaves it alone.
const HAND_EVENTS = new Set(["HandStarted", "AntePosted", "BlindPosted", "BringInPosted", "HoleCardsDealt",
  "UpCardsDealt", "BoardDealt", "PlayerDrew", "CardsDiscarded",
  "PlayerChecked", "PlayerCalled", "BetPlaced", "RaisePlaced", "PlayerFolded", "UncalledBetReturned",
  "CardsShown", "CardsMucked", "PotAwarded", "HandEnded"]);

export function apply(state, e) {
  if (!HAND_EVENTS.has(e.type)) return state;
  const p = e.player !== undefined ? seatOf(state, e.player) : null;
  switch (e.type) {
    case "HandStarted": state.button = e.button; break;
    case "AntePosted": p.stack -= e.amount; state.pot += e.amount; break;
    case "BlindPosted": {
      p.stack -= e.amount;
      if (e.dead) state.pot += e.amount; else p.bet += e.amount;
      const small = !state.sbSeen && e.amount <= state.smallBlind;
      if (small) state.sbSeen = true;
      p.blind = small ? "SB" : "BB";
      p.action = { kind: small ? "sb" : "bb", amount: e.amount };
      break;
    }
    case "BringInPosted":
      p.stack -= e.amount; p.bet += e.amount; state.acted = true;
      state.completing = true;
      p.action = { kind: e.all_in ? "allin" : "bringin", amount: e.amount };
      break;
    case "HoleCardsDealt": dealt(state, p, e.cards, false); break;
    case "UpCardsDealt": dealt(state, p, e.cards, true); break;
    case "BoardDealt":
      nextStreet(state);
      state.board += e.cards; state.street = e.street; break;
    case "PlayerDrew":
      if (state.acted) nextStreet(state);
      p.draws.push(e.count);
      p.action = { kind: "draw", amount: e.count };
      // Hidden cards: take out as many; known ones go with CardsDiscarded (which).
      if (e.count && hidden(p.cards)) takeOut(p, [], e.count);
      break;
    case "CardsDiscarded": takeOut(p, splitCards(e.cards)); break;
    case "PlayerChecked": p.action = { kind: "check" }; state.acted = true; break;
    case "PlayerCalled": p.stack -= e.amount; p.bet += e.amount; p.action = { kind: e.all_in ? "allin" : "call", amount: e.all_in ? p.bet : e.amount }; state.acted = true; break;
    case "BetPlaced": case "RaisePlaced": {
      const add = e.to - p.bet; p.stack -= add; p.bet = e.to;
      const completes = state.completing;
      state.completing = false;
      p.action = { kind: e.all_in ? "allin" : completes ? "complete" : e.type === "BetPlaced" ? "bet" : "raise", amount: e.to };
      state.acted = true;
      break;
    }
    case "PlayerFolded": p.folded = true; p.action = { kind: "fold" }; state.acted = true; break;
    case "UncalledBetReturned":
      if (p.bet >= e.amount) p.bet -= e.amount; else state.pot -= e.amount;
      p.stack += e.amount; break;
    case "CardsShown": {
      const same = e.cards.length === p.cards.length;
      p.cards = e.cards;
      if (!same) p.up = splitCards(e.cards).map(() => false);
      p.handName = e.hand || ""; p.action = { kind: "show" };
      break;
    }
    case "CardsMucked": p.action = { kind: "muck" }; break;
    case "PotAwarded":
      collect(state);
      state.pot -= e.amount; p.stack += e.amount;
      state.winners[e.player] = (state.winners[e.player] || 0) + e.amount;
      p.wins.push({ amount: e.amount, side: e.side || "", hand: e.hand || "", pot: e.pot || 0 });
      state.awards.push({ player: e.player, amount: e.amount, side: e.side || "", hand: e.hand || "" });
      if (e.hand && !e.side) p.handName = e.hand;
      break;
    case "HandEnded": state.over = true; break;
    default: break;
  }
  return state;
}

/** The winners in one line: "Bob wins 4 · Ann wins 2 (high) · Cy wins 2 (low)". */
export function winnersLine(state, nameOf) {
  const bySeat = new Map();
  for (const a of state.awards) {
    const row = bySeat.get(a.player) || { amount: 0, sides: new Set() };
    row.amount += a.amount;
    if (a.side) row.sides.add(a.side);
    bySeat.set(a.player, row);
  }
  return [...bySeat.entries()].map(([seat, row]) => {
    const sides = row.sides.size === 2 ? " (high and low)" : row.sides.size ? ` (${[...row.sides][0]})` : "";
    return `${nameOf(seat)} wins ${chips(row.amount)}${sides}`;
  }).join(" · ");
}

/** A seat's winning tag: "Wins 4 · Pair of Aces", "High 2 · Three of a kind", "Scoops 4 · high and low". */
export function winTag(p) {
  const total = p.wins.reduce((a, w) => a + w.amount, 0);
  const sides = new Set(p.wins.map((w) => w.side).filter(Boolean));
  if (sides.size === 2) return `Scoops ${chips(total)} · high and low`;
  if (sides.size === 1) {
    const side = [...sides][0];
    const hand = p.wins.find((w) => w.hand)?.hand || "";
    return `${side === "high" ? "High" : "Low"} ${chips(total)}${hand ? ` · ${hand}` : ""}`;
  }
  return `Wins ${chips(total)}${p.handName ? ` · ${p.handName}` : ""}`;
}

/**
 * What the log needs to remember between events to name blinds: the dealt seats in
 * position order (small blind first), and who came back from sitting out; and in
 * stud, whether a bet completes the bring-in.
 * Pass the same object to every describe() call of one table; set `stud` for stud
 * games (no dealer button to name), `bringInGame` for those with a bring-in.
 */
export function logContext() {
  return { positions: [], smallBlind: 1, sbSeen: false, returning: new Set(), stud: false, bringInGame: false,
    completing: false, acted: false };
}

function blindText(e, ctx) {
  const amount = chips(e.amount);
  if (!ctx) return `${e.dead ? "dead " : ""}blind ${amount}`;
  const index = ctx.positions.indexOf(e.player);
  const back = ctx.returning.has(e.player);
  if (e.dead) return `a dead small blind ${amount} (missed blind)`;
  if (index < 0 || index < 2 || ctx.positions.length === 2) {
    const small = !ctx.sbSeen && e.amount <= ctx.smallBlind;
    if (small) ctx.sbSeen = true;
    return `the ${small ? "small" : "big"} blind ${amount}`;
  }
  // Dealt in away from the blinds: a player who missed blinds, or a newcomer.
  return back ? `the missed blind ${amount}` : `${amount} to come in`;
}

/** The event types describe() knows (a line, or deliberately none). */
export const LOGGED_EVENTS = new Set([...HAND_EVENTS, "PlayerSeated", "PlayerLeft", "PlayerSatOut",
  "PlayerSatIn", "ChipsAdded", "ChipsPending", "PlayerTimedOut", "PlayerDisconnected",
  "PlayerReconnected", "PlayerWaitingForBB", "PlayerStoodUp", "TableClosed",
  // Platform money events: PlayerSeated, ChipsAdded and PlayerLeft already say it.
  "BuyIn", "CashOut"]);

const STREET_NAMES = { first_draw: "First draw", second_draw: "Second draw", third_draw: "Third draw" };

/** One line of the hand log, or null for events not worth a line. */
export function describe(e, nameOf, ctx = null) {
  const who = e.player !== undefined ? nameOf(e.player) : "";
  let completes = false;
  if (ctx) {
    if (e.type === "HandStarted") {
      ctx.positions = e.seats || []; ctx.sbSeen = false; ctx.completing = ctx.bringInGame; ctx.acted = false;
    }
    if (e.type === "PlayerSatIn") ctx.returning.add(e.player);
    if (e.type === "PlayerSatOut" || e.type === "PlayerLeft") ctx.returning.delete(e.player);
    if (e.type === "HandEnded") for (const seat of ctx.positions) ctx.returning.delete(seat);
    // Stud: the first bet or raise on the bring-in street completes it.
    if (e.type === "BringInPosted") ctx.completing = true;
    if ((e.type === "BetPlaced" || e.type === "RaisePlaced") && ctx.completing) completes = true;
    if (/^(Player(Checked|Called|Folded)|BetPlaced|RaisePlaced|BringInPosted)$/.test(e.type)) ctx.acted = true;
    if (completes || (ctx.acted && /^(HoleCards|UpCards|Board)Dealt$|^PlayerDrew$/.test(e.type))) ctx.completing = false;
  }
  switch (e.type) {
    case "HandStarted": return ctx?.stud ? `Hand #${e.number}` : `Hand #${e.number} — button: ${nameOf(e.button)}`;
    case "AntePosted": return `${who} posts ante ${chips(e.amount)}`;
    case "BlindPosted": return `${who} posts ${blindText(e, ctx)}`;
    case "BringInPosted": return `${who} brings in for ${chips(e.amount)}${e.all_in ? " (all-in)" : ""}`;
    case "HoleCardsDealt": return hidden(e.cards) ? null : `Dealt to ${who}: ${cardText(e.cards)}`;
    case "UpCardsDealt": return `Dealt face up to ${who}: ${cardText(e.cards)}`;
    case "BoardDealt": {
      const street = STREET_NAMES[e.street] || `${e.street[0].toUpperCase()}${e.street.slice(1)}`;
      return `${street}: ${cardText(e.cards)}`;
    }
    case "PlayerDrew": return e.count ? `${who} draws ${e.count} card${e.count === 1 ? "" : "s"}` : `${who} stands pat`;
    case "CardsDiscarded": return `${who} discards ${cardText(e.cards)}`;
    case "PlayerChecked": return `${who} checks`;
    case "PlayerCalled": return `${who} calls ${chips(e.amount)}${e.all_in ? " (all-in)" : ""}`;
    case "BetPlaced": case "RaisePlaced":
      return `${who} ${completes ? "completes to" : e.type === "BetPlaced" ? "bets" : "raises to"} ${chips(e.to)}${e.all_in ? " (all-in)" : ""}`;
    case "PlayerFolded": return `${who} folds`;
    case "UncalledBetReturned": return `Uncalled ${chips(e.amount)} returned to ${who}`;
    case "CardsShown": return `${who} shows ${cardText(e.cards)}${e.hand ? ` (${e.hand})` : ""}`;
    case "CardsMucked": return `${who} mucks`;
    case "PotAwarded": return `${who} wins ${chips(e.amount)}${e.side ? ` (${e.side})` : ""}${e.pot ? ` from side pot ${e.pot}` : ""}${e.hand ? ` with ${e.hand}` : ""}`;
    case "HandEnded": return "Hand over";
    case "PlayerSeated": return `${who} sits down with ${chips(e.stack)}`;
    case "PlayerLeft": return `${who} leaves the table`;
    case "PlayerSatOut": return `${who} sits out${e.reason === "timeouts" ? " (timed out)" : e.reason === "disconnected" ? " (disconnected)" : ""}`;
    case "PlayerSatIn": return `${who} sits in`;
    case "ChipsAdded": return `${who} adds ${chips(e.amount)} chips`;
    case "ChipsPending": return `${who} will add ${chips(e.amount)} chips when this hand ends`;
    case "PlayerTimedOut": return `${who} ran out of time (${e.action})`;
    case "PlayerDisconnected": return `${who} lost the connection`;
    case "PlayerReconnected": return `${who} is back`;
    case "PlayerWaitingForBB": return `${who} waits for the big blind`;
    case "TableClosed": return "The table closed";
    default: return null;
  }
}
