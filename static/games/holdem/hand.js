// A hand's events (seat-labelled, as the server stores and sends them) folded into
// what the table shows: stacks, bets, pot, board, cards, the current round's
// actions, winners; and a readable hand log. Used live and by the replay.
import { chips } from "../../js/dom.js";

const SUIT = { s: "♠", h: "♥", d: "♦", c: "♣" };
export function cardText(text) {
  const out = [];
  for (let i = 0; i + 1 < (text || "").length; i += 2) {
    const c = text.slice(i, i + 2);
    out.push(c === "??" ? "🂠" : `${c[0] === "T" ? "10" : c[0]}${SUIT[c[1]] || c[1]}`);
  }
  return out.join(" ");
}

/** Initial state: seats = {seat: {name, stack, cards, isBot, mine}}. */
export function startState({ seats, button = null, smallBlind = 1 }) {
  const state = { seats: {}, board: "", pot: 0, button, street: "preflop", winners: {}, over: false, smallBlind, sbSeen: false, actor: null };
  for (const [seat, s] of Object.entries(seats)) {
    state.seats[seat] = { ...s, bet: 0, folded: false, action: null, blind: null, handName: "" };
  }
  return state;
}

function seatOf(state, seat) {
  if (!state.seats[seat]) state.seats[seat] = { name: `Seat ${Number(seat) + 1}`, stack: 0, cards: "", bet: 0, folded: false, action: null, blind: null, handName: "" };
  return state.seats[seat];
}

function collect(state) {
  for (const s of Object.values(state.seats)) { state.pot += s.bet; s.bet = 0; }
}

// The events that change what the felt shows; anything else (seating, platform
// events such as BuyIn / CashOut, types this client does not know) leaves it alone.
const HAND_EVENTS = new Set(["HandStarted", "AntePosted", "BlindPosted", "HoleCardsDealt", "BoardDealt",
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
    case "HoleCardsDealt": if (!p.cards || /\?/.test(p.cards) || e.cards.indexOf("?") < 0) p.cards = e.cards; break;
    case "BoardDealt":
      collect(state);
      for (const s of Object.values(state.seats)) if (!s.folded) s.action = null;
      state.board += e.cards; state.street = e.street; break;
    case "PlayerChecked": p.action = { kind: "check" }; break;
    case "PlayerCalled": p.stack -= e.amount; p.bet += e.amount; p.action = { kind: e.all_in ? "allin" : "call", amount: e.all_in ? p.bet : e.amount }; break;
    case "BetPlaced": case "RaisePlaced": {
      const add = e.to - p.bet; p.stack -= add; p.bet = e.to;
      p.action = { kind: e.all_in ? "allin" : e.type === "BetPlaced" ? "bet" : "raise", amount: e.to };
      break;
    }
    case "PlayerFolded": p.folded = true; p.action = { kind: "fold" }; break;
    case "UncalledBetReturned":
      if (p.bet >= e.amount) p.bet -= e.amount; else state.pot -= e.amount;
      p.stack += e.amount; break;
    case "CardsShown": p.cards = e.cards; p.handName = e.hand || ""; p.action = { kind: "show" }; break;
    case "CardsMucked": p.action = { kind: "muck" }; break;
    case "PotAwarded":
      collect(state);
      state.pot -= e.amount; p.stack += e.amount;
      state.winners[e.player] = (state.winners[e.player] || 0) + e.amount;
      if (e.hand) p.handName = e.hand;
      break;
    case "HandEnded": state.over = true; break;
    default: break;
  }
  return state;
}

/**
 * What the log needs to remember between events to name blinds: the dealt seats in
 * position order (small blind first), and who came back from sitting out.
 * Pass the same object to every describe() call of one table.
 */
export function logContext() {
  return { positions: [], smallBlind: 1, sbSeen: false, returning: new Set() };
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

/** One line of the hand log, or null for events not worth a line. */
export function describe(e, nameOf, ctx = null) {
  const who = e.player !== undefined ? nameOf(e.player) : "";
  if (ctx) {
    if (e.type === "HandStarted") { ctx.positions = e.seats || []; ctx.sbSeen = false; }
    if (e.type === "PlayerSatIn") ctx.returning.add(e.player);
    if (e.type === "PlayerSatOut" || e.type === "PlayerLeft") ctx.returning.delete(e.player);
    if (e.type === "HandEnded") for (const seat of ctx.positions) ctx.returning.delete(seat);
  }
  switch (e.type) {
    case "HandStarted": return `Hand #${e.number} — button: ${nameOf(e.button)}`;
    case "AntePosted": return `${who} posts ante ${chips(e.amount)}`;
    case "BlindPosted": return `${who} posts ${blindText(e, ctx)}`;
    case "HoleCardsDealt": return /\?/.test(e.cards) ? null : `Dealt to ${who}: ${cardText(e.cards)}`;
    case "BoardDealt": return `${e.street[0].toUpperCase()}${e.street.slice(1)}: ${cardText(e.cards)}`;
    case "PlayerChecked": return `${who} checks`;
    case "PlayerCalled": return `${who} calls ${chips(e.amount)}${e.all_in ? " (all-in)" : ""}`;
    case "BetPlaced": return `${who} bets ${chips(e.to)}${e.all_in ? " (all-in)" : ""}`;
    case "RaisePlaced": return `${who} raises to ${chips(e.to)}${e.all_in ? " (all-in)" : ""}`;
    case "PlayerFolded": return `${who} folds`;
    case "UncalledBetReturned": return `Uncalled ${chips(e.amount)} returned to ${who}`;
    case "CardsShown": return `${who} shows ${cardText(e.cards)}${e.hand ? ` (${e.hand})` : ""}`;
    case "CardsMucked": return `${who} mucks`;
    case "PotAwarded": return `${who} wins ${chips(e.amount)}${e.pot ? ` from side pot ${e.pot}` : ""}${e.hand ? ` with ${e.hand}` : ""}`;
    case "HandEnded": return "Hand over";
    case "PlayerSeated": return `${who} sits down with ${chips(e.stack)}`;
    case "PlayerLeft": return `${who} leaves the table`;
    case "PlayerSatOut": return `${who} sits out${e.reason === "timeouts" ? " (timed out)" : ""}`;
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
