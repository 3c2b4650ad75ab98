// The action bar: exactly the buttons the legal actions allow (V31), a slider and
// a field bounded by the legal min/max, quick sizes, show/muck, keyboard shortcuts.
// Stud: "Bring in" (the first decision) and "Complete to" (a bet or raise that
// completes the bring-in to the small bet). Draw games: the discard picker, the
// player's cards as toggle buttons (tap to discard, tap again to keep), then
// "Draw N" or "Stand pat".
import { el, chips } from "../../js/dom.js";
import { card, cardName, splitCards } from "./cards.js";
import { variantOf } from "./hand.js";

export function actionBar({ act, nameOf }) {
  const $ = (id) => document.getElementById(id);
  const label = $("act-label");
  const countdown = $("countdown");
  const actFor = $("act-for");
  const buttons = $("act-buttons");
  const sizer = $("sizer");
  const quick = $("quick");
  const range = $("amount-range");
  const input = $("amount-input");
  const picker = $("draw-picker");
  const pickCards = $("draw-cards");
  const pickHint = $("draw-hint");
  const b = {
    fold: $("btn-fold"), check: $("btn-check"), call: $("btn-call"), raise: $("btn-raise"), show: $("btn-show"), muck: $("btn-muck"),
    bringIn: $("btn-bringin"), draw: $("btn-draw"), pat: $("btn-pat"),
  };
  let legal = null;
  let current = null;
  let sizedKind = null;
  let sizedWord = "Raise to";
  let drawKey = null; // the draw decision the picker was built for
  let discards = []; // the cards picked to discard, in the order of the hand
  let drawMax = 0;

  function amount() {
    const n = parseInt(input.value, 10);
    return Math.max(legal.min_raise_to, Math.min(legal.max_raise_to, Number.isFinite(n) ? n : legal.min_raise_to));
  }
  function setAmount(n) {
    input.value = range.value = String(n);
    b.raise.textContent = `${sizedWord} ${chips(n)}${n === legal.max_raise_to && current.allIn === n ? " (all-in)" : ""}`;
  }

  b.fold.addEventListener("click", () => act({ kind: "fold" }));
  b.check.addEventListener("click", () => act({ kind: "check" }));
  b.call.addEventListener("click", () => act({ kind: "call" }));
  b.raise.addEventListener("click", () => act({ kind: sizedKind, amount: amount() }));
  b.show.addEventListener("click", () => act({ kind: "show" }));
  b.muck.addEventListener("click", () => act({ kind: "muck" }));
  b.bringIn.addEventListener("click", () => act({ kind: "bring_in" }));
  b.draw.addEventListener("click", () => act({ kind: "draw", cards: [...discards] }));
  b.pat.addEventListener("click", () => act({ kind: "draw", cards: [] }));
  range.addEventListener("input", () => setAmount(parseInt(range.value, 10)));
  input.addEventListener("input", () => {
    const n = parseInt(input.value, 10);
    if (Number.isFinite(n)) { range.value = String(n); b.raise.textContent = `${sizedWord} ${chips(n)}`; }
  });
  input.addEventListener("change", () => setAmount(amount()));

  document.addEventListener("keydown", (event) => {
    if (!legal || event.ctrlKey || event.metaKey || event.altKey) return;
    if (buttons.closest("[inert]")) return; // the table is paused (reconnecting)
    const typing = event.target instanceof HTMLElement && event.target.matches("input[type=text], textarea, select, dialog *");
    if (event.key === "Enter" && event.target === input && sizedKind) { event.preventDefault(); b.raise.click(); return; }
    if (typing || event.target === input) return;
    const key = event.key.toLowerCase();
    if (key === "f" && !b.fold.hidden) b.fold.click();
    else if (key === "c" && !b.check.hidden) b.check.click();
    else if (key === "c" && !b.call.hidden) b.call.click();
    else if (key === "r" && sizedKind) { input.focus(); input.select(); }
    else if (event.key === "Enter" && sizedKind && document.activeElement === document.body) b.raise.click();
    else return;
    event.preventDefault();
  });

  // ------------------------------------------------------ the discard picker
  function drawLabel() {
    const n = discards.length;
    b.draw.hidden = n === 0;
    b.draw.textContent = `Draw ${n}`;
    b.draw.setAttribute("aria-label", `Discard ${n} card${n === 1 ? "" : "s"} and draw ${n}`);
    pickHint.textContent = n
      ? `Discarding ${n} (tap a card again to keep it)`
      : `Choose the cards to discard (up to ${drawMax}), or stand pat`;
  }

  function buildPicker(items) {
    discards = [];
    pickCards.replaceChildren(...items.map((code) => {
      const button = el("button", { type: "button", class: "pick", "aria-pressed": "false", "data-card": code,
        "aria-label": `Discard the ${cardName(code)}` }, card(code), el("span", { class: "pick-mark", "aria-hidden": "true" }, "Discard"));
      button.addEventListener("click", () => {
        const on = discards.includes(code);
        if (!on && discards.length >= drawMax) return;
        discards = on ? discards.filter((c) => c !== code) : items.filter((c) => c === code || discards.includes(c));
        button.setAttribute("aria-pressed", String(!on));
        drawLabel();
      });
      return button;
    }));
    drawLabel();
  }

  function hideAll() {
    for (const button of Object.values(b)) button.hidden = true;
  }

  function update(turn, snap, overlay) {
    const mySeats = snap?.you?.seats || [];
    if (!turn || overlay) {
      legal = null;
      buttons.hidden = sizer.hidden = picker.hidden = true;
      drawKey = null;
      actFor.hidden = true;
      actFor.removeAttribute("data-seat");
      actFor.removeAttribute("data-turn");
      const hand = snap?.state?.hand;
      const actor = hand?.actor;
      const running = actor !== null && actor !== undefined && hand && !hand.is_over;
      label.textContent = overlay ? "Hand over" : running ? `${nameOf(actor)} ${hand.drawing ? "is drawing" : "to act"}`
        : snap?.you?.seats?.length ? "Waiting for the next hand…" : "Watching";
      return;
    }
    legal = turn.legal;
    const hand = snap.state.hand;
    const me = hand?.players.find((p) => p.player === turn.seat);
    const potTotal = (hand?.pots || []).reduce((a, p) => a + p.amount, 0);
    current = { allIn: me ? me.stack + me.bet : null, bet: me ? me.bet : 0, pot: potTotal };
    // Whose cards these buttons play: essential when one browser plays several seats (V33).
    const several = mySeats.length > 1;
    label.textContent = several ? "Your turn —" : "Your turn";
    actFor.textContent = `${several ? "playing " : ""}${nameOf(turn.seat)} · seat ${turn.seat + 1}`;
    actFor.dataset.seat = String(turn.seat);
    actFor.dataset.turn = `${turn.hand}:${turn.version}`;
    actFor.classList.toggle("several", several);
    actFor.hidden = false;
    buttons.hidden = false;

    if (legal.draw !== undefined && legal.draw !== null) {
      // The draw: pick the discards, then draw them or stand pat.
      hideAll();
      sizedKind = null;
      sizer.hidden = true;
      picker.hidden = false;
      b.pat.hidden = false;
      label.textContent = several ? "Your draw —" : "Your draw";
      const move = (turn.moves || []).find((m) => m.kind === "draw");
      const items = move?.params?.cards?.items || splitCards(me?.cards || "").filter((c) => c !== "??");
      drawMax = Math.min(legal.draw, move?.params?.cards?.max ?? legal.draw);
      const key = `${turn.hand}:${turn.version}:${items.join("")}`;
      if (key !== drawKey) { drawKey = key; buildPicker(items); } else drawLabel();
      return;
    }
    picker.hidden = true;
    drawKey = null;
    b.draw.hidden = b.pat.hidden = true;

    const showing = legal.can_show || legal.can_muck;
    b.fold.hidden = !legal.can_fold;
    b.check.hidden = !legal.can_check;
    b.call.hidden = !(legal.call_amount > 0);
    // A call of everything left is an all-in call: the button says so.
    const callAllIn = legal.call_amount > 0 && me && legal.call_amount >= me.stack;
    b.call.textContent = `Call ${chips(legal.call_amount)}${callAllIn ? " (all-in)" : ""}`;
    b.call.classList.toggle("all-in", Boolean(callAllIn));
    if (callAllIn) b.call.setAttribute("aria-label", `Call ${chips(legal.call_amount)}, all-in`);
    else b.call.removeAttribute("aria-label");
    b.show.hidden = !legal.can_show;
    b.muck.hidden = !legal.can_muck;
    const bringIn = legal.bring_in !== undefined && legal.bring_in !== null;
    b.bringIn.hidden = !bringIn;
    if (bringIn) b.bringIn.textContent = `Bring in ${chips(legal.bring_in)}`;
    sizedKind = legal.sized_kind && legal.min_raise_to !== null ? legal.sized_kind : null;
    // Stud's first street: until someone bets the small bet, a bet or raise completes it.
    const variant = variantOf(snap.info?.game);
    const top = Math.max(0, ...(hand?.players || []).map((p) => p.bet));
    const completing = bringIn || (variant.bringIn && hand?.street === variant.bringIn && top < (snap.info?.big_blind || 0));
    sizedWord = completing ? "Complete to" : sizedKind === "bet" ? "Bet" : "Raise to";
    b.raise.hidden = !sizedKind;
    sizer.hidden = !sizedKind || legal.min_raise_to === legal.max_raise_to;
    if (showing && !legal.can_fold) label.textContent = "Show your cards or muck them?";
    if (!sizedKind) return;
    for (const e of [range, input]) { e.min = legal.min_raise_to; e.max = legal.max_raise_to; e.step = 1; }
    setAmount(legal.min_raise_to);
    const call = legal.call_amount || 0;
    const sizes = [["Min", legal.min_raise_to]];
    // The largest size: all-in if it is the whole stack; at pot limit the pot itself.
    const potLimit = snap.info?.structure === "PL" || snap.info?.settings?.structure === "PL";
    for (const [name, f] of potLimit ? [["½ Pot", 0.5]] : [["½ Pot", 0.5], ["Pot", 1]]) {
      const to = Math.floor(current.bet + call + f * (potTotal + call));
      if (to > legal.min_raise_to && to < legal.max_raise_to) sizes.push([name, to]);
    }
    sizes.push([current.allIn === legal.max_raise_to ? "All-in" : potLimit ? "Pot" : "Max", legal.max_raise_to]);
    quick.replaceChildren(...sizes.map(([name, to]) => {
      const q = document.createElement("button");
      q.type = "button";
      q.className = "quick-size";
      q.textContent = name;
      q.setAttribute("aria-label", `${name}: ${to}`);
      q.addEventListener("click", () => setAmount(to));
      return q;
    }));
  }

  function tick(leftMs) {
    const over = label.textContent === "Hand over";
    countdown.textContent = leftMs > 0 && !over ? `${Math.ceil(leftMs / 1000)}s` : "";
    countdown.classList.toggle("urgent", leftMs > 0 && leftMs < 5000);
  }

  return { update, tick };
}
