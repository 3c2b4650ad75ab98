// Draws one table state (live or replayed) into the felt: seats round an oval,
// the board, pots, bets, the dealer button and blinds. Pure rendering.
import { el, chips } from "../../js/dom.js";
import { cards } from "./cards.js";

// Position of seat i (of n), rotated so that `bottom` sits at the bottom centre.
function place(i, n, bottom, rx, ry) {
  const angle = Math.PI / 2 + ((i - bottom + n) % n) * (2 * Math.PI / n);
  return { x: 50 + rx * Math.cos(angle), y: 50 + ry * Math.sin(angle) };
}

const ACTION_TEXT = {
  fold: "Fold", check: "Check", call: "Call", bet: "Bet", raise: "Raise to", allin: "All-in",
  sb: "Small blind", bb: "Big blind", post: "Post", show: "Show", muck: "Muck",
};

export function actionText(action) {
  if (!action) return "";
  const word = ACTION_TEXT[action.kind] || action.kind;
  return action.amount ? `${word} ${chips(action.amount)}` : word;
}

/**
 * model = {
 *   seatCount, bottom, button, board, pots: [{amount}], potLabel,
 *   seats: [null | {seat, name, isBot, stack, bet, cards, folded, state, mine, playing,
 *                   acting, action, blind, won, handName, out}],
 *   actor, freeClickable, onSeatClick(seat), winners: {seat: amount}
 * }
 */
export function renderTable(root, model) {
  const n = model.seatCount;
  const nodes = [];
  const felt = el("div", { class: "felt-inner" });
  const centre = el("div", { class: "centre" });
  const board = el("div", { class: "board", "aria-label": "Board" }, ...cards(model.board || ""));
  for (let i = (model.board || "").length / 2; i < 5; i++) board.append(el("span", { class: "card slot", "aria-hidden": "true" }));
  const total = (model.pots || []).reduce((a, p) => a + p.amount, 0);
  const pots = el("div", { class: "pots", "aria-label": "Pots" });
  if (total > 0) {
    pots.append(el("span", { class: "pot main", "data-testid": "pot" }, el("span", { class: "chip-icon", "aria-hidden": "true" }), `Pot ${chips(total)}`));
    if (model.pots.length > 1) {
      model.pots.forEach((p, i) => pots.append(el("span", { class: "pot side" }, i === 0 ? `Main ${chips(p.amount)}` : `Side ${i} ${chips(p.amount)}`)));
    }
  }
  if (model.banner) pots.append(el("span", { class: "banner" }, model.banner));
  centre.append(pots, board);
  felt.append(centre);
  for (let i = 0; i < n; i++) {
    const s = model.seats[i];
    const at = place(i, n, model.bottom || 0, 45, 44);
    const betAt = place(i, n, model.bottom || 0, 31, 23);
    const style = `left:${at.x}%;top:${at.y}%`;
    if (!s) {
      const label = model.freeClickable ? `Sit in seat ${i + 1}` : `Seat ${i + 1} free`;
      const free = el(model.freeClickable ? "button" : "div", {
        class: "seat free", style, type: model.freeClickable ? "button" : null,
        "aria-label": label, "data-seat": String(i),
      }, model.freeClickable ? "Sit here" : "Empty");
      if (model.freeClickable) free.addEventListener("click", () => model.onSeatClick(i));
      nodes.push(free);
      continue;
    }
    const classes = ["seat", "taken"];
    if (s.mine) classes.push("mine");
    if (s.folded) classes.push("folded");
    if (model.actor === i) classes.push("acting");
    if (s.out) classes.push("away");
    if (model.winners && model.winners[i]) classes.push("winner");
    if (model.playingSeat === i) classes.push("playing-as");
    const plate = el("div", { class: "plate" },
      el("span", { class: "name" }, s.name, s.isBot ? el("span", { class: "badge bot" }, "bot") : ""),
      el("span", { class: "stack", "data-testid": "stack" }, chips(s.stack)));
    const hole = el("div", { class: "hole" }, ...(s.cards ? cards(s.cards) : []));
    const seat = el("div", { class: classes.join(" "), style, "data-seat": String(i), "aria-label": `Seat ${i + 1}: ${s.name}` }, hole, plate);
    const tag = model.winners && model.winners[i]
      ? el("span", { class: "tag win" }, `Wins ${chips(model.winners[i])}${s.handName ? " · " + s.handName : ""}`)
      : s.out ? el("span", { class: "tag" }, s.out)
      : s.action ? el("span", { class: `tag act-${s.action.kind}` }, actionText(s.action)) : null;
    if (tag) plate.append(tag);
    if (model.actor === i && model.timer) plate.append(el("div", { class: "timer" }, el("span", { class: "timer-fill", style: `width:${Math.max(0, Math.min(100, model.timer * 100))}%` })));
    if (s.mine) seat.append(el("span", { class: "you" }, model.playingSeat === i ? "You · playing" : "You"));
    nodes.push(seat);
    if (s.bet > 0) {
      nodes.push(el("div", { class: "bet", style: `left:${betAt.x}%;top:${betAt.y}%`, "data-testid": `bet-${i}` },
        el("span", { class: "chip-icon", "aria-hidden": "true" }), chips(s.bet)));
    }
    if (model.button === i) {
      const b = place(i, n, model.bottom || 0, 34, 27);
      nodes.push(el("div", { class: "dealer", style: `left:${b.x + 6}%;top:${b.y}%`, title: "Dealer button", "aria-label": "Dealer button" }, "D"));
    }
    if (s.blind) {
      // Beside the seat on the dealer button's ring (the button sits on the other side).
      const b = place(i, n, model.bottom || 0, 34, 27);
      nodes.push(el("div", { class: `blind ${s.blind.toLowerCase()}`, style: `left:${b.x - 6}%;top:${b.y}%` }, s.blind));
    }
  }
  felt.append(...nodes);
  // Keep nodes that did not change, so a click never lands on a node being replaced.
  const old = root.firstElementChild;
  if (old && old.childElementCount === felt.childElementCount) {
    const fresh = Array.from(felt.children);
    fresh.forEach((node, i) => {
      const prev = old.children[i];
      if (!prev.isEqualNode(node)) prev.replaceWith(node);
    });
    return;
  }
  root.replaceChildren(felt);
}
