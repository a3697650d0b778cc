// The banner at the top of the result card: the worst situation of what was scanned, in
// words an agent reads at a glance in the sun (colour AND text, never colour alone).
//   - a rider's vest QR: that rider and every vehicle they are linked to;
//   - a vehicle QR or a plate search: the vehicle. Nobody can tell from a code who is
//     riding, so no driver makes the vehicle's banner worse (as on the passenger page,
//     inspector/services/passenger_view.py); the banner says instead that only a registered
//     driver may drive (the law's article, when the snapshot's checklist carries it) and
//     names the linked drivers who may not drive today.
// A revoked or expired credential is irregular too. Suspended beats irregular beats an
// unknown standing beats regular, every reason kept (passenger_view._combine).
// A vehicle's standing is the server's verdict for the day of the last refresh: the phone
// judges its dated facts again today (standingToday), so days offline never leave a green
// REGULAR next to a licence that expired meanwhile.

import { citationLink, daysUntil, el, expired, formatDate } from "./ui.js";

const TITLES = { regular: "REGULAR", irregular: "IRREGULAR", suspended: "SUSPENSO", unknown: "SEM SITUAÇÃO" };
const TONES = { regular: "ok", irregular: "bad", suspended: "bad", unknown: "warn" };
const ORDER = ["suspended", "irregular", "unknown", "regular"];
const STANDING_WORD = { irregular: "IRREGULAR", suspended: "SUSPENSO", unknown: "SEM SITUAÇÃO" };
const REGISTRATION_STATUS = { active: "ativo", suspended: "SUSPENSO", revoked: "CASSADO" };

/** A driver's registration status in words ("registro CASSADO"), never the snapshot's raw
 * value (active | suspended | revoked): one the app does not know reads as such, in Portuguese. */
export function registrationText(status) {
  return REGISTRATION_STATUS[status] ? `registro ${REGISTRATION_STATUS[status]}`
    : "registro em situação não reconhecida pelo aparelho";
}

function untilText(until) {
  if (until === undefined) return "";
  return until ? ` até ${formatDate(until)}` : ", sem data de fim";
}

/** What keeps a driver from driving today, from the snapshot's row: [{state, text, until}]. */
export function driverProblems(driver) {
  const out = [];
  if (driver.status === "suspended") {
    out.push({ state: "suspended", text: `SUSPENSO${untilText(driver.suspended_until)}`, until: driver.suspended_until });
  } else if (driver.status && driver.status !== "active") {
    out.push({ state: "irregular", text: registrationText(driver.status) });
  }
  if (driver.registration_expiry && expired(driver.registration_expiry)) {
    out.push({ state: "irregular", text: `registro VENCIDO em ${formatDate(driver.registration_expiry)}` });
  }
  if (driver.cnh_expiry && expired(driver.cnh_expiry)) {
    out.push({ state: "irregular", text: `CNH VENCIDA em ${formatDate(driver.cnh_expiry)}` });
  }
  return out;
}

// The server's warnings about a vehicle's dated facts (rules/engine.py `_due`, `age_warning`:
// sent with the fact's day, `due_on`, and the law's article) and what each becomes once that
// day has passed: the finding the server itself would make today (`rule`), in its words.
const LAPSES = {
  "licence.due": { rule: "licence.expired", label: "Alvará", word: "vencido" },
  "permit.due": { rule: "permit.expired", label: "Permissão", word: "vencida" },
  "insurance.due": { rule: "insurance.lapsed", label: "Seguro obrigatório", word: "vencido" },
  "vistoria.due": { rule: "vistoria.overdue", label: "Vistoria", word: "vencida" },
  "vehicle.age.due": { rule: "vehicle.age", label: "Veículo", age: true },
};
const SINCE_REFRESH = "depois da última atualização dos dados do aparelho";

function lapseMessage(warning, lapse) {
  const day = formatDate(warning.due_on);
  if (lapse.age) {
    const made = /fabricado em \d{4}/.exec(warning.message || "");
    return `Veículo ${made ? made[0] + " " : ""}atingiu o limite de idade em ${day}, ${SINCE_REFRESH}`;
  }
  const named = /^(.+?) vence em /.exec(warning.message || ""); // "Alvará AL-12 vence em …"
  return `${named ? named[1] : lapse.label} ${lapse.word} em ${day}, ${SINCE_REFRESH}`;
}

function coveredToday(rule, insurance) {
  // a policy that starts where the old one ends (already in the registry) covers today
  return rule === "insurance.due" && (insurance || []).some((p) => p && p.valid_from
    && daysUntil(p.valid_from) <= 0 && p.valid_until && !expired(p.valid_until));
}

/** The licence on the phone ended since the refresh though the verdict never mentions it (it
 * warns only 30 days ahead; every law in force asks for a licence, the verdict says which
 * article): the phone cannot judge it, so SEM SITUAÇÃO, never REGULAR beside "(vencido)". */
function unmentionedLicence(standing, licence) {
  if (!licence || licence.status !== "active" || !licence.valid_until || !expired(licence.valid_until)) return [];
  const said = [...(standing.reasons || []), ...(standing.warnings || [])]
    .some((r) => String((r && r.rule_id) || "").startsWith("licence."));
  if (said) return [];
  return [{ rule_id: "licence.expired", citation: null, severity: "unknown", due_on: licence.valid_until,
    since_refresh: true, message: `${`Alvará ${licence.number || ""}`.trim()} vencido em `
      + `${formatDate(licence.valid_until)}, ${SINCE_REFRESH}: atualize os dados para saber a situação` }];
}

/**
 * A vehicle's standing judged today. The snapshot's `standing` is the server's verdict for the
 * day of the last refresh (`standing_on`); it warns of every licence, permit, insurance, vistoria
 * and age limit falling due within 30 days after that day (never before it). A warning whose day
 * has passed on the phone's clock has therefore passed since the refresh: it becomes a reason
 * (the document, the day, the law's article) and the vehicle is IRREGULAR, as the server would
 * say today. `docs`: the vehicle's rows on the phone, when known: `insurance` (policies: a
 * renewal in force today keeps it covered) and `licence` (ended since the refresh without a
 * warning: SEM SITUAÇÃO). Answers the stored row itself when nothing passed.
 */
export function standingToday(standing, docs = {}) {
  if (!standing || !standing.status) return standing || null;
  const { insurance = null, licence = null } = docs || {};
  const lapsed = [];
  const warnings = [];
  for (const w of standing.warnings || []) {
    const lapse = LAPSES[w.rule_id];
    const passed = lapse && w.due_on && (lapse.age ? daysUntil(w.due_on) <= 0 : expired(w.due_on));
    if (passed && !coveredToday(w.rule_id, insurance)) {
      lapsed.push({ rule_id: lapse.rule, message: lapseMessage(w, lapse), citation: w.citation || null,
        severity: "violation", due_on: w.due_on, since_refresh: true });
    } else {
      warnings.push(w);
    }
  }
  const unknown = unmentionedLicence(standing, licence);
  if (!lapsed.length && !unknown.length) return standing;
  const reasons = [...(standing.reasons || []), ...lapsed, ...unknown];
  if (!lapsed.length && standing.status !== "regular") return { ...standing, reasons };
  return { ...standing, status: lapsed.length ? "irregular" : "unknown", suspended_until: null, warnings, reasons };
}

function citeText(citation) {
  return citation && citation.law ? `${citation.law}, ${citation.article}` : "";
}

function vehicleProblems(vehicle, stored, docs) {
  const plate = vehicle.plate || "sem placa";
  const standing = standingToday(stored, docs);
  if (!standing || !standing.status) {
    return [{ state: "unknown", text: `Veículo ${plate}: situação não está nos dados do aparelho` }];
  }
  if (standing.status === "regular") return [];
  const why = (standing.reasons || []).map((r) => (typeof r === "string" ? { message: r } : r))
    .filter((r) => r.message);
  const word = STANDING_WORD[standing.status] || standing.status.toUpperCase();
  const until = standing.status === "suspended" ? untilText(standing.suspended_until) : "";
  const head = `Veículo ${plate} ${word}${until}`;
  // what passed since the refresh names the law's article (the server's own reasons are as sent)
  const reasons = why.map((r) => ({ message: r.message, citation: r.since_refresh && citeText(r.citation) ? r.citation : null }));
  const cited = (r) => (r.citation ? ` (${citeText(r.citation)})` : "");
  const state = standing.status === "suspended" || standing.status === "unknown" ? standing.status : "irregular";
  return [{ state, head, reasons,
    text: `${head}${reasons.length ? ": " + reasons.map((r) => r.message + cited(r)).join("; ") : ""}`,
    until: standing.status === "suspended" ? standing.suspended_until : undefined }];
}

/** A banner line: its text, with the articles it names linked to their offline law pages. */
function lineContent(line) {
  if (!line.reasons || !line.reasons.some((r) => r.citation)) return line.text;
  return [`${line.head}: `, ...line.reasons.map((r, i) => [i ? "; " : "", r.message,
    r.citation ? [" (", citationLink(r.citation) || citeText(r.citation), ")"] : []])].flat(Infinity);
}

function credentialProblems(verification) {
  if (!verification) return [];
  if (verification.verdict === "revoked") return [{ state: "irregular", text: "Credencial CANCELADA" }];
  if (verification.verdict === "expired") {
    return [{ state: "irregular", text: `Credencial VENCIDA em ${formatDate(verification.claims && verification.claims.expiresOn)}` }];
  }
  return [];
}

/** The banner's content: {state, title, lines, rule, barred}. `scan` comes from
 * registry.scanContext: {rider, vehicles: [{vehicle, standing, docs?}], drivers, driverRule}. */
export function situationOf(scan, verification = null) {
  const lines = [...credentialProblems(verification)];
  if (scan.rider) {
    lines.push(...driverProblems(scan.rider).map((p) => ({ ...p, text: `Condutor ${p.text} — ${scan.rider.name}` })));
  }
  for (const { vehicle, standing, docs } of scan.vehicles) lines.push(...vehicleProblems(vehicle, standing, docs));
  const state = ORDER.find((s) => lines.some((l) => l.state === s)) || "regular";
  let title = TITLES[state];
  const bad = lines.filter((l) => l.state !== "unknown");
  if (state === "suspended" && bad.every((l) => l.state === "suspended" && l.until)) {
    title += ` até ${formatDate(bad.map((l) => l.until).sort().pop())}`; // every suspension ends
  }
  // a vehicle QR or a plate: who may not drive it today, without saying who is aboard
  const barred = scan.rider ? [] : (scan.drivers || [])
    .map((d) => ({ driver: d, problems: driverProblems(d) })).filter((x) => x.problems.length);
  return { state, title, lines, rule: scan.rider ? null : scan.driverRule, barred,
    allowed: scan.rider ? null : (scan.drivers || []).length - barred.length };
}

function ruleLine(rule) {
  const cite = rule && rule.law ? `${rule.law}, ${rule.article}` : "";
  return el("p", { class: "situation-rule" },
    "A lei só permite conduzir com registro em dia: confira o documento de quem está conduzindo",
    cite ? " (" : "", cite ? citationLink(rule) || cite : "", cite ? ")." : ".");
}

/** The banner element at the top of the result card. */
export function situationBanner(scan, verification = null) {
  const s = situationOf(scan, verification);
  const subject = scan.rider ? "Condutor e veículo" : "Veículo";
  return el("section", { class: `situation situation-${TONES[s.state]}`, dataset: { situation: s.state },
    role: "alert", "aria-label": `Situação: ${s.title}` },
    el("p", { class: "situation-title" }, s.title),
    s.lines.length
      ? el("ul", { class: "situation-lines" }, s.lines.map((l) => el("li", { dataset: { state: l.state } }, lineContent(l))))
      : el("p", { class: "situation-lines" }, `${subject} em dia nos dados do aparelho.`),
    s.rule ? ruleLine(s.rule) : null,
    s.barred.length
      ? el("p", { class: "situation-barred" }, "Não podem conduzir hoje: ",
        s.barred.map((x) => `${x.driver.name} (${x.problems.map((p) => p.text).join(", ")})`).join("; "),
        s.allowed === 0 ? ". Nenhum condutor vinculado pode conduzir." : ".")
      : null);
}
