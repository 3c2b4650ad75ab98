// The poker board for the table shell (static/js/table.js explains the board
// interface): every variant of engine/poker/variants.py (GameInfo.client "holdem").
// The felt (seats, cards, bets, pots, button, blinds; stud's up cards, draw counts,
// hi-lo halves), the action bar (bring-in, completion, the discard picker), the
// buy-in and add-chips dialogs, the "your seats" controls and the hand log's
// sentences. The running hand is folded from its events (hand.js); the finished
// hand stays on the felt for a moment before the next one.
import { el, chips } from "../../js/dom.js";
import { renderTable } from "./tableview.js";
import { startState, apply, describe, logContext, LOGGED_EVENTS, variantOf, winnersLine, winTag } from "./hand.js";
import { actionBar } from "./actions.js";

// Constant markup (no data in it): the same elements and ids the page always had.
const MAIN = `
<div id="felt" class="felt" role="region" aria-label="Poker table"></div>
<div id="action-bar" class="action-bar" aria-label="Your actions">
  <div class="act-info"><span id="act-label" class="act-label">Waiting for the next hand…</span>
    <span id="act-for" class="act-for" aria-live="polite" hidden></span>
    <span id="countdown" class="countdown" aria-live="off"></span></div>
  <div class="act-buttons" id="act-buttons" hidden>
    <button type="button" class="act bring-in" id="btn-bringin" hidden>Bring in</button>
    <button type="button" class="act fold" id="btn-fold" aria-keyshortcuts="f">Fold</button>
    <button type="button" class="act check" id="btn-check" aria-keyshortcuts="c">Check</button>
    <button type="button" class="act call" id="btn-call" aria-keyshortcuts="c">Call</button>
    <button type="button" class="act raise" id="btn-raise" aria-keyshortcuts="r Enter">Raise</button>
    <button type="button" class="act show" id="btn-show">Show cards</button>
    <button type="button" class="act muck" id="btn-muck">Muck</button>
    <button type="button" class="act pat" id="btn-pat" hidden>Stand pat</button>
    <button type="button" class="act draw" id="btn-draw" hidden>Draw</button>
  </div>
  <div class="draw-picker" id="draw-picker" role="group" aria-label="Cards to discard" hidden>
    <p class="draw-hint" id="draw-hint" aria-live="polite"></p>
    <div class="draw-cards" id="draw-cards"></div>
  </div>
  <div class="rebuy" id="rebuy" role="status" aria-live="polite" hidden></div>
  <div class="sizer" id="sizer" hidden>
    <div class="quick" id="quick"></div>
    <input type="range" id="amount-range" aria-label="Bet or raise amount (slider)">
    <input type="number" id="amount-input" aria-label="Bet or raise amount" inputmode="numeric">
  </div>
</div>`;

const FOOT = `
<p class="shortcuts muted small">Keyboard: <kbd>F</kbd> fold · <kbd>C</kbd> check / call · <kbd>R</kbd> raise (choose the amount) · <kbd>Enter</kbd> confirm the raise · <kbd>Tab</kbd> moves through the buttons.</p>`;

const DIALOGS = `
<dialog id="sit-dialog" aria-labelledby="sit-title">
  <form method="dialog" id="sit-form" novalidate>
    <h2 id="sit-title">Take seat <span id="sit-seat"></span></h2>
    <label class="field">Who sits<select id="sit-player"></select></label>
    <label class="field">Buy-in <span class="muted" id="sit-limits"></span>
      <input type="range" id="sit-range" aria-label="Buy-in (slider)"><input type="number" id="sit-amount" aria-label="Buy-in"></label>
    <label class="check-label"><input type="checkbox" id="sit-wait"> Wait for the big blind</label>
    <p class="muted small hint">Otherwise you post a big blind to be dealt in at once.</p>
    <p class="error" id="sit-error" role="alert"></p>
    <p class="actions"><button type="submit" class="button" id="sit-ok" value="ok">Sit down</button>
      <button type="button" class="button secondary" id="sit-cancel">Cancel</button></p>
  </form>
</dialog>
<dialog id="chips-dialog" aria-labelledby="chips-title">
  <form method="dialog" id="chips-form" novalidate>
    <h2 id="chips-title">Add chips — <span id="chips-who"></span></h2>
    <p id="chips-limit" class="limit"></p>
    <label class="field">Chips to add<input type="number" id="chips-amount" inputmode="numeric" aria-label="Chips to add"></label>
    <p class="muted small" id="chips-note"></p>
    <p class="error" id="chips-error" role="alert"></p>
    <p class="actions"><button type="submit" class="button" id="chips-ok">Add chips</button>
      <button type="button" class="button secondary" id="chips-cancel">Cancel</button></p>
  </form>
</dialog>`;

function fill(slot, markup) {
  const template = document.createElement("template");
  template.innerHTML = markup; // constant markup above: never server text
  slot.append(template.content);
}

const STATE_TEXT = { sitting_out: "Sitting out", waiting_for_bb: "Waiting for BB", disconnected: "Disconnected" };
const SEAT_STATUS = {
  sitting_out: "Sitting out", waiting_for_bb: "Waiting for the big blind",
  disconnected: "Disconnected", new: "Joins next hand",
};

export function createBoard(shell) {
  fill(shell.slots.main, MAIN);
  fill(shell.slots.foot, FOOT);
  fill(shell.slots.dialogs, DIALOGS);
  const $ = (id) => document.getElementById(id);
  const felt = $("felt");
  const logCtx = logContext();
  const nameOf = shell.nameOf;
  let snap = null;
  let handId = null; // the snapshot's hand (round) id last seen
  let handEvents = []; // the running hand's events: log endpoint + live events + own cards
  let overlay = null; // the finished hand, shown for a moment before the next one

  // ---------------------------------------------------------- the hand
  function reduceHand(events) {
    // Seat stacks are written back when a hand ends: during a hand they are its starting stacks.
    // From HandStarted the events deal every card (hole cards grow street by street);
    // without it the snapshot's cards are the start.
    const seats = {};
    const hand = snap?.state?.hand;
    const started = events.findIndex((e) => e.type === "HandStarted");
    (snap?.seats || []).forEach((s, i) => {
      if (!s) return;
      const hp = hand?.players.find((p) => p.player === i);
      const known = started < 0 && hp;
      seats[i] = { name: s.name, isBot: s.is_bot, stack: s.stack, cards: known ? hp.cards : "", up: known ? hp.up : null };
    });
    const state = startState({ seats, button: snap?.state?.button, smallBlind: snap?.info?.small_blind || 1,
      bringIn: started >= 0 && Boolean(variantOf(snap?.info?.game).bringIn) });
    for (const e of events.slice(Math.max(started, 0))) apply(state, e);
    return state;
  }

  // The hand that just ended stays on the table (cards shown, pot to the winner) a moment.
  function showFinished() {
    const finished = reduceHand(handEvents);
    const showing = overlay !== null;
    overlay = finished;
    // Never extended: with fast bots hands end more often than the pause lasts.
    if (!showing) setTimeout(() => { overlay = null; shell.resync(); }, 2500);
    shell.render();
  }

  function inHand(seat) {
    const hand = snap?.state?.hand;
    return Boolean(hand && !hand.is_over && hand.players.some((p) => p.player === seat));
  }

  // The stack the felt shows: a finished hand's result, else the running hand's, else the seat's.
  function stackOf(seat) {
    const shown = overlay?.seats[seat];
    if (shown) return shown.stack;
    const hp = snap.state.hand?.players.find((p) => p.player === seat);
    return hp && !snap.state.hand.is_over ? hp.stack : snap.seats[seat].stack;
  }

  // ---------------------------------------------------------- the felt
  function model() {
    const info = snap.info;
    const variant = variantOf(info.game);
    const you = snap.you.seats;
    const hand = snap.state.hand;
    const reduced = reduceHand(handEvents);
    const seats = [];
    for (let i = 0; i < info.seats; i++) {
      const s = snap.seats[i];
      if (!s) { seats.push(null); continue; }
      const hp = hand?.players.find((p) => p.player === i);
      const r = reduced.seats[i] || {};
      const shown = overlay?.seats[i];
      seats.push({
        seat: i, name: s.name, isBot: s.is_bot, mine: you.includes(i),
        // The running hand's stack, else the seat's (chips added after a hand show at once).
        stack: overlay && shown ? shown.stack : hp && !hand.is_over ? hp.stack : s.stack,
        bet: overlay ? 0 : hp ? hp.bet : 0,
        cards: overlay && shown ? shown.cards : hp && !hp.folded ? hp.cards : "",
        up: overlay && shown ? shown.up : hp ? hp.up || null : null,
        draws: overlay && shown ? shown.draws : hp && !hp.folded ? hp.draws || r.draws : [],
        folded: overlay && shown ? shown.folded : hp ? hp.folded : false,
        action: overlay && shown ? shown.action : hand && !hand.is_over ? r.action : null,
        blind: hand && !hand.is_over && !overlay && hand.street === "preflop" ? r.blind : null,
        handName: overlay && shown ? shown.handName : "",
        winText: overlay && shown && shown.wins.length ? winTag(shown) : "",
        out: STATE_TEXT[s.state] || (!hp && hand && !overlay ? "Next hand" : null),
        allIn: Boolean(!overlay && hp && hand && !hand.is_over && !hp.folded && hp.stack === 0),
      });
    }
    const actor = overlay ? null : hand?.actor ?? null;
    const total = overlay ? Object.values(overlay.winners).reduce((a, b) => a + b, 0) : 0;
    const turn = shell.turn;
    return {
      seatCount: info.seats,
      bottom: you.length ? you[0] : 0,
      button: variant.stud ? null : overlay ? overlay.button : snap.state.button,
      board: overlay ? overlay.board : hand?.board || "",
      boardSlots: variant.board || 0,
      pots: overlay ? (total ? [{ amount: total }] : []) : hand?.pots || [],
      banner: overlay ? winnersText(overlay) : null,
      seats,
      actor,
      timer: actor !== null && snap.turn ? shell.timeLeft() / 1000 / info.turn_seconds : 0,
      winners: overlay ? overlay.winners : null,
      playingSeat: turn ? turn.seat : null,
      freeClickable: shell.seatable.length > 0 && shell.connected(),
      onSeatClick: openSit,
    };
  }

  function winnersText(state) {
    return winnersLine(state, (seat) => state.seats[seat]?.name || nameOf(seat));
  }

  const bar = actionBar({ act: (action) => shell.act(action), nameOf });
  // The public and the private form of one deal: same player, as many cards.
  const twins = (pub, own) => pub.type === "HoleCardsDealt" && own.type === "HoleCardsDealt" && pub.player === own.player
    && pub.cards.length === own.cards.length && (/\?/.test(pub.cards) || pub.cards === own.cards);
  // A phone turned sideways (or a window resized) across the narrow layout: redraw.
  window.matchMedia?.("(max-width: 640px)").addEventListener?.("change", () => shell.render());

  // ------------------------------------------------------ add-chips dialog
  const chipsDialog = $("chips-dialog");
  const chipsAmount = $("chips-amount");
  const chipsError = $("chips-error");
  let chipsSeat = null;
  let chipsRebuy = false; // opened for a seat out of chips: it sits in again with them

  function chipsRoom(seat) {
    const max = snap.info.max_buy_in;
    return max ? Math.max(0, max - stackOf(seat)) : null;
  }

  function openChips(seat, rebuy = false) {
    chipsSeat = seat;
    chipsRebuy = rebuy;
    const s = snap.seats[seat];
    const max = snap.info.max_buy_in;
    const room = chipsRoom(seat);
    $("chips-who").textContent = `${s.name} (seat ${seat + 1})`;
    $("chips-limit").textContent = max
      ? `Stack ${chips(stackOf(seat))} · table maximum ${chips(max)}: you may add up to ${chips(room)}.`
      : `Stack ${chips(stackOf(seat))} · this table has no maximum.`;
    $("chips-note").textContent = inHand(seat)
      ? "This player is in the running hand: the chips are added when it ends."
      : "";
    chipsAmount.min = "1";
    if (room) chipsAmount.max = String(room); else chipsAmount.removeAttribute("max");
    chipsAmount.value = room ? String(room) : "";
    chipsError.textContent = "";
    chipsDialog.showModal();
  }

  $("chips-cancel").addEventListener("click", () => chipsDialog.close());
  $("chips-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const amount = parseInt(chipsAmount.value, 10);
    if (!(amount > 0)) { chipsError.textContent = "Enter how many chips to add (a whole number above 0)."; return; }
    const seat = chipsSeat;
    chipsError.textContent = "";
    const error = await shell.request({ type: "add_chips", seat, amount });
    if (!error) {
      chipsDialog.close();
      shell.refreshAccount();
      // Out of chips, the server sat the seat out: with new chips it plays on.
      const away = snap.seats[seat]?.state === "sitting_out" || snap.state.seats[seat]?.status === "sitting_out";
      if (chipsRebuy && away) shell.send({ type: "sit_in", seat });
      return;
    }
    let text = error.message || error.code;
    if (error.code === "above_max_buy_in" && snap.info.max_buy_in) {
      text += ` ${snap.seats[seat]?.name || "This player"} has ${chips(stackOf(seat))}: add at most ${chips(chipsRoom(seat))}.`;
    }
    chipsError.textContent = text;
  });

  // ------------------------------------------------------- out of chips
  // An own seat with no chips left, between hands: a prompt to add chips (or leave),
  // and the add-chips dialog opens at once, once per bust.
  const rebuyEl = $("rebuy");
  let rebuyKey = "";
  const bustedSeen = new Set();
  function renderRebuy() {
    const busted = overlay ? [] : snap.you.seats.filter((i) => snap.seats[i] && snap.seats[i].stack === 0 && !inHand(i));
    for (const i of [...bustedSeen]) if (!busted.includes(i)) bustedSeen.delete(i);
    const key = busted.map((i) => `${i}:${snap.seats[i].name}`).join(",");
    if (key !== rebuyKey) {
      rebuyKey = key;
      rebuyEl.hidden = busted.length === 0;
      rebuyEl.replaceChildren(...busted.map((i) => {
        const name = snap.seats[i].name;
        const add = el("button", { type: "button", class: "act rebuy-add", "aria-label": `Add chips for ${name}` }, "Add chips");
        add.addEventListener("click", () => openChips(i, true));
        const leave = el("button", { type: "button", class: "act muck", "aria-label": `Leave with ${name}` }, "Leave");
        leave.addEventListener("click", () => shell.send({ type: "leave", seat: i }));
        return el("div", { class: "rebuy-row", "data-seat": String(i) },
          el("p", { class: "rebuy-text" }, el("strong", {}, `${name} is out of chips.`), " Add chips to play on."),
          add, leave);
      }));
    }
    const fresh = busted.find((i) => !bustedSeen.has(i));
    if (fresh !== undefined) {
      for (const i of busted) bustedSeen.add(i);
      if (!chipsDialog.open && !dialog.open) openChips(fresh, true);
    }
  }

  // ------------------------------------------------------------ sit dialog
  const dialog = $("sit-dialog");
  const sitPlayer = $("sit-player");
  const sitAmount = $("sit-amount");
  const sitRange = $("sit-range");
  const sitError = $("sit-error");
  let sitSeat = null;

  function openSit(seat) {
    sitSeat = seat;
    const info = snap.info;
    const max = info.max_buy_in || info.min_buy_in * 5;
    $("sit-seat").textContent = String(seat + 1);
    $("sit-limits").textContent = `(${chips(info.min_buy_in)} – ${info.max_buy_in ? chips(info.max_buy_in) : "no maximum"})`;
    sitPlayer.replaceChildren(...shell.seatable.map((p) => el("option", { value: String(p.id) },
      p.house ? `${p.name} (house bot)` : p.kind === "bot" ? `${p.name} (your bot)` : p.name)));
    for (const input of [sitAmount, sitRange]) { input.min = info.min_buy_in; input.max = max; input.step = 1; }
    sitAmount.value = sitRange.value = String(max);
    sitError.textContent = "";
    $("sit-wait").checked = false;
    dialog.showModal();
  }
  sitRange.addEventListener("input", () => { sitAmount.value = sitRange.value; });
  sitAmount.addEventListener("input", () => { sitRange.value = sitAmount.value; });
  $("sit-cancel").addEventListener("click", () => dialog.close());
  $("sit-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const player = shell.seatable.find((p) => String(p.id) === sitPlayer.value);
    const buyIn = parseInt(sitAmount.value, 10);
    const min = snap.info.min_buy_in;
    const max = snap.info.max_buy_in;
    if (!(buyIn >= min) || (max && buyIn > max)) {
      sitError.textContent = `The buy-in is between ${min} and ${max || "any amount"}.`;
      return;
    }
    if (!player) return;
    if (!player.house) sitError.textContent = "";
    const options = player.house ? { buy_in: buyIn } : { buy_in: buyIn, wait_for_bb: $("sit-wait").checked };
    const error = await shell.sit(sitSeat, player, options);
    if (!error) { dialog.close(); return; }
    if (!player.house) sitError.textContent = error.message || error.code; // house bots: a toast
  });

  // ------------------------------------------------------------ the board
  return {
    key: "holdem",

    render(snapshot) {
      snap = snapshot;
      if (snapshot.hand !== handId) {
        handId = snapshot.hand;
        // Keep what the events already told about this hand; the log endpoint fills the rest.
        const first = handEvents[0];
        if (!(first && first.type === "HandStarted" && first.number === snapshot.state.hand_number)) handEvents = [];
      }
      renderTable(felt, model());
      bar.update(shell.turn, snap, overlay);
      renderRebuy();
    },

    // Hole cards come twice to their owner, in public ("????", or the cards for a
    // superuser) and in private: the private form takes the public one's place
    // (whichever came first), so the cards of every street are folded in once.
    applyEvents(m) {
      for (const e of m.events) {
        if (e.type === "HandStarted") handEvents = [];
        if (e.type === "HoleCardsDealt") {
          const twin = handEvents.find((x) => x.private && !x.paired && twins(e, x));
          if (twin) { twin.paired = true; continue; }
        }
        handEvents.push(e);
        if (e.type === "HandEnded") showFinished();
      }
    },

    applyPrivate(m) {
      for (const e of m.events) {
        if (e.type === "CardsDiscarded") { handEvents.push(e); continue; }
        if (e.type !== "HoleCardsDealt") continue;
        const mine = { ...e, private: true };
        const i = handEvents.findLastIndex((x) => !x.private && twins(x, e));
        if (i >= 0) handEvents[i] = { ...mine, paired: true }; else handEvents.push(mine);
      }
    },

    loadRound(log) { handEvents = log.events; },

    holding() { return overlay !== null; },

    tick(leftMs) {
      const fill = felt.querySelector(".timer-fill");
      if (fill && snap) fill.style.width = `${Math.min(100, (leftMs / 10 / snap.info.turn_seconds))}%`;
      bar.tick(leftMs, shell.turn);
    },

    describe(e) {
      logCtx.smallBlind = shell.snapshot?.info?.small_blind ?? logCtx.smallBlind;
      const variant = variantOf(shell.snapshot?.info?.game ?? shell.info?.key);
      logCtx.stud = Boolean(variant.stud);
      logCtx.bringInGame = Boolean(variant.bringIn);
      const line = describe(e, nameOf, logCtx);
      return line === null && !LOGGED_EVENTS.has(e.type) ? shell.describe(e) : line;
    },

    seatPanel(i) {
      const s = snap.seats[i];
      const status = snap.state.seats[i]?.status;
      const away = s.state === "sitting_out" || status === "sitting_out";
      const waiting = s.state === "waiting_for_bb" || status === "waiting_for_bb";
      const command = (type) => () => shell.send({ type, seat: i });
      const buttons = [];
      if (away) buttons.push({ label: "Sit in", aria: `Sit in ${s.name}`, run: command("sit_in") });
      else buttons.push({ label: "Sit out", aria: `Sit out ${s.name}`, run: command("sit_out") });
      if ((status === "new" || away) && !waiting) buttons.push({ label: "Wait for BB", aria: `Wait for the big blind with ${s.name}`, run: command("wait_for_bb") });
      buttons.push({ label: "Add chips", aria: `Add chips for ${s.name}`, run: () => openChips(i) });
      // Auto-muck (the server's skip_formalities): show-or-muck prompts are answered
      // with muck at once instead of holding the table for their short timer.
      const you = snap.you;
      const autoMuck = (you.skip_formalities || []).includes(i);
      buttons.push({
        label: autoMuck ? "Auto-muck: on" : "Auto-muck: off",
        aria: `Auto-muck for ${s.name}: ${autoMuck ? "on" : "off"} (toggle)`,
        run: async () => {
          const failed = await shell.request({ type: "skip_formalities", seat: i, on: !autoMuck });
          if (failed) { shell.toast(failed.message); return; }
          const others = (you.skip_formalities || []).filter((n) => n !== i);
          you.skip_formalities = autoMuck ? others : [...others, i];
          shell.render();
        },
      });
      buttons.push({ label: "Leave", aria: `Leave with ${s.name}`, cls: "danger-outline", run: command("leave") });
      return {
        chips: stackOf(i),
        status: inHand(i) ? (away ? "Sits out after this hand" : "In the hand")
          : SEAT_STATUS[s.state] || SEAT_STATUS[status] || "Playing",
        stateClass: s.state === "playing" ? status || "playing" : s.state,
        buttons,
      };
    },
  };
}
