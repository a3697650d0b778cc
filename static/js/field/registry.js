// Look-ups in the town snapshot stored on the phone: find a vehicle, gather what the
// result card shows about it. Field names follow GET /api/field/snapshot (docs/sync.md).

import * as store from "./db.js";
import { normaliseQuery } from "./scan.js";

/** The same number written with 0 to `width` leading zeros ("6": 6, 06, 006...; a prefix is
 * at most 10 characters, registry.py). */
function paddings(digits, head = "") {
  const bare = digits.replace(/^0+/, "") || "0";
  const out = new Set([head + digits]);
  for (let n = bare.length; head.length + n <= 10; n += 1) out.add(head + bare.padStart(n, "0"));
  return [...out];
}

/** The letter heads of the stored prefixes followed by a number (TMT of TMT06, GEX of GEX12):
 * one step of the prefix index per head, jumping over its numbers (":" follows "9"). */
async function prefixHeads() {
  const index = (await store.openDatabase()).transaction("vehicles").store.index("prefix");
  const heads = [];
  let cursor = await index.openKeyCursor(IDBKeyRange.lowerBound("A"));
  while (cursor) {
    const match = typeof cursor.key === "string" && /^([A-Z]+)\d/.exec(cursor.key);
    if (match) heads.push(match[1]);
    cursor = await (match ? cursor.continue(match[1] + ":") : cursor.continue());
  }
  return heads;
}

/**
 * Vehicles for what the agent typed, on normalised text (upper case, letters and digits only:
 * "tmt-06" is TMT06): plates and prefixes starting with it; a prefix's number with or without
 * its zeros ("TMT6" finds TMT06); digits alone also name the number of a lettered prefix ("6"
 * finds TMT06, MTC06 and 0006). Exact matches first, then the same number, then the rest.
 * Within each, plate matches by plate, then prefix matches by prefix in natural order (TMT01,
 * TMT03, TMT06, TMT10); the same number under other letters or zeros (0006, MTC06) by plate.
 */
export async function searchVehicles(text) {
  const q = normaliseQuery(text);
  if (!q) return [];
  const rank = new Map(); // id -> [rank, vehicle]
  const add = (rows, r) => {
    for (const v of rows) if (!rank.has(v.id) || rank.get(v.id)[0] > r) rank.set(v.id, [r, v]);
  };
  const key = (v) => normaliseQuery(v.prefix);
  const starts = await Promise.all([store.rowsStartingWith("vehicles", "plate", q, 20),
    store.rowsStartingWith("vehicles", "prefix", q, 20)]);
  for (const rows of starts) add(rows, 2);
  add(starts.flat().filter((v) => normaliseQuery(v.plate) === q || key(v) === q), 0);
  const parts = /^([A-Z]*)(\d+)$/.exec(q);
  if (parts) {
    const heads = parts[1] ? [parts[1]] : ["", ...await prefixHeads()];
    const wanted = heads.flatMap((head) => paddings(parts[2], head));
    const found = await Promise.all(wanted.map((prefix) => store.rowsBy("vehicles", "prefix", prefix)));
    add(found.flat(), 1);
    add(found.flat().filter((v) => key(v) === q), 0);
  }
  const byPlate = (a, b) => (a.plate || "").localeCompare(b.plate || "");
  const byPrefix = (v) => !normaliseQuery(v.plate).startsWith(q); // found by its prefix
  const natural = (a, b) => key(a).localeCompare(key(b), "en", { numeric: true });
  return [...rank.values()].sort(([ra, a], [rb, b]) => {
    if (ra !== rb) return ra - rb;
    if (ra === 1) return byPlate(a, b);
    const pa = byPrefix(a), pb = byPrefix(b);
    if (pa !== pb) return pa ? 1 : -1;
    return (pa && natural(a, b)) || byPlate(a, b);
  }).map(([, v]) => v);
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
  // as the server reads it (laws/compliance.py _permit_row): the licence's permit, else the
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
