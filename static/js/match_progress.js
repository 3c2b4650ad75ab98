// The progress page of a batch match (templates/research/match_progress.html): polls
// /research/matches/<id>/progress.json until the match is done or failed, then shows the
// link to its results.
const cfg = JSON.parse(document.getElementById("match-progress-config").textContent);
const panel = document.getElementById("match-progress");
const bar = document.getElementById("match-bar");
const statusEl = document.getElementById("match-status");
const handsEl = document.getElementById("match-hands");
const errorEl = document.getElementById("match-error");
const doneEl = document.getElementById("match-done");
const waitingEl = document.getElementById("match-waiting");

function show(p) {
  panel.dataset.status = p.status;
  statusEl.textContent = p.status_display;
  bar.max = p.hands_total;
  if (p.hands_done === null || p.hands_done === undefined) bar.removeAttribute("value");
  else bar.value = p.hands_done;
  const running = p.status === "running" && p.elapsed !== null ? ` · running for ${Math.round(p.elapsed)} s` : "";
  handsEl.textContent = `${p.hands_done ?? "…"} / ${p.hands_total} hands${running}`;
  if (p.error) {
    errorEl.textContent = p.error_code ? `${p.error_code}: ${p.error}` : p.error;
    errorEl.hidden = false;
  }
  doneEl.hidden = !p.finished;
  waitingEl.hidden = p.finished;
}

let delay = 500;
async function poll() {
  try {
    const response = await fetch(cfg.url, { headers: { Accept: "application/json" }, cache: "no-store" });
    if (response.ok) {
      const p = await response.json();
      show(p);
      if (p.finished) return;
    }
  } catch (error) {
    // The server is restarting or the network is away: try again a little later.
  }
  delay = Math.min(delay * 1.5, 5000);
  setTimeout(poll, delay);
}
if (panel.dataset.status !== "done" && panel.dataset.status !== "failed") setTimeout(poll, 300);
