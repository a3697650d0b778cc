"""The data of bench/review.py: Tapurah bulk-loaded with two years (or `days`) of inspections
as the field sync stores them (every checklist answer, the canonical JSON body, the driver's "ciente",
declared photos) and, through bench/review_acts.py, the legal acts the enforcement services
would have proposed and decided for them.

Bulk inserts with SQLAlchemy core, explicit primary keys (PostgreSQL's sequences are moved
past them afterwards). What a bulk load leaves out, on purpose: the audit log (no bench
reads it), photo bytes (kept only for the inspections whose notices the bench turns into
PDFs; the others have their hashes, sizes and times, which is all the queue and the lists
read), stored notice PDFs (made only for the bench's sample) and Argon2 work (every bulk
notice shares one access-code hash).
"""
from __future__ import annotations

import base64
import hashlib
import io
import random
import uuid
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from multiprocessing import Pool

from _common import load_mototaxi_town
from review_acts import Ledger, canonical, jsonable

PASSWORD = "bench-password-123"
SECRET = "bench-review-secret-not-for-production"
SUPERVISOR, ADMIN = "supervisor.bench", "admin.bench"
AGENTS = 12
CHUNK = 4000
# How often each item fails when an inspection finds something (weights, not rates).
FAIL_WEIGHTS = {"helmet-band": 14, "vest-id": 14, "fare-table": 12, "uniform": 12, "id-card": 9,
                "mirrors": 9, "tank-sign": 7, "leg-guard": 5, "foot-protector": 5,
                "exhaust-protector": 4, "general-condition": 4, "detran-signage": 3,
                "helmets": 3, "insurance": 1, "engine-size": 1, "one-passenger": 0.4,
                "sober": 0.3}
NOTES = {"helmet-band": "Faixa ausente no capacete do passageiro",
         "vest-id": "Cartão de identificação ilegível", "fare-table": "Tabela desatualizada",
         "uniform": "Sem o uniforme da empresa", "mirrors": "Retrovisor esquerdo quebrado",
         "tank-sign": "Indicativo apagado", "leg-guard": "Mata-cachorro solto"}


@dataclass
class Loaded:
    """What the timing needs to know about the loaded data."""

    inspections: int
    by_status: dict[str, int]
    agents: dict[int, str]
    days: list[date]                       # local days with inspections, oldest first
    acts: int = 0
    notices: int = 0
    pdf_notices: list[int] = field(default_factory=list)   # decided, 2 photos with bytes
    pdf_acts: list[int] = field(default_factory=list)      # proposed notices, 2 photos
    seconds: dict[str, float] = field(default_factory=dict)


_SCENES: dict[int, object] = {}
PHOTO_SIZE = (2000, 1500)


def _scene(k: int):
    """A blurred street-like scene (gradient, shapes): the shared base of a few photos."""
    from PIL import Image, ImageDraw, ImageFilter

    if k not in _SCENES:
        rng, (w, h) = random.Random(k), PHOTO_SIZE
        img = Image.blend(Image.linear_gradient("L").resize((w, h)).convert("RGB"),
                          Image.new("RGB", (w, h), tuple(rng.randrange(60, 200)
                                                         for _ in range(3))), 0.5)
        d = ImageDraw.Draw(img)
        for _ in range(16):
            x, y = rng.randrange(w), rng.randrange(h)
            box = (x, y, x + rng.randint(100, 900), y + rng.randint(80, 600))
            (d.ellipse if rng.random() < 0.5 else d.rectangle)(
                box, fill=tuple(rng.randrange(256) for _ in range(3)))
        _SCENES[k] = img.filter(ImageFilter.GaussianBlur(4))
    return _SCENES[k]


def evidence_photo(i: int) -> bytes:
    """A unique camera-like JPEG (2000x1500, a scene with sensor noise, ~300 KB): what a
    notice's thumbnails are made from. Smooth like a photo, so its thumbnail compresses as
    a real one does (pure noise would not)."""
    from PIL import Image, ImageDraw

    rng, (w, h) = random.Random(i), PHOTO_SIZE
    img = _scene(i % 4).copy()
    d = ImageDraw.Draw(img)
    for _ in range(4):
        x, y = rng.randrange(w), rng.randrange(h)
        d.rectangle((x, y, x + rng.randint(40, 300), y + rng.randint(40, 300)),
                    fill=tuple(rng.randrange(256) for _ in range(3)))
    img = Image.blend(img, Image.effect_noise((w, h), 20).convert("RGB"), 0.16)
    out = io.BytesIO()
    img.save(out, "JPEG", quality=85)
    return out.getvalue()


def signature_png(i: int) -> bytes:
    """A finger-drawn "ciente" as the phone's canvas exports it (PNG, a few KB)."""
    from PIL import Image, ImageDraw

    rng = random.Random(i)
    img = Image.new("RGBA", (600, 200), (255, 255, 255, 0))
    d = ImageDraw.Draw(img)
    x, y = 40, 120
    for _ in range(60):
        nx, ny = min(560, x + rng.randint(2, 14)), max(30, min(170, y + rng.randint(-25, 25)))
        d.line((x, y, nx, ny), fill=(20, 20, 60, 255), width=3)
        x, y = nx, ny
    out = io.BytesIO()
    img.save(out, "PNG")
    return out.getvalue()


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _users(town_id: int) -> tuple[dict[int, str], int]:
    from inspector.accounts import create_user

    agents = {}
    for n in range(AGENTS):
        u = create_user(town_slug="tapurah", username=f"agente{n:02d}.bench",
                        name=f"Agente {n + 1:02d} Bench", role="agent", password=PASSWORD,
                        badge_number=f"FT-{n + 1:03d}")
        agents[u.id] = u.name
    sup = create_user(town_slug="tapurah", username=SUPERVISOR, name="Supervisora Bench",
                      role="supervisor", password=PASSWORD)
    create_user(town_slug="tapurah", username="supervisor2.bench", name="Supervisor Dois",
                role="supervisor", password=PASSWORD)
    create_user(town_slug="tapurah", username=ADMIN, name="Admin Bench", role="admin",
                password=PASSWORD)
    return agents, sup.id


def build(url: str, inspections: int, vehicles: int, pdfs: int, seed: int = 406,
          days: int = 730) -> Loaded:
    """Load the town, its users and `inspections` inspections with their acts, spread over
    the last `days` days."""
    import time as clock

    from sqlalchemy import insert, select

    from inspector.clock import zone_of
    from inspector.demo.data import MINIMUM_WAGE
    from inspector.extensions import db
    from inspector.inspections import evidence_store
    from inspector.laws import compliance
    from inspector.models import (
        DatedValue,
        Driver,
        Inspection,
        InspectionItem,
        Municipality,
        Photo,
        Vehicle,
        vehicle_drivers,
    )
    from inspector.rules.engine import checklist

    t0 = clock.perf_counter()
    with Pool(2) as pool:
        photos = pool.map(evidence_photo, range(4 * pdfs), chunksize=8)
    signatures = [signature_png(i) for i in range(8)]
    app = load_mototaxi_town(url, vehicles, seed=seed, secret_key=SECRET)
    rng = random.Random(seed)
    seconds = {"photos and registry": clock.perf_counter() - t0}
    with app.app_context():
        t0 = clock.perf_counter()
        town = db.session.scalar(select(Municipality).filter_by(slug="tapurah"))
        for valid_from, value, source in MINIMUM_WAGE[:-1]:  # the loader added the last
            db.session.add(DatedValue(municipality_id=town.id, kind="minimum_wage",
                                      valid_from=valid_from, value_brl=value, source=source))
        agents, supervisor = _users(town.id)
        db.session.commit()
        seconds["users (Argon2)"] = clock.perf_counter() - t0
        t0 = clock.perf_counter()
        db.session.refresh(town)
        fleet = db.session.execute(
            select(Vehicle.id, Vehicle.holder_id, vehicle_drivers.c.driver_id)
            .join(vehicle_drivers, vehicle_drivers.c.vehicle_id == Vehicle.id)
            .order_by(Vehicle.id)).all()
        drivers = dict(db.session.execute(select(Driver.id, Driver.name)).all())
        now = datetime.now(UTC)
        town_tz = zone_of(town)   # the bench town's own clock
        today = now.astimezone(town_tz).date()
        first = today - timedelta(days=days)
        items = checklist("tapurah", "mototaxi", first, town.population_seat)
        assert [i.id for i in items] == [i.id for i in checklist(
            "tapurah", "mototaxi", today, town.population_seat)], "checklist changed in the span"
        ledger = Ledger(town.id, compliance.town_facts(town), items, supervisor, now, rng)

        # -- when, who, what: sorted by the moment the phone sent it (ids follow arrival)
        agent_ids = list(agents)
        agent_w = [1.6 if n < 3 else 1.0 if n < 9 else 0.4 for n in range(len(agent_ids))]
        vehicle_w = [rng.choice((0.5, 1, 1, 1, 2.5)) for _ in fleet]
        # most riders rarely fail an item; a few fail often (the ladder's repeat offenders)
        care = [rng.choices((0.08, 0.25, 0.5), weights=(70, 25, 5))[0] for _ in fleet]
        plan = []
        for _ in range(inspections):
            day = first + timedelta(days=rng.randrange(days + 1))
            start = datetime.combine(day, time(7), town_tz) + timedelta(
                seconds=rng.randrange(11 * 3600))
            if start > now - timedelta(minutes=20):
                start = now - timedelta(minutes=rng.randint(20, 600))
            finished = start + timedelta(seconds=rng.randint(240, 900))
            offline = rng.random() < 0.08
            received = finished + timedelta(seconds=rng.randint(3600, 30 * 3600) if offline
                                            else rng.randint(5, 300))
            plan.append((min(received, now - timedelta(minutes=1)), start, finished))
        plan.sort()
        fleet_pick = rng.choices(range(len(fleet)), weights=vehicle_w, k=inspections)
        agent_pick = rng.choices(agent_ids, weights=agent_w, k=inspections)
        order = sorted(range(inspections), key=lambda i: plan[i][2])  # proposals in time order
        fail_ids = list(FAIL_WEIGHTS)
        fail_w = list(FAIL_WEIGHTS.values())
        by_id = {it.id: it for it in items}
        sample_done = sample_open = 0
        counts = {"awaiting_review": 0, "reviewed": 0, "incomplete": 0}
        photo_id, used_photos, days = 0, 0, set()
        for lo in range(0, inspections, CHUNK):
            insp_rows, item_rows, photo_rows = [], [], []
            for n in order[lo:lo + CHUNK]:
                received, start, finished = plan[n]
                iid = n + 1
                vid, holder_id, driver_id = fleet[fleet_pick[n]]
                roll = rng.random() / care[fleet_pick[n]]   # below 1: something failed
                failed = {} if roll >= 1 else dict.fromkeys(rng.choices(
                    fail_ids, weights=fail_w, k=1 if roll > 0.3 else 2 if roll > 0.08 else 3))
                age = now - received
                awaiting = rng.random() < (0.6 if age < timedelta(days=10) else 0.004)
                incomplete = bool(failed) and rng.random() < (0.03 if age < timedelta(days=3)
                                                              else 0.002)
                sample = None
                if failed and not incomplete and len(failed) == 1 and \
                        by_id[next(iter(failed))].photo_required_on_failure:
                    if awaiting and sample_open < pdfs:
                        sample, sample_open = "open", sample_open + 1
                    elif not awaiting and sample_done < pdfs and rng.random() < 0.05:
                        sample, sample_done = "done", sample_done + 1
                ack = bool(failed) and rng.random() < 0.9 or rng.random() < 0.08
                sig = signatures[n % len(signatures)] if ack else None
                answers, position = [], 0
                for pos, it in enumerate(items):
                    item_row = (iid - 1) * len(items) + pos + 1
                    result = "fail" if it.id in failed else "na" if (
                        it.id == "one-passenger" and rng.random() < 0.3) else "ok"
                    note = NOTES.get(it.id, "Irregular") if result == "fail" else ""
                    entry = {"item_id": it.id, "result": result}
                    if result == "fail":
                        entry["note"] = note
                        shots = []
                        n_photos = 2 if sample else (rng.choice((1, 1, 2))
                                                     if it.photo_required_on_failure else 0)
                        for k in range(n_photos):
                            photo_id += 1
                            data = None
                            if sample:
                                data, used_photos = photos[used_photos], used_photos + 1
                            digest = hashlib.sha256(data).hexdigest() if data else \
                                hashlib.sha256(f"{iid}:{k}".encode()).hexdigest()
                            if data:
                                evidence_store.put(digest, data)
                            size = len(data) if data else rng.randint(250_000, 900_000)
                            taken = start + timedelta(seconds=60 * (pos % 8) + 10 * k)
                            missing = incomplete and k == n_photos - 1
                            photo_rows.append({
                                "id": photo_id, "uuid": str(uuid.UUID(int=rng.getrandbits(128),
                                                                      version=4)),
                                "inspection_id": iid, "item_id": item_row, "position": position,
                                "sha256": digest, "mime": "image/jpeg", "size": size,
                                "taken_at": taken,
                                "received_at": None if missing else received,
                                "width": None if missing else PHOTO_SIZE[0],
                                "height": None if missing else PHOTO_SIZE[1]})
                            position += 1
                            shots.append({"id": photo_rows[-1]["uuid"], "sha256": digest,
                                          "mime": "image/jpeg", "size": size,
                                          "taken_at": _iso(taken)})
                        if shots:
                            entry["photos"] = shots
                    answers.append(entry)
                    item_rows.append({"id": item_row, "inspection_id": iid, "position": pos,
                                      "item_id": it.id, "result": result, "note": note,
                                      "label": it.label,
                                      "citation": jsonable(it.citation.as_dict())})
                lat, lon = -12.73 + rng.uniform(-0.02, 0.02), -56.51 + rng.uniform(-0.02, 0.02)
                body = canonical({
                    "vehicle_id": vid, "credential_token": None, "snapshot_version": None,
                    "started_at": _iso(start), "finished_at": _iso(finished),
                    "location": {"lat": round(lat, 6), "lon": round(lon, 6), "accuracy_m": 12},
                    "items": answers, "acknowledgement": {
                        "name": drivers[driver_id], "signature_png": "data:image/png;base64,"
                        + base64.b64encode(sig).decode()} if ack else None})
                status = "incomplete" if incomplete else "awaiting_review" if awaiting \
                    else "reviewed"
                counts[status] += 1
                day = start.astimezone(town_tz).date()
                days.add(day)
                completed = None if incomplete else received + timedelta(
                    seconds=rng.randint(5, 120) * len(failed))
                reviewed_at = None
                if status == "reviewed":
                    reviewed_at = min(completed + timedelta(hours=rng.choice((1, 4, 20, 30, 70))),
                                      now - timedelta(minutes=5))
                insp_rows.append({
                    "id": iid, "uuid": str(uuid.UUID(int=rng.getrandbits(128), version=4)),
                    "municipality_id": town.id, "agent_id": agent_pick[n], "vehicle_id": vid,
                    "service": "mototaxi", "credential_token": None, "credential_id": None,
                    "started_at": start, "finished_at": finished, "rules_day": day,
                    "snapshot_version": None, "lat": lat, "lon": lon, "accuracy_m": 12.0,
                    "body_sha256": hashlib.sha256(body.encode()).hexdigest(), "body": body,
                    "ack_name": drivers[driver_id] if ack else None, "ack_signature": sig,
                    "status": status, "failed_items": len(failed), "registry_changed": False,
                    "registry_changes": None, "received_at": received, "completed_at": completed,
                    "proposed_at": completed,   # the enforcement worker's run right after
                    "reviewed_by_id": supervisor if reviewed_at else None,
                    "reviewed_at": reviewed_at})
                if completed is not None:
                    ledger.inspection(insp_rows[-1], [
                        ((iid - 1) * len(items) + pos + 1, by_id[it.id], NOTES.get(it.id, ""))
                        for pos, it in enumerate(items) if it.id in failed],
                        holder_id, driver_id, vid, sample)
            db.session.execute(insert(Inspection.__table__), insp_rows)
            db.session.execute(insert(InspectionItem.__table__), item_rows)
            if photo_rows:
                db.session.execute(insert(Photo.__table__), photo_rows)
        db.session.commit()
        seconds["inspections, items, photos"] = clock.perf_counter() - t0
        t0 = clock.perf_counter()
        made = ledger.write()
        db.session.commit()
        _after_load(db)
        seconds["acts, notices, fines, events"] = clock.perf_counter() - t0
        db.engine.dispose()
    return Loaded(inspections, counts, agents, sorted(days), made["acts"], made["notices"],
                  made["pdf_notices"], made["pdf_acts"], seconds)


def _after_load(db) -> None:
    """PostgreSQL: the id sequences past the explicit ids (the app inserts after the bench),
    and the planner's statistics, as autovacuum would gather them within a minute of such a
    load. (SQLite gets no ANALYZE: the app never runs one, so its planner has no statistics.)"""
    if db.engine.dialect.name != "postgresql":
        return
    from sqlalchemy import text
    for table in ("inspections", "inspection_items", "inspection_photos", "sanctions", "notices",
                  "fines", "appeals", "enforcement_events", "status_changes"):
        db.session.execute(text(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                                f"COALESCE((SELECT max(id) FROM {table}), 0) + 1, false)"))
    db.session.commit()
    with db.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.execute(text("ANALYZE"))
