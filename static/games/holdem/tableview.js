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
 *                   playing, acting, action, blind, won, handName, winText, out, allIn}],
 *   actor, freeClickable, onSeatClick(seat), winners: {seat: amount}
 * }
 * `boardSlots`: the community cards a hand deals (empty places drawn; 0: none);
 * `button`: null for no dealer button (stud); `up[i]`: card i is face up (stud);
 * `allIn`: the seat has all its chips in the running hand ("All-in" tag).
 *
 * A seat's dealer button, blind and bet sit together in one row (.marks) just off
 * the seat on its side towards the centre of the felt (a class per side, board.css):
 * placed against the seat's own box, they never cover a name plate or its cards.
 * The acting seat says so in words ("To act", "Your turn"), not by colour only.
 */
function marksSide(i, n, bottom, compact) {
  const angle = Math.PI / 2 + ((i - bottom + n) % n) * (2 * Math.PI / n);
  const sin = Math.sin(angle);
  // A phone: the seats at the bottom and the top have their marks beside them (towards
  // the centre they would meet those of the seats on either side on a narrow felt).
  if (compact && Math.abs(sin) > 0.95) return "to-right";
  if (sin > 0.6) return "to-up"; // a seat at the bottom: above it
  if (sin < -0.6) return "to-down"; // at the top: below it
  return Math.cos(angle) < 0 ? "to-right" : "to-left";
}

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
    const acting = model.actor === i;
    const winner = Boolean(model.winners && model.winners[i]);
    if (s.mine) classes.push("mine");
    if (s.folded) classes.push("folded");
    if (acting) classes.push("acting");
    if (s.out) classes.push("away");
    if (winner) classes.push("winner");
    if (s.allIn && !winner) classes.push("all-in");
    if (model.playingSeat === i) classes.push("playing-as");
    const plate = el("div", { class: "plate" });
    if (s.mine) plate.append(el("span", { class: "you" }, model.playingSeat === i ? "You · playing" : "You"));
    plate.append(
      el("span", { class: "name", title: s.name }, el("span", { class: "pname" }, s.name),
        s.isBot ? el("span", { class: "badge bot", title: "bot" }, "bot") : ""),
      el("span", { class: "stack", "data-testid": "stack" }, chips(s.stack)));
    const drew = drawsText(s.draws);
    if (drew && !winner && s.action?.kind !== "draw") plate.append(el("span", { class: "drew" }, drew));
    const hole = s.cards ? seatCards(s) : el("div", { class: "hole" });
    const tag = winner
      ? el("span", { class: "tag win" }, s.winText || `Wins ${chips(model.winners[i])}${s.handName ? " · " + s.handName : ""}`)
      : s.out ? el("span", { class: "tag" }, s.out)
      : s.allIn ? el("span", { class: "tag allin" }, s.action?.kind === "allin" ? actionText(s.action) : "All-in")
      : s.action ? el("span", { class: `tag act-${s.action.kind}` }, actionText(s.action)) : null;
    if (tag) plate.append(tag);
    // The acting seat: "To act" ("Your turn") in words beside its clock.
    if (acting) {
      plate.append(el("div", { class: "to-act-row" },
        el("span", { class: "to-act" }, el("span", { class: "to-act-icon", "aria-hidden": "true" }, "▶"),
          model.playingSeat === i ? "Your turn" : "To act"),
        model.timer ? el("div", { class: "timer", "aria-hidden": "true" }, el("span", { class: "timer-fill", style: `width:${Math.max(0, Math.min(100, model.timer * 100))}%` })) : ""));
    }
    const state = [s.mine ? "you" : "", acting ? "to act" : "", s.allIn && !winner ? "all-in" : "", s.folded ? "folded" : "",
      model.button === i ? "dealer" : ""].filter(Boolean).join(", ");
    const seat = el("div", { class: classes.join(" "), style, role: "group", "data-seat": String(i),
      "aria-label": `Seat ${i + 1}: ${s.name}${state ? ` (${state})` : ""}`, "aria-current": acting ? "true" : null }, hole, plate);
    // The dealer button, the blind and the bet: one row beside the seat, towards the centre.
    const marks = [];
    if (model.button === i) marks.push(el("span", { class: "dealer", title: "Dealer button", role: "img", "aria-label": "Dealer button" }, "D"));
    if (s.blind) marks.push(el("span", { class: `blind ${s.blind.toLowerCase()}`, title: s.blind === "SB" ? "Small blind" : s.blind === "BB" ? "Big blind" : s.blind }, s.blind));
    if (s.bet > 0) {
      marks.push(el("span", { class: "bet", "data-testid": `bet-${i}`, "aria-label": `Bet ${chips(s.bet)}` },
        el("span", { class: "chip-icon", "aria-hidden": "true" }), chips(s.bet)));
    }
    if (marks.length) seat.append(el("div", { class: `marks ${marksSide(i, n, model.bottom || 0, compact)}` }, ...marks));
    nodes.push(seat);
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
