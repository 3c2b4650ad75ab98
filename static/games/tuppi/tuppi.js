// Tuppi (engine/tuppi, docs/tuppi.md): what the live board (board.js) and the replay
// (replay.js) share — cards, seats around the table, teams, the log's sentences.
// Seats 0..3 clockwise; partners opposite (team 0: seats 0 and 2, team 1: 1 and 3).
// Seen from a seat at the bottom, clockwise goes bottom → left → top → right: the
// player to your left (seat + 1) sits on the left, your partner at the top.
import { el } from "../../js/dom.js";

export const SUITS = {
  c: { symbol: "♣", name: "clubs" },
  d: { symbol: "♦", name: "diamonds" },
  h: { symbol: "♥", name: "hearts" },
  s: { symbol: "♠", name: "spades" },
};
const RANK_TEXT = { T: "10" };
const RANK_NAMES = { A: "ace", K: "king", Q: "queen", J: "jack", T: "ten" };
export const POSITIONS = ["bottom", "left", "top", "right"];
export const TARGET = 52;

/** "9cAs" -> ["9c", "As"] */
export function splitCards(text) {
  const out = [];
  for (let i = 0; i + 1 < (text || "").length; i += 2) out.push(text.slice(i, i + 2));
  return out;
}

/** "ten of clubs" */
export function cardName(code) {
  const suit = SUITS[code?.[1]];
  if (!suit) return "card face down";
  return `${RANK_NAMES[code[0]] || code[0]} of ${suit.name}`;
}

/** "10♣" */
export function cardText(code) {
  const suit = SUITS[code?.[1]];
  return suit ? `${RANK_TEXT[code[0]] || code[0]}${suit.symbol}` : "??";
}

/** A card face (a span; `tag: "button"` makes it a button). */
export function cardFace(code, { tag = "span", cls = "", attrs = {} } = {}) {
  const suit = SUITS[code[1]] || { symbol: "?", name: "unknown" };
  const a11y = tag === "span" ? { role: "img", "aria-label": cardName(code) } : { "aria-label": cardName(code) };
  return el(tag, { class: `tp-card ${suit.name}${cls ? ` ${cls}` : ""}`, "data-card": code, ...a11y, ...attrs },
    el("span", { class: "rank" }, RANK_TEXT[code[0]] || code[0]),
    el("span", { class: "suit" }, suit.symbol));
}

/** A card back (hidden card). */
export function cardBack(cls = "") {
  return el("span", { class: `tp-card back${cls ? ` ${cls}` : ""}`, "aria-hidden": "true" });
}

export function teamOf(seat) { return seat % 2; }

/** Where seat `seat` sits on the screen when `bottom` is at the bottom. */
export function position(seat, bottom) { return POSITIONS[(seat - bottom + 4) % 4]; }

/** "Alice & Carol" (team 0) — names from nameOf(seat). */
export function teamNames(team, nameOf) { return `${nameOf(team)} & ${nameOf(team + 2)}`; }

const OUTCOME = { rise: "a rise", reset: "the board returns to 0–0", tuppi: "tuppi" };

/** The sentence of a round's result (RoundScored event, or the view's `last`). */
export function roundSentence(r, nameOf) {
  const team = r.team ?? r.scorer;
  const score = r.score ?? r.score_after ?? [0, 0];
  const tricks = r.tricks ?? r.team_tricks ?? [0, 0];
  const contract = r.mode === "rami" ? `Rami by ${nameOf(r.declarer)}` : "Nolo";
  return `${contract}, tricks ${tricks[0]}–${tricks[1]}${r.early ? " (decided early)" : ""}: `
    + `${teamNames(team, nameOf)} score ${r.points} (${OUTCOME[r.outcome] || r.outcome}), board ${score[0]}–${score[1]}`;
}

function action(text) {
  if (typeof text !== "string") return "";
  return text.startsWith("play ") ? `played ${cardText(text.slice(5))}` : `chose ${text}`;
}

/**
 * The log sentence of a Tuppi event (null: not logged); the platform's events through
 * `platform(e)` (the shell's describe), anything else as its type.
 */
export function describeTuppi(e, nameOf, platform) {
  const who = e.player !== undefined && e.player !== null ? nameOf(e.player) : "";
  switch (e.type) {
    case "Dealt": return `${nameOf(e.dealer)} deals`;
    case "CardsDealt": return e.cards ? `Your cards (${who}): ${splitCards(e.cards).map(cardText).join(" ")}` : null;
    case "BidPlaced": return e.bid ? `${who} chooses ${e.bid} (secret)` : `${who} has chosen`;
    case "BidRevealed": return `${who} shows ${e.bid}`;
    case "ContractSet": return e.mode === "rami"
      ? `Rami: ${nameOf(e.declarer)} declares; ${nameOf(e.leader)} leads`
      : `Nolo: nobody showed rami; ${nameOf(e.leader)} leads`;
    case "CardPlayed": return `${who} plays ${cardText(e.card)}`;
    case "TrickWon": return `${who} takes trick ${e.number} (tricks ${e.tricks[0]}–${e.tricks[1]})`;
    case "AutoPlayed": return `${who} is leaving: ${action(e.action)} for them`;
    case "RoundScored": return roundSentence(e, nameOf);
    default: {
      const line = platform ? platform(e) : null;
      if (line !== null && line !== undefined) return line;
      return e.type;
    }
  }
}
