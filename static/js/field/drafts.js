// The inspection being filled, kept on the phone while it is filled: a reload, or the camera
// app pushing the browser out of memory while a photo is taken (common on small Android
// phones), must not lose a half-filled checklist. One draft at a time, in its own IndexedDB
// database (not the outbox's: nothing here is ever sent); its photos are stored once each,
// when taken, not with every keystroke. Saving or discarding the inspection forgets it.

const DB_NAME = "inspector-draft";
let dbPromise = null;

function database() {
  if (!dbPromise) {
    dbPromise = globalThis.idb.openDB(DB_NAME, 1, {
      upgrade(db) {
        db.createObjectStore("draft");
        db.createObjectStore("photos", { keyPath: "id" });
      },
    });
  }
  return dbPromise;
}

/** Keep the draft (photos are kept apart: `answers[].photoIds`). */
export async function putDraft(draft) {
  await (await database()).put("draft", draft, "current");
}

/** Keep one photo of the draft (its bytes, type, SHA-256, capture time). */
export async function putPhoto(photo) {
  await (await database()).put("photos", photo);
}

/** Forget one photo the agent removed. */
export async function deletePhoto(id) {
  await (await database()).delete("photos", id);
}

/** The kept draft with its photos back in `answers[].photos`, or null. */
export async function getDraft() {
  const db = await database();
  const draft = await db.get("draft", "current");
  if (!draft) return null;
  const photos = new Map((await db.getAll("photos")).map((p) => [p.id, p]));
  draft.answers = draft.answers.map((a) => ({ ...a,
    photos: (a.photoIds || []).map((id) => photos.get(id)).filter(Boolean) }));
  return draft;
}

/** Forget the draft and its photos (saved to the outbox, or discarded). */
export async function clearDraft() {
  const db = await database();
  const tx = db.transaction(["draft", "photos"], "readwrite");
  await Promise.all([tx.objectStore("draft").clear(), tx.objectStore("photos").clear(), tx.done]);
}
