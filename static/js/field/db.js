// The phone's storage (IndexedDB through `idb`): the town's registry snapshot and the outbox.
// Photos are kept as ArrayBuffer + MIME type (Blobs in IndexedDB are unreliable on Safari).

const DB_NAME = "inspector-campo";
const DB_VERSION = 1;

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
  notices: { key: (r) => r.id, indexes: ["vehicle_id"] },
  last_inspections: { key: (r) => r.vehicle_id, indexes: [] },
  checklists: { key: (r) => r.service, indexes: [], replace: true },
  keys: { key: (r) => r.kid, indexes: [], replace: true },
};
const SNAPSHOT_STORES = Object.keys(TABLES);

let dbPromise = null;

/** The open database (opened once per page). */
export function openDatabase() {
  if (!dbPromise) {
    dbPromise = globalThis.idb.openDB(DB_NAME, DB_VERSION, {
      upgrade(db) {
        db.createObjectStore("meta");
        for (const [name, spec] of Object.entries(TABLES)) {
          const store = db.createObjectStore(name);
          for (const field of spec.indexes) store.createIndex(field, field);
          for (const field of spec.multi || []) store.createIndex(field, field, { multiEntry: true });
        }
        db.createObjectStore("outbox", { keyPath: "id" }).createIndex("createdAt", "createdAt");
        db.createObjectStore("photos", { keyPath: "id" }).createIndex("inspectionId", "inspectionId");
      },
      blocked() {
        console.warn("banco local bloqueado por outra aba");
      },
    });
  }
  return dbPromise;
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
  for (const key of ["snapshotVersion", "generatedAt", "refreshedAt", "town"]) {
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
 */
export async function saveToOutbox(entry, photos) {
  const db = await openDatabase();
  const tx = db.transaction(["outbox", "photos"], "readwrite");
  tx.objectStore("outbox").put({ state: "pending", message: "", attempts: 0, ...entry });
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

/** How many inspections and photos wait to be sent, and how many need the agent. */
export async function pendingCounts() {
  const db = await openDatabase();
  const tx = db.transaction(["outbox", "photos"]);
  const entries = await tx.objectStore("outbox").getAll();
  const photos = await tx.objectStore("photos").count();
  return {
    inspections: entries.length,
    photos,
    attention: entries.filter((e) => e.state === "attention").length,
  };
}
