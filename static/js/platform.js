// The platform's own events (engine/game.py: SeatTaken, BuyIn, RoundStarted,
// RoundEnded with results, GameEnded...) as log sentences, for every game: used by
// the table shell (static/js/table.js) and the replay shell (static/js/replay.js).
import { chips } from "./dom.js";

export function capital(text) { return text.charAt(0).toUpperCase() + text.slice(1); }

export function signed(n) { return n > 0 ? `+${chips(n)}` : chips(n); }

/**
 * The sentence for a platform event, or null for any other type.
 * nameOf(seat) names a seat; roundWord is the game's round name ("hand", "deal"...).
 */
export function describePlatform(e, nameOf, roundWord = "round") {
  const who = e.player !== undefined ? nameOf(e.player) : "";
  switch (e.type) {
    case "SeatTaken": return `${who} sits down`;
    case "SeatFreed": return `${who} leaves the table`;
    case "BuyIn": return `${who} buys in for ${chips(e.amount)}`;
    case "CashOut": return `${who} cashes out ${chips(e.amount)}`;
    case "WentAway": return `${who} is away${e.reason && e.reason !== "request" ? ` (${e.reason})` : ""}`;
    case "CameBack": return `${who} is back`;
    case "TimedOut": return `${who} ran out of time (${e.action})`;
    case "RoundStarted": return `${capital(roundWord)} #${e.number}`;
    case "RoundEnded": {
      const results = (e.results || []).map((r) => `${nameOf(r.seat)} ${r.score !== null && r.score !== undefined ? r.score : signed(r.net)}`);
      return `${capital(roundWord)} over${results.length ? `: ${results.join(", ")}` : ""}`;
    }
    case "GameEnded": {
      const standings = (e.standings || []).map((s) => `${s.rank}. ${nameOf(s.seat)} (${s.score})`);
      return `Game over${standings.length ? `: ${standings.join(" · ")}` : ""}`;
    }
    case "PlayerDisconnected": return `${who} lost the connection`;
    case "PlayerReconnected": return `${who} is back`;
    case "PlayerStoodUp": return `${who} stood up (${e.reason || "left"})`;
    case "TableClosed": return "The table closed";
    default: return null;
  }
}
