// What waits on the phone, as the agent sees it: the counters always on screen (the signed-in
// agent's inspections and photos, and a line per other agent whose inspections wait for them)
// and the queue screen ("Fila de envio"). Only the signed-in agent's inspections are sent
// (docs/sync.md §4, "Whose inspection").

import * as store from "./db.js";
import * as sync from "./sync.js";
import { el, formatDateTime, plural } from "./ui.js";

const $ = (id) => document.getElementById(id);

/** "2 vistorias de Fulano aguardam envio: entre como Fulano para enviá-las." */
export function othersText(group) {
  const one = group.inspections === 1;
  const name = group.agentName || "outro agente";
  return `${plural(group.inspections, "vistoria", "vistorias")} de ${name} ${one ? "aguarda" : "aguardam"} envio: ` +
    `entre como ${name} para ${one ? "enviá-la" : "enviá-las"}.`;
}

/** The line for inspections saved by an older app version with no author known. */
export function unknownText(group) {
  const one = group.inspections === 1;
  return `${plural(group.inspections, "vistoria", "vistorias")} sem autor registrado (${one ? "salva" : "salvas"} ` +
    `por uma versão anterior do aplicativo) ${one ? "aguarda" : "aguardam"} envio: veja a fila de envio.`;
}

/** Redraw the counters for the agent `user` (the signed-in one, or the last seen). */
export async function renderPending(user) {
  const counts = await store.pendingCounts(user ? user.id : null);
  $("pending-text").textContent =
    `${plural(counts.inspections, "vistoria", "vistorias")} e ${plural(counts.photos, "foto", "fotos")} aguardando envio`;
  const waitingOthers = counts.others.reduce((n, g) => n + g.inspections, 0) + counts.unknown.inspections;
  const box = $("pending");
  box.dataset.inspections = counts.inspections;
  box.dataset.photos = counts.photos;
  box.dataset.others = waitingOthers;
  box.classList.toggle("has-pending", counts.inspections + waitingOthers > 0);
  // nothing waits nor needs attention: one compact line (field.css), the card stays in sight
  box.classList.toggle("is-idle", counts.inspections + waitingOthers + counts.attention === 0);
  const lines = counts.others.map(othersText);
  if (counts.unknown.inspections) lines.push(unknownText(counts.unknown));
  const others = $("pending-others");
  others.hidden = lines.length === 0;
  others.replaceChildren(...lines.map((line) => el("span", {}, line)));
  const attention = $("pending-attention");
  attention.hidden = counts.attention === 0;
  attention.textContent = counts.attention ? `${plural(counts.attention, "vistoria precisa", "vistorias precisam")} de atenção (veja a fila).` : "";
}

/** Who made an outbox inspection, and what the signed-in agent can do about it. */
function authorLine(e, user, claim) {
  if (e.agentId === null || e.agentId === undefined) {
    return [el("p", { class: "outbox-author" }, "Autor não registrado (salva por uma versão anterior do aplicativo)."),
      el("button", { type: "button", class: "btn small", onclick: () => claim(e) }, "Fui eu: enviar em meu nome")];
  }
  const name = e.agentName || e.agentUsername || "outro agente";
  if (user && e.agentId === user.id) return [el("p", { class: "outbox-author" }, `Feita por ${name}.`)];
  return [el("p", { class: "outbox-author other" }, `Feita por ${name}: entre como ${name} para enviá-la.`)];
}

/**
 * Draw the queue screen into `list`. `currentUser()` resolves to the signed-in agent;
 * `changed()` redraws the counters after an action.
 */
export async function renderOutboxList(list, currentUser, changed) {
  const entries = await store.outboxEntries();
  const user = await currentUser();
  const claim = async (entry) => {
    const me = await currentUser();
    if (!me) return;
    if (!window.confirm(`Enviar a vistoria ${entry.label || ""} em nome de ${me.name || me.username}? ` +
      "Faça isso só se foi você quem a fez.")) return;
    await store.claimOutboxEntry(entry.id, me);
    await changed();
    await sync.syncOutbox({ manual: true, onlyId: entry.id });
    await changed();
  };
  const labels = await itemLabels();
  const rows = await Promise.all(entries.map(async (e) => {
    const local = await store.photosOf(e.id);
    const photos = local.length;
    const mine = Boolean(user) && e.agentId === user.id;
    return el("li", { class: `outbox-entry state-${e.state}`, dataset: { id: e.id, state: e.state, mine: mine ? "1" : "0" } },
      el("p", {}, el("strong", {}, e.label || e.id), ` · salva em ${formatDateTime(e.createdAt)}`),
      authorLine(e, user, claim),
      el("p", {}, `${plural(photos, "foto", "fotos")} no aparelho · ${plural(e.attempts || 0, "tentativa", "tentativas")}`),
      e.state === "attention" ? el("p", { class: "form-error" }, "Precisa de atenção: ", e.message) : (e.message ? el("p", {}, e.message) : null),
      refusedList(e, local, labels),
      e.delivered && mine ? el("button", { type: "button", class: "btn small",
        onclick: () => store.deleteInspection(e.id).then(changed) }, "Dispensar") : null,
      e.state === "attention" && mine && !e.delivered ? el("button", { type: "button", class: "btn small",
        onclick: () => sync.retryEntry(e.id).then(changed) }, "Tentar de novo") : null);
  }));
  list.replaceChildren(...(rows.length ? rows : [el("li", { class: "empty" }, "Nada aguardando envio.")]));
}

/** Checklist item id -> its label, from the checklists on the phone. */
async function itemLabels() {
  const labels = new Map();
  for (const checklist of await store.allRows("checklists")) {
    for (const item of checklist.items || []) labels.set(item.id, item.label);
  }
  return labels;
}

/**
 * The photos of an outbox inspection that the server refused for good (docs/sync.md §3):
 * which item, when taken, and the server's words (retake). They are never sent again.
 */
function refusedList(entry, local, labels) {
  const refused = entry.refusedPhotos || {};
  const ids = Object.keys(refused);
  if (!ids.length) return null;
  const itemOf = new Map();
  for (const item of (entry.body && entry.body.items) || []) {
    for (const p of item.photos || []) itemOf.set(p.id, item.item_id);
  }
  return el("ul", { class: "outbox-refused" }, ids.map((id) => {
    const photo = local.find((p) => p.id === id);
    const item = itemOf.get(id);
    return el("li", { class: "form-error", dataset: { photo: id } },
      el("strong", {}, "Foto recusada pelo servidor"),
      ` — ${labels.get(item) || item || "item"}`,
      photo && photo.takenAt ? `, tirada em ${formatDateTime(photo.takenAt)}` : "",
      `: ${refused[id].message} `,
      entry.delivered ? "Ela não será enviada; a vistoria chegou ao servidor sem ela: faça uma nova vistoria com a foto."
        : "Ela não será enviada de novo; a vistoria já está no servidor e as outras fotos seguem.");
  }));
}
