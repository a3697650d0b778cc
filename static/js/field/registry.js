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

/**
 * The open notices and acts on the card: the vehicle's, those concerning one of its drivers
 * (registration, removal...) and those concerning its holder (permit...), each once.
 */
async function noticesOf(vehicle, drivers) {
  const lists = await Promise.all([
    store.rowsBy("notices", "vehicle_id", vehicle.id),
    ...drivers.map((d) => store.rowsBy("notices", "driver_id", d.id)
      .then((rows) => rows.filter((n) => n.concerns === "driver"))),
    vehicle.holder_id ? store.rowsBy("notices", "holder_id", vehicle.holder_id)
      .then((rows) => rows.filter((n) => n.concerns === "holder")) : [],
  ]);
  const byId = new Map();
  for (const n of lists.flat()) byId.set(n.id, n);
  return [...byId.values()].sort((a, b) =>
    String(a.deadline_at || "9999").localeCompare(String(b.deadline_at || "9999")) || a.id - b.id);
}

function newest(rows, field) {
  return rows.slice().sort((a, b) => String(b[field] || "").localeCompare(String(a[field] || "")))[0] || null;
}

/** What the law in force requires for a service (the snapshot checklist's `requirements`,
 * field_snapshot.requirements_of), or null when the phone's checklist does not carry it. */
export async function requirementsFor(service) {
  const checklist = await checklistFor(service);
  return (checklist && checklist.requirements) || null;
}

async function permitOf(vehicle, licence, holderPermits) {
  // as the server reads it (services/compliance.py _permit_row): the licence's permit, else the
  // holder's of the service, the active one first, then the newest
  if (licence && licence.permit_id) {
    const row = holderPermits.find((p) => p.id === licence.permit_id) || await store.getRow("permits", licence.permit_id);
    if (row) return row;
  }
  const mine = holderPermits.filter((p) => p.service === vehicle.service);
  return mine.sort((a, b) => (b.status === "active") - (a.status === "active")
    || String(b.valid_from || "").localeCompare(String(a.valid_from || "")))[0] || null;
}

/** A vehicle's rows that its standing is judged from today (situation.standingToday): the
 * vehicle, its current licence (the newest, as the server's), permit, every insurance policy
 * (a renewal bought in advance covers from its first day) and the law's requirements. `known`:
 * rows already read ({licences, insurance, permits: the holder's, requirements}). */
export async function vehicleFacts(vehicle, known = {}) {
  const [lics, policies, permits, requirements] = await Promise.all([
    known.licences || store.rowsBy("licences", "vehicle_id", vehicle.id),
    known.insurance || store.rowsBy("insurance", "vehicle_id", vehicle.id),
    known.permits || (vehicle.holder_id ? store.rowsBy("permits", "holder_id", vehicle.holder_id) : []),
    known.requirements !== undefined ? known.requirements : requirementsFor(vehicle.service),
  ]);
  const licence = newest(lics, "valid_from");
  return { vehicle, licence, permit: await permitOf(vehicle, licence, permits), insurance: policies, requirements };
}

/** Everything the result card shows about a vehicle, from the stored snapshot. */
export async function vehicleDetails(vehicleId) {
  const vehicle = await store.getRow("vehicles", vehicleId);
  if (!vehicle) return null;
  const drivers = await driversOf(vehicle);
  const [standing, licences, insurance, notices, lastInspection, credentials, holder, permits, requirements] = await Promise.all([
    store.getRow("standing", vehicleId),
    store.rowsBy("licences", "vehicle_id", vehicleId),
    store.rowsBy("insurance", "vehicle_id", vehicleId),
    noticesOf(vehicle, drivers),
    store.getRow("last_inspections", vehicleId),
    store.rowsBy("credentials", "vehicle_id", vehicleId),
    vehicle.holder_id ? store.getRow("holders", vehicle.holder_id) : null,
    vehicle.holder_id ? store.rowsBy("permits", "holder_id", vehicle.holder_id) : [],
    requirementsFor(vehicle.service),
  ]);
  const facts = await vehicleFacts(vehicle, { licences, insurance, permits, requirements });
  return {
    vehicle, drivers, holder, credentials, facts,
    standing: standing || null,
    licence: facts.licence,
    insurance: newest(insurance, "valid_until"),
    notices, // the server sends only open ones (docs/sync.md)
    lastInspection: lastInspection || (vehicle.last_vistoria_on ? { date: vehicle.last_vistoria_on } : null),
  };
}

const DRIVER_SERVICE = { mototaxista: "mototaxi" };

/**
 * What the card's top banner judges (situation.js): a rider's vest QR (`riderId`): the rider
 * (against the law of their service) and every vehicle they are linked to, each with its rows;
 * otherwise the vehicle of `details`, its drivers (none of them claimed to be aboard) and the
 * law's "only a registered driver drives".
 */
export async function scanContext(details, riderId = null) {
  if (riderId !== null) {
    const rider = await store.getRow("drivers", riderId);
    if (rider) {
      const vehicles = await Promise.all((rider.vehicle_ids || []).map(async (id) => {
        if (details && details.vehicle.id === id) return { vehicle: details.vehicle, standing: details.standing, docs: details.facts };
        const vehicle = await store.getRow("vehicles", id);
        return { vehicle: vehicle || { id, plate: null }, standing: (await store.getRow("standing", id)) || null,
          docs: vehicle ? await vehicleFacts(vehicle) : null };
      }));
      return { rider, vehicles, riderRequirements: await requirementsFor(DRIVER_SERVICE[rider.category] || "taxi") };
    }
  }
  if (!details) return null;
  const checklist = await checklistFor(details.vehicle.service);
  return { rider: null, vehicles: [{ vehicle: details.vehicle, standing: details.standing, docs: details.facts }],
    drivers: details.drivers, driverRule: (checklist && checklist.driver_registration) || null,
    driverRequirements: (checklist && checklist.requirements) || null };
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
