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

import { citationLink, daysUntil, el, formatDate } from "./ui.js";

const TITLES = { regular: "REGULAR", irregular: "IRREGULAR", suspended: "SUSPENSO", unknown: "SEM SITUAÇÃO" };
const TONES = { regular: "ok", irregular: "bad", suspended: "bad", unknown: "warn" };
const ORDER = ["suspended", "irregular", "unknown", "regular"];
const STANDING_WORD = { irregular: "IRREGULAR", suspended: "SUSPENSO" };

function untilText(until) {
  if (until === undefined) return "";
  return until ? ` até ${formatDate(until)}` : ", sem data de fim";
}

/** What keeps a driver from driving today, from the snapshot's row: [{state, text, until}]. */
export function driverProblems(driver) {
  const out = [];
  if (driver.status === "suspended") {
    out.push({ state: "suspended", text: `SUSPENSO${untilText(driver.suspended_until)}`, until: driver.suspended_until });
  } else if (driver.status === "revoked") {
    out.push({ state: "irregular", text: "registro CASSADO" });
  } else if (driver.status && driver.status !== "active") {
    out.push({ state: "irregular", text: `registro ${driver.status}` });
  }
  if (driver.registration_expiry && daysUntil(driver.registration_expiry) < 0) {
    out.push({ state: "irregular", text: `registro VENCIDO em ${formatDate(driver.registration_expiry)}` });
  }
  if (driver.cnh_expiry && daysUntil(driver.cnh_expiry) < 0) {
    out.push({ state: "irregular", text: `CNH VENCIDA em ${formatDate(driver.cnh_expiry)}` });
  }
  return out;
}

function vehicleProblems(vehicle, standing) {
  const plate = vehicle.plate || "sem placa";
  if (!standing || !standing.status) {
    return [{ state: "unknown", text: `Veículo ${plate}: situação não está nos dados do aparelho` }];
  }
  if (standing.status === "regular") return [];
  const why = (standing.reasons || []).map((r) => (typeof r === "string" ? r : r.message)).filter(Boolean);
  const word = STANDING_WORD[standing.status] || standing.status.toUpperCase();
  const until = standing.status === "suspended" ? untilText(standing.suspended_until) : "";
  return [{ state: standing.status === "suspended" ? "suspended" : "irregular",
    text: `Veículo ${plate} ${word}${until}${why.length ? ": " + why.join("; ") : ""}`,
    until: standing.status === "suspended" ? standing.suspended_until : undefined }];
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
 * registry.scanContext: {rider, vehicles: [{vehicle, standing}], drivers, driverRule}. */
export function situationOf(scan, verification = null) {
  const lines = [...credentialProblems(verification)];
  if (scan.rider) {
    lines.push(...driverProblems(scan.rider).map((p) => ({ ...p, text: `Condutor ${p.text} — ${scan.rider.name}` })));
  }
  for (const { vehicle, standing } of scan.vehicles) lines.push(...vehicleProblems(vehicle, standing));
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
      ? el("ul", { class: "situation-lines" }, s.lines.map((l) => el("li", { dataset: { state: l.state } }, l.text)))
      : el("p", { class: "situation-lines" }, `${subject} em dia nos dados do aparelho.`),
    s.rule ? ruleLine(s.rule) : null,
    s.barred.length
      ? el("p", { class: "situation-barred" }, "Não podem conduzir hoje: ",
        s.barred.map((x) => `${x.driver.name} (${x.problems.map((p) => p.text).join(", ")})`).join("; "),
        s.allowed === 0 ? ". Nenhum condutor vinculado pode conduzir." : ".")
      : null);
}
