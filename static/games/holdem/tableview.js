// Draws one table state (live or replayed) into the felt: seats round an oval,
// the board, pots, bets, the dealer button and blinds. Pure rendering. Every poker
// variant: community cards only where the variant deals them; a seat's cards in a
// fan when it holds more than two (Omaha, draw, stud); in stud the cards dealt face
// down are drawn tucked under the plate, those face up in front of them.
import { el, chips } from "../../js/dom.js";
import { card, cards, splitCards } from "./cards.js";

// Position of seat i (of n), rotated so that `bottom` sits at the bottom centre.
function place(i, n, bottom, rx, ry) {
  const angle = Math.PI / 2 + ((i - bottom + n) % n) * (2 * Math.PI / n);
  return { x: 50 + rx * Math.cos(angle), y: 50 + ry * Math.sin(angle) };
}

const ACTION_TEXT = {
  fold: "Fold", check: "Check", call: "Call", bet: "Bet", raise: "Raise to", allin: "All-in",
  sb: "Small blind", bb: "Big blind", post: "Post", show: "Show", muck: "Muck",
  bringin: "Bring-in", complete: "Complete to",
};

export function actionText(action) {
  if (!action) return "";
  if (action.kind === "draw") return action.amount ? `Draws ${action.amount}` : "Stands pat";
  const word = ACTION_TEXT[action.kind] || action.kind;
  return action.amount ? `${word} ${chips(action.amount)}` : word;
}

// "Drew 2", "Stood pat", "Drew 2 · pat · 1": the cards drawn at each draw (public).
function drawsText(draws) {
  if (!draws || !draws.length) return "";
  if (draws.length === 1 && !draws[0]) return "Stood pat";
  return `Drew ${draws.map((d) => (d ? String(d) : "pat")).join(" · ")}`;
}

// A seat's cards: in stud the down cards first (tucked), then the up cards.
function seatCards(s) {
  const list = splitCards(s.cards);
  const fan = list.length > 2 ? " fan" : "";
  if (!s.up || !s.up.some(Boolean)) {
    return el("div", { class: `hole${fan}` }, ...cards(s.cards));
  }
  const down = [];
  const up = [];
  list.forEach((code, i) => (s.up[i] ? up : down).push(code));
  return el("div", { class: `hole${fan} stud` },
    ...down.map((code) => card(code, { face: "down" })),
    ...up.map((code) => card(code, { face: "up" })));
}

/**
 * model = {
 *   seatCount, bottom, button, board, boardSlots, pots: [{amount}], potLabel,
 *   seats: [null | {seat, name, isBot, stack, bet, cards, up, draws, folded, state, mine,
 *                   playing, acting, action, blind, won, handName, winText, out}],
 *   actor, freeClickable, onSeatClick(seat), winners: {seat: amount}
 * }
 * `boardSlots`: the community cards a hand deals (empty places drawn; 0: none);
 * `button`: null for no dealer button (stud); `up[i]`: card i is face up (stud).
 */
export function renderTable(root, model) {
  const n = model.seatCount;
  // Phones: the narrow layout of board.css (the same breakpoint).
  const compact = Boolean(window.matchMedia?.("(max-width: 640px)").matches);
  const nodes = [];
  const felt = el("div", { class: `felt-inner${compact ? " compact" : ""}` });
  const centre = el("div", { class: "centre" });
  const slots = model.boardSlots ?? 5;
  const boardText = model.board || "";
  const pots = el("div", { class: "pots", "aria-label": "Pots" });
  const total = (model.pots || []).reduce((a, p) => a + p.amount, 0);
  if (total > 0) {
    pots.append(el("span", { class: "pot main", "data-testid": "pot" }, el("span", { class: "chip-icon", "aria-hidden": "true" }), `Pot ${chips(total)}`));
    if (model.pots.length > 1) {
      model.pots.forEach((p, i) => pots.append(el("span", { class: "pot side" }, i === 0 ? `Main ${chips(p.amount)}` : `Side ${i} ${chips(p.amount)}`)));
    }
  }
  if (model.banner) pots.append(el("span", { class: "banner", "data-testid": "banner" }, model.banner));
  centre.append(pots);
  if (slots > 0 || boardText) {
    const board = el("div", { class: "board", "aria-label": "Board" }, ...cards(boardText));
    for (let i = boardText.length / 2; i < slots; i++) board.append(el("span", { class: "card slot", "aria-hidden": "true" }));
    centre.append(board);
  }
  felt.append(centre);
  // Phones: the seats come in a little from the sides (their cards stay on screen).
  const [rx, ry] = compact ? [38, 45] : [45, 44];
  for (let i = 0; i < n; i++) {
    const s = model.seats[i];
    const at = place(i, n, model.bottom || 0, rx, ry);
    const betAt = place(i, n, model.bottom || 0, compact ? 22 : 31, compact ? 18 : 23);
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
    const drew = drawsText(s.draws);
    if (drew && !(model.winners && model.winners[i]) && s.action?.kind !== "draw") plate.append(el("span", { class: "drew" }, drew));
    const hole = s.cards ? seatCards(s) : el("div", { class: "hole" });
    const seat = el("div", { class: classes.join(" "), style, "data-seat": String(i), "aria-label": `Seat ${i + 1}: ${s.name}` }, hole, plate);
    const tag = model.winners && model.winners[i]
      ? el("span", { class: "tag win" }, s.winText || `Wins ${chips(model.winners[i])}${s.handName ? " · " + s.handName : ""}`)
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
      const b = place(i, n, model.bottom || 0, compact ? 28 : 34, compact ? 25 : 27);
      nodes.push(el("div", { class: "dealer", style: `left:${b.x + 6}%;top:${b.y}%`, title: "Dealer button", "aria-label": "Dealer button" }, "D"));
    }
    if (s.blind) {
      // Beside the seat on the dealer button's ring (the button sits on the other side).
      const b = place(i, n, model.bottom || 0, compact ? 28 : 34, compact ? 25 : 27);
      nodes.push(el("div", { class: `blind ${s.blind.toLowerCase()}`, style: `left:${b.x - 6}%;top:${b.y}%` }, s.blind));
    }
  }
  felt.append(...nodes);
  // Keep nodes that did not change, so a click never lands on a node being replaced.
  const old = root.firstElementChild;
  if (old && old.childElementCount === felt.childElementCount && old.className === felt.className) {
    const fresh = Array.from(felt.children);
    fresh.forEach((node, i) => {
      const prev = old.children[i];
      if (!prev.isEqualNode(node)) prev.replaceWith(node);
    });
    return;
  }
  root.replaceChildren(felt);
}
