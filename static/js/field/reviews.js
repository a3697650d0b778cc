// "Minhas vistorias": the agent's own inspections and what the supervision answered —
// each act confirmed, amended or rejected (with the reason), the comments — as fetched by
// the last sync (GET /api/field/reviews) and kept in IndexedDB, so it reads offline too.
// Answers the agent has not seen yet are marked "Nova resposta" until the list is opened.

import * as store from "./db.js";
import { el, formatDateTime, plural } from "./ui.js";

const ACT_TONE = {
  confirmed: "ok", complied: "ok", closed: "ok", appeal_refused: "ok",
  amended: "warn", converted_to_daily_fine: "warn", appealed: "warn",
  rejected: "bad", appeal_accepted: "bad",
};
const CONFIRMED = ["confirmed", "complied", "converted_to_daily_fine", "appealed", "appeal_refused", "closed"];
const WAITING = { incomplete: "Aguardando fotos", awaiting_review: "Aguardando revisão", reviewed: "Revisada" };

/** One line per outcome: "1 confirmado · 1 rejeitado · 1 aguardando revisão". */
function tally(acts) {
  const count = (test) => acts.filter(test).length;
  const parts = [
    [count((a) => a.status === "rejected"), "rejeitado", "rejeitados"],
    [count((a) => a.status === "amended"), "alterado", "alterados"],
    [count((a) => CONFIRMED.includes(a.status)), "confirmado", "confirmados"],
    [count((a) => a.status === "appeal_accepted"), "anulado em recurso", "anulados em recurso"],
    [count((a) => a.status === "proposed"), "aguardando revisão", "aguardando revisão"],
  ];
  return parts.filter(([n]) => n).map(([n, one, many]) => plural(n, one, many)).join(" · ");
}

function actLine(act) {
  const waiting = act.status === "proposed";
  const tone = ACT_TONE[act.status] || "";
  return el("li", { class: `review-act${tone ? " act-" + tone : ""}`, dataset: { act: act.id, status: act.status } },
    el("p", {}, el("strong", {}, act.kind_label || act.kind), " — ", act.label || ""),
    el("p", { class: "act-status" }, waiting && act.status_label === "Proposto" ? "Aguardando revisão" : act.status_label),
    act.reason ? el("p", { class: "act-reason" }, `Motivo: ${act.reason}`) : null,
    act.comment ? el("p", { class: "act-comment" }, `Comentário: ${act.comment}`) : null,
    act.notice_number ? el("p", {}, `Documento nº ${act.notice_number}`) : null);
}

function reviewEntry(entry) {
  const review = entry.review || {};
  const acts = review.acts || [];
  const comments = review.comments || [];
  return el("li", { class: `review${entry.unseen ? " is-new" : ""}`, dataset: { id: entry.id, status: review.status || "" } },
    el("p", { class: "review-head" },
      el("strong", {}, entry.plate || "—"), entry.prefix ? ` · prefixo ${entry.prefix}` : "",
      ` · ${formatDateTime(entry.finished_at)}`,
      entry.unseen ? el("span", { class: "new-badge" }, "Nova resposta") : null),
    el("p", { class: "review-status" }, review.status_label || WAITING[review.status] || "",
      acts.length ? ` — ${tally(acts)}` : (entry.failed_items ? "" : " — tudo conforme")),
    acts.length ? el("ul", { class: "review-acts" }, acts.map(actLine)) : null,
    // a photo the server refused for good (docs/sync.md §3): the inspection went without it
    (entry.refused_photos || []).length ? el("ul", { class: "review-refused" }, entry.refused_photos.map((p) =>
      el("li", { dataset: { photo: p.id } }, el("strong", {}, "Foto recusada pelo servidor: "),
        p.reason || "imagem inválida", ". Para registrar o defeito, faça uma nova vistoria com outra foto."))) : null,
    comments.length ? el("ul", { class: "review-comments" }, comments.map((c) =>
      el("li", {}, el("strong", {}, `Supervisão (${formatDateTime(c.at)}): `), c.text))) : null);
}

function outboxEntry(entry) {
  return el("li", { class: "review waiting", dataset: { id: entry.id, status: "outbox" } },
    el("p", { class: "review-head" }, el("strong", {}, entry.label || entry.id), ` · ${formatDateTime(entry.createdAt)}`),
    el("p", { class: "review-status" }, entry.state === "attention" ? "Precisa de atenção (veja a fila de envio)" : "Aguardando envio"));
}

/** Draw the list, then count every answer on it as seen. */
export async function renderReviews(list, note) {
  const [entries, outbox, version] = await Promise.all([
    store.reviewEntries(), store.outboxEntries(), store.getMeta("reviewsVersion")]);
  const rows = [...outbox.slice().reverse().map(outboxEntry), ...entries.map(reviewEntry)];
  list.replaceChildren(...(rows.length ? rows
    : [el("li", { class: "empty" }, "Nenhuma vistoria sua neste aparelho ainda.")]));
  note.textContent = version === undefined
    ? "As respostas da supervisão chegam na próxima sincronização com internet."
    : "Respostas da supervisão até a última sincronização.";
  await store.markReviewsSeen();
}

/** The count on the home screen's "Minhas vistorias" button. */
export async function renderReviewCount(badge) {
  const unseen = await store.unseenReviews();
  badge.textContent = unseen ? plural(unseen, "nova", "novas") : "";
  badge.hidden = unseen === 0;
  badge.parentElement.setAttribute("aria-label",
    unseen ? `Minhas vistorias: ${plural(unseen, "resposta nova", "respostas novas")}` : "Minhas vistorias");
}
