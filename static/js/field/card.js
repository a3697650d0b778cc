// The result card: what the agent needs to decide on the spot about a vehicle — on top,
// the worst situation of what was scanned (situation.js), then
// the scanned code's verdict, the vehicle, its driver(s), status and why, expiry dates,
// the last inspection and open notices. Built from the snapshot on the phone.

import { citationLink, daysUntil, el, expired, formatDate, formatDateTime } from "./ui.js";
import { registrationText, situationBanner, standingToday } from "./situation.js";
import { VERDICTS } from "./verify.js";

const STANDING = {
  regular: ["REGULAR", "ok"],
  irregular: ["IRREGULAR", "bad"],
  suspended: ["SUSPENSO", "bad"],
};
const CATEGORY = { autonomo: "Taxista autônomo", auxiliar: "Motorista auxiliar", mototaxista: "Mototaxista" };
const SERVICE = { taxi: "Táxi", mototaxi: "Mototáxi" };
const INSPECTION_STATUS = { incomplete: "aguardando fotos", awaiting_review: "aguardando revisão", reviewed: "revisada" };
const VERDICT_TONE = { valid: "ok", forged: "bad", revoked: "bad", expired: "warn", unknown: "warn",
  other_town: "warn", malformed: "warn" };

function expiry(label, iso) {
  const days = daysUntil(iso);
  const gone = expired(iso); // the same check as the standing judged today (situation.js)
  const tone = days === null ? "" : gone ? "bad" : days <= 30 ? "warn" : "";
  const note = days === null ? "" : gone ? " (vencido)" : days <= 30 ? ` (vence em ${days} dias)` : "";
  return el("li", { class: tone ? `exp-${tone}` : null }, el("span", {}, label), el("strong", {}, formatDate(iso) + note));
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
    notice.deadline_at
      ? el("p", { class: overdue ? "notice-deadline exp-bad" : "notice-deadline" },
        `Prazo: ${formatDateTime(notice.deadline_at)}${overdue ? " — VENCIDO" : ""}`)
      : null);
}

function lastInspectionText(last) {
  if (!last) return "Nenhuma registrada nos dados do aparelho.";
  const when = last.finished_at ? formatDateTime(last.finished_at) : formatDate(last.date);
  const failed = last.failed_items ? ` · ${last.failed_items} item(ns) não conforme(s)` : " · tudo conforme";
  const status = INSPECTION_STATUS[last.status] ? ` · ${INSPECTION_STATUS[last.status]}` : "";
  return last.finished_at ? `${when}${failed}${status}` : when;
}

/** The verdict banner for a scanned code. */
export function verdictBanner(result) {
  const tone = VERDICT_TONE[result.verdict] || "warn";
  return el("div", { class: `verdict verdict-${tone}`, dataset: { verdict: result.verdict }, role: "alert" },
    el("p", { class: "verdict-title" }, VERDICTS[result.verdict] || result.verdict),
    el("p", { class: "verdict-reason" }, result.reason || ""));
}

function driverBlock(driver) {
  return el("li", { class: "driver" },
    driver.photo ? el("img", { src: driver.photo, alt: `Foto de ${driver.name}`, class: "driver-photo" }) : null,
    el("div", {},
      el("p", { class: "driver-name" }, driver.name),
      el("p", {}, [CATEGORY[driver.category] || driver.category, driver.registration_number && `Reg. ${driver.registration_number}`]
        .filter(Boolean).join(" · ")),
      el("ul", { class: "expiries" },
        driver.registration_expiry ? expiry("Registro", driver.registration_expiry) : null,
        driver.cnh_expiry ? expiry("CNH", driver.cnh_expiry) : null),
      driver.status === "suspended"
        ? el("p", { class: "exp-bad suspended-until" }, `Registro: ${suspendedText(driver.suspended_until)}`)
        : driver.status && driver.status !== "active"
          ? el("p", { class: "exp-bad" }, registrationText(driver.status).replace(/^r/, "R")) : null));
}

/** The whole card for a vehicle (details from registry.vehicleDetails), with an optional
 * verdict; `scan` (registry.scanContext) puts the worst situation in a banner on top. The
 * standing is judged today (situation.standingToday), in the banner and the card alike. */
export function resultCard(details, verification = null, scan = null) {
  const { vehicle, drivers, holder, licence, insurance, notices, lastInspection, credentials } = details;
  const standing = standingToday(details.standing, details.facts);
  const judged = scan && { ...scan, vehicles: scan.vehicles.map((x) => (x.vehicle.id === vehicle.id
    ? { ...x, docs: details.facts } : x)) };
  const [standingLabel, standingTone] = STANDING[standing && standing.status] || ["SEM SITUAÇÃO", "warn"];
  const reasons = (standing && standing.reasons) || [];
  const warnings = (standing && standing.warnings) || [];
  const credential = (verification && verification.credential) || credentials.find((c) => c.status === "active");
  return el("article", { class: "card result", dataset: { vehicleId: vehicle.id } },
    judged ? situationBanner(judged, verification) : null,
    verification ? verdictBanner(verification) : null,
    el("div", { class: `standing standing-${standingTone}`, dataset: { standing: standing ? standing.status : "" } },
      el("p", { class: "standing-title" }, standingTitle(standing, standingLabel)),
      reasons.length ? el("ul", { class: "reasons" }, reasons.map((r) =>
        el("li", {}, typeof r === "string" ? r : r.message, " ", citationLink(r.citation)))) : null),
    warnings.length ? el("ul", { class: "warnings" }, warnings.map((w) =>
      el("li", {}, w.message, " ", citationLink(w.citation)))) : null,
    el("h1", { class: "plate" }, vehicle.plate || "—",
      vehicle.prefix ? el("span", { class: "prefix" }, ` · prefixo ${vehicle.prefix}`) : null),
    el("p", { class: "vehicle-line" }, [SERVICE[vehicle.service] || vehicle.service, vehicle.make_model, vehicle.colour,
      vehicle.year_of_manufacture].filter(Boolean).join(" · ")),
    holder ? el("p", {}, "Titular: ", el("strong", {}, holder.name)) : null,
    el("h2", {}, "Validades"),
    el("ul", { class: "expiries" },
      expiry("Licença", licence && licence.valid_until),
      licence && licence.status === "suspended"
        ? el("li", { class: "exp-bad suspended-until" }, el("span", {}, `Licença ${licence.number || ""}`.trim()),
          el("strong", {}, suspendedText(licence.suspended_until)))
        : null,
      expiry("Seguro", insurance && insurance.valid_until),
      credential ? expiry("Credencial", credential.expires_on) : null),
    el("h2", {}, drivers.length === 1 ? "Condutor" : "Condutores"),
    drivers.length ? el("ul", { class: "drivers" }, drivers.map(driverBlock)) : el("p", {}, "Nenhum condutor vinculado."),
    el("h2", {}, "Última vistoria"),
    el("p", { class: "last-inspection" }, lastInspectionText(lastInspection)),
    el("h2", {}, "Notificações em aberto"),
    notices.length
      ? el("ul", { class: "notices" }, notices.map((n) => noticeItem(n, drivers, holder)))
      : el("p", {}, "Nenhuma."));
}
