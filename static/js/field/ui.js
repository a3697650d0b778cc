// Small DOM and formatting helpers shared by the field app's screens (no innerHTML: every
// text from the registry goes in as text).

/** Build an element: el("p", {class: "x"}, "text", childNode, ...). */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name === "class") node.className = value;
    else if (name === "dataset") Object.assign(node.dataset, value);
    else if (name.startsWith("on") && typeof value === "function") node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

/** The offline law page of a citation ({law_slug, anchor}), or null without a slug. */
export function lawHref(citation) {
  if (!citation || !citation.law_slug) return null;
  return `/leis/${encodeURIComponent(citation.law_slug)}${citation.anchor ? "#" + citation.anchor : ""}`;
}

/** "Lei 406/2001, Art. 15" linked to its law page (a new tab), or null without a slug. */
export function citationLink(citation) {
  const href = lawHref(citation);
  return href ? el("a", { class: "cite", href, target: "_blank", rel: "noopener" },
    `${citation.law}, ${citation.article}`) : null;
}

/** 2026-11-30 (or an ISO moment) → 30/11/2026. */
export function formatDate(iso) {
  if (!iso) return "—";
  const [y, m, d] = String(iso).slice(0, 10).split("-");
  return d && m && y ? `${d}/${m}/${y}` : String(iso);
}

/** An ISO moment in the phone's time: 30/11/2026 17:05. */
export function formatDateTime(iso) {
  if (!iso) return "—";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  const pad = (n) => String(n).padStart(2, "0");
  return `${pad(d.getDate())}/${pad(d.getMonth() + 1)}/${d.getFullYear()} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** "1 vistoria", "2 vistorias". */
export function plural(n, one, many) {
  return `${n} ${n === 1 ? one : many}`;
}

/** Whether a last valid day (ISO) is before the phone's today: "vencido". The one date check
 * of the result card's expiry lines and of the standing judged today (situation.js). */
export function expired(iso) {
  const days = daysUntil(iso);
  return days !== null && days < 0;
}

/** The ISO day `days` after an ISO date (or datetime: its day). */
export function addDays(iso, days) {
  const day = new Date(Date.parse(String(iso).slice(0, 10) + "T00:00:00Z") + days * 86400000);
  return day.toISOString().slice(0, 10);
}

/** The ISO day `months` after an ISO date, on the month's last day when it has no such day
 * (31/01 + 1 month = 28 or 29/02), as the engine's add_months. */
export function addMonths(iso, months) {
  const [y, m, d] = String(iso).slice(0, 10).split("-").map(Number);
  const total = m - 1 + months;
  const year = y + Math.floor(total / 12);
  const month = (total % 12) + 1;
  const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return `${year}-${String(month).padStart(2, "0")}-${String(Math.min(d, last)).padStart(2, "0")}`;
}

/** Days from today to an ISO date (negative when past). */
export function daysUntil(iso) {
  if (!iso) return null;
  const day = Date.parse(String(iso).slice(0, 10) + "T00:00:00Z");
  const now = new Date();
  const today = Date.UTC(now.getFullYear(), now.getMonth(), now.getDate());
  return Math.round((day - today) / 86400000);
}
