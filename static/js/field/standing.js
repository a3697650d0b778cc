// Each document's effective standing on the phone's day, as the server's laws/standing.py says
// it on every screen: permit, licence, insurance, vistoria, then each driver's registration and
// CNH. Read from the findings the phone judged today (situation.standingToday) and the rows: a
// licence under a permit that does not hold is "sem efeito: permissão cassada" with the permit's
// article, never "válido até …". tests/browser/field/test_one_standing_on_the_phone.py runs
// these against the server's for every demo vehicle.

import { addDays, addMonths, daysUntil, expired, formatDate } from "./ui.js";
import { causeSince, causeWhy } from "./situation.js";

const DUE_SOON_DAYS = 30; // rules/engine.py DUE_SOON_DAYS

function find(findings, prefix) {
  return findings.find((f) => f && String(f.rule_id || "").startsWith(prefix)) || null;
}

function cited(doc, f) {
  const c = f && f.citation;
  return c && c.law && c.article ? { ...doc, law: c.law, article: c.article } : { ...doc, law: "", article: "" };
}

function ended(cause, gender) {
  const word = (cause && cause.cancelled ? "cancelad" : "cassad") + (gender === "f" ? "a" : "o");
  return `${word}${causeSince(cause)}`;
}

function rowWords(kind, row, f) {
  const g = kind === "permit" ? "f" : "m";
  const a = g === "f" ? "a" : "o";
  const suffix = f ? String(f.rule_id).split(".").slice(1).join(".") : "";
  const until = row.suspended_until ? ` até ${formatDate(row.suspended_until)}` : "";
  if (suffix === "revoked") return ["bad", ended(row.cause, g)];
  if (suffix === "suspended") return ["bad", `suspens${a}${until}${causeWhy(row.cause)}`];
  if (suffix === "expired") return ["bad", `vencid${a} em ${formatDate(row.valid_until)}`];
  if (suffix === "not_yet_valid") return ["bad", `válid${a} a partir de ${formatDate(row.valid_from)}`];
  if (suffix === "due") return ["due", `vence em ${formatDate(row.valid_until)}`];
  return ["ok", row.valid_until ? `válid${a} até ${formatDate(row.valid_until)}` : "em vigor"];
}

/** The vehicle's own documents (laws/standing.py vehicle_documents): `facts` from
 * registry.vehicleFacts, `judged` from situation.standingToday. */
export function vehicleDocuments(facts, judged) {
  const req = facts && facts.requirements;
  if (!req || !facts.vehicle) return [];
  const findings = [...((judged && judged.reasons) || []), ...((judged && judged.warnings) || [])];
  const out = [];
  let permit = null;
  if (req.permit) {
    const p = facts.permit;
    const f = find(findings, "permit.");
    if (!p) permit = cited({ kind: "permit", name: "Permissão", state: "none", words: "não registrada" }, f);
    else {
      const [state, words] = rowWords("permit", p, f);
      permit = cited({ kind: "permit", name: `Permissão ${p.number}`, state, words }, f);
    }
    out.push(permit);
  }
  if (req.licence) {
    const lic = facts.licence;
    const f = find(findings, "licence.");
    let doc;
    if (!lic) doc = cited({ kind: "licence", name: "Alvará", state: "bad", words: "não registrado" }, f);
    else {
      const [state, words] = rowWords("licence", lic, f);
      doc = cited({ kind: "licence", name: `Alvará ${lic.number}`, state, words }, f);
      if ((state === "ok" || state === "due") && permit && permit.state === "bad") {
        const head = permit.words.split(" em ")[0].split(" (")[0];
        doc = { ...doc, state: "void", words: `sem efeito: permissão ${head}`, law: permit.law, article: permit.article };
      }
    }
    out.push(doc);
  }
  if (req.insurance) {
    const f = find(findings, "insurance.");
    const covering = (facts.insurance || []).filter((p) => p && p.valid_from && p.valid_until
      && daysUntil(p.valid_from) <= 0 && !expired(p.valid_until)).map((p) => p.valid_until).sort();
    let doc;
    if (f && f.rule_id === "insurance.lapsed") doc = { state: "bad", words: `vencido em ${formatDate(f.due_on)}` };
    else if (f && f.rule_id === "insurance.missing") doc = { state: "bad", words: "sem seguro em vigor" };
    else if (f && f.rule_id === "insurance.due") doc = { state: "due", words: `vence em ${formatDate(f.due_on)}` };
    else doc = { state: "ok", words: `válido até ${formatDate(covering[covering.length - 1])}` };
    out.push(cited({ kind: "insurance", name: "Seguro", ...doc }, f));
  }
  if (req.vistoria) {
    const f = find(findings, "vistoria.");
    let doc;
    if (f && f.rule_id === "vistoria.missing") doc = { state: f.severity === "violation" ? "bad" : "none", words: "nenhuma registrada" };
    else if (f && f.rule_id === "vistoria.overdue") doc = { state: "bad", words: `vencida desde ${formatDate(f.due_on)}` };
    else if (f && f.rule_id === "vistoria.due") doc = { state: "due", words: `vence em ${formatDate(f.due_on)}` };
    else if (!req.vistoria.months) doc = { state: "ok", words: `feita em ${formatDate(facts.vehicle.last_vistoria_on)}` };
    else doc = { state: "ok", words: `válida até ${formatDate(vistoriaEnd(facts.vehicle, req.vistoria))}` };
    out.push(cited({ kind: "vistoria", name: "Vistoria", ...doc }, f));
  }
  return out;
}

/** The vehicle's newest vistoria when it was rejected (snapshot `vehicles[].vistoria`), as a
 * date row: "reprovada em 02/03/2026 — retorno até 17/03/2026; corrigir: Extintor". Red with
 * the article where the vehicle is irregular for its vistoria today (overdue, or none valid
 * where the law requires one), else a warning: a rejection alone does not end the validity
 * of the last approved vistoria (the server's passenger page and registry say the same).
 * null when the newest vistoria was approved, or is older than the vistoria on record. */
export function rejectedVistoria(vehicle, judged) {
  const v = vehicle && vehicle.vistoria;
  if (!v || v.result !== "rejected" || !v.on) return null;
  if (vehicle.last_vistoria_on && String(v.on) < String(vehicle.last_vistoria_on).slice(0, 10)) return null;
  const back = v.return_on ? ` — retorno até ${formatDate(v.return_on)}` : "";
  const fix = Array.isArray(v.to_fix) && v.to_fix.length ? `; corrigir: ${v.to_fix.join(", ")}` : "";
  const f = find((judged && judged.reasons) || [], "vistoria.");
  return cited({ kind: "vistoria", name: "Vistoria", state: f ? "bad" : "due",
    words: `reprovada em ${formatDate(v.on)}${back}${fix}` }, f);
}

function vistoriaEnd(vehicle, req) {
  const last = vehicle.last_vistoria_on;
  const normal = addMonths(last, req.months);
  const short = vehicle.vistoria_valid_until;
  return short && req.shortened_citation && short > String(last).slice(0, 10) && short < normal ? short : normal;
}

function soon(iso) {
  const days = daysUntil(iso);
  return days !== null && days >= 0 && days <= DUE_SOON_DAYS;
}

function citeOf(requirement) {
  return requirement && requirement.citation && requirement.citation.law ? requirement.citation : null;
}

/** A driver's registration and CNH (laws/standing.py driver_documents), from the row and the
 * law's requirements of the driver's service (`checklists[].requirements`). */
export function driverDocuments(driver, req) {
  if (!req) return [];
  const out = [];
  const owner = driver.name || "";
  if (req.driver_registration) {
    const expiry = driver.registration_expiry;
    const cause = driver.cause || null;
    const grace = req.registration_grace;
    let doc;
    let citation = citeOf(req.driver_registration);
    if (driver.status === "revoked") {
      doc = { state: "bad", words: ended(cause, "m") };
      citation = (cause && cause.citation && cause.citation.law && cause.citation) || citation;
    } else if (driver.status === "suspended" && !(driver.suspended_until && expired(driver.suspended_until))) {
      doc = { state: "bad", words: `suspenso${driver.suspended_until ? ` até ${formatDate(driver.suspended_until)}` : ""}${causeWhy(cause)}` };
      citation = (cause && cause.citation && cause.citation.law && cause.citation) || citation;
    } else if (expiry && expired(expiry)) {
      const last = grace ? addDays(expiry, grace.days) : null;
      doc = last && expired(last) ? { state: "bad", words: `cancelado em ${formatDate(addDays(last, 1))}` }
        : { state: "bad", words: `vencido em ${formatDate(expiry)}` };
      citation = citeOf(grace) || citeOf(req.registration_validity) || citation;
    } else if (expiry && soon(expiry)) {
      doc = { state: "due", words: `vence em ${formatDate(expiry)}` };
      citation = citeOf(req.registration_validity) || citation;
    } else {
      doc = { state: "ok", words: expiry ? `válido até ${formatDate(expiry)}` : "ativo" };
      citation = null;
    }
    out.push(cited({ kind: "registration", name: "Registro", owner, ...doc }, { citation }));
  }
  if (req.cnh && driver.cnh_expiry) {
    const need = req.cnh_category && String(req.cnh_category.category || "").toUpperCase();
    let doc;
    let citation = citeOf(req.cnh);
    if (expired(driver.cnh_expiry)) doc = { state: "bad", words: `vencida em ${formatDate(driver.cnh_expiry)}` };
    else if (need && driver.cnh_category && !String(driver.cnh_category).toUpperCase().includes(need)) {
      doc = { state: "bad", words: `categoria ${driver.cnh_category}: não serve para este serviço` };
      citation = citeOf(req.cnh_category);
    } else if (soon(driver.cnh_expiry)) doc = { state: "due", words: `vence em ${formatDate(driver.cnh_expiry)}` };
    else {
      doc = { state: "ok", words: `válida até ${formatDate(driver.cnh_expiry)}` };
      citation = null;
    }
    out.push(cited({ kind: "cnh", name: "CNH", owner, ...doc }, { citation }));
  }
  return out;
}

/** A document's line: "válido até 24/10/2027", or its words with the article. */
export function documentText(doc) {
  return doc.article ? `${doc.words} (${doc.law}, ${doc.article})` : doc.words;
}
