// The rule-set editor (lobby.rulesets, docs/dice.md "Rule sets in the browser").
//
// The page embeds `#rule-set-config`: the rule set to start from, the game's editor
// description (`Game.rule_sets()`: families with their parameters, limits), and the
// validate / save endpoints. Every change is validated by the server (the game's own
// `validate_rule_set`, debounced); its sentence is shown as it is. Saving a changed
// rule set makes a new identity (a rename keeps it).
import { csrfToken, el } from "./dom.js";

const cfg = JSON.parse(document.getElementById("rule-set-config").textContent);
const root = document.getElementById("rs-editor");
const families = cfg.editor.families;
const byFamily = Object.fromEntries(families.map((f) => [f.family, f]));
const limits = cfg.editor.limits || {};
const readonly = Boolean(cfg.readonly);

// The rule set being edited, in the editor's own shape (strings as typed).
const start = cfg.rules || {};
const model = {
  name: start.name ?? "",
  dice: String(start.dice ?? 5),
  faces: String(start.faces ?? 6),
  rolls: String(start.rolls ?? 3),
  combos: (start.combinations || []).map(fromCombination),
  bonus: start.bonus ? {
    on: true, threshold: String(start.bonus.threshold), points: String(start.bonus.points),
    boxes: (start.bonus.boxes || []).join(", "),
  } : { on: false, threshold: "63", points: "50", boxes: "" },
};
let lastValid = null; // the last rule set the server accepted (normalised)
let timer = null;
let seq = 0;

function fromCombination(c) {
  const params = {};
  for (const p of byFamily[c.family]?.params || []) {
    if (c[p.name] === undefined) params[p.name] = "";
    else params[p.name] = Array.isArray(c[p.name]) ? c[p.name].join(", ") : String(c[p.name]);
  }
  return { id: c.id ?? "", name: c.name ?? "", family: c.family, params,
    points: c.points === undefined ? "" : String(c.points) };
}

function number(text) {
  const t = String(text).trim();
  if (t === "") return undefined;
  const n = Number(t);
  return Number.isInteger(n) ? n : t; // the server names what is wrong with "x"
}

function numbers(text) {
  const t = String(text).trim();
  if (t === "") return undefined;
  return t.split(/[\s,]+/).filter(Boolean).map((part) => number(part));
}

/** The rule set as JSON for the server. */
function toJson() {
  const out = { dice: number(model.dice), faces: number(model.faces), rolls: number(model.rolls) };
  if (model.name.trim()) out.name = model.name.trim();
  out.combinations = model.combos.map((c) => {
    const combo = { id: c.id.trim(), family: c.family };
    if (c.name.trim()) combo.name = c.name.trim();
    for (const p of byFamily[c.family]?.params || []) {
      const value = p.type === "faces" ? numbers(c.params[p.name] ?? "") : number(c.params[p.name] ?? "");
      if (value !== undefined) combo[p.name] = value;
    }
    const points = number(c.points);
    if (points !== undefined) combo.points = points;
    return combo;
  });
  if (model.bonus.on) {
    out.bonus = { threshold: number(model.bonus.threshold), points: number(model.bonus.points) };
    const boxes = model.bonus.boxes.split(/[\s,]+/).filter(Boolean);
    if (boxes.length) out.bonus.boxes = boxes;
  } else out.bonus = null;
  return out;
}

// ------------------------------------------------------------------ markup

function input(value, attrs, onInput) {
  const node = el("input", { value, disabled: readonly, ...attrs });
  node.addEventListener("input", () => { onInput(node.value); changed(); });
  return node;
}

function field(label, control, help) {
  return el("label", { class: "rs-field" }, el("span", { class: "rs-label" }, label), control,
    help ? el("span", { class: "help" }, help) : null);
}

function freshId(family) {
  const taken = new Set(model.combos.map((c) => c.id));
  for (let i = 1; ; i += 1) {
    const id = `${family}_${i}`;
    if (!taken.has(id)) return id;
  }
}

function comboRow(combo, index) {
  const family = byFamily[combo.family];
  const params = (family?.params || []).map((p) => field(
    `${p.title}${p.required ? "" : " (optional)"}`,
    input(combo.params[p.name] ?? "", {
      type: p.type === "faces" ? "text" : "number", inputmode: "numeric",
      min: p.type === "faces" ? null : p.min, max: p.type === "faces" ? null : p.max,
      "data-param": p.name, placeholder: p.type === "faces" ? "e.g. 5, 6" : "",
    }, (v) => { combo.params[p.name] = v; }), p.help));
  const move = (delta) => () => {
    const to = index + delta;
    if (to < 0 || to >= model.combos.length) return;
    [model.combos[index], model.combos[to]] = [model.combos[to], model.combos[index]];
    draw(); changed();
  };
  const buttons = readonly ? null : el("div", { class: "rs-row-buttons" },
    button("↑", "Move up", move(-1)), button("↓", "Move down", move(1)),
    button("✕", `Remove ${combo.id || "this combination"}`, () => {
      model.combos.splice(index, 1); draw(); changed();
    }, "rs-remove"));
  return el("li", { class: "rs-combo", "data-family": combo.family, "data-index": index },
    el("div", { class: "rs-combo-head" },
      el("span", { class: "rs-family", title: family?.rule ?? "" }, family?.title ?? combo.family),
      el("span", { class: "muted small rs-rule" }, family?.rule ?? ""),
      buttons),
    el("div", { class: "rs-grid" },
      field("Id", input(combo.id, { type: "text", maxlength: 40, "data-key": "id", autocomplete: "off" },
        (v) => { combo.id = v; })),
      field("Name", input(combo.name, { type: "text", maxlength: 40, "data-key": "name", autocomplete: "off" },
        (v) => { combo.name = v; })),
      ...params,
      field("Fixed points (optional)", input(combo.points, {
        type: "number", inputmode: "numeric", min: 0, max: limits.points?.[1] ?? 1000, "data-key": "points",
      }, (v) => { combo.points = v; }), "empty: the family's own points")));
}

function button(text, label, onClick, extra = "") {
  const node = el("button", { type: "button", class: `button secondary small-btn ${extra}`.trim(), "aria-label": label, title: label }, text);
  node.addEventListener("click", onClick);
  return node;
}

const status = el("div", { class: "rs-status", id: "rs-status", role: "status", "aria-live": "polite" }, "Checking…");
const list = el("ol", { class: "rs-combos", id: "rs-combos" });
const saveButton = el("button", { type: "button", class: "button", id: "rs-save", disabled: true }, "Save rule set");
const saveNote = el("p", { class: "muted small", id: "rs-save-note" });

function draw() {
  list.replaceChildren(...model.combos.map(comboRow));
  document.getElementById("rs-count").textContent = `${model.combos.length} / ${limits.combinations?.[1] ?? 30}`;
}

function layout() {
  const [dMin, dMax] = limits.dice || [1, 9];
  const [fMin, fMax] = limits.faces || [2, 9];
  const [rMin, rMax] = limits.rolls || [1, 9];
  const head = el("section", { class: "panel rs-head", "aria-label": "Dice" },
    el("div", { class: "rs-grid" },
      field("Name", input(model.name, { type: "text", maxlength: 60, id: "rs-name", autocomplete: "off" }, (v) => { model.name = v; })),
      field("Dice", input(model.dice, { type: "number", inputmode: "numeric", min: dMin, max: dMax, id: "rs-dice" }, (v) => { model.dice = v; }), `${dMin}–${dMax}`),
      field("Faces", input(model.faces, { type: "number", inputmode: "numeric", min: fMin, max: fMax, id: "rs-faces" }, (v) => { model.faces = v; }), `largest face, ${fMin}–${fMax}`),
      field("Rolls per turn", input(model.rolls, { type: "number", inputmode: "numeric", min: rMin, max: rMax, id: "rs-rolls" }, (v) => { model.rolls = v; }), `${rMin}–${rMax}`)));
  const bonusOn = el("input", { type: "checkbox", id: "rs-bonus-on", checked: model.bonus.on, disabled: readonly });
  bonusOn.addEventListener("change", () => { model.bonus.on = bonusOn.checked; bonusBox.hidden = !bonusOn.checked; changed(); });
  const bonusBox = el("div", { class: "rs-grid", hidden: !model.bonus.on },
    field("Threshold", input(model.bonus.threshold, { type: "number", inputmode: "numeric", min: 1, id: "rs-bonus-threshold" }, (v) => { model.bonus.threshold = v; })),
    field("Points", input(model.bonus.points, { type: "number", inputmode: "numeric", min: 0, id: "rs-bonus-points" }, (v) => { model.bonus.points = v; })),
    field("Boxes counted", input(model.bonus.boxes, { type: "text", id: "rs-bonus-boxes", placeholder: "ids, e.g. ones, twos" }, (v) => { model.bonus.boxes = v; }), "empty: every x:s box"));
  const bonus = el("section", { class: "panel rs-bonus", "aria-label": "Bonus" },
    el("h2", {}, "Bonus"),
    el("label", { class: "rs-check" }, bonusOn, " An upper bonus"), bonusBox);
  const familySelect = el("select", { id: "rs-add-family", "aria-label": "Family to add", disabled: readonly },
    ...families.map((f) => el("option", { value: f.family }, f.title)));
  const add = button("Add combination", "Add a combination of this family", () => {
    const family = familySelect.value;
    const params = Object.fromEntries((byFamily[family].params || []).map((p) => [p.name, p.required ? String(p.min) : ""]));
    model.combos.push({ id: freshId(family), name: "", family, params, points: "" });
    draw(); changed();
    list.lastElementChild?.querySelector("input")?.focus();
  });
  add.id = "rs-add";
  const combos = el("section", { class: "panel rs-combos-panel", "aria-label": "Combinations" },
    el("h2", {}, "Combinations ", el("span", { class: "muted small", id: "rs-count" })),
    list,
    readonly ? null : el("div", { class: "rs-add" }, familySelect, add));
  const legend = el("details", { class: "panel rs-legend" }, el("summary", {}, "The families"),
    el("dl", {}, ...families.flatMap((f) => [el("dt", {}, f.title), el("dd", {}, f.rule,
      f.params.length ? ` — ${f.params.map((p) => `${p.title}: ${p.help}`).join("; ")}` : "")])));
  const foot = el("section", { class: "panel rs-foot", "aria-label": "Check and save" }, status,
    readonly ? el("p", {}, el("a", { class: "button", id: "rs-copy", href: cfg.copy_url }, "Copy & edit"))
      : el("p", { class: "actions" }, saveButton), saveNote);
  root.replaceChildren(head, combos, bonus, foot, legend);
  draw();
}

// ------------------------------------------------------------------ server

async function post(url, body) {
  const response = await fetch(url, {
    method: "POST", credentials: "same-origin",
    headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken() },
    body: JSON.stringify(body),
  });
  let data = null;
  try { data = await response.json(); } catch { data = null; }
  return { ok: response.ok, status: response.status, data };
}

function changed() {
  status.className = "rs-status";
  status.textContent = "Checking…";
  saveButton.disabled = true;
  clearTimeout(timer);
  timer = setTimeout(check, 250);
}

async function check() {
  const mine = ++seq;
  let result;
  try {
    result = await post(cfg.validate_url, toJson());
  } catch {
    if (mine === seq) { status.className = "rs-status bad"; status.textContent = "Could not reach the server."; }
    return;
  }
  if (mine !== seq) return; // a newer change is being checked
  if (result.ok) {
    lastValid = result.data.rules;
    status.className = "rs-status good";
    status.replaceChildren(el("strong", {}, "Valid. "),
      `${lastValid.combinations.length} combinations · identity `, el("code", { id: "rs-identity" }, lastValid.id),
      cfg.identity && cfg.identity !== lastValid.id ? " (a new rule set: what is played changed)" : "");
    saveButton.disabled = readonly;
  } else {
    lastValid = null;
    const error = result.data?.error || { code: `http_${result.status}`, message: "The server refused the request." };
    status.className = "rs-status bad";
    status.replaceChildren(el("strong", {}, "Not valid: "), el("span", { id: "rs-error" }, error.message),
      " ", el("code", { class: "small", id: "rs-error-code" }, error.code));
  }
  markError(result.ok ? "" : result.data?.error?.message || "");
}

// The combination the engine's sentence names ("Combination 'house' (...)") is marked.
function markError(message) {
  const named = /^Combination '([^']*)'/.exec(message)?.[1];
  const byNumber = /^Combination (\d+)[: ]/.exec(message)?.[1];
  list.querySelectorAll(".rs-combo").forEach((row, index) => {
    const hit = (named !== undefined && model.combos[index]?.id.trim() === named)
      || (byNumber !== undefined && Number(byNumber) === index + 1);
    row.classList.toggle("has-error", Boolean(hit));
  });
}

saveButton.addEventListener("click", async () => {
  if (!lastValid) return;
  saveButton.disabled = true;
  saveNote.textContent = "Saving…";
  const result = await post(cfg.save_url, { rules: toJson(), edit: cfg.edit, based_on: cfg.based_on || "" })
    .catch(() => ({ ok: false, data: null, status: 0 }));
  if (!result.ok) {
    saveNote.textContent = result.data?.error?.message || "Could not save.";
    saveButton.disabled = false;
    return;
  }
  const saved = result.data.rule_set;
  saveNote.textContent = result.data.new_identity ? "Saved as a new rule set (what is played changed)." : "Saved.";
  location.assign(saved.url);
});

layout();
check();
