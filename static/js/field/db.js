// The phone's storage (IndexedDB through `idb`): the town's registry snapshot, the outbox and
// the supervisor's answers on the agent's own inspections ("reviews").
// Every outbox inspection keeps who made it (agentId, agentName): the sync sends only the
// signed-in agent's own (docs/sync.md §4, "Whose inspection").
// Photos are kept as ArrayBuffer + MIME type (Blobs in IndexedDB are unreliable on Safari).

const DB_NAME = "inspector-campo";
// 2: the "reviews" store, notices indexed by driver and holder.
// 3: outbox inspections carry their author (agentId, agentName); older ones get one here.
const DB_VERSION = 4; // 4: the day's booked vistorias (appointments)
const REVIEWS_KEPT = 300;       // the newest inspections kept in "Minhas vistorias"
const FIRST_FETCH_NEW_DAYS = 7; // a first download marks as new only the answers of the last week

// Snapshot tables: how each row is keyed and which fields are indexed.
// Keys are out-of-line (computed here) so a table's key field can change without a migration.
// `replace: true`: the server always sends the whole list, so a delta replaces it too.
export const TABLES = {
  vehicles: { key: (r) => r.id, indexes: ["plate", "prefix"] },
  drivers: { key: (r) => r.id, indexes: [], multi: ["vehicle_ids"] },
  holders: { key: (r) => r.id, indexes: [] },
  licences: { key: (r) => r.id, indexes: ["vehicle_id"] },
  permits: { key: (r) => r.id, indexes: ["holder_id"] },
  insurance: { key: (r) => r.id, indexes: ["vehicle_id"] },
  stands: { key: (r) => r.id, indexes: [] },
  credentials: { key: (r) => r.id, indexes: ["token_hash", "vehicle_id"] },
  standing: { key: (r) => r.vehicle_id, indexes: [] },
  notices: { key: (r) => r.id, indexes: ["vehicle_id", "driver_id", "holder_id"] },
  last_inspections: { key: (r) => r.vehicle_id, indexes: [] },
  checklists: { key: (r) => r.service, indexes: [], replace: true },
  keys: { key: (r) => r.kid, indexes: [], replace: true },
  appointments: { key: (r) => r.id, indexes: [], replace: true },
};
const SNAPSHOT_STORES = Object.keys(TABLES);

let dbPromise = null;

/** The open database (opened once per page). */
export function openDatabase() {
  if (!dbPromise) {
    dbPromise = globalThis.idb.openDB(DB_NAME, DB_VERSION, {
      // Creates what a version lacks (a phone on version 1 keeps its outbox and snapshot).
      upgrade(db, oldVersion, newVersion, tx) {
        const ensure = (name, options) => (db.objectStoreNames.contains(name)
          ? tx.objectStore(name) : db.createObjectStore(name, options));
        const index = (store, field, options) => {
          if (!store.indexNames.contains(field)) store.createIndex(field, field, options);
        };
        ensure("meta");
        for (const [name, spec] of Object.entries(TABLES)) {
          const store = ensure(name);
          for (const field of spec.indexes) index(store, field);
          for (const field of spec.multi || []) index(store, field, { multiEntry: true });
        }
        index(ensure("outbox", { keyPath: "id" }), "createdAt");
        index(ensure("photos", { keyPath: "id" }), "inspectionId");
        index(ensure("reviews", { keyPath: "id" }), "finished_at");
        if (oldVersion > 0 && oldVersion < 3) {
          stampLegacyAuthors(tx).catch((e) => console.warn("autor das vistorias antigas", e));
        }
      },
      blocked() {
        console.warn("banco local bloqueado por outra aba");
      },
    });
  }
  return dbPromise;
}

/** The author fields an outbox inspection keeps: {agentId, agentName, agentUsername}. */
export function authorFields(user) {
  if (!user || user.id === undefined || user.id === null) {
    return { agentId: null, agentName: "", agentUsername: "" };
  }
  return { agentId: user.id, agentName: user.name || user.username || "", agentUsername: user.username || "" };
}

/**
 * Version 3's upgrade: inspections saved before the outbox kept its author are given the
 * agent the phone knew as signed in (`meta.user`), marked `agentInferred` — with the older
 * app a change of agent sent the queue at once, so what still waits was saved under that
 * agent. When the phone knew nobody, the author stays unknown (agentId null): such an
 * inspection is never sent by itself; the queue lets the agent who made it claim it.
 * Runs inside the upgrade transaction (only IndexedDB requests are awaited).
 */
async function stampLegacyAuthors(tx) {
  const user = await tx.objectStore("meta").get("user");
  const author = authorFields(user);
  let cursor = await tx.objectStore("outbox").openCursor();
  while (cursor) {
    if (cursor.value.agentId === undefined) {
      cursor.update({ ...cursor.value, ...author, agentInferred: author.agentId !== null });
    }
    cursor = await cursor.continue();
  }
}

// ---------- meta ----------

/** A value from the meta store (snapshot version, refresh time, signed-in user). */
export async function getMeta(key) {
  return (await openDatabase()).get("meta", key);
}

/** Store a value in the meta store. */
export async function setMeta(key, value) {
  return (await openDatabase()).put("meta", value, key);
}

// ---------- snapshot ----------

/** Apply a snapshot from the server: a full one replaces everything, a delta patches. */
export async function applySnapshot(snapshot) {
  const db = await openDatabase();
  const tx = db.transaction([...SNAPSHOT_STORES, "meta"], "readwrite");
  const done = tx.done;
  if (snapshot.full) {
    for (const name of SNAPSHOT_STORES) tx.objectStore(name).clear();
  }
  for (const [name, spec] of Object.entries(TABLES)) {
    const rows = snapshot[name];
    if (!Array.isArray(rows)) continue;
    const store = tx.objectStore(name);
    if (spec.replace && !snapshot.full) store.clear();
    for (const row of rows) store.put(row, spec.key(row));
  }
  for (const [name, ids] of Object.entries(snapshot.deleted || {})) {
    if (!TABLES[name] || !Array.isArray(ids)) continue;
    const store = tx.objectStore(name);
    for (const id of ids) store.delete(id);
    if (name === "vehicles") {
      for (const id of ids) {
        tx.objectStore("standing").delete(id);
        tx.objectStore("last_inspections").delete(id);
      }
    }
  }
  const meta = tx.objectStore("meta");
  meta.put(snapshot.version, "snapshotVersion");
  meta.put(snapshot.format ?? 1, "snapshotFormat"); // answers without `format` were format 1
  meta.put(snapshot.generated_at || null, "generatedAt");
  meta.put(new Date().toISOString(), "refreshedAt");
  if (snapshot.town) meta.put(snapshot.town, "town");
  await done;
}

/** Forget the registry snapshot (another agent signed in on this phone); the outbox stays. */
export async function clearSnapshot() {
  const db = await openDatabase();
  const tx = db.transaction([...SNAPSHOT_STORES, "meta"], "readwrite");
  for (const name of SNAPSHOT_STORES) tx.objectStore(name).clear();
  for (const key of ["snapshotVersion", "snapshotFormat", "generatedAt", "refreshedAt", "town"]) {
    tx.objectStore("meta").delete(key);
  }
  await tx.done;
}

/** One row of a snapshot table by its key. */
export async function getRow(table, key) {
  return (await openDatabase()).get(table, key);
}

/** Every row of a snapshot table (small tables only: checklists, keys). */
export async function allRows(table) {
  return (await openDatabase()).getAll(table);
}

/** Rows of a table whose indexed field equals a value. */
export async function rowsBy(table, field, value) {
  return (await openDatabase()).getAllFromIndex(table, field, value);
}

/** Rows whose indexed field starts with a text (e.g. plates beginning with "QBA"). */
export async function rowsStartingWith(table, field, text, limit = 20) {
  const range = IDBKeyRange.bound(text, text + "\uffff");
  return (await openDatabase()).getAllFromIndex(table, field, range, limit);
}

/** How many rows a snapshot table holds. */
export async function countRows(table) {
  return (await openDatabase()).count(table);
}

// ---------- outbox ----------

/**
 * Save a finished inspection and its photos in one transaction (nothing half-written).
 * `entry` = {id, body, label, createdAt}; photos = [{id, inspectionId, bytes, mime, sha256, takenAt}].
 * The inspection keeps its author: the agent signed in on the phone (`meta.user`).
 */
export async function saveToOutbox(entry, photos) {
  const db = await openDatabase();
  const tx = db.transaction(["outbox", "photos", "meta"], "readwrite");
  const author = entry.agentId === undefined ? authorFields(await tx.objectStore("meta").get("user")) : {};
  const agentId = entry.agentId ?? author.agentId ?? null;
  // the body carries its author too: the server refuses it under another agent's session
  const body = agentId === null ? entry.body : { ...entry.body, agent_id: agentId };
  tx.objectStore("outbox").put({ state: "pending", message: "", attempts: 0, ...author, ...entry, body });
  for (const photo of photos) tx.objectStore("photos").put(photo);
  await tx.done;
}

/** Every outbox inspection, oldest first. */
export async function outboxEntries() {
  return (await openDatabase()).getAllFromIndex("outbox", "createdAt");
}

/** One outbox inspection by its UUID. */
export async function outboxEntry(id) {
  return (await openDatabase()).get("outbox", id);
}

/** Change fields of an outbox inspection (state, message, attempts). */
export async function updateOutboxEntry(id, changes) {
  const db = await openDatabase();
  const tx = db.transaction("outbox", "readwrite");
  const entry = await tx.store.get(id);
  if (entry) await tx.store.put({ ...entry, ...changes });
  await tx.done;
}

/** The photos still on the phone for an inspection. */
export async function photosOf(inspectionId) {
  return (await openDatabase()).getAllFromIndex("photos", "inspectionId", inspectionId);
}

/** One stored photo by its UUID. */
export async function getPhoto(id) {
  return (await openDatabase()).get("photos", id);
}

/** Delete a photo the server confirmed holding. */
export async function deletePhoto(id) {
  return (await openDatabase()).delete("photos", id);
}

/** Delete an inspection the server confirmed complete, with any photo copy left behind. */
export async function deleteInspection(id) {
  const db = await openDatabase();
  const tx = db.transaction(["outbox", "photos"], "readwrite");
  const keys = await tx.objectStore("photos").index("inspectionId").getAllKeys(id);
  for (const key of keys) tx.objectStore("photos").delete(key);
  tx.objectStore("outbox").delete(id);
  await tx.done;
}

/** An agent who signed in on the phone claims an inspection whose author is unknown. */
export async function claimOutboxEntry(id, user) {
  const db = await openDatabase();
  const tx = db.transaction("outbox", "readwrite");
  const entry = await tx.store.get(id);
  const claimed = Boolean(entry && entry.agentId === null && user && user.id !== undefined);
  if (claimed) {
    // the body says who made it, as a save by a known agent does: the server checks it (403)
    await tx.store.put({ ...entry, ...authorFields(user), body: { ...entry.body, agent_id: user.id },
      claimedAt: new Date().toISOString(), state: "pending", message: "" });
  }
  await tx.done;
  return claimed;
}

/**
 * How many inspections and photos wait to be sent: those of the agent `userId` (theirs to
 * send; `attention`: how many need them), each other agent's (`others`: [{agentId,
 * agentName, inspections, photos}]) and those of unknown author (`unknown`).
 */
export async function pendingCounts(userId = null) {
  const db = await openDatabase();
  const tx = db.transaction(["outbox", "photos"]);
  const entries = await tx.objectStore("outbox").getAll();
  const photosOfEntry = new Map();
  let cursor = await tx.objectStore("photos").index("inspectionId").openKeyCursor();
  while (cursor) {
    photosOfEntry.set(cursor.key, (photosOfEntry.get(cursor.key) || 0) + 1);
    cursor = await cursor.continue();
  }
  const mine = { inspections: 0, photos: 0, attention: 0 };
  const unknown = { inspections: 0, photos: 0 };
  const others = new Map();
  for (const entry of entries) {
    if (entry.delivered) {
      // on the server already: kept only to tell its agent about a refused photo
      if (userId !== null && userId !== undefined && entry.agentId === userId) mine.attention += 1;
      continue;
    }
    // a photo the server refused for good stays on the phone but waits for nothing
    const refused = Object.keys(entry.refusedPhotos || {}).length;
    const photos = Math.max(0, (photosOfEntry.get(entry.id) || 0) - refused);
    let group;
    if (entry.agentId === null || entry.agentId === undefined) group = unknown;
    else if (userId !== null && userId !== undefined && entry.agentId === userId) group = mine;
    else {
      if (!others.has(entry.agentId)) {
        others.set(entry.agentId, { agentId: entry.agentId, agentName: "", inspections: 0, photos: 0 });
      }
      group = others.get(entry.agentId);
      group.agentName = entry.agentName || entry.agentUsername || group.agentName;
    }
    group.inspections += 1;
    group.photos += photos;
    if (group === mine && entry.state === "attention") mine.attention += 1;
  }
  return { ...mine, others: [...others.values()], unknown };
}

// ---------- the supervisor's answers ("Minhas vistorias") ----------

/** What the supervision answered (decisions, reasons, comments): "" when nothing yet. */
export function answersOf(review) {
  if (!review) return "";
  const acts = (review.acts || []).filter((a) => a.status !== "proposed" || a.status_label !== "Proposto")
    .map((a) => [a.id, a.status, a.status_label, a.reason, a.comment, a.notice_number]);
  const comments = (review.comments || []).map((c) => [c.at, c.by, c.text]);
  return acts.length || comments.length ? JSON.stringify([acts, comments]) : "";
}

/** When the newest answer was given (ISO), or "". */
function lastAnswerAt(review) {
  const times = [...(review.acts || []).filter((a) => a.status !== "proposed").map((a) => a.decided_at),
    ...(review.comments || []).map((c) => c.at)].filter(Boolean).sort();
  return times.length ? times[times.length - 1] : "";
}

/**
 * Store an answer of GET /api/field/reviews. An inspection whose answers changed is marked
 * unseen until the agent opens the list; a full answer replaces the list. Resolves to how
 * many inspections became unseen.
 */
export async function applyReviews(answer) {
  const db = await openDatabase();
  const tx = db.transaction(["reviews", "meta"], "readwrite");
  const store = tx.objectStore("reviews");
  const first = (await tx.objectStore("meta").get("reviewsVersion")) === undefined;
  const stored = new Map((await store.getAll()).map((r) => [r.id, r]));
  const recent = new Date(Date.now() - FIRST_FETCH_NEW_DAYS * 86400000).toISOString();
  let fresh = 0;
  const incoming = new Set();
  for (const entry of answer.inspections || []) {
    incoming.add(entry.id);
    const before = stored.get(entry.id);
    const answers = answersOf(entry.review);
    let unseen;
    if (before) unseen = Boolean(before.unseen || (answers && answers !== before.answers));
    else if (first) unseen = Boolean(answers) && lastAnswerAt(entry.review) >= recent;
    else unseen = Boolean(answers);
    if (unseen && !(before && before.unseen)) fresh += 1;
    await store.put({ ...entry, answers, unseen, storedAt: new Date().toISOString() });
  }
  if (answer.full) {
    for (const id of stored.keys()) if (!incoming.has(id)) await store.delete(id);
  }
  const kept = (await store.getAll()).sort((a, b) => String(b.finished_at).localeCompare(String(a.finished_at)));
  for (const old of kept.slice(REVIEWS_KEPT)) await store.delete(old.id);
  await tx.objectStore("meta").put(answer.version, "reviewsVersion");
  await tx.done;
  return fresh;
}

/** The inspections of "Minhas vistorias", newest first. */
export async function reviewEntries() {
  const rows = await (await openDatabase()).getAll("reviews");
  return rows.sort((a, b) => String(b.finished_at).localeCompare(String(a.finished_at)));
}

/** How many inspections carry an answer the agent has not seen. */
export async function unseenReviews() {
  return (await (await openDatabase()).getAll("reviews")).filter((r) => r.unseen).length;
}

/** The agent saw the list: nothing is new any more. */
export async function markReviewsSeen() {
  const db = await openDatabase();
  const tx = db.transaction("reviews", "readwrite");
  for (const row of await tx.store.getAll()) {
    if (row.unseen) await tx.store.put({ ...row, unseen: false });
  }
  await tx.done;
}

/** Forget the answers (another agent signed in on this phone). */
export async function clearReviews() {
  const db = await openDatabase();
  const tx = db.transaction(["reviews", "meta"], "readwrite");
  tx.objectStore("reviews").clear();
  tx.objectStore("meta").delete("reviewsVersion");
  await tx.done;
}
