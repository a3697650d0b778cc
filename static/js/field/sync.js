// The outbox protocol of docs/sync.md, and the registry snapshot refresh.
// An inspection goes first, then only the photos the server says are missing. A copy on
// the phone is deleted only after the server confirmed it (and the inspection only after
// `complete: true`). Network errors and 5xx: kept, retried with backoff. 409/422: kept,
// shown to the agent, not retried automatically. A photo refused for good (422 with
// `permanent: true`: its bytes can never be evidence) is never sent again, not even by
// "Tentar de novo"; the inspection's other photos still go, and the entry keeps the refusal
// (`refusedPhotos`) for the queue screen. The server no longer awaits a refused photo: once
// it has everything else (`complete`), the entry stays only to tell the agent (`delivered`:
// nothing left to send, "Dispensar" removes it). Nothing expires. A 401 (session expired)
// stops the run and leaves every entry exactly as it was.
// Only the signed-in agent's own inspections are sent (each keeps its author): another
// agent's stay in the outbox untouched until that agent signs in on the phone.
// Every run ends by fetching the supervisor's answers on the agent's inspections (reviews).

import { SIGNED_OUT, fetchSession, isCsrfFailure, request } from "./api.js";
import * as store from "./db.js";
import { plural } from "./ui.js";

const WORKERS = 4;               // inspections sent side by side
const BASE_DELAY_MS = 5000;      // first retry after a failure
const MAX_DELAY_MS = 5 * 60000;  // never wait longer than this between retries
const PHOTO_TIMEOUT_MS = 180000; // a 12 MP photo on a weak 3G link

// The snapshot format this app reads (inspector/field/snapshot.py FORMAT): a phone
// holding an older one fetches a full snapshot instead of a delta.
export const SNAPSHOT_FORMAT = 3;

/** Sync news for the UI: "changed" (counts), "status" ({state, message}), "reviews" ({fresh}). */
export const events = new EventTarget();

let running = null;
let failures = 0;
let retryTimer = null;

function emit(type, detail = {}) {
  events.dispatchEvent(new CustomEvent(type, { detail }));
}

let again = false;

/**
 * Send everything waiting in the outbox; resolves to a summary. One run at a time: a call
 * during a run (an inspection saved meanwhile) makes one more run right after it.
 */
export function syncOutbox({ manual = false, onlyId = null } = {}) {
  if (running) {
    if (!onlyId) again = true;
    return running;
  }
  clearTimeout(retryTimer);
  retryTimer = null;
  running = withLock(() => runOnce({ manual, onlyId })).finally(() => {
    running = null;
    if (again) {
      again = false;
      if (!retryTimer) syncOutbox();
    }
  });
  return running;
}

/** Hold a lock shared by every tab of the app, so two tabs never send the same entry at once. */
async function withLock(fn) {
  if (navigator.locks && navigator.locks.request) {
    return navigator.locks.request("campo-outbox-sync", fn);
  }
  return fn();
}

async function runOnce({ manual, onlyId }) {
  const summary = await sendOutbox({ manual, onlyId });
  if (!summary.offline && !summary.signedOut && !summary.forbidden && !onlyId) {
    await refreshReviews().catch((error) => console.warn("revisões", error));
  }
  return summary;
}

async function sendOutbox({ manual, onlyId }) {
  const waiting = (await store.outboxEntries()).filter((e) =>
    onlyId ? e.id === onlyId : e.state !== "attention");
  const summary = { sent: 0, kept: 0, attention: 0, others: 0, signedOut: false, forbidden: false,
    offline: false };
  if (waiting.length === 0) {
    failures = 0; // nothing to send: keep the last run's message on screen
    return summary;
  }
  const known = await store.getMeta("user"); // the last agent seen signed in, until the server says
  const ownedBy = (user) => waiting.filter((e) => user && e.agentId !== null && e.agentId === user.id);
  const likely = ownedBy(known);
  if (likely.length) emit("status", { state: "sending", message: `Enviando ${plural(likely.length, "vistoria", "vistorias")}…` });
  const session = await fetchSession();
  if (session.signedOut || !session.ok) {
    summary.kept = likely.length;
    summary.others = waiting.length - likely.length;
    if (session.signedOut) summary.signedOut = true;
    else if (likely.length === 0) return quiet(summary); // nothing of ours: no retry timer
    else summary.offline = true;
    return finish(summary, manual);
  }
  const user = (session.data && session.data.user) || session.data;
  const entries = ownedBy(user); // never another agent's, never an unknown author's
  summary.others = waiting.length - entries.length;
  if (entries.length === 0) {
    if (onlyId) {
      emit("status", { state: "attention", message: whoseMessage(waiting[0]) });
    }
    return quiet(summary);
  }
  if (!likely.length) emit("status", { state: "sending", message: `Enviando ${plural(entries.length, "vistoria", "vistorias")}…` });
  const queue = entries.slice();
  const stop = { now: false };
  async function worker() {
    while (queue.length && !stop.now) {
      const entry = queue.shift();
      const outcome = await sendInspection(entry);
      if (outcome === "done") summary.sent += 1;
      else if (outcome === "attention") summary.attention += 1;
      else summary.kept += 1;
      if (outcome === "offline") stop.now = summary.offline = true;
      if (outcome === "signed-out") stop.now = summary.signedOut = true;
      if (outcome === "forbidden") stop.now = summary.forbidden = true;
      emit("changed");
    }
  }
  await Promise.all(Array.from({ length: Math.min(WORKERS, entries.length) }, worker));
  summary.kept += queue.length;
  return finish(summary, manual);
}

/** "This inspection is Fulano's: sign in as Fulano to send it." */
function whoseMessage(entry) {
  if (entry.agentId === null || entry.agentId === undefined) {
    return "Vistoria sem autor registrado: na fila de envio, quem a fez pode enviá-la em seu nome.";
  }
  const name = entry.agentName || entry.agentUsername || "outro agente";
  return `Esta vistoria é de ${name}: entre como ${name} para enviá-la.`;
}

/** End a run that had nothing of the signed-in agent's to send (others' wait for them). */
function quiet(summary) {
  failures = 0;
  emit("changed");
  return summary;
}

/** The server's words when it refused to take an inspection from this session (403). */
let forbiddenMessage = "";

function finish(summary, manual) {
  emit("changed");
  if (summary.signedOut) {
    emit("status", { state: "signed-out", message: `${SIGNED_OUT} A fila continua no aparelho.` });
  } else if (summary.forbidden) {
    emit("status", { state: "attention", message: forbiddenMessage ||
      "Seu perfil não pode enviar vistorias: entre com uma conta de agente. A fila continua no aparelho." });
    forbiddenMessage = "";
  } else if (summary.kept > 0) {
    failures += 1;
    const delay = scheduleRetry();
    // Offline only when the phone says so: a request that died while the phone is online
    // (a lost answer) may have reached the server, and the resend will not duplicate it.
    const why = !summary.offline ? "O servidor não respondeu"
      : navigator.onLine ? "A conexão caiu antes da resposta do servidor (o que já chegou não será duplicado)"
        : "Sem conexão";
    emit("status", { state: "waiting",
      message: `${why}: ${plural(summary.kept, "vistoria fica", "vistorias ficam")} no aparelho. Nova tentativa em ${Math.round(delay / 1000)} s.` });
  } else {
    failures = 0;
    const parts = [];
    if (summary.sent) parts.push(plural(summary.sent, "vistoria enviada", "vistorias enviadas"));
    if (summary.attention) parts.push(plural(summary.attention, "precisa de atenção", "precisam de atenção"));
    emit("status", { state: summary.attention ? "attention" : "done", message: parts.join("; ") });
  }
  const at = new Date().toISOString();
  store.setMeta("lastSync", { at, ...summary, manual });
  if (summary.sent > 0) {
    store.setMeta("lastSent", { at, sent: summary.sent }).then(() => emit("sent"));
  }
  return summary;
}

/** Try again later, waiting longer after each failure (with jitter, capped). */
function scheduleRetry() {
  const base = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** Math.min(failures - 1, 10));
  const delay = Math.round(base * (0.5 + Math.random() / 2));
  clearTimeout(retryTimer);
  retryTimer = setTimeout(() => syncOutbox(), delay);
  return delay;
}

/** Drop the backoff wait (the network just came back). */
export function resetBackoff() {
  failures = 0;
}

/** Put a request through, refreshing a stale CSRF token once. */
async function send(method, path, options) {
  let result = await request(method, path, options);
  if (isCsrfFailure(result)) {
    await fetchSession();
    result = await request(method, path, options);
  }
  return result;
}

/** What a failed answer means for the entry: retry later, stop the run, or ask the agent. */
function classify(result) {
  if (result.networkError) return "offline";
  if (result.signedOut) return "signed-out";
  if (result.status === 403) return "forbidden";
  if (result.retryable) return "retry";
  return "attention";
}

async function needsAttention(entry, result, what) {
  await store.updateOutboxEntry(entry.id, {
    state: "attention", message: `${what}: ${result.message}`, httpStatus: result.status,
    lastTriedAt: new Date().toISOString(),
  });
  return "attention";
}

/** Send one inspection and what it still misses; "done" once the server has all of it. */
export async function sendInspection(entry) {
  const result = await send("PUT", `/api/field/inspections/${entry.id}`, { json: entry.body });
  const outcome = result.ok ? "sent" : classify(result);
  if (outcome === "forbidden" && result.data && result.data.reason === "other_author") {
    forbiddenMessage = result.message;
  }
  if (outcome === "signed-out" || outcome === "forbidden") return outcome; // entry untouched
  const tried = { attempts: (entry.attempts || 0) + 1, lastTriedAt: new Date().toISOString() };
  if (!result.ok) {
    await store.updateOutboxEntry(entry.id, tried);
    if (outcome === "attention") return needsAttention(entry, result, "Vistoria recusada");
    await store.updateOutboxEntry(entry.id, { message: result.message });
    return outcome;
  }
  await store.updateOutboxEntry(entry.id, { ...tried, state: "pending", message: "", acknowledged: true });
  // a vistoria's result is decided when it arrives (docs/vistoria.md): the agent is told
  if (result.data && result.data.vistoria) emit("vistoria", { label: entry.label, ...result.data.vistoria });
  return sendMissingPhotos(entry, result.data || {});
}

/**
 * The server has all of the inspection it will ever take. Without a refused photo the entry
 * goes; with one it stays, delivered, to tell the agent (retake in a new inspection).
 */
async function delivered(entry, refused) {
  const ids = Object.keys(refused);
  if (ids.length === 0) {
    await store.deleteInspection(entry.id);
    return "done";
  }
  for (const photo of await store.photosOf(entry.id)) {
    if (!refused[photo.id]) await store.deletePhoto(photo.id);
  }
  const first = refused[ids[0]].message;
  await store.updateOutboxEntry(entry.id, {
    state: "attention", delivered: true, refusedPhotos: refused, httpStatus: 422,
    message: `${ids.length === 1 ? "Foto recusada" : `${ids.length} fotos recusadas`}: ${first} ` +
      "A vistoria chegou ao servidor sem ela: faça uma nova vistoria com a foto.",
  });
  emit("changed");
  return "attention";
}

async function sendMissingPhotos(entry, status) {
  const refused = { ...(entry.refusedPhotos || {}) };
  for (const r of status.refused_photos || []) {
    // refused by an earlier run whose answer was lost on the way
    if (!refused[r.id]) refused[r.id] = { message: `${r.reason}. Tire a foto de novo.`, problem: "", at: new Date().toISOString() };
  }
  if (status.complete) return delivered(entry, refused);
  const missing = new Set(status.missing_photos || []);
  const local = await store.photosOf(entry.id);
  for (const photo of local) {
    // The server already holds it (an earlier upload whose answer was lost): drop our copy.
    if (!missing.has(photo.id) && !refused[photo.id]) await store.deletePhoto(photo.id);
  }
  let outcome = "retry";
  const sent = new Set();
  for (const photoId of missing) {
    if (refused[photoId]) continue; // the server refused these bytes for good: never again
    const photo = local.find((p) => p.id === photoId);
    if (!photo) {
      return needsAttention(entry, { message: "a foto não está mais no aparelho", status: 0 },
        `Foto ${photoId.slice(0, 8)}`);
    }
    const result = await send("PUT", `/api/field/inspections/${entry.id}/photos/${photo.id}`, {
      body: photo.bytes, timeoutMs: PHOTO_TIMEOUT_MS,
      headers: { "Content-Type": photo.mime, "X-Content-SHA256": photo.sha256 },
    });
    if (result.ok) {
      sent.add(photo.id);
      await store.deletePhoto(photo.id);
      emit("changed");
      if (result.data && result.data.complete) return delivered(entry, refused);
      continue;
    }
    if (result.status === 422 && result.data && result.data.permanent) {
      // Kept on the phone and shown on the queue screen; the other photos go on.
      refused[photoId] = { message: result.message, problem: result.data.problem || "",
        at: new Date().toISOString() };
      await store.updateOutboxEntry(entry.id, { refusedPhotos: refused });
      emit("changed");
      continue;
    }
    if (result.status === 404) {
      // The server does not know the inspection (yet): the next run sends it again first.
      await store.updateOutboxEntry(entry.id, { acknowledged: false, message: result.message });
      return "retry";
    }
    const failure = classify(result);
    if (failure === "signed-out" || failure === "forbidden") return failure; // kept as it was
    if (failure === "attention") return needsAttention(entry, result, "Foto recusada");
    await store.updateOutboxEntry(entry.id, { message: result.message });
    if (failure !== "retry") return failure;
    // a 5xx on this photo: keep it, go on with the others
  }
  const waiting = [...missing].filter((id) => !refused[id] && !sent.has(id));
  if (waiting.length === 0 && Object.keys(refused).some((id) => missing.has(id))) {
    // Everything else is on the server, which awaits no refused photo: it has completed the
    // inspection. The agent has to see it (and retake the photo in a new inspection).
    return delivered(entry, refused);
  }
  // Not complete yet: the next run asks the server again what is still missing.
  return outcome;
}

/** Let an entry the agent looked at be sent again (after a 409/422 was fixed on the server). */
export async function retryEntry(id) {
  await store.updateOutboxEntry(id, { state: "pending", message: "" });
  return syncOutbox({ manual: true, onlyId: id });
}

// ---------- the registry snapshot ----------

/**
 * Fetch what changed in the town since the stored version; the whole snapshot the first
 * time, and when the phone's rows have another shape than this app reads (an older
 * `snapshotFormat`) or than the server now sends (a delta of another format). Only the
 * snapshot tables are replaced: the outbox and its photos are never touched.
 */
export async function refreshSnapshot() {
  const since = await store.getMeta("snapshotVersion");
  const format = await store.getMeta("snapshotFormat");
  const stale = !(typeof format === "number" && format >= SNAPSHOT_FORMAT);
  const full = since === undefined || since === null || stale;
  const path = full ? "/api/field/snapshot" : `/api/field/snapshot?since=${encodeURIComponent(since)}`;
  let result = await request("GET", path, { timeoutMs: 180000 });
  if (!result.ok || !result.data) return result;
  if (!result.data.full && (result.data.format ?? 1) !== format) {
    // the server's rows changed shape since the phone's copy: a delta would leave old rows
    result = await request("GET", "/api/field/snapshot", { timeoutMs: 180000 });
    if (!result.ok || !result.data) return result;
  }
  await store.applySnapshot(result.data);
  emit("snapshot", { full: result.data.full, version: result.data.version });
  return result;
}

// ---------- the supervisor's answers ----------

/** Fetch the answers on the agent's inspections changed since the stored version. */
export async function refreshReviews() {
  const since = await store.getMeta("reviewsVersion");
  const path = since === undefined || since === null
    ? "/api/field/reviews"
    : `/api/field/reviews?since=${encodeURIComponent(since)}`;
  const result = await request("GET", path, { timeoutMs: 60000 });
  if (!result.ok || !result.data) return result;
  const fresh = await store.applyReviews(result.data);
  emit("reviews", { fresh, full: result.data.full });
  return result;
}
