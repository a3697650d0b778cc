// Look-ups in the town snapshot stored on the phone: find a vehicle, gather what the
// result card shows about it. Field names follow GET /api/field/snapshot (docs/sync.md).

import * as store from "./db.js";
import { normaliseQuery } from "./scan.js";

/** Vehicles whose plate starts with, or whose prefix equals, what the agent typed. */
export async function searchVehicles(text) {
  const q = normaliseQuery(text);
  if (!q) return [];
  const found = new Map();
  for (const v of await store.rowsStartingWith("vehicles", "plate", q, 20)) found.set(v.id, v);
  if (/^\d+$/.test(q)) {
    const bare = q.replace(/^0+/, "") || "0";
    const variants = new Set([q, bare, ...[2, 3, 4, 5, 6].map((n) => bare.padStart(n, "0"))]);
    for (const prefix of variants) {
      for (const v of await store.rowsBy("vehicles", "prefix", prefix)) found.set(v.id, v);
    }
  }
  return Array.from(found.values()).sort((a, b) => (a.plate || "").localeCompare(b.plate || ""));
}

async function driversOf(vehicle) {
  return store.rowsBy("drivers", "vehicle_ids", vehicle.id);
}

function newest(rows, field) {
  return rows.slice().sort((a, b) => String(b[field] || "").localeCompare(String(a[field] || "")))[0] || null;
}

/** Everything the result card shows about a vehicle, from the stored snapshot. */
export async function vehicleDetails(vehicleId) {
  const vehicle = await store.getRow("vehicles", vehicleId);
  if (!vehicle) return null;
  const [drivers, standing, licences, insurance, notices, lastInspection, credentials, holder] = await Promise.all([
    driversOf(vehicle),
    store.getRow("standing", vehicleId),
    store.rowsBy("licences", "vehicle_id", vehicleId),
    store.rowsBy("insurance", "vehicle_id", vehicleId),
    store.rowsBy("notices", "vehicle_id", vehicleId),
    store.getRow("last_inspections", vehicleId),
    store.rowsBy("credentials", "vehicle_id", vehicleId),
    vehicle.holder_id ? store.getRow("holders", vehicle.holder_id) : null,
  ]);
  return {
    vehicle, drivers, holder, credentials,
    standing: standing || null,
    licence: newest(licences, "valid_until"),
    insurance: newest(insurance, "valid_until"),
    notices: notices.filter((n) => !n.status || n.status === "open"),
    lastInspection: lastInspection || (vehicle.last_vistoria_on ? { date: vehicle.last_vistoria_on } : null),
  };
}

/** The checklist of the law in force for a service, from the snapshot (null if none). */
export async function checklistFor(service) {
  return (await store.getRow("checklists", service)) || null;
}

/** Whether the phone holds a town snapshot at all. */
export async function hasSnapshot() {
  const version = await store.getMeta("snapshotVersion");
  return version !== undefined && version !== null;
}
