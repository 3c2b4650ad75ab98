// Playing cards drawn with CSS: rank + suit symbol, four colours (suits differ by
// colour AND shape). "??" is a card face down.
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

export function card(code, { small = false } = {}) {
  if (!code || code === "??") {
    return el("span", { class: `card back${small ? " small" : ""}`, role: "img", "aria-label": "card face down" });
  }
  const rank = code[0];
  const suit = SUITS[code[1]] || { symbol: "?", name: "unknown" };
  const label = `${RANK_NAMES[rank] || rank} of ${suit.name}`;
  return el("span", { class: `card ${suit.name}${small ? " small" : ""}`, role: "img", "aria-label": label, "data-card": code },
    el("span", { class: "rank" }, RANKS[rank] || rank),
    el("span", { class: "suit" }, suit.symbol));
}

export function cards(text, options) {
  return splitCards(text).map((c) => card(c, options));
}
