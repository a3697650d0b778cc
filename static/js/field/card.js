// The result card: what the agent needs to decide on the spot about a vehicle — on top,
// the worst situation of what was scanned (situation.js), then
// the scanned code's verdict, the vehicle, its driver(s), status and why, expiry dates,
// the last inspection and open notices. Built from the snapshot on the phone.

import { citationLink, daysUntil, el, expired, formatDate, formatDateTime, plural } from "./ui.js";
import { registrationText, situationBanner, situationOf, standingToday } from "./situation.js";
import { documentText, driverDocuments, rejectedVistoria, vehicleDocuments } from "./standing.js";
import { VERDICTS } from "./verify.js";

const STANDING = {
  regular: ["REGULAR", "ok"],
  irregular: ["IRREGULAR", "bad"],
  suspended: ["SUSPENSO", "bad"],
};
const CATEGORY = { autonomo: "Taxista autônomo", auxiliar: "Motorista auxiliar", mototaxista: "Mototaxista" };
const SERVICE = { taxi: "Táxi", mototaxi: "Moto-táxi" }; // as the site's (law_pages.SERVICE_LABELS)

/** A vehicle's service in words ("Moto-táxi"), never the registry's code; `lower` for the
 * middle of a line ("moto-táxi"). */
export function serviceLabel(service, { lower = false } = {}) {
  const label = SERVICE[service] || (service ? "serviço não reconhecido pelo aparelho" : "");
  return lower ? label.toLowerCase() : label;
}
const INSPECTION_STATUS = { incomplete: "aguardando fotos", awaiting_review: "aguardando revisão", reviewed: "revisada" };
// an expired credential is a red reason in the banner too (situation.js credentialProblems)
const VERDICT_TONE = { valid: "ok", forged: "bad", revoked: "bad", expired: "bad", unknown: "warn",
  other_town: "warn", malformed: "warn", wrong_host: "bad" };
const WORDS = { // a date row's words agree with its noun: "Credencial … (vencida)", "Alvará … (vencido)"
  f: { expired: "vencida", cancelled: "cancelada", revoked: "cassada" },
  m: { expired: "vencido", cancelled: "cancelado", revoked: "cassado" },
};

/** A date row: the day, and what it means today, in the gender of its noun (`gender` f | m);
 * `ended` ("cancelled", "revoked") for a row that no longer holds whatever its day. */
function expiry(label, iso, gender, ended = null) {
  const days = daysUntil(iso);
  const gone = expired(iso); // the same check as the standing judged today (situation.js)
  const words = WORDS[gender];
  const tone = ended ? "bad" : days === null ? "" : gone ? "bad" : days <= 30 ? "warn" : "";
  const note = ended ? ` (${words[ended]})` : days === null ? "" : gone ? ` (${words.expired})`
    : days <= 30 ? ` (vence em ${days} dias)` : "";
  return el("li", { class: tone ? `exp-${tone}` : null }, el("span", {}, label), el("strong", {}, formatDate(iso) + note));
}

/** A credential's date row (sticker or badge): "cancelada" when revoked, whatever its day. */
function credentialExpiry(label, credential) {
  return expiry(label, credential.expires_on, "f", credential.status === "revoked" ? "cancelled" : null);
}

/** The scanned credential when it is this subject's (kind "vehicle" | "driver", id), as a row
 * {expires_on, status}: the stored one, else what the token says (not in the phone's data). */
function scannedCredential(verification, kind, id) {
  const claims = verification && verification.claims;
  if (!claims || claims.kind !== kind || claims.subjectId !== id) return null;
  if (verification.verdict === "forged" || verification.verdict === "malformed") return null;
  const verdict = verification.verdict === "wrong_host" ? verification.tokenVerdict : verification.verdict;
  return verification.credential || { expires_on: claims.expiresOn, status: verdict === "revoked" ? "revoked" : "active" };
}

/** "Suspenso até 15/04/2026" for a suspended row (driver, licence: `suspended_until` is its
 * last day, null when it was suspended by hand with no known end; absent in a row stored
 * before the server sent it, until a delta brings the row again: then just "Suspenso"). */
export function suspendedText(until) {
  if (until === undefined) return "Suspenso";
  if (!until) return "Suspenso, sem data de fim";
  const over = expired(until) ? " (já terminou; aguarda baixa no cadastro)" : "";
  return `Suspenso até ${formatDate(until)}${over}`;
}

function standingTitle(standing, label) {
  if (!standing || standing.status !== "suspended" || !standing.suspended_until) return label;
  return `${label} até ${formatDate(standing.suspended_until)}`;
}

/** One open notice or act: number, what is wrong, article, deadline (passed: highlighted). */
function noticeItem(notice, drivers, holder) {
  const overdue = notice.deadline_at && Date.parse(notice.deadline_at) < Date.now();
  const driver = notice.concerns === "driver" && drivers.find((d) => d.id === notice.driver_id);
  const whom = driver ? `Condutor: ${driver.name}` : notice.concerns === "holder" && holder ? `Titular: ${holder.name}` : null;
  return el("li", { class: `notice${overdue ? " overdue" : ""}`, dataset: { notice: notice.id, status: notice.status } },
    el("p", { class: "notice-title" }, el("strong", {}, notice.number ? `${notice.kind_label} nº ${notice.number}` : notice.kind_label),
      ` · ${notice.status_label}${notice.suspended ? " (efeito suspenso por recurso)" : ""}`),
    el("p", {}, notice.what, notice.citation ? " — " : "", citationLink(notice.citation)
      || (notice.citation ? `${notice.citation.law}, ${notice.citation.article}` : "")),
    whom ? el("p", {}, whom) : null,
    notice.awaiting_delivery
      ? el("p", { class: "notice-deadline" }, "Documento ainda não entregue: o prazo começa a contar da entrega")
      : null,
    notice.deadline_at
      ? el("p", { class: overdue ? "notice-deadline exp-bad" : "notice-deadline" },
        `Prazo: ${formatDateTime(notice.deadline_at)}${overdue ? " — VENCIDO" : ""}`)
      : null,
    // how the legal calendar counted it (rule, span, days without office), as the PDF says
    notice.deadline_at && notice.deadline_explain
      ? el("p", { class: "notice-explain" }, notice.deadline_explain) : null,
    notice.appeal_until
      ? el("p", { class: "notice-explain" }, `Recurso até ${formatDate(notice.appeal_until)}`,
        notice.appeal_explain ? ` — ${notice.appeal_explain}` : "") : null);
}

function lastInspectionText(last) {
  if (!last) return "Nenhuma registrada nos dados do aparelho.";
  const when = last.finished_at ? formatDateTime(last.finished_at) : formatDate(last.date);
  const failed = last.failed_items ? ` · ${plural(last.failed_items, "item não conforme", "itens não conformes")}` : " · tudo conforme";
  const status = INSPECTION_STATUS[last.status] ? ` · ${INSPECTION_STATUS[last.status]}` : "";
  return last.finished_at ? `${when}${failed}${status}` : when;
}

const STATE_WORD = { irregular: "está IRREGULAR", suspended: "está SUSPENSO", unknown: "está sem situação nos dados do aparelho" };

/** What keeps a genuine, active credential from meaning "all in order" (the banner's lines):
 * the rider's problems first (a vest badge), else the first vehicle not in order; null if none. */
function notInOrder(situation) {
  const rider = situation.lines.filter((l) => l.subject === "rider");
  if (rider.length) return `o condutor não pode conduzir: ${rider.map((l) => l.problem).join("; ")}`;
  const car = situation.lines.find((l) => l.subject === "vehicle");
  return car ? `o veículo ${car.vehicle.plate || "sem placa"} ${STATE_WORD[car.state] || STATE_WORD.irregular}` : null;
}

/** The verdict banner for a scanned code. With `scan` (registry.scanContext), a genuine credential
 * whose subject is not in order is never a green "Credencial válida": it says what is valid (the
 * credential) and what is not, in the banner's colour. `inside`: a line of the card's one
 * verdict box (situationBanner), not a box of its own. `heading`: its title is the screen's
 * <h1> (a code with no vehicle on the phone: no plate to head the card). */
export function verdictBanner(result, scan = null, { inside = false, heading = false } = {}) {
  let tone = VERDICT_TONE[result.verdict] || "warn";
  let title = VERDICTS[result.verdict] || result.verdict;
  if (result.verdict === "valid" && scan) {
    const situation = situationOf(scan, result);
    const what = situation.state !== "regular" && notInOrder(situation);
    if (what) {
      tone = situation.state === "unknown" ? "warn" : "bad";
      title = `Credencial autêntica, mas ${what}`;
    }
  }
  if (inside) {
    return el("p", { class: `verdict verdict-${tone} verdict-line`, dataset: { verdict: result.verdict } },
      el("strong", { class: "verdict-title" }, title),
      result.reason ? el("span", { class: "verdict-reason" }, ` — ${result.reason}`) : null);
  }
  return el("div", { class: `verdict verdict-${tone}`, dataset: { verdict: result.verdict }, role: "alert" },
    el(heading ? "h1" : "p", { class: "verdict-title" }, title),
    el("p", { class: "verdict-reason" }, result.reason || ""));
}

/** The card for a code that names no vehicle on the phone (another town's credential, a QR
 * that is not a credential, an unknown or forged code): as a vehicle's card has its plate for
 * <h1>, this one has the code's verdict. `scan`: a rider's badge (registry.scanContext), whose
 * situation box holds the verdict's line. */
export function codeCard(verification, scan = null) {
  if (scan) {
    return el("article", { class: "card result" },
      situationBanner(scan, verification, verification ? verdictBanner(verification, scan, { inside: true }) : null),
      scan.rider ? el("h1", { class: "rider-name" }, scan.rider.name) : null);
  }
  return el("article", { class: "card result" }, verification
    ? verdictBanner(verification, null, { heading: true })
    : el("h1", { class: "not-found" }, "Veículo não encontrado"));
}

function driverBlock(driver, verification, req = null) {
  const badge = scannedCredential(verification, "driver", driver.id);
  // a revoked registration: one line, with the act's day, cause and article (standing.js)
  const revoked = driver.status === "revoked"
    ? driverDocuments(driver, req).find((d) => d.kind === "registration") : null;
  return el("li", { class: "driver" },
    driver.photo ? el("img", { src: driver.photo, alt: `Foto de ${driver.name}`, class: "driver-photo" }) : null,
    el("div", {},
      el("p", { class: "driver-name" }, driver.name),
      el("p", {}, [CATEGORY[driver.category] || driver.category, driver.registration_number && `Reg. ${driver.registration_number}`]
        .filter(Boolean).join(" · ")),
      el("ul", { class: "expiries" },
        driver.registration_expiry && !revoked ? expiry("Registro", driver.registration_expiry, "m") : null,
        driver.cnh_expiry ? expiry("CNH", driver.cnh_expiry, "f") : null,
        badge ? credentialExpiry("Credencial (crachá)", badge) : null),
      driver.status === "suspended"
        ? el("p", { class: "exp-bad suspended-until" }, `Registro: ${suspendedText(driver.suspended_until)}`)
        : revoked ? el("p", { class: "exp-bad" }, `Registro ${documentText(revoked)}`)
          : driver.status && driver.status !== "active"
            ? el("p", { class: "exp-bad" }, registrationText(driver.status).replace(/^r/, "R")) : null));
}

/** A reason's words without the "." its sentence ends with (the article follows it). */
function reasonWords(r) {
  return String(typeof r === "string" ? r : r.message || "").trim().replace(/[.;]+$/, "");
}

/**
 * The vehicle's own verdict box, consistent with the banner on top: a credential of this
 * vehicle that does not hold (cancelled, expired, behind another address) makes it IRREGULAR
 * with that reason first; a vehicle in order under a banner that is not (a rider's problem) is
 * said in plain words, never a green "REGULAR" beside a red verdict.
 */
function standingBox(vehicle, standing, situation) {
  const [label, tone] = STANDING[standing && standing.status] || ["SEM SITUAÇÃO", "warn"];
  const own = situation ? situation.lines.filter((l) => l.subject === "credential" && situation.ownCredential) : [];
  const reasons = [...own.map((l) => l.text), ...((standing && standing.reasons) || [])];
  const reasonList = reasons.length ? el("ul", { class: "reasons" }, reasons.map((r) =>
    el("li", {}, reasonWords(r), r.citation && r.citation.law ? [" (", citationLink(r.citation)
      || `${r.citation.law}, ${r.citation.article}`, ")"] : null))) : null;
  const regular = standing && standing.status === "regular";
  if (regular && own.length) {
    return el("div", { class: "standing standing-bad", dataset: { standing: "irregular" } },
      el("p", { class: "standing-title" }, "IRREGULAR"), reasonList,
      el("p", {}, "Documentos do veículo em dia nos dados do aparelho; a credencial lida não vale."));
  }
  if (regular && situation && situation.state !== "regular") {
    const other = situation.lines.find((l) => l.subject === "vehicle" && l.vehicle.id !== vehicle.id);
    const whose = situation.lines.some((l) => l.subject !== "vehicle") ? "do condutor"
      : `do veículo ${(other && other.vehicle.plate) || "sem placa"}`;
    return el("div", { class: "standing-note", dataset: { standing: "regular" } },
      el("p", { class: "standing-title" }, "Veículo em dia"),
      el("p", {}, `O veículo ${vehicle.plate || "sem placa"} está em dia nos dados do aparelho; o problema acima é ${whose}.`));
  }
  return el("div", { class: `standing standing-${tone}`, dataset: { standing: standing ? standing.status : "" } },
    el("p", { class: "standing-title" }, standingTitle(standing, label)), reasonList);
}

/** The whole card for a vehicle (details from registry.vehicleDetails), with an optional
 * verdict; `scan` (registry.scanContext) puts the worst situation in a banner on top. The
 * standing is judged today (situation.standingToday), in the banner and the card alike; the
 * verdict box and the vehicle's box never contradict it (one verdict per subject), and each
 * date row is its own subject's: the vehicle's credential here, a rider's badge in the rider's. */
export function resultCard(details, verification = null, scan = null) {
  const { vehicle, drivers, holder, licence, insurance, notices, lastInspection, credentials } = details;
  const standing = standingToday(details.standing, details.facts);
  const judged = scan && { ...scan, vehicles: scan.vehicles.map((x) => (x.vehicle.id === vehicle.id
    ? { ...x, docs: details.facts } : x)) };
  const scanned = scannedCredential(verification, "vehicle", vehicle.id);
  const situation = judged ? { ...situationOf(judged, verification), ownCredential: Boolean(scanned) } : null;
  const warnings = (standing && standing.warnings) || [];
  const inForce = credentials.find((c) => c.status === "active" && (!scanned || c.id !== scanned.id));
  // On a 360 px phone in the street: the plate, prefix, model and colour the agent checks
  // against the vehicle in front of them, then the verdict in one box (the scanned code's line
  // inside it), then everything else folded in <details>; "Iniciar vistoria" follows the card
  // (a sticky bar, app.html) without scrolling.
  const line = verification ? verdictBanner(verification, judged, { inside: Boolean(judged) }) : null;
  const own = standingBox(vehicle, standing, situation);
  const open = notices.length;
  return el("article", { class: "card result", dataset: { vehicleId: vehicle.id } },
    el("h1", { class: "plate" }, vehicle.plate || "—",
      vehicle.prefix ? el("span", { class: "prefix" }, ` · prefixo ${vehicle.prefix}`) : null),
    el("p", { class: "vehicle-line" }, [serviceLabel(vehicle.service), vehicle.make_model, vehicle.colour,
      vehicle.year_of_manufacture].filter(Boolean).join(" · ")),
    judged ? situationBanner(judged, verification, line) : [line, own],
    el("details", { class: "card-details" },
      el("summary", {}, "Detalhes: validades, condutores, vistoria",
        open ? `, ${plural(open, "notificação em aberto", "notificações em aberto")}` : ", notificações",
        warnings.length ? ` · ${plural(warnings.length, "aviso", "avisos")}` : ""),
      cardDetails({ own: judged ? own : null, warnings, holder, licence, insurance, scanned, inForce, drivers,
        verification, lastInspection, notices, docs: vehicleDocuments(details.facts, standing),
        rejected: rejectedVistoria(vehicle, standing),
        req: details.facts && details.facts.requirements })));
}

/** What the card folds under "Detalhes": the vehicle's own verdict, warnings, dates, drivers,
 * last inspection and open notices. */
/** One document's effective standing as a date row (standing.js, the server's laws/standing.py):
 * the permit's, or an Alvará that does not stand on its own dates (revoked by an act, or without
 * effect under a permit that does not hold): "Alvará AM-0012 — sem efeito: permissão cassada". */
function documentRow(doc) {
  const tone = doc.state === "bad" || doc.state === "void" ? "bad" : doc.state === "due" ? "warn" : "";
  return el("li", { class: tone ? `exp-${tone} document` : "document", dataset: { document: doc.kind, state: doc.state } },
    el("span", {}, doc.name), el("strong", {}, documentText(doc)));
}

function cardDetails({ own, warnings, holder, licence, insurance, scanned, inForce, drivers, verification,
  lastInspection, notices, docs = [], req = null, rejected = null }) {
  const permit = docs.find((d) => d.kind === "permit");
  const lic = docs.find((d) => d.kind === "licence");
  // the Alvará's own dates say the rest (its suspension has its own line below)
  const licenceDoc = lic && (lic.state === "void" || (licence && licence.status === "revoked")) ? lic : null;
  return el("div", { class: "card-details-body" },
    own,
    warnings.length ? el("ul", { class: "warnings" }, warnings.map((w) =>
      el("li", {}, reasonWords(w), w.citation && w.citation.law ? [" (", citationLink(w.citation)
        || `${w.citation.law}, ${w.citation.article}`, ")"] : null))) : null,
    holder ? el("p", {}, "Titular: ", el("strong", {}, holder.name)) : null,
    el("h2", {}, "Validades"),
    el("ul", { class: "expiries" },
      // the Alvará, as the banner and the passenger's page name it ("Alvará AL-0009 suspenso")
      permit ? documentRow(permit) : null,
      licenceDoc ? documentRow(licenceDoc)
        : expiry("Alvará", licence && licence.valid_until, "m", licence && licence.status === "revoked" ? "revoked" : null),
      licence && licence.status === "suspended"
        ? el("li", { class: "exp-bad suspended-until" }, el("span", {}, `Alvará ${licence.number || ""}`.trim()),
          el("strong", {}, suspendedText(licence.suspended_until)))
        : null,
      expiry("Seguro", insurance && insurance.valid_until, "m"),
      // the newest vistoria rejected: the day the vehicle must come back, and what to fix
      rejected ? documentRow(rejected) : null,
      scanned ? credentialExpiry(inForce ? "Credencial lida" : "Credencial", scanned) : null,
      inForce ? credentialExpiry(scanned ? "Credencial em vigor" : "Credencial", inForce) : null),
    el("h2", {}, drivers.length === 1 ? "Condutor" : "Condutores"),
    drivers.length ? el("ul", { class: "drivers" }, drivers.map((d) => driverBlock(d, verification, req))) : el("p", {}, "Nenhum condutor vinculado."),
    el("h2", {}, "Última vistoria"),
    el("p", { class: "last-inspection" }, lastInspectionText(lastInspection)),
    el("h2", {}, "Notificações em aberto"),
    notices.length
      ? el("ul", { class: "notices" }, notices.map((n) => noticeItem(n, drivers, holder)))
      : el("p", {}, "Nenhuma."));
}
