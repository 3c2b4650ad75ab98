// Playing cards drawn with CSS: rank + suit symbol, four colours (suits differ by
// colour AND shape). "??" is a card face down. In stud a card is dealt face down
// (`down`: only its owner sees its face, drawn tucked away) or face up (`up`: every
// viewer sees it); the fanned rows of 3 to 7 cards read their rank and suit in the
// corner (board.css).
import { el } from "../../js/dom.js";

const SUITS = {
  s: { symbol: "♠", name: "spades" },
  h: { symbol: "♥", name: "hearts" },
  d: { symbol: "♦", name: "diamonds" },
  c: { symbol: "♣", name: "clubs" },
};
const RANKS = { T: "10", J: "J", Q: "Q", K: "K", A: "A" };
const RANK_NAMES = { A: "ace", K: "king", Q: "queen", J: "jack", T: "ten" };

export function splitCards(text) {
  const out = [];
  for (let i = 0; i + 1 < (text || "").length; i += 2) out.push(text.slice(i, i + 2));
  return out;
}

/** "king of clubs" (or "card face down"). */
export function cardName(code) {
  if (!code || code === "??") return "card face down";
  const suit = SUITS[code[1]] || { name: "unknown" };
  return `${RANK_NAMES[code[0]] || code[0]} of ${suit.name}`;
}

/** One card; `face`: "up" or "down" (stud), else none. */
export function card(code, { small = false, face = null } = {}) {
  const extra = `${small ? " small" : ""}${face ? ` ${face}` : ""}`;
  if (!code || code === "??") {
    return el("span", { class: `card back${extra}`, role: "img", "aria-label": "card face down" });
  }
  const rank = code[0];
  const suit = SUITS[code[1]] || { symbol: "?", name: "unknown" };
  const label = `${cardName(code)}${face === "down" ? " (face down: only you see it)" : face === "up" ? " (face up)" : ""}`;
  return el("span", { class: `card ${suit.name}${extra}`, role: "img", "aria-label": label, "data-card": code },
    el("span", { class: "rank" }, RANKS[rank] || rank),
    el("span", { class: "suit" }, suit.symbol));
}

export function cards(text, options) {
  return splitCards(text).map((c) => card(c, options));
}
