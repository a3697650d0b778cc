// The inspection screen: the checklist of the law in force for the vehicle's service,
// photos of failed items (shrunk to the town's size, then hashed and kept), optional GPS and the
// driver's "ciente" drawn on a canvas (Tapurah Lei 406/2001, Art. 27 I). Saving writes the
// inspection and its photos to the outbox in one transaction.

import * as store from "./db.js";
import * as drafts from "./drafts.js";
import { SignaturePad } from "./signature.js";
import { sha256Hex } from "./verify.js";
import { shrunkPhoto } from "./photo_size.js";
import { el, lawHref } from "./ui.js";
import { grantBox, grantGap, grantOf } from "./grant.js";

const ALLOWED_MIME = ["image/jpeg", "image/png", "image/webp", "image/heic"];

// The checklist's sections, from each item's `checks` (the pack's, rules/model.py), in the
// order an agent walks around a vehicle; a kind the app does not know goes last as "Outros".
const SECTIONS = [["vehicle", "Veículo"], ["equipment", "Equipamentos"], ["document", "Documentos"],
  ["driver", "Condutor"], ["passenger", "Passageiro"], ["conduct", "Conduta"]];

// What the registry already knows failing (the card's reasons, by the engine's rule_id) opens
// pre-marked "Não conforme" on the items that check that very fact: each item of the snapshot
// names them (`registry_findings`, from its rule pack: the insurance in force, the engine size,
// a registered driver...), the same list the review reads (inspections/registry_check.py). A
// reason no item checks is listed above the checklist instead.

/** A pack's name of a registry finding against a reason's rule_id: an exact id, or a family
 * ending in "." that holds its members and its own bare name (rules/model.py finding_matches). */
export function findingMatches(pattern, ruleId) {
  const p = String(pattern);
  const id = String(ruleId || "");
  return p.endsWith(".") ? id === p.slice(0, -1) || id.startsWith(p) : id === p;
}

/** A registry reason as one line: its words without a trailing "." and its article. */
export function reasonText(reason) {
  const words = String(reason.message || reason.text || "").trim().replace(/[.;]+$/, "");
  const c = reason.citation;
  return c && c.law ? `${words} (${c.law}, ${c.article})` : words;
}

/** Which checklist items the registry's reasons (card: [{rule_id, message, citation}]) make
 * failing: {byItem: {itemId: "reason; reason"}, loose: [reasons without an item]}. */
export function registryFailures(items, reasons) {
  const byItem = {};
  const loose = [];
  for (const reason of reasons || []) {
    const targets = items.filter((i) => (i.registry_findings || []).some((f) => findingMatches(f, reason.rule_id)));
    for (const { id } of targets) byItem[id] = byItem[id] ? `${byItem[id]}; ${reasonText(reason)}` : reasonText(reason);
    if (!targets.length) loose.push(reasonText(reason));
  }
  return { byItem, loose };
}

/** A random UUID (v4) for an inspection or a photo. */
export function newId() {
  return crypto.randomUUID();
}

/** The image type from the first bytes, trusting them over the file name. */
export function sniffMime(bytes, declared = "") {
  const b = new Uint8Array(bytes.slice(0, 16));
  const ascii = (from, to) => String.fromCharCode(...b.slice(from, to));
  if (b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return "image/jpeg";
  if (b[0] === 0x89 && ascii(1, 4) === "PNG") return "image/png";
  if (ascii(0, 4) === "RIFF" && ascii(8, 12) === "WEBP") return "image/webp";
  if (ascii(4, 8) === "ftyp" && /^(heic|heix|mif1|msf1|heim|heis)$/.test(ascii(8, 12))) return "image/heic";
  return ALLOWED_MIME.includes(declared) ? declared : null;
}

/** Turn a chosen file into an outbox photo: the bytes kept (shrunk to the town's photo size,
 * EXIF kept; photo_size.js), type, SHA-256 of those bytes, capture time. */
export async function photoFromFile(file, inspectionId) {
  const original = await file.arrayBuffer();
  const declared = sniffMime(original, file.type);
  if (!declared) throw new Error("Formato de imagem não aceito (use JPEG, PNG, WebP ou HEIC).");
  const town = await store.getMeta("town").catch(() => null);
  const shrunk = await shrunkPhoto(original, declared, town && town.photo);
  const bytes = shrunk || original;
  const mime = shrunk ? "image/jpeg" : declared;
  return {
    id: newId(), inspectionId, bytes, mime, size: bytes.byteLength,
    sha256: await sha256Hex(bytes), takenAt: new Date().toISOString(),
  };
}

/**
 * Build the body of PUT /api/field/inspections/<uuid> (docs/sync.md) and save it with its
 * photos. draft = {id, vehicle, credentialToken, scannedHost, startedAt, snapshotVersion, location,
 * answers: [{itemId, result, note, photos: [photo], registry: what the registry knew or null}],
 * driver, acknowledgement}.
 * driver = {id, name} (a linked driver; id null: "outro / não cadastrado") or null (not told).
 */
export async function saveInspection(draft) {
  const id = draft.id || newId();
  const photos = [];
  const items = draft.answers.map((a) => {
    const declared = (a.photos || []).map((p) => {
      photos.push({ ...p, inspectionId: id });
      return { id: p.id, sha256: p.sha256, mime: p.mime, size: p.size, taken_at: p.takenAt };
    });
    const item = { item_id: a.itemId, result: a.result, note: a.note || "", photos: declared };
    if (a.grant) item.grant = a.grant; // Tapurah Art. 19, chosen by the agent (grant.js)
    if (a.bulk && a.result === "ok") item.bulk = true; // "Marcar os demais como conformes" (older servers: absent)
    // what the registry knew, and whether the agent overruled it (docs/sync.md §2)
    if (a.registry) item.registry = { reason: a.registry, overruled: a.result !== "fail" };
    return item;
  });
  const body = {
    vehicle_id: draft.vehicle.id,
    credential_token: draft.credentialToken || null,
    started_at: draft.startedAt,
    finished_at: draft.finishedAt || new Date().toISOString(),
    snapshot_version: draft.snapshotVersion ?? null,
    location: draft.location || null,
    items,
    acknowledgement: draft.acknowledgement || null,
  };
  // Optional since the "quem conduzia" step; older phones' bodies have no key at all.
  if (draft.driver) body.driver = draft.driver;
  if (draft.kind && draft.kind !== "street") body.kind = draft.kind; // older servers: street only
  if (draft.shorten) body.vistoria = draft.shorten; // the inspector's shorter validity, with why
  if (draft.scannedHost) body.scanned_host = draft.scannedHost; // a swapped sticker's address
  const label = [draft.vehicle.plate, draft.vehicle.prefix && `prefixo ${draft.vehicle.prefix}`]
    .filter(Boolean).join(" · ");
  await store.saveToOutbox({ id, body, label, createdAt: new Date().toISOString() }, photos);
  return id;
}

// ---------- the form ----------

const GAPS_SHOWN = 5; // gap numbers shown before "ver todos"

/** The checklist form of one inspection, wired to the elements of #screen-inspection. */
export class InspectionForm {
  constructor(root) {
    this.root = root;
    this.list = root.querySelector("#checklist");
    this.template = document.getElementById("tpl-item");
    this.error = root.querySelector("#inspection-error");
    this.canvas = root.querySelector("#signature");
    this.previews = [];
    this.signature = new SignaturePad(this.canvas, () => {
      this.fillAckName();
      this.remember();
    });
    root.querySelector("#signature-clear").addEventListener("click", () => {
      this.signature.clear();
      this.fillAckName();
      this.remember();
    });
    root.querySelector("#gps").addEventListener("click", () => this.locate());
    root.querySelector("#bulk-ok").addEventListener("click", () => this.markRest());
    root.querySelector("#bulk-undo").addEventListener("click", () => this.undoRest());
    this.ackName = root.querySelector("#ack-name");
    this.ackError = root.querySelector("#ack-name-error");
    this.ackName.addEventListener("input", () => {
      this.fieldError(this.ackName, this.ackError, "");
      this.remember();
    });
    this.otherName = root.querySelector("#driver-other-name");
    this.driverError = root.querySelector("#driver-error");
    root.querySelector("#driver-other").addEventListener("change", () => this.pickDriver(null));
    this.otherName.addEventListener("input", () => {
      this.fieldError(this.otherName, this.driverError, "");
      this.fillAckName();
      this.remember();
    });
  }

  /** Show a fresh checklist for a vehicle. context = {vehicle, checklist, credentialToken,
   * snapshotVersion, drivers (the vehicle's linked drivers), riderId (a scanned vest badge),
   * agentId}. `saved`: a draft kept on the phone (drafts.js) to fill the form back in. */
  open(context, saved = null) {
    this.close();
    if (!saved) drafts.clearDraft().catch(() => {}); // a new one replaces any draft left (another agent's)
    this.context = context;
    this.id = saved ? saved.id : newId();
    this.startedAt = saved ? saved.startedAt : new Date().toISOString();
    this.location = saved ? saved.location : null;
    const kept = new Map(((saved && saved.answers) || []).map((a) => [a.itemId, a]));
    const known = registryFailures(context.checklist.items, context.known);
    this.answers = context.checklist.items.map((item) => {
      const a = kept.get(item.id);
      const registry = known.byItem[item.id] || null; // pre-marked "Não conforme", with why
      return { item, registry, result: a ? a.result : registry ? "fail" : null,
        note: a ? a.note || "" : "", photos: a ? a.photos || [] : [], grant: a ? a.grant || null : null,
        bulk: Boolean(a && a.bulk) };
    });
    this.renderKnown(known.loose);
    this.bulkUndo = null;
    this.showBulk();
    this.gapsShown = false;
    this.gapsOpen = false;
    this.root.querySelector("#inspection-gaps").hidden = true;
    const kindLabel = context.plan ? context.plan.label : "Vistoria";
    this.root.querySelector("#inspection-title").textContent =
      `${kindLabel} · ${context.vehicle.plate || ""}${context.vehicle.prefix ? " · prefixo " + context.vehicle.prefix : ""}`;
    this.openShorten(context.plan, saved);
    this.root.querySelector("#inspection-law").textContent = context.checklist.law
      ? `${context.checklist.law}, em vigor hoje` : "";
    this.root.querySelector("#gps-status").textContent = "";
    this.ackName.value = "";
    this.autoName = "";
    this.fieldError(this.ackName, this.ackError, "");
    this.renderDrivers(context.drivers || [], context.riderId ?? null);
    this.renderSections();
    this.signature.clear();
    this.showError("");
    if (saved) this.restore(saved);
  }

  /** The shorter validity the law lets the inspector set (Nova Santa Helena Art. 32 § 3º),
   * shown only in a vistoria whose law allows it. */
  openShorten(plan, saved) {
    const box = this.root.querySelector("#shorten-box");
    box.hidden = !(plan && plan.may_shorten);
    const c = plan && plan.shorten_citation;
    this.root.querySelector("#shorten-law").textContent = c
      ? `Se o estado do veículo exigir, a validade pode ser reduzida (${c.law}, ${c.article}); em branco vale ${plan.months} meses.` : "";
    this.root.querySelector("#shorten-until").value = (saved && saved.shortenUntil) || "";
    this.root.querySelector("#shorten-reason").value = (saved && saved.shortenReason) || "";
    this.root.querySelector("#shorten-error").hidden = true;
  }

  /** {shorten_until, reason} when the inspector shortened the validity, null when not, or
   * undefined (and the error shown) when the date has no reason. */
  shortenChoice() {
    const until = this.root.querySelector("#shorten-until").value;
    const reason = this.root.querySelector("#shorten-reason").value.trim();
    const error = this.root.querySelector("#shorten-error");
    error.hidden = true;
    if (this.root.querySelector("#shorten-box").hidden || !until) return null;
    if (reason.length < 10) {
      error.textContent = "Escreva o motivo da redução (pelo menos 10 letras).";
      error.hidden = false;
      return undefined;
    }
    return { shorten_until: until, reason };
  }

  /** Fill the form back in from a kept draft (the items' answers are in `this.answers`). */
  restore(saved) {
    if (saved.location) {
      this.root.querySelector("#gps-status").textContent = `Posição registrada (±${saved.location.accuracy_m} m).`;
    }
    if (saved.driver === "other") {
      this.root.querySelector("#driver-other").checked = true;
      this.pickDriver(null);
    } else if (saved.driver === "none") {
      this.root.querySelectorAll('input[name="driver"]').forEach((r) => { r.checked = false; });
      this.driver = undefined;
      this.root.querySelector("#driver-other-box").hidden = true;
    } else {
      const d = (this.drivers || []).find((x) => x.id === saved.driver);
      const radio = d && this.root.querySelector(`#driver-choices input[value="${d.id}"]`);
      if (radio) {
        radio.checked = true;
        this.pickDriver(d);
      }
    }
    this.otherName.value = saved.otherName || "";
    this.ackName.value = saved.ackName || "";
    this.autoName = saved.autoName || "";
    if (saved.signature) this.signature.draw(saved.signature);
    this.answers.forEach((a) => a.photos.forEach((p) => drafts.putPhoto(p).catch(() => {})));
    this.remember();
  }

  /** Keep what is filled on the phone a moment after each change (drafts.js). */
  remember() {
    if (!this.context) return;
    clearTimeout(this.rememberTimer);
    this.rememberTimer = setTimeout(() => {
      if (this.context) drafts.putDraft(this.draft()).catch((e) => console.warn("rascunho", e));
    }, 200);
  }

  /** What the form holds now, as drafts.js keeps it (photos by id). */
  draft() {
    const driver = this.driver === undefined ? "none" : this.driver === null ? "other" : this.driver.id;
    return { id: this.id, context: this.context, startedAt: this.startedAt, location: this.location,
      answers: this.answers.map((a) => ({ itemId: a.item.id, result: a.result, note: a.note,
        photoIds: a.photos.map((p) => p.id), grant: a.grant || null, bulk: Boolean(a.bulk) })),
      driver, otherName: this.otherName.value, ackName: this.ackName.value, autoName: this.autoName,
      shortenUntil: this.root.querySelector("#shorten-until").value,
      shortenReason: this.root.querySelector("#shorten-reason").value,
      signature: this.signature.isEmpty() ? null : this.signature.toDataURL(), keptAt: new Date().toISOString() };
  }

  /** Whether the agent has answered anything or taken a photo (leaving would lose it). */
  hasAnswers() {
    return Boolean(this.context) && (this.answers.some((a) => a.result || a.photos.length) || !this.signature.isEmpty());
  }

  /** Forget the form (free the photo previews) and its draft kept on the phone. */
  close() {
    this.previews.forEach((url) => URL.revokeObjectURL(url));
    this.previews = [];
    this.list.replaceChildren();
    clearTimeout(this.rememberTimer);
    if (this.context) drafts.clearDraft().catch((e) => console.warn("rascunho", e));
    this.context = null;
  }

  /** The items under their section headings (the pack's `checks`), numbered in the order shown;
   * `this.answers` takes that order too, so gaps and the body follow what the agent sees. */
  renderSections() {
    const known = new Set(SECTIONS.map(([k]) => k));
    const groups = [...SECTIONS, ["", "Outros"]].map(([kind, title]) => ({ kind, title,
      answers: this.answers.filter((a) => (kind ? a.item.checks === kind : !known.has(a.item.checks))) }))
      .filter((g) => g.answers.length);
    this.answers = groups.flatMap((g) => g.answers);
    this.nodes = [];
    let index = 0;
    this.list.replaceChildren(...groups.map((g) => {
      const head = el("h2", { class: "section-title", id: `section-${g.kind || "other"}` }, g.title);
      const count = el("span", { class: "section-count" });
      head.append(" ", count);
      const ol = el("ol", { class: "checklist-items", start: String(index + 1) },
        g.answers.map((answer) => {
          const node = this.renderItem(answer, index++);
          this.nodes.push(node);
          return node;
        }));
      g.count = count;
      return el("section", { class: "check-section", dataset: { section: g.kind || "other" },
        "aria-labelledby": head.id }, head, ol);
    }));
    this.groups = groups;
    this.progress();
  }

  /** "x de N" answered, on top of the form and per section, as the agent answers. */
  progress() {
    const done = (list) => list.filter((a) => a.result).length;
    const box = this.root.querySelector("#inspection-progress");
    const n = this.answers.length;
    box.textContent = `${done(this.answers)} de ${n} itens respondidos`;
    const bar = this.root.querySelector("#inspection-progress-bar");
    bar.max = n;
    bar.value = done(this.answers);
    (this.groups || []).forEach((g) => { g.count.textContent = `(${done(g.answers)} de ${g.answers.length})`; });
    this.showBulk();
    this.refreshGaps();
  }

  /** "Marcar os demais como conformes": every item still without an answer becomes "Conforme",
   * flagged `bulk` in the body (docs/sync.md §2), undoable until another one is marked. */
  markRest() {
    const open = this.answers.map((a, i) => [a, i]).filter(([a]) => !a.result);
    if (!open.length) return;
    open.forEach(([a, i]) => {
      a.result = "ok";
      a.bulk = true;
      const radio = this.nodes[i].querySelector('input[value="ok"]');
      radio.checked = true;
      this.showAnswer(this.nodes[i], a);
      this.nodes[i].classList.remove("is-missing");
    });
    this.bulkUndo = open.map(([a]) => a);
    this.progress();
    this.remember();
  }

  /** Undo the last "os demais": those items are unanswered again (unless answered since). */
  undoRest() {
    (this.bulkUndo || []).forEach((a) => {
      if (!a.bulk) return;
      const i = this.answers.indexOf(a);
      a.result = null;
      a.bulk = false;
      this.nodes[i].querySelectorAll('input[type="radio"]').forEach((r) => { r.checked = false; });
      this.showAnswer(this.nodes[i], a);
    });
    this.bulkUndo = null;
    this.progress();
    this.remember();
    this.root.querySelector("#bulk-ok").focus();
  }

  /** The button while items are open; after a tap, what it did and "Desfazer". */
  showBulk() {
    const open = (this.answers || []).filter((a) => !a.result).length;
    const undo = (this.bulkUndo || []).filter((a) => a.bulk).length;
    const button = this.root.querySelector("#bulk-ok");
    button.hidden = !open;
    button.textContent = open === 1 ? "Marcar o item que falta como conforme" : "Marcar os demais como conformes";
    const done = this.root.querySelector("#bulk-done");
    done.hidden = !undo;
    this.root.querySelector("#bulk-text").textContent = undo === 1
      ? "1 item marcado como conforme de uma vez." : `${undo} itens marcados como conformes de uma vez.`;
  }

  /** Reasons the registry knows that no checklist item asks about: said above the list. */
  renderKnown(loose) {
    const box = this.root.querySelector("#inspection-known");
    box.replaceChildren(...(loose.length ? [el("p", { class: "known-title" },
      "O cadastro também aponta (sem item neste checklist):"), el("ul", {}, loose.map((t) => el("li", {}, t)))] : []));
    box.hidden = !loose.length;
  }

  /** Show what an answer needs: photo and note when failing, a note when overruling the
   * registry (the agent disagrees: the review must see why). */
  showAnswer(node, answer) {
    const fail = answer.result === "fail";
    const overruled = Boolean(answer.registry && answer.result && !fail);
    node.querySelector(".failure").hidden = !fail;
    node.querySelector(".note-box").hidden = !fail && !overruled;
    node.querySelector(".note-label").textContent = overruled
      ? "Por que discorda do cadastro? (obrigatório)" : "Observação";
    node.classList.toggle("is-fail", fail);
    node.classList.toggle("is-overruled", overruled);
  }

  renderItem(answer, index) {
    const { item } = answer;
    const node = this.template.content.firstElementChild.cloneNode(true);
    node.dataset.itemId = item.id;
    node.dataset.label = item.label;
    node.id = `item-${index + 1}`;
    node.querySelector(".item-label").textContent = `${index + 1}. ${item.label}`;
    const help = node.querySelector(".item-help");
    help.textContent = item.help || "";
    help.hidden = !item.help;
    const registry = node.querySelector(".item-registry");
    registry.hidden = !answer.registry;
    if (answer.registry) registry.querySelector(".item-registry-text").textContent = answer.registry;
    // The citation one tap away: the law's own words work offline, the full text online.
    const cite = node.querySelector(".item-cite");
    const c = item.citation || {};
    if (c.law || c.law_slug || item.help) {
      // the row's last cell: the article alone ("Art. 2"); the law's name where it unfolds
      cite.querySelector("summary").textContent = c.article || c.law || "Detalhes";
      cite.querySelector("summary").setAttribute("aria-label", `${[c.law, c.article].filter(Boolean).join(", ") || "Detalhes"}: o que conferir`);
      cite.querySelector(".item-where").textContent = [c.law, c.article].filter(Boolean).join(", ");
      cite.querySelector(".item-quote").textContent = c.quote ? `“${c.quote}”` : "";
      const link = cite.querySelector(".item-law");
      if (c.law_slug) link.href = lawHref(c);
      else link.remove();
    } else {
      cite.remove();
    }
    node.querySelectorAll('input[type="radio"]').forEach((radio) => {
      radio.name = `item-${index}`;
      radio.addEventListener("change", () => {
        answer.result = radio.value;
        answer.bulk = false; // answered by hand: no longer "os demais"
        this.showAnswer(node, answer);
        node.classList.remove("is-missing");
        this.progress();
        this.remember();
      });
      if (answer.result === radio.value) radio.checked = true; // a kept draft, or the registry's
    });
    this.showAnswer(node, answer);
    const note = node.querySelector(".note-box textarea");
    note.value = answer.note;
    note.addEventListener("input", (e) => {
      answer.note = e.target.value;
      this.refreshGaps();
      this.remember();
    });
    // "Foto obrigatória" only while the item still has no photo (taken: said no more)
    const required = node.querySelector(".photo-required");
    const photoNeeded = () => { required.hidden = !item.photo_required_on_failure || answer.photos.length > 0; };
    photoNeeded();
    const grant = grantBox(answer, () => this.remember());
    if (grant) node.querySelector(".failure").append(grant);
    const thumbs = node.querySelector(".thumbs");
    answer.photos.forEach((photo) => thumbs.appendChild(this.thumbnail(answer, photo, photoNeeded)));
    node.querySelector('input[type="file"]').addEventListener("change", async (e) => {
      const files = Array.from(e.target.files || []);
      e.target.value = "";
      for (const file of files) {
        try {
          const photo = await photoFromFile(file, this.id);
          answer.photos.push(photo);
          thumbs.appendChild(this.thumbnail(answer, photo, photoNeeded));
          photoNeeded();
          node.classList.remove("is-missing");
          this.refreshGaps();
          await drafts.putPhoto(photo).catch((err) => console.warn("rascunho", err));
          this.remember();
        } catch (error) {
          this.showError(error.message);
        }
      }
    });
    return node;
  }

  /** A photo's preview with "Remover"; `removed()` runs after it is taken off the item. */
  thumbnail(answer, photo, removed = () => {}) {
    const url = URL.createObjectURL(new Blob([photo.bytes], { type: photo.mime }));
    this.previews.push(url);
    const figure = document.createElement("figure");
    figure.className = "thumb";
    const img = document.createElement("img");
    img.src = url;
    img.alt = "Foto do item";
    const remove = document.createElement("button");
    remove.type = "button";
    remove.className = "btn small";
    remove.textContent = "Remover";
    remove.addEventListener("click", () => {
      answer.photos = answer.photos.filter((p) => p.id !== photo.id);
      figure.remove();
      removed();
      this.refreshGaps();
      drafts.deletePhoto(photo.id).catch(() => {});
      this.remember();
    });
    figure.append(img, remove);
    return figure;
  }

  locate() {
    const status = this.root.querySelector("#gps-status");
    if (!navigator.geolocation) {
      status.textContent = "GPS indisponível neste aparelho.";
      return;
    }
    status.textContent = "Obtendo posição…";
    navigator.geolocation.getCurrentPosition((pos) => {
      this.location = { lat: pos.coords.latitude, lon: pos.coords.longitude,
        accuracy_m: Math.round(pos.coords.accuracy) };
      status.textContent = `Posição registrada (±${this.location.accuracy_m} m).`;
      this.remember();
    }, () => {
      status.textContent = "Não foi possível obter a posição (opcional).";
    }, { enableHighAccuracy: true, timeout: 20000, maximumAge: 60000 });
  }

  /** "Quem conduzia": one large radio per linked driver (photo + name), then "outro". */
  renderDrivers(drivers, riderId) {
    this.drivers = drivers;
    this.driver = undefined; // undefined: not chosen; null: "outro / não cadastrado"
    this.root.querySelector("#driver-other").checked = false;
    this.otherName.value = "";
    this.fieldError(this.otherName, this.driverError, "");
    this.root.querySelector("#driver-note").textContent = drivers.length
      ? (drivers.length === 1 ? "Condutor vinculado ao veículo:" : "Escolha quem conduzia entre os condutores vinculados ao veículo:")
      : "Nenhum condutor vinculado a este veículo nos dados do aparelho.";
    this.root.querySelector("#driver-choices").replaceChildren(...drivers.map((d) => {
      const radio = el("input", { type: "radio", name: "driver", value: String(d.id) });
      radio.addEventListener("change", () => this.pickDriver(d));
      return el("label", { class: "driver-choice", dataset: { driverId: String(d.id) } }, radio,
        d.photo ? el("img", { src: d.photo, alt: "" }) : null,
        el("span", {}, d.name, d.registration_number ? el("span", { class: "sub" }, `inscrição ${d.registration_number}`) : null));
    }));
    const preset = drivers.find((d) => d.id === riderId) || (drivers.length === 1 ? drivers[0] : null);
    if (preset) {
      this.root.querySelector(`#driver-choices input[value="${preset.id}"]`).checked = true;
      this.pickDriver(preset);
    } else {
      this.root.querySelector("#driver-other-box").hidden = true;
    }
  }

  /** The agent chose who was driving (null: someone not registered, whose name is asked). */
  pickDriver(driver) {
    this.driver = driver;
    this.remember();
    this.root.querySelector("#driver-other-box").hidden = driver !== null;
    this.fieldError(this.otherName, this.driverError, "");
    this.fillAckName();
    if (driver === null) this.otherName.focus();
  }

  /** Once someone has signed, prefill the ciente's name with the driver's, unless the agent
      typed another one. Never before a signature: a name the app wrote by itself would be
      sent as a ciente nobody gave (the notice's deadline would run from the street). */
  fillAckName() {
    const driver = this.driverChoice();
    const name = this.signature.isEmpty() || !driver ? "" : driver.name;
    if (this.ackName.value.trim() && this.ackName.value.trim() !== this.autoName) return;
    this.ackName.value = name;
    this.autoName = name;
    if (name) this.fieldError(this.ackName, this.ackError, "");
  }

  /** A message next to one field (empty: none). */
  fieldError(input, box, message) {
    box.textContent = message;
    box.hidden = !message;
    input.classList.toggle("is-missing-field", Boolean(message));
    if (message) input.setAttribute("aria-invalid", "true");
    else input.removeAttribute("aria-invalid");
  }

  /** The driver field of the body: {id, name}, {id: null, name} or null when not told. */
  driverChoice() {
    if (this.driver === undefined) return null;
    if (this.driver === null) return { id: null, name: this.otherName.value.trim() };
    return { id: this.driver.id, name: this.driver.name };
  }

  showError(message) {
    this.error.textContent = message;
    this.error.hidden = !message;
  }

  /** The items that stop saving, marked: [{index, node, what, focus}] in the order shown. */
  problems() {
    const problems = [];
    this.answers.forEach((answer, index) => {
      const node = this.nodes[index];
      let gap;
      if (!answer.result) {
        gap = { what: "resposta", focus: "input[type=radio]" };
      } else if (answer.registry && answer.result !== "fail" && !answer.note.trim()) {
        gap = { what: "motivo de discordar do cadastro", focus: ".note-box textarea" };
      } else if (answer.result === "fail" && answer.item.photo_required_on_failure && answer.photos.length === 0) {
        gap = { what: "foto", focus: ".photo-btn input" };
      } else {
        gap = grantGap(answer);
      }
      node.classList.toggle("is-missing", Boolean(gap));
      if (gap) problems.push({ ...gap, index, node });
    });
    return problems;
  }

  /** One summary of what is missing, in the bar kept on top ("Faltam 3 itens: resposta em
   * 3, 9; foto em 7"), each number a link to its item; with `jump`, the first gap on screen with
   * the focus in it (never one error per item). Kept up to date as gaps are filled. */
  showGaps(gaps, jump = true) {
    const box = this.root.querySelector("#inspection-gaps");
    this.gapsShown = gaps.length > 0;
    box.hidden = !gaps.length;
    if (!gaps.length) return;
    // a few numbers on one or two lines; more fold behind "ver todos" (never a box that
    // takes the screen, never a list cut short)
    const shown = this.gapsOpen || gaps.length <= GAPS_SHOWN ? gaps : gaps.slice(0, GAPS_SHOWN);
    const kinds = [...new Set(shown.map((g) => g.what))];
    const more = gaps.length - shown.length;
    const toggle = gaps.length > GAPS_SHOWN ? el("button", { type: "button", class: "link-button gaps-toggle",
      "aria-expanded": String(this.gapsOpen), onclick: () => {
        this.gapsOpen = !this.gapsOpen;
        this.showGaps(this.problems(), false);
        this.root.querySelector(".gaps-toggle").focus();
      } }, this.gapsOpen ? "recolher" : `ver todos (mais ${more})`) : null;
    box.replaceChildren(`${gaps.length === 1 ? "Falta 1 item" : `Faltam ${gaps.length} itens`}: `,
      ...kinds.flatMap((what, k) => [k ? "; " : "", `${what} em `,
        ...shown.filter((g) => g.what === what).flatMap((g, i) => [i ? ", " : "",
          el("a", { href: `#${g.node.id}`, title: g.node.dataset.label, onclick: (e) => {
            e.preventDefault();
            this.goTo(g);
          } }, String(g.index + 1))])]), more ? "… " : ".", toggle ? " " : "", toggle || "");
    if (jump) this.goTo(gaps[0]);
  }

  /** After a "Salvar" with gaps, the summary follows what the agent fills. */
  refreshGaps() {
    if (this.gapsShown) this.showGaps(this.problems(), false);
  }

  goTo(gap) {
    gap.node.scrollIntoView({ block: "center" });
    const target = gap.node.querySelector(gap.focus);
    // the radios and the photo input are visually hidden: their label shows the focus ring
    if (target) target.focus({ preventScroll: true });
  }

  /** Validate and write the inspection to the outbox; its UUID, or null when not valid. */
  async save() {
    const gaps = this.problems();
    if (gaps.length) {
      this.showGaps(gaps);
      return null;
    }
    const driver = this.driverChoice();
    if (driver && driver.id === null && !driver.name) {
      this.fieldError(this.otherName, this.driverError, "Escreva o nome de quem conduzia.");
      this.showError("Falta o nome de quem conduzia.");
      this.otherName.focus();
      return null;
    }
    const name = this.ackName.value.trim();
    if (!this.signature.isEmpty() && !name) {
      // a ciente without a name is no ciente on the review page or the notice (Art. 27 I)
      this.fieldError(this.ackName, this.ackError, "Escreva o nome de quem assinou o ciente.");
      this.showError("Falta o nome de quem assinou o ciente.");
      this.ackName.focus();
      return null;
    }
    // without a signature only a name the agent typed is a ciente (given aloud), never the
    // app's own prefill (a draft kept by an older version may still hold one)
    const shorten = this.shortenChoice();
    if (shorten === undefined) {
      this.showError("Falta o motivo da redução da validade.");
      this.root.querySelector("#shorten-reason").focus();
      return null;
    }
    const unsigned = this.signature.isEmpty() && (!name || name === this.autoName);
    const acknowledgement = unsigned ? null
      : { name, signature_png: this.signature.isEmpty() ? null : this.signature.toDataURL() };
    const id = await saveInspection({
      id: this.id, vehicle: this.context.vehicle, credentialToken: this.context.credentialToken,
      kind: this.context.kind || "street", shorten,
      scannedHost: this.context.scannedHost,
      startedAt: this.startedAt, snapshotVersion: this.context.snapshotVersion,
      location: this.location, acknowledgement, driver,
      answers: this.answers.map((a) => ({ itemId: a.item.id, result: a.result, registry: a.registry,
        note: a.result === "fail" || a.registry ? a.note : "", photos: a.result === "fail" ? a.photos : [],
        grant: grantOf(a), bulk: Boolean(a.bulk) })),
    });
    this.close();
    return id;
  }
}
