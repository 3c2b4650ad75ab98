// Form fields from a JSON schema (`type: object` with `properties`), e.g. a game's
// settings schema (the lobby's create-table form) or its seat options (the generic
// board's sit dialog). The markup is templates/_field.html's, so fields rendered by
// the server (lobby.forms) and here look and post the same:
//
//   integer, ["integer", "null"]   <input type=number min max>   ("" = null / default)
//   string + enum (+ enumTitles)   <select>
//   string                         <input type=text maxlength>
//   boolean                        <input type=checkbox>
//
// `title` is the label, `description` the help line, `default` the initial value.
import { el } from "./dom.js";

export function typesOf(spec) {
  const kind = spec.type ?? "string";
  return new Set(Array.isArray(kind) ? kind : [kind]);
}

function labelOf(name, spec) {
  if (spec.title) return spec.title;
  const words = name.replaceAll("_", " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** One `.field` element for the property `name`; `value` overrides the default. */
export function schemaField(name, spec, { value, required = false, idPrefix = "id_" } = {}) {
  const types = typesOf(spec);
  const id = `${idPrefix}${name}`;
  const current = value === undefined ? spec.default : value;
  const nullable = types.has("null");
  let input;
  if (Array.isArray(spec.enum)) {
    const titles = spec.enumTitles || {};
    const options = spec.enum.map((v) => el("option", { value: String(v), selected: String(v) === String(current ?? "") }, titles[String(v)] ?? String(v)));
    if (nullable) options.unshift(el("option", { value: "", selected: current === null || current === undefined }, "—"));
    input = el("select", { name, id }, ...options);
  } else if (types.has("boolean")) {
    input = el("input", { type: "checkbox", name, id, checked: Boolean(current) });
  } else if (types.has("integer") || types.has("number")) {
    input = el("input", {
      type: "number", name, id, value: current ?? "", min: spec.minimum ?? null, max: spec.maximum ?? null,
      step: types.has("integer") ? null : "any", inputmode: "numeric", required: required && !nullable,
    });
  } else {
    input = el("input", { type: "text", name, id, value: current ?? "", maxlength: spec.maxLength ?? null, required });
  }
  return el("div", { class: `field${types.has("boolean") ? " check-field" : ""}`, "data-field": name },
    el("label", { for: id }, labelOf(name, spec)),
    input,
    spec.description ? el("p", { class: "help" }, spec.description) : null);
}

/** The fields of every property (except the names in `skip`), in schema order. */
export function schemaFields(schema, { values = {}, idPrefix = "id_", skip = [] } = {}) {
  const required = new Set(schema?.required || []);
  return Object.entries(schema?.properties || {})
    .filter(([name]) => !skip.includes(name))
    .map(([name, spec]) => schemaField(name, spec, { value: values[name], required: required.has(name), idPrefix }));
}

/**
 * Read the fields back, converted by type: `{values, errors}` (`errors`: name ->
 * sentence). An empty number is left out, or null where the schema allows it.
 */
export function readSchema(schema, root, { skip = [] } = {}) {
  const values = {};
  const errors = {};
  const required = new Set(schema?.required || []);
  for (const [name, spec] of Object.entries(schema?.properties || {})) {
    if (skip.includes(name)) continue;
    const input = root.querySelector(`[name="${CSS.escape(name)}"]`);
    if (!input) continue;
    const types = typesOf(spec);
    const label = labelOf(name, spec);
    if (types.has("boolean") && !Array.isArray(spec.enum)) { values[name] = input.checked; continue; }
    const text = input.value.trim();
    if (text === "") {
      if (types.has("null")) values[name] = null;
      else if (required.has(name)) errors[name] = `${label}: this field is required.`;
      continue;
    }
    if (Array.isArray(spec.enum)) {
      const hit = spec.enum.find((v) => String(v) === text);
      if (hit === undefined) errors[name] = `${label}: not one of the choices.`; else values[name] = hit;
    } else if (types.has("integer") || types.has("number")) {
      const n = Number(text);
      if (!Number.isFinite(n) || (types.has("integer") && !Number.isInteger(n))) {
        errors[name] = `${label}: enter a ${types.has("integer") ? "whole " : ""}number.`;
      } else if (spec.minimum !== undefined && n < spec.minimum) {
        errors[name] = `${label}: at least ${spec.minimum}.`;
      } else if (spec.maximum !== undefined && n > spec.maximum) {
        errors[name] = `${label}: at most ${spec.maximum}.`;
      } else values[name] = n;
    } else values[name] = text;
  }
  return { values, errors };
}
