// The deadline the agent may grant on the street for a failed item (Tapurah Lei 406/2001
// Art. 19, as the product owner reads it): "A critério, poderá ser concedido prazo máximo de
// 10 dias" for a defect of the vehicle that does not affect safety. Never automatic: without
// it the notice gives Art. 29's 72 hours. The checklist on the phone says, per item, whether
// the law allows it (`item.grant`: {max_days, eligible, refusal, citation}), so this works
// offline; the server checks it again (docs/sync.md §2, items[].grant).

import { el } from "./ui.js";

const REASON_MIN = 3;
const REASON_MAX = 500;

/** Whether this item may get the grant at all (its law has one and the item is eligible). */
export function grantable(item) {
  return Boolean(item && item.grant && item.grant.eligible && item.grant.max_days > 0);
}

/** The box under a failed item: a tick, then days and a reason. `answer.grant` holds
 * {on, days, reason} (kept in the draft); `changed` is called on every edit. Null when the
 * item cannot get the grant. */
export function grantBox(answer, changed) {
  const { item } = answer;
  if (!grantable(item)) return null;
  const max = item.grant.max_days;
  const article = (item.grant.citation && item.grant.citation.article) || "Art. 19";
  answer.grant = answer.grant || { on: false, days: max, reason: "" };
  const state = answer.grant;
  const days = el("input", { class: "grant-days", type: "number", inputmode: "numeric", min: "1",
    max: String(max), step: "1", value: String(state.days ?? max) });
  const reason = el("textarea", { class: "grant-reason", rows: "2", maxlength: String(REASON_MAX) });
  reason.value = state.reason || "";
  const fields = el("div", { class: "grant-fields" },
    el("label", {}, `Dias concedidos (de 1 a ${max}) `, days),
    el("label", {}, "Motivo da concessão (obrigatório) ", reason));
  fields.hidden = !state.on;
  const tick = el("input", { class: "grant-toggle", type: "checkbox" });
  tick.checked = Boolean(state.on);
  tick.addEventListener("change", () => {
    state.on = tick.checked;
    fields.hidden = !state.on;
    if (state.on) reason.focus();
    changed();
  });
  days.addEventListener("input", () => { state.days = days.value; changed(); });
  reason.addEventListener("input", () => { state.reason = reason.value; changed(); });
  const quote = item.grant.citation && item.grant.citation.quote;
  return el("div", { class: "grant-box" },
    el("label", { class: "grant-choice" }, tick, ` Conceder prazo do ${article} (até ${max} dias)`),
    quote ? el("p", { class: "grant-quote sub" }, `“${quote}” Sem a concessão, o prazo é de 72 horas.`) : null,
    fields);
}

function chosen(answer) {
  return answer.result === "fail" && grantable(answer.item) && answer.grant && answer.grant.on;
}

/** What stops saving a ticked grant: {what, focus} (as inspection.js's gaps), or null. */
export function grantGap(answer) {
  if (!chosen(answer)) return null;
  const n = Number(answer.grant.days);
  if (!Number.isInteger(n) || n < 1 || n > answer.item.grant.max_days) {
    return { what: `dias do prazo concedido, de 1 a ${answer.item.grant.max_days}`, focus: ".grant-days" };
  }
  if (String(answer.grant.reason || "").trim().length < REASON_MIN) {
    return { what: "motivo do prazo concedido", focus: ".grant-reason" };
  }
  return null;
}

/** The item's `grant` in the body ({days, reason}), or null when none was chosen. */
export function grantOf(answer) {
  if (!chosen(answer)) return null;
  return { days: Number(answer.grant.days), reason: String(answer.grant.reason).trim().slice(0, REASON_MAX) };
}
