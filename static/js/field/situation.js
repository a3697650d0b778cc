// The banner at the top of the result card: the worst situation of what was scanned, in
// words an agent reads at a glance in the sun (colour AND text, never colour alone).
//   - a rider's vest QR: that rider and every vehicle they are linked to;
//   - a vehicle QR or a plate search: the vehicle. Nobody can tell from a code who is
//     riding, so no driver makes the vehicle's banner worse (as on the passenger page,
//     inspector/passenger/view.py); the banner says instead that only a registered
//     driver may drive (the law's article, when the snapshot's checklist carries it) and
//     names the linked drivers who may not drive today.
// A revoked or expired credential is irregular too, and so is a genuine one behind an address
// that is not the official one (verify.js: a swapped sticker). Suspended beats irregular beats an
// unknown standing beats regular, every reason kept (passenger_view._combine).
// A vehicle's standing is the server's verdict for the day of the last refresh: the phone
// judges every dated requirement the law makes (the snapshot's `checklists[].requirements`)
// again today from the rows (standingToday), so days offline never leave a green REGULAR next
// to a document that expired meanwhile, nor a SUSPENSO whose last day is over.

import { addDays, addMonths, citationLink, daysUntil, el, expired, formatDate } from "./ui.js";
import { foreignHostText } from "./verify.js";

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

const SINCE_REFRESH = "depois da última atualização dos dados do aparelho";
const DUE_SOON_DAYS = 30; // the server's warnings (rules/engine.py DUE_SOON_DAYS)

function cite(requirement) {
  return (requirement && requirement.citation && requirement.citation.law) ? requirement.citation : null;
}

function ended(row) {
  // a suspension whose last day is over: `enforcement tick` lifts it on the server
  return row.status === "suspended" && !!row.suspended_until && expired(row.suspended_until);
}

/** An expired registration, the engine's _registration: where the law gives days to revalidate
 * it (`requirements.registration_grace`), cancelled automatically once they are over. */
function expiredRegistration(expiry, req) {
  const grace = req && req.registration_grace;
  const lapsed = `registro VENCIDO em ${formatDate(expiry)}`;
  if (!grace) {
    return { rule_id: "driver.registration.expired", state: "irregular", text: lapsed,
      citation: cite(req && req.driver_registration) };
  }
  const cancel = addDays(expiry, grace.days); // the last day it may still be revalidated
  const cancelled = addDays(cancel, 1); // the day it is cancelled: the day a message names
  const text = expired(cancel)
    ? `registro CANCELADO automaticamente em ${formatDate(cancelled)}: não revalidado em até ${grace.days} dias do vencimento`
    : `${lapsed}; sem revalidação até ${formatDate(cancel)} será CANCELADO em ${formatDate(cancelled)}`;
  const rule_id = expired(cancel) ? "driver.registration.cancelled" : "driver.registration.expired";
  return { rule_id, state: "irregular", text, citation: cite(grace) };
}

/** What keeps a driver from driving today, from the snapshot's row, judged on the phone's day:
 * [{rule_id, state, text, until, citation}], rule_id the engine's (rules/engine.py
 * driver_rule_violations: the checklist's `registry_findings` name them). `req`: the law's
 * requirements for the driver's service (`checklists[].requirements`, registry.requirementsFor):
 * each problem cites its article, and the CNH category the law asks is checked. A suspension
 * whose last day is over no longer bars. */
export function driverProblems(driver, req = null) {
  const out = [];
  if (driver.status === "suspended" && !ended(driver)) {
    // the act behind it says why, with its article, as the passenger's page does
    const cause = driver.cause || null;
    out.push({ rule_id: "driver.registration.suspended", state: "suspended",
      text: `SUSPENSO${untilText(driver.suspended_until)}${causeWhy(cause)}`, until: driver.suspended_until,
      citation: cause && cause.citation && cause.citation.law ? cause.citation : null });
  } else if (driver.status && driver.status !== "active" && driver.status !== "suspended") {
    // an act behind it: its day, cause and article ("registro CANCELADO em …"), as the engine
    const cause = driver.status === "revoked" ? driver.cause : null;
    const text = cause ? `registro ${cause.cancelled ? "CANCELADO" : "CASSADO"}${causeSince(cause)}` : registrationText(driver.status);
    out.push({ rule_id: driver.status === "revoked" ? "driver.registration.revoked" : "driver.registration",
      state: "irregular", text, citation: (cause && cause.citation && cause.citation.law ? cause.citation : null)
        || cite(req && req.driver_registration) });
  }
  // a revoked registration is ended whatever its day: its expiry is no second reason
  if (driver.registration_expiry && expired(driver.registration_expiry) && driver.status !== "revoked") {
    out.push(expiredRegistration(driver.registration_expiry, req));
  }
  if (driver.cnh_expiry && expired(driver.cnh_expiry) && (!req || req.cnh)) {
    out.push({ rule_id: "driver.cnh.expired", state: "irregular", text: `CNH VENCIDA em ${formatDate(driver.cnh_expiry)}`,
      citation: cite(req && req.cnh) });
  }
  const need = req && req.cnh_category && String(req.cnh_category.category || "").toUpperCase();
  if (need && driver.cnh_category && !String(driver.cnh_category).toUpperCase().includes(need)) {
    out.push({ rule_id: "driver.cnh.category", state: "irregular", text: `CNH categoria ${driver.cnh_category}: é exigida a categoria ${need}`,
      citation: cite(req.cnh_category) });
  }
  return out;
}

// ---- a vehicle's dated requirements, judged on the phone's day ---------------------------------
// One rule per requirement, the engine's (rules/engine.py vehicle_document_violations, _insurance,
// vistoria_end, vehicle_limit_violations' age): the server says in the snapshot what the law
// requires and cites it (`checklists[].requirements`); the phone only compares the rows' dates.

function finding(rule_id, message, requirement, extra = {}) {
  return { rule_id, message, citation: cite(requirement), severity: "violation", ...extra };
}

function dueSoon(rule_id, message, requirement, day) {
  const days = daysUntil(day);
  return days !== null && days >= 0 && days <= DUE_SOON_DAYS
    ? [finding(rule_id, message.replace("{date}", formatDate(day)), requirement, { severity: "warning", due_on: day })] : [];
}

/** The requirement whose article answers for one finding: an Alvará's validity or sanction
 * article, a permit's sanction article (a suspended or revoked permit, where the law names one),
 * where the snapshot gives it (the engine's vehicle_document_violations), else the article that
 * requires the document. */
function citedBy(req, which) {
  const citation = req && req[which];
  return citation && citation.law ? { citation } : req;
}

/** The act behind a row's suspension or revocation (the snapshot's `cause`, laws/causes.py):
 * its article answers for the finding, as the engine's _cause_cite. */
function causeCited(row, fallback) {
  const c = row.cause && row.cause.citation;
  return c && c.law ? { citation: c } : fallback;
}

/** " em 06/12/2026 (seguro … vencido)" for a revocation an act made (engine's _since). */
export function causeSince(cause) {
  return cause ? ` em ${formatDate(cause.on)} (${cause.words})` : "";
}

/** " (caixa luminosa ausente)" for a suspension an act decided (engine's _why). */
export function causeWhy(cause) {
  return cause ? ` (${cause.words})` : "";
}

const NOUNS = { mototaxi: "moto-táxi", taxi: "táxi" };

/** A licence or permit: the engine's reading of its status and days. A company's permit that
 * does not hold stops every vehicle of the company (engine's _permit_fall). */
function documentFindings(kind, row, req, label, word, missing, service = null) {
  if (!row) return [missing];
  const name = `${label} ${row.number || ""}`.trim();
  const sanction = causeCited(row, citedBy(req, "sanction_citation"));
  const fall = (state, until) => (kind === "permit" && row.company
    ? `${name} da empresa ${row.company} ${state}: nenhum ${NOUNS[service] || "veículo"} da empresa pode circular${until}`
    : `${name} ${state}`);
  if (row.status === "revoked") {
    const ended = row.cause && row.cause.cancelled ? word.cancelled : word.revoked;
    return [finding(`${kind}.revoked`, fall(`${ended}${causeSince(row.cause)}`, ""), sanction)];
  }
  if (row.status === "suspended" && !ended(row)) {
    const until = row.suspended_until ? ` até ${formatDate(row.suspended_until)}` : "";
    return [finding(`${kind}.suspended`, fall(`${word.suspended}${until}${causeWhy(row.cause)}`, until),
      sanction, { effect: "suspended", due_on: row.suspended_until || null })];
  }
  const validity = citedBy(req, "validity_citation");
  const out = ended(row) ? [finding(`${kind}.suspension_ended`, `${name}: suspensão terminou em ${formatDate(row.suspended_until)}`,
    req, { severity: "warning", due_on: row.suspended_until })] : [];
  if (row.valid_until && expired(row.valid_until)) {
    out.push(finding(`${kind}.expired`, `${name} ${word.expired} em ${formatDate(row.valid_until)}`, validity, { due_on: row.valid_until }));
  } else if (row.valid_from && daysUntil(row.valid_from) > 0) {
    out.push(finding(`${kind}.not_yet_valid`, `${name} só vale a partir de ${formatDate(row.valid_from)}`, req));
  } else if (row.valid_until) {
    out.push(...dueSoon(`${kind}.due`, `${name} vence em {date}`, validity, row.valid_until));
  }
  return out;
}

function insuranceFindings(policies, req) {
  const rows = (policies || []).filter((p) => p && p.valid_from && p.valid_until);
  const covering = rows.filter((p) => daysUntil(p.valid_from) <= 0 && !expired(p.valid_until));
  if (covering.length) {
    const until = covering.map((p) => p.valid_until).sort().pop();
    return dueSoon("insurance.due", "Seguro obrigatório vence em {date}", req, until);
  }
  const past = rows.filter((p) => expired(p.valid_until)).map((p) => p.valid_until).sort();
  if (past.length) {
    const until = past[past.length - 1];
    return [finding("insurance.lapsed", `Seguro obrigatório vencido em ${formatDate(until)}`, req, { due_on: until })];
  }
  return [finding("insurance.missing", "Sem seguro obrigatório em vigor", req)];
}

function vistoriaFindings(vehicle, req) {
  const last = vehicle.last_vistoria_on;
  if (!last && req.prior_citation) {
    // the law licenses only after a vistoria: none on record is not in order (the engine's)
    return [finding("vistoria.missing", "Nenhuma vistoria registrada: a lei exige vistoria do veículo para licenciá-lo e mantê-lo em circulação",
      { citation: req.prior_citation })];
  }
  if (!last) return [finding("vistoria.missing", "Nenhuma vistoria registrada", req, { severity: "warning" })];
  if (!req.months) return [];  // a vistoria with no period of its own (Nortelândia 030)
  let due = addMonths(last, req.months);
  let rule = req;
  const short = vehicle.vistoria_valid_until; // shortened at the vistoria, where the law allows it
  if (short && req.shortened_citation && short > String(last).slice(0, 10) && short < due) {
    due = short;
    rule = { citation: req.shortened_citation };
  }
  const how = rule === req ? "" : " (validade reduzida na vistoria)";
  if (expired(due)) {
    return [finding("vistoria.overdue", `Vistoria vencida desde ${formatDate(due)}${how} (a última foi em ${formatDate(last)})`,
      rule, { due_on: due })];
  }
  return dueSoon("vistoria.due", `Vistoria vence em {date}${how}`, rule, due);
}

/** The same day and month `years` later; 29/02 without it ends on 01/03 (Lei 810/1949 Art. 3º),
 * as the engine's add_years. */
function addYears(iso, years) {
  const [y, m, d] = String(iso).slice(0, 10).split("-").map(Number);
  const day = new Date(Date.UTC(y + years, m - 1, d));
  return day.getUTCMonth() === m - 1 ? day.toISOString().slice(0, 10) : `${y + years}-03-01`;
}

/** When the vehicle passes the age limit, as the engine's age_limit (DOMAIN "completarem N anos
 * de fabricação" / "anos de uso"): from the manufacture day, or the first licensing where the
 * law counts use, the day after the Nth anniversary; with only the year, 1 January of year + N + 1. */
function ageLimit(vehicle, req) {
  const use = req.counts_use && vehicle.first_licensed_on;
  const since = use ? vehicle.first_licensed_on : vehicle.manufactured_on;
  if (since) {
    return { out: addDays(addYears(since, req.limit_years), 1),
      basis: use ? `Veículo em uso desde ${formatDate(since)}` : `Veículo fabricado em ${formatDate(since)}` };
  }
  const made = Number(vehicle.year_of_manufacture);
  return made ? { out: `${made + req.irregular_at_age}-01-01`, basis: `Veículo fabricado em ${made}` } : null;
}

function ageFindings(vehicle, req) {
  const limit = ageLimit(vehicle, req);
  if (!limit) return [];
  if (daysUntil(limit.out) <= 0) {
    return [finding("vehicle.age", `${limit.basis} atingiu o limite de idade (${req.limit_years} anos) em ${formatDate(limit.out)}`,
      req, { due_on: limit.out })];
  }
  return dueSoon("vehicle.age.due", `${limit.basis} atinge o limite de idade em {date}`, req, limit.out);
}

// requirement -> (the rows, the law's requirement) -> findings; the server's findings of the
// same requirement (rule_id prefix) are replaced by these
const REQUIREMENTS = {
  licence: (f, req) => documentFindings("licence", f.licence, req, "Alvará",
    { revoked: "cassado", cancelled: "cancelado", suspended: "suspenso", expired: "vencido" },
    finding("licence.missing", "Veículo sem alvará registrado", req)),
  permit: (f, req) => documentFindings("permit", f.permit, req, "Permissão",
    { revoked: "cassada", cancelled: "cancelada", suspended: "suspensa", expired: "vencida" },
    finding("permit.missing", "Sem permissão (termo de permissão ou autorização) registrada", req, { severity: "warning" }),
    f.vehicle && f.vehicle.service),
  insurance: (f, req) => insuranceFindings(f.insurance, req),
  vistoria: (f, req) => vistoriaFindings(f.vehicle, req),
  vehicle_age: (f, req) => ageFindings(f.vehicle, req),
};

function requirementOf(ruleId) {
  const id = String(ruleId || "");
  if (id.startsWith("vehicle.age")) return "vehicle_age";
  const head = id.split(".")[0];
  return head in REQUIREMENTS && head !== "vehicle_age" ? head : null;
}

function statusOf(reasons) {
  if (!reasons.length) return "regular";
  return reasons.every((r) => r.effect === "suspended" || /\.suspended$/.test(String(r.rule_id || ""))) ? "suspended" : "irregular";
}

function suspendedUntil(reasons) {
  const ends = reasons.map((r) => r.due_on || null);
  return ends.every(Boolean) ? ends.sort().pop() : null;
}

/**
 * A vehicle's standing judged today. The snapshot's `standing` is the server's verdict for the
 * day of the last refresh. `facts`: the vehicle's rows on the phone (registry.vehicleFacts:
 * `vehicle`, `licence`, `permit`, `insurance` policies) and `requirements`, what the law in
 * force requires (the snapshot's checklist of the service). Every requirement the law makes is
 * judged again on the phone's day, from the rows, with its article; the server's findings of
 * those requirements are replaced, its others (engine size, doors...) kept. A finding the
 * verdict did not hold is marked `since_refresh` ("…, depois da última atualização…").
 * Without requirements (a snapshot from before they were sent) or rows, a date the verdict
 * named that has passed makes it SEM SITUAÇÃO: the phone cannot say which article applies.
 */
export function standingToday(standing, facts = null) {
  if (!standing || !standing.status) return standing || null;
  const req = facts && facts.requirements;
  if (!req || !facts.vehicle) return unjudged(standing);
  const held = new Set([...(standing.reasons || [])].map((r) => r && r.rule_id));
  const judged = [];
  for (const [name, judge] of Object.entries(REQUIREMENTS)) {
    if (req[name]) judged.push(...judge(facts, req[name]));
  }
  const mine = (r) => r && typeof r === "object" && requirementOf(r.rule_id) !== null
    && requirementOf(r.rule_id) in req;
  const worded = (r) => {
    const since = r.severity === "violation" && !held.has(r.rule_id) || r.rule_id.endsWith(".suspension_ended");
    return { ...r, since_refresh: since, message: `${r.message}${since ? `, ${SINCE_REFRESH}` : "."}` };
  };
  const reasons = [...(standing.reasons || []).filter((r) => !mine(r)),
    ...judged.filter((r) => r.severity === "violation").map(worded)];
  const warnings = [...(standing.warnings || []).filter((w) => !mine(w)),
    ...judged.filter((r) => r.severity !== "violation").map(worded)];
  const status = statusOf(reasons);
  return { ...standing, status, reasons, warnings,
    suspended_until: status === "suspended" ? suspendedUntil(reasons) : null };
}

function unjudged(standing) {
  const passed = (standing.warnings || []).filter((w) => w && w.due_on && expired(w.due_on));
  if (!passed.length) return standing;
  const reasons = [...(standing.reasons || []), ...passed.map((w) => ({ rule_id: w.rule_id, citation: null,
    due_on: w.due_on, since_refresh: true,
    message: `${String(w.message || "").replace(/\.$/, "")}: o dia passou ${SINCE_REFRESH}; atualize os dados para saber a situação` }))];
  const warnings = (standing.warnings || []).filter((w) => !passed.includes(w));
  return { ...standing, status: "unknown", suspended_until: null, warnings, reasons };
}

/** What the registry on the phone already knows against a vehicle today and the driver the
 * agent faces (the scanned rider, else the only linked one), as the card says it:
 * [{rule_id, message, citation}] for the checklist to pre-mark its items (inspection.js). */
export function knownFailures(details, riderId = null) {
  const standing = standingToday(details.standing, details.facts);
  const out = ((standing && standing.reasons) || []).filter((r) => r && typeof r === "object" && r.message)
    .map((r) => ({ rule_id: r.rule_id, citation: r.citation,
      message: String(r.message).replace(`, ${SINCE_REFRESH}`, "").replace(/\.$/, "") }));
  const drivers = details.drivers || [];
  const driver = drivers.find((d) => d.id === riderId) || (drivers.length === 1 ? drivers[0] : null);
  const req = details.facts && details.facts.requirements;
  for (const p of driver ? driverProblems(driver, req) : []) {
    out.push({ rule_id: p.rule_id, citation: p.citation || null, message: `Condutor ${driver.name}: ${p.text}` });
  }
  return out;
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
  // every reason with its article, its words without the "." a
  // sentence ends with, so reasons join as "a (Art. 1); b (Art. 2)", never ".;"
  const reasons = why.map((r) => ({ message: String(r.message).trim().replace(/[.;]+$/, ""),
    citation: citeText(r.citation) ? r.citation : null }));
  const cited = (r) => (r.citation ? ` (${citeText(r.citation)})` : "");
  const state = standing.status === "suspended" || standing.status === "unknown" ? standing.status : "irregular";
  return [{ state, head, reasons,
    text: `${head}${reasons.length ? ": " + reasons.map((r) => r.message + cited(r)).join("; ") : ""}`,
    until: standing.status === "suspended" ? standing.suspended_until : undefined }];
}

/** A banner line: its text, with the articles it names linked to their offline law pages. */
function lineContent(line) {
  if (line.citation && line.tail !== undefined) {
    return [line.head, " (", citationLink(line.citation) || citeText(line.citation), ")", line.tail];
  }
  const reason = (r) => [r.message, r.citation ? [" (", citationLink(r.citation) || citeText(r.citation), ")"] : []];
  if (line.reasons && line.reasons.length > 1) { // one reason a line, read at a glance
    return [`${line.head}:`, el("ul", { class: "situation-reasons" },
      line.reasons.map((r) => el("li", {}, ...reason(r).flat(Infinity))))];
  }
  if (!line.reasons || !line.reasons.some((r) => r.citation)) return line.text;
  return [`${line.head}: `, ...line.reasons.map(reason)].flat(Infinity);
}

function credentialProblems(verification) {
  if (!verification) return [];
  const out = [];
  if (verification.verdict === "wrong_host") out.push({ state: "irregular", text: foreignHostText(verification.host) });
  const verdict = verification.verdict === "wrong_host" ? verification.tokenVerdict : verification.verdict;
  if (verdict === "revoked") out.push({ state: "irregular", text: "Credencial CANCELADA" });
  if (verdict === "expired") {
    out.push({ state: "irregular", text: `Credencial VENCIDA em ${formatDate(verification.claims && verification.claims.expiresOn)}` });
  }
  return out.map((line) => ({ ...line, subject: "credential" }));
}

/** The banner's content: {state, title, lines, rule, barred}; each line says whose it is
 * (`subject`: "credential", "rider" with its `problem`, "vehicle" with its `vehicle`), so the
 * card's boxes below say the same of the same subject (card.js). `scan` comes from
 * registry.scanContext: {rider, vehicles: [{vehicle, standing, docs?}], drivers, driverRule}. */
export function situationOf(scan, verification = null) {
  const lines = [...credentialProblems(verification)];
  if (scan.rider) {
    lines.push(...driverProblems(scan.rider, scan.riderRequirements).map((p) => ({ ...p, subject: "rider", problem: p.text,
      head: `Condutor ${p.text}`, tail: ` — ${scan.rider.name}`,
      text: `Condutor ${p.text}${p.citation ? ` (${citeText(p.citation)})` : ""} — ${scan.rider.name}` })));
  }
  for (const { vehicle, standing, docs } of scan.vehicles) {
    lines.push(...vehicleProblems(vehicle, standing, docs).map((l) => ({ ...l, subject: "vehicle", vehicle })));
  }
  const state = ORDER.find((s) => lines.some((l) => l.state === s)) || "regular";
  let title = TITLES[state];
  const bad = lines.filter((l) => l.state !== "unknown");
  if (state === "suspended" && bad.every((l) => l.state === "suspended" && l.until)) {
    title += ` até ${formatDate(bad.map((l) => l.until).sort().pop())}`; // every suspension ends
  }
  // a vehicle QR or a plate: who may not drive it today, without saying who is aboard
  const barred = scan.rider ? [] : (scan.drivers || [])
    .map((d) => ({ driver: d, problems: driverProblems(d, scan.driverRequirements) })).filter((x) => x.problems.length);
  return { state, title, lines, rule: scan.rider ? null : scan.driverRule, barred,
    allowed: scan.rider ? null : (scan.drivers || []).length - barred.length };
}

function ruleLine(rule) {
  const cite = rule && rule.law ? `${rule.law}, ${rule.article}` : "";
  return el("p", { class: "situation-rule" },
    "A lei só permite conduzir com registro em dia: confira o documento de quem está conduzindo",
    cite ? " (" : "", cite ? citationLink(rule) || cite : "", cite ? ")." : ".");
}

/** The banner element at the top of the result card: the one verdict box; `extra` (the scanned
 * code's own line, card.js) goes inside it, never as a second box. */
export function situationBanner(scan, verification = null, extra = null) {
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
      : null,
    extra);
}
