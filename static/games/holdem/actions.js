// The action bar: exactly the buttons the legal actions allow (V31), a slider and
// a field bounded by the legal min/max, quick sizes, show/muck, keyboard shortcuts.
import { chips } from "../../js/dom.js";

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
  const b = { fold: $("btn-fold"), check: $("btn-check"), call: $("btn-call"), raise: $("btn-raise"), show: $("btn-show"), muck: $("btn-muck") };
  let legal = null;
  let current = null;
  let sizedKind = null;

  function amount() {
    const n = parseInt(input.value, 10);
    return Math.max(legal.min_raise_to, Math.min(legal.max_raise_to, Number.isFinite(n) ? n : legal.min_raise_to));
  }
  function setAmount(n) {
    input.value = range.value = String(n);
    b.raise.textContent = `${sizedKind === "bet" ? "Bet" : "Raise to"} ${chips(n)}${n === legal.max_raise_to && current.allIn === n ? " (all-in)" : ""}`;
  }

  b.fold.addEventListener("click", () => act({ kind: "fold" }));
  b.check.addEventListener("click", () => act({ kind: "check" }));
  b.call.addEventListener("click", () => act({ kind: "call" }));
  b.raise.addEventListener("click", () => act({ kind: sizedKind, amount: amount() }));
  b.show.addEventListener("click", () => act({ kind: "show" }));
  b.muck.addEventListener("click", () => act({ kind: "muck" }));
  range.addEventListener("input", () => setAmount(parseInt(range.value, 10)));
  input.addEventListener("input", () => {
    const n = parseInt(input.value, 10);
    if (Number.isFinite(n)) { range.value = String(n); b.raise.textContent = `${sizedKind === "bet" ? "Bet" : "Raise to"} ${chips(n)}`; }
  });
  input.addEventListener("change", () => setAmount(amount()));

  document.addEventListener("keydown", (event) => {
    if (!legal || event.ctrlKey || event.metaKey || event.altKey) return;
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

  function update(turn, snap, overlay) {
    const mySeats = snap?.you?.seats || [];
    if (!turn || overlay) {
      legal = null;
      buttons.hidden = sizer.hidden = true;
      actFor.hidden = true;
      actFor.removeAttribute("data-seat");
      actFor.removeAttribute("data-turn");
      const actor = snap?.state?.hand?.actor;
      label.textContent = overlay ? "Hand over" : actor !== null && actor !== undefined && snap.state.hand && !snap.state.hand.is_over
        ? `${nameOf(actor)} to act` : snap?.you?.seats?.length ? "Waiting for the next hand…" : "Watching";
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
    const showing = legal.can_show || legal.can_muck;
    b.fold.hidden = !legal.can_fold;
    b.check.hidden = !legal.can_check;
    b.call.hidden = !(legal.call_amount > 0);
    b.call.textContent = `Call ${chips(legal.call_amount)}`;
    b.show.hidden = !legal.can_show;
    b.muck.hidden = !legal.can_muck;
    sizedKind = legal.sized_kind && legal.min_raise_to !== null ? legal.sized_kind : null;
    b.raise.hidden = !sizedKind;
    sizer.hidden = !sizedKind || legal.min_raise_to === legal.max_raise_to;
    if (showing && !legal.can_fold) label.textContent = "Show your cards or muck them?";
    if (!sizedKind) return;
    for (const el of [range, input]) { el.min = legal.min_raise_to; el.max = legal.max_raise_to; el.step = 1; }
    setAmount(legal.min_raise_to);
    const call = legal.call_amount || 0;
    const sizes = [["Min", legal.min_raise_to]];
    for (const [name, f] of [["½ Pot", 0.5], ["Pot", 1]]) {
      const to = Math.floor(current.bet + call + f * (potTotal + call));
      if (to > legal.min_raise_to && to < legal.max_raise_to) sizes.push([name, to]);
    }
    sizes.push([current.allIn === legal.max_raise_to ? "All-in" : "Max", legal.max_raise_to]);
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

  function tick(leftMs, turn) {
    const over = label.textContent === "Hand over";
    countdown.textContent = leftMs > 0 && !over ? `${Math.ceil(leftMs / 1000)}s` : "";
    countdown.classList.toggle("urgent", leftMs > 0 && leftMs < 5000);
  }

  return { update, tick };
}
