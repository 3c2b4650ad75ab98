// The Tuppi board for the table shell (static/js/table.js explains the board
// interface). Drawn from the snapshot alone (snapshot.state is the game's view for
// this viewer, engine/tuppi/game.py `view`; the shell asks for a fresh snapshot
// after every event) and the shell's your_turn:
//
// * the score towards 52 (the up/down board: only one team is ever up), the rising
//   points, the round (dealer, rami by whom or nolo, tricks per team);
// * the four seats around the table, you at the bottom and your partner opposite
//   (clockwise: bottom, left, top, right), with the dealer, the declarer, who has
//   bid (the bid itself once revealed), tricks taken, cards left, whose turn;
// * the trick in the centre (the last finished trick until the next card);
// * your 13 cards, the playable ones highlighted on your turn: click or tap one to
//   play it; the Rami / Nolo buttons for the secret bid;
// * the game-over banner (tuppi, or the tournament limit).
//
// A spectator's view holds no card of any hand (the server leaves them out): the
// seats show card backs only.
import { el } from "../../js/dom.js";
import {
  cardBack, cardFace, cardText, describeTuppi, position, roundSentence, splitCards, SUITS,
  TARGET, teamNames, teamOf,
} from "./tuppi.js";

const SEAT_STATE = { away: "Away", leaving: "Leaving", playing: "Playing", sitting_out: "Away", disconnected: "Disconnected" };

export function createBoard(shell) {
  const $ = (tag, attrs, ...children) => el(tag, attrs, ...children);
  const teamBoxes = [0, 1].map((t) => $("div", { class: `tp-team team-${t}`, "data-team": String(t) }));
  const roundInfo = $("p", { class: "tp-round", id: "tp-round" });
  const seatBoxes = {};
  for (const pos of ["top", "left", "right", "bottom"]) seatBoxes[pos] = $("div", { class: `tp-seat pos-${pos}`, "data-pos": pos });
  const trick = $("div", { class: "tp-trick", id: "tp-trick", "aria-label": "The trick", role: "group" });
  const caption = $("p", { class: "tp-caption", id: "tp-caption", "aria-live": "polite" });
  const centre = $("div", { class: "tp-centre" }, trick, caption);
  const status = $("p", { class: "tp-status", id: "tp-status", "aria-live": "polite" });
  const countdown = $("span", { class: "countdown", id: "countdown" });
  const rami = $("button", { type: "button", class: "tp-bid-btn rami", id: "tp-rami" }, "Rami");
  const nolo = $("button", { type: "button", class: "tp-bid-btn nolo", id: "tp-nolo" }, "Nolo");
  const bidBox = $("div", { class: "tp-bid", id: "tp-bid", role: "group", "aria-label": "Your secret bid", hidden: true },
    rami, nolo, $("span", { class: "tp-bid-hint muted small" }, "Rami: your team takes 7 tricks. Nolo: pass. Bids are secret until shown."));
  const hand = $("div", { class: "tp-hand", id: "tp-hand", role: "group", "aria-label": "Your cards" });
  const banner = $("div", { class: "tp-over", id: "tp-over", role: "status", hidden: true });
  const last = $("p", { class: "tp-last muted small", id: "tp-last" });
  const root = $("section", { class: "tp-board", id: "tuppi", role: "region", "aria-label": "Tuppi table" },
    $("div", { class: "tp-scores", id: "tp-scores" }, ...teamBoxes),
    roundInfo,
    banner,
    $("div", { class: "tp-table", id: "tp-table" }, seatBoxes.top, seatBoxes.left, centre, seatBoxes.right, seatBoxes.bottom),
    $("div", { class: "tp-turn" }, status, countdown),
    bidBox,
    hand,
    last);
  shell.slots.main.append(root);
  shell.slots.foot.append($("p", { class: "muted small" },
    "Tuppi: follow suit if you can; no trumps; the highest card of the suit led wins the trick. "
    + "Partners sit opposite. A team that reaches 52 wins (a tuppi)."));

  rami.addEventListener("click", () => bid("rami"));
  nolo.addEventListener("click", () => bid("nolo"));
  function bid(kind) {
    const turn = shell.turn;
    if (!turn || !(turn.moves || []).some((m) => m.kind === kind)) return;
    shell.act({ kind });
  }
  hand.addEventListener("click", (event) => {
    const button = event.target.closest("button.tp-card");
    if (!button || button.disabled) return;
    const card = button.dataset.card;
    if (playable().includes(card)) shell.act({ kind: "play", card });
  });

  // --------------------------------------------------------------- sitting down
  const sitPlayer = $("select", { id: "tp-sit-player" });
  const sitError = $("p", { class: "error", role: "alert" });
  const sitTitle = $("h2", { id: "tp-sit-title" }, "Take a seat");
  const sitForm = $("form", { method: "dialog", novalidate: true }, sitTitle,
    $("label", { class: "field" }, "Who sits", sitPlayer), sitError,
    $("p", { class: "actions" }, $("button", { type: "submit", class: "button", id: "tp-sit-ok" }, "Sit down"),
      $("button", { type: "button", class: "button secondary", id: "tp-sit-cancel" }, "Cancel")));
  const dialog = $("dialog", { id: "tp-sit-dialog", "aria-labelledby": "tp-sit-title" }, sitForm);
  shell.slots.dialogs.append(dialog);
  let sitSeat = null;
  dialog.querySelector("#tp-sit-cancel").addEventListener("click", () => dialog.close());
  sitForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    const player = shell.seatable.find((p) => String(p.id) === sitPlayer.value);
    if (!player) return;
    sitError.textContent = "";
    const error = await shell.sit(sitSeat, player, {});
    if (!error) dialog.close();
    else sitError.textContent = error.message || error.code;
  });
  function openSit(seat) {
    sitSeat = seat;
    sitTitle.textContent = `Take seat ${seat + 1} (team ${teamOf(seat) + 1})`;
    sitPlayer.replaceChildren(...shell.seatable.map((p) => $("option", { value: String(p.id) },
      p.house ? `${p.name} (house bot${p.strategy ? `: ${p.strategy}` : ""})` : p.kind === "bot" ? `${p.name} (your bot)` : p.name)));
    sitError.textContent = "";
    dialog.showModal();
  }

  // ----------------------------------------------------------------- helpers
  let snap = null;
  const mine = () => snap?.you?.seats || [];
  // The seat at the bottom: the one whose turn it is among yours, else your first, else seat 1.
  function bottomSeat() {
    const turn = shell.turn;
    if (turn && mine().includes(turn.seat)) return turn.seat;
    return mine()[0] ?? 0;
  }
  function playable() {
    const move = (shell.turn?.moves || []).find((m) => m.kind === "play");
    return move?.params?.card?.options || [];
  }
  function bidding() {
    return (shell.turn?.moves || []).some((m) => m.kind === "rami");
  }
  const nameOf = (seat) => shell.nameOf(seat);

  // The end of a round is held on the table for a moment (the shell asks for no new
  // snapshot meanwhile: holding()): the last trick, its winner and the round's result.
  // Cards played since the snapshot (events) leave the hand at once.
  const HOLD_MS = 2500;
  let overlay = null; // {trick: {cards: [{player, card}], winner}, result: RoundScored}
  let lastTrick = null;
  let lastPlayer = null;
  const gone = new Map(); // card -> the version of the event that played it
  function applyEvents(msg) {
    for (const e of msg.events) {
      if (e.type === "CardPlayed") {
        gone.set(e.card, msg.version);
        lastPlayer = e.player;
      } else if (e.type === "TrickWon" && lastPlayer !== null) {
        const leader = (lastPlayer + 1) % 4; // the fourth card is the leader's right-hand player's
        lastTrick = { cards: splitCards(e.cards).map((card, i) => ({ player: (leader + i) % 4, card })), winner: e.player };
      } else if (e.type === "RoundScored") {
        const showing = overlay !== null;
        overlay = { trick: lastTrick, result: e };
        if (!showing) setTimeout(() => { overlay = null; shell.resync(); }, HOLD_MS);
      } else if (e.type === "RoundStarted") {
        lastTrick = null;
        lastPlayer = null;
      }
    }
    if (overlay) shell.render(); // no snapshot comes while holding: draw it now
  }

  // Rebuild a part only when what it shows changed (a tap never lands on a replaced node).
  const keys = {};
  function changed(part, value) {
    const key = JSON.stringify(value);
    if (keys[part] === key) return false;
    keys[part] = key;
    return true;
  }

  // ----------------------------------------------------------------- drawing
  function renderScores(state) {
    const score = state.score || [0, 0];
    const rising = state.rising || [0, 0];
    const you = mine().length ? teamOf(mine()[0]) : null;
    const names = [0, 1].map((t) => teamNames(t, nameOf));
    if (!changed("scores", [score, rising, you, names])) return;
    [0, 1].forEach((t) => {
      const up = score[t] > 0;
      teamBoxes[t].classList.toggle("up", up);
      teamBoxes[t].classList.toggle("yours", you === t);
      teamBoxes[t].replaceChildren(
        $("div", { class: "tp-team-head" },
          $("span", { class: "tp-team-name" }, `Team ${t + 1}${you === t ? " (you)" : ""}`),
          $("span", { class: "tp-team-score", "data-testid": `score-${t}` }, `${score[t]}`, $("span", { class: "muted" }, ` / ${TARGET}`))),
        $("progress", { class: "tp-progress", max: TARGET, value: Math.min(score[t], TARGET), "aria-label": `Team ${t + 1}: ${score[t]} of ${TARGET}` }),
        $("div", { class: "tp-team-foot small" },
          $("span", { class: "tp-members" }, names[t]),
          $("span", { class: "muted" }, ` · rising ${rising[t]}`),
          up ? $("span", { class: "badge tp-up" }, "up") : null));
    });
  }

  function renderRound(state) {
    const r = state.round;
    let text;
    if (state.over) text = `Game over after ${state.number} round${state.number === 1 ? "" : "s"}`;
    else if (!r) text = state.number ? `Round ${state.number} is over — waiting for the next` : "Waiting for four players";
    else {
      const limit = state.round_limit ? ` of ${state.round_limit}` : "";
      const what = r.phase === "bid" ? "secret bids" : r.mode === "rami" ? `rami by ${nameOf(r.declarer)}` : "nolo";
      text = `Round ${state.number}${limit} · ${nameOf(r.dealer)} deals · ${what}`;
      if (r.phase === "play") text += ` · tricks ${r.team_tricks[0]}–${r.team_tricks[1]}`;
    }
    if (roundInfo.textContent !== text) roundInfo.textContent = text;
    const lastText = state.last ? `Round ${state.last.number}: ${roundSentence(state.last, nameOf)}` : "";
    if (last.textContent !== lastText) last.textContent = lastText;
  }

  function renderBanner(state) {
    const result = state.over ? state.result : null;
    if (!changed("banner", [result, state.score, state.seats?.map((s) => s?.player_id)])) return;
    banner.hidden = !result;
    if (!result) { banner.replaceChildren(); return; }
    const title = result.winner === null || result.winner === undefined ? "A draw"
      : `${result.reason === "tuppi" ? "Tuppi! " : ""}${teamNames(result.winner, nameOf)} win`;
    const you = mine().length ? teamOf(mine()[0]) : null;
    const note = result.reason === "tuppi"
      ? `Team ${result.winner + 1} reached ${TARGET} (${state.score[0]}–${state.score[1]}).`
      : `The round limit: rising points ${state.rising[0]}–${state.rising[1]}.`;
    banner.className = `tp-over${you !== null && result.winner === you ? " won" : ""}`;
    banner.replaceChildren($("strong", { class: "tp-over-title" }, title), $("span", {}, ` ${note}`));
  }

  function renderSeats(state, bottom) {
    const r = state.round;
    const acting = new Set();
    if (r && !overlay) {
      if (r.phase === "bid") r.players.forEach((p) => { if (!p.has_bid) acting.add(p.player); });
      else if (r.turn !== null) acting.add(r.turn);
    }
    const free = shell.seatable.length > 0 && shell.connected() && !state.over;
    for (let seat = 0; seat < 4; seat++) {
      const box = seatBoxes[position(seat, bottom)];
      const s = snap.seats?.[seat];
      const p = r?.players?.[seat];
      const own = mine().includes(seat);
      const below = seat === bottom && Boolean(p?.cards); // this hand is drawn below the table
      const show = p && !below && p.cards ? p.cards : null; // a superuser sees every hand
      const key = [s?.name, s?.state, s?.is_bot, p, acting.has(seat), r?.dealer ?? state.dealer, r?.declarer, free, own, show, state.seats?.[seat]];
      if (!changed(`seat${seat}`, [key, bottom])) continue;
      box.dataset.seat = String(seat);
      box.className = `tp-seat pos-${position(seat, bottom)} team-${teamOf(seat)}${acting.has(seat) ? " acting" : ""}${own ? " mine" : ""}${s ? "" : " free"}`;
      if (!s) {
        const button = free ? $("button", { type: "button", class: "button secondary small-btn", "data-seat": String(seat), "aria-label": `Sit in seat ${seat + 1}` }, "Sit here") : null;
        button?.addEventListener("click", () => openSit(seat));
        box.replaceChildren($("span", { class: "tp-name muted" }, `Seat ${seat + 1} · free`), button);
        continue;
      }
      const badges = [];
      if ((r?.dealer ?? state.dealer) === seat) badges.push($("span", { class: "badge tp-dealer", title: "Dealer" }, "D"));
      if (r?.declarer === seat) badges.push($("span", { class: "badge tp-declarer" }, "rami"));
      if (p && r.phase === "bid") badges.push($("span", { class: `badge tp-bid-state${p.has_bid ? " done" : ""}` }, p.has_bid ? (p.bid ? `bid ${p.bid}` : "has bid") : "thinking"));
      else if (p?.bid && r.declarer !== seat) badges.push($("span", { class: "badge tp-shown" }, `bid ${p.bid}`));
      const gameSeat = state.seats?.[seat];
      const away = gameSeat?.leaving ? "leaving" : gameSeat?.away ? "away" : s.state !== "playing" ? s.state : null;
      if (away) badges.push($("span", { class: "badge" }, SEAT_STATE[away] || away));
      if (acting.has(seat) && r?.phase === "play") badges.push($("span", { class: "badge acting" }, "to play"));
      const meta = [];
      if (p && !below) meta.push(`${p.count} ${p.count === 1 ? "card" : "cards"}`);
      if (p && r.phase === "play") meta.push(`${p.tricks} ${p.tricks === 1 ? "trick" : "tricks"}`);
      const cards = [];
      if (p && !below) {
        if (show) cards.push(...splitCards(show).map((c) => cardFace(c, { cls: "mini" })));
        else for (let i = 0; i < p.count; i++) cards.push(cardBack("mini"));
      }
      const parts = [
        $("div", { class: "tp-seat-head" },
          $("span", { class: "tp-name" }, s.name),
          s.is_bot ? $("span", { class: "badge bot" }, "bot") : null,
          meta.length ? $("span", { class: "tp-meta", "data-testid": "seat-meta" }, meta.join(" · ")) : null),
        badges.length ? $("div", { class: "tp-badges" }, ...badges) : null,
        cards.length ? $("div", { class: `tp-backs${show ? " faces" : ""}`, "aria-hidden": show ? null : "true" }, ...cards) : null,
      ];
      box.replaceChildren(...parts.filter(Boolean));
    }
  }

  function renderTrick(state, bottom) {
    const r = state.round;
    let cards = [];
    let text = "";
    let winner = null;
    if (overlay) { // the round just ended: its last trick and result, for a moment
      cards = overlay.trick?.cards || [];
      winner = overlay.trick?.winner ?? null;
      text = `${winner !== null ? `${nameOf(winner)} takes the last trick. ` : ""}${roundSentence(overlay.result, nameOf)}`;
    } else if (r && r.trick.length) {
      cards = r.trick;
      const next = r.turn !== null ? nameOf(r.turn) : "";
      text = `Trick ${r.tricks.length + 1}${next ? ` · ${next} to play` : ""}`;
    } else if (r && r.tricks.length) {
      const t = r.tricks[r.tricks.length - 1];
      cards = t.cards.map((card, i) => ({ player: (t.leader + i) % 4, card }));
      winner = t.winner;
      text = `${nameOf(t.winner)} takes trick ${r.tricks.length}${r.turn !== null ? ` and leads` : ""}`;
    } else if (r && r.phase === "bid") {
      const done = r.players.filter((p) => p.has_bid).length;
      text = `Secret bids: ${done} of 4 chosen`;
    } else if (r) {
      text = `${nameOf(r.leader)} leads the first trick`;
    }
    if (!changed("trick", [cards, text, winner, bottom])) return;
    trick.replaceChildren(...cards.map(({ player, card }) => cardFace(card, {
      cls: `pos-${position(player, bottom)}${player === winner ? " winner" : ""}`,
      attrs: { "data-player": String(player), title: `${nameOf(player)}: ${cardText(card)}` },
    })));
    caption.textContent = text;
  }

  function renderHand(state, seat) {
    const p = state.round?.players?.[seat];
    const cards = p?.cards ? splitCards(p.cards).filter((c) => !gone.has(c)) : [];
    const legal = playable();
    const myTurn = Boolean(shell.turn && shell.turn.seat === seat && legal.length);
    if (!changed("hand", [cards, legal, myTurn])) return;
    hand.classList.toggle("my-turn", myTurn);
    hand.replaceChildren(...cards.map((card) => {
      const ok = myTurn && legal.includes(card);
      return cardFace(card, {
        tag: "button",
        cls: ok ? "playable" : myTurn ? "unplayable" : "",
        attrs: { type: "button", disabled: !ok, "aria-label": `${ok ? "Play " : ""}${cardText(card)}` },
      });
    }));
    hand.hidden = cards.length === 0;
  }

  function renderTurn(state, seat) {
    const turn = shell.turn;
    const r = state.round;
    const bid = !overlay && bidding() && turn.seat === seat; // (a new round: after the hold)
    bidBox.hidden = !bid;
    rami.disabled = nolo.disabled = !bid;
    let text;
    if (overlay) text = `Round ${state.number} is over.`;
    else if (turn && bid) text = `Your secret bid, ${nameOf(turn.seat)}: rami or nolo?`;
    else if (turn && playable().length) {
      const lead = r && r.trick.length ? `follow ${SUITS[r.trick[0].card[1]].symbol} if you can` : "you lead";
      text = `Your turn, ${nameOf(turn.seat)}: play a card (${lead})`;
    } else if (state.over) text = "The game is over.";
    else if (!r) text = mine().length ? "Waiting for the next round…" : "Watching";
    else if (r.phase === "bid") {
      const own = r.players[seat];
      text = own?.has_bid && mine().includes(seat) ? `You chose ${own.bid}: waiting for the others` : "Waiting for the secret bids…";
    } else text = `${nameOf(r.turn)} to play`;
    if (status.textContent !== text) status.textContent = text;
    status.classList.toggle("mine", Boolean(turn));
  }

  return {
    key: "tuppi",
    applyEvents,
    holding: () => overlay !== null,
    render(snapshot) {
      for (const [card, version] of gone) if (version <= snapshot.version) gone.delete(card);
      snap = snapshot;
      const state = snapshot.state || {};
      const bottom = bottomSeat();
      root.classList.toggle("watching", mine().length === 0);
      renderScores(state);
      renderRound(state);
      renderBanner(state);
      renderSeats(state, bottom);
      renderTrick(state, bottom);
      renderHand(state, bottom);
      renderTurn(state, bottom);
    },
    tick(leftMs) {
      const text = leftMs > 0 && shell.snapshot?.turn ? `${Math.ceil(leftMs / 1000)}s` : "";
      if (countdown.textContent !== text) countdown.textContent = text;
      countdown.classList.toggle("urgent", leftMs > 0 && leftMs < 5000);
    },
    describe: (e) => describeTuppi(e, nameOf, shell.describe),
    seatPanel(seat) {
      const s = snap.seats[seat];
      const gameSeat = snap.state?.seats?.[seat];
      const away = Boolean(gameSeat?.away);
      const command = (type) => () => shell.send({ type, seat });
      return {
        chips: null,
        status: gameSeat?.leaving ? "Leaving after this round" : away ? "Away" : "Playing",
        stateClass: gameSeat?.leaving ? "leaving" : away ? "sitting_out" : "playing",
        buttons: [
          away ? { label: "Back", aria: `Back: ${s.name}`, run: command("back") }
            : { label: "Away", aria: `Away: ${s.name}`, run: command("away") },
          { label: "Leave", aria: `Leave with ${s.name}`, cls: "danger-outline", run: command("leave") },
        ],
      };
    },
  };
}
