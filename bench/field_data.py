"""The data of bench/field.py: Tapurah bulk-loaded with riders' photos and one signed QR
credential per vehicle, ten registry changes made through the services, and photos."""
from __future__ import annotations

import io
import random
from datetime import UTC, date, datetime, timedelta
from multiprocessing import Pool

from _common import load_mototaxi_town

PASSWORD = "bench-password-123"
SECRET = "bench-field-secret-not-for-production"
AGENT, ADMIN = "agente.bench", "admin.bench"


def portrait(i: int) -> bytes:
    """A small, unique, camera-like portrait JPEG (background, head, shirt, sensor noise)."""
    from PIL import Image, ImageDraw

    rng = random.Random(i)
    w, h = 240, 320
    bg = Image.blend(Image.linear_gradient("L").resize((w, h)).convert("RGB"),
                     Image.new("RGB", (w, h), tuple(rng.randrange(256) for _ in range(3))), 0.6)
    d = ImageDraw.Draw(bg)
    x = rng.randint(-12, 12)
    d.ellipse((62 + x, 30, 178 + x, 150), fill=tuple(rng.randrange(90) for _ in range(3)))
    d.ellipse((70 + x, 50, 170 + x, 185), fill=rng.choice(
        [(224, 172, 105), (198, 134, 66), (141, 85, 36), (255, 219, 172), (241, 194, 125)]))
    d.rectangle((30, 205, 210, 320), fill=tuple(rng.randrange(256) for _ in range(3)))
    d.ellipse((95 + x, 100, 110 + x, 112), fill=(40, 30, 20))
    d.ellipse((130 + x, 100, 145 + x, 112), fill=(40, 30, 20))
    noise = Image.effect_noise((w, h), 60).convert("RGB")
    out = io.BytesIO()
    Image.blend(bg, noise, 0.3).save(out, "JPEG", quality=82)
    return out.getvalue()


def evidence_photo(i: int, size: tuple[int, int] = (720, 540)) -> bytes:
    """A valid JPEG of noise (as incompressible as a real photo): ~300 KB at 720x540,
    ~2 MB at 1920x1440."""
    from PIL import Image

    img = Image.frombytes("RGB", size, random.Random(i).randbytes(size[0] * size[1] * 3))
    out = io.BytesIO()
    img.save(out, "JPEG", quality=85)
    return out.getvalue()


def build(url: str, vehicles: int) -> dict[int, str]:
    """The town, its users, rider photos and one credential per vehicle; vehicle id -> QR URL."""
    from sqlalchemy import insert, select, update

    from inspector import audit
    from inspector.accounts import create_user
    from inspector.credentials import issuing, keys
    from inspector.credentials.tokens import encode
    from inspector.extensions import db
    from inspector.models import Credential, Driver, Municipality, Vehicle
    from inspector.registry.photos import photo_thumbnail

    with Pool(2) as pool:
        photos = pool.map(portrait, range(vehicles), chunksize=100)
        thumbs = pool.map(photo_thumbnail, photos, chunksize=100)
    app = load_mototaxi_town(url, vehicles, secret_key=SECRET)
    with app.app_context():
        town = db.session.scalar(select(Municipality).filter_by(slug="tapurah"))
        create_user(town_slug="tapurah", username=AGENT, name="Agente Bench", role="agent",
                    password=PASSWORD)
        create_user(town_slug="tapurah", username=ADMIN, name="Admin Bench", role="admin",
                    password=PASSWORD)
        driver_ids = list(db.session.scalars(select(Driver.id).order_by(Driver.id)))
        db.session.execute(update(Driver), [  # as registry/photos.py stores them
            {"id": d, "photo": p, "photo_mime": "image/jpeg", "photo_thumb": t}
            for d, p, t in zip(driver_ids, photos, thumbs)])
        key = keys.ensure_active_key()
        private = keys.private_key(key)
        expires = date.today() + timedelta(days=issuing.validity_days())
        now = datetime.now(UTC)
        tokens, rows = {}, []
        for vid in db.session.scalars(select(Vehicle.id).order_by(Vehicle.id)):
            token = encode(private, key.kid, "vehicle", town.ibge_code, vid, expires)
            tokens[vid] = issuing.public_url(token)
            rows.append({"municipality_id": town.id, "kind": "vehicle", "vehicle_id": vid,
                         "token": token, "token_hash": issuing.token_hash(token),
                         "kid": key.kid, "issued_at": now, "expires_on": expires})
        db.session.execute(insert(Credential), rows)
        # one audit entry for the town: the snapshot's version is not 0 (a bulk load
        # bypasses the services that write them)
        audit.record("bench_loaded", "municipality", town.id, after={"vehicles": vehicles},
                     municipality_id=town.id)
        db.session.commit()
        db.engine.dispose()
    return tokens


def ten_changes(url: str) -> list[str]:
    """Ten registry changes through the services, as an admin would make them."""
    from sqlalchemy import select

    from inspector import create_app
    from inspector.extensions import db
    from inspector.models import User, Vehicle
    from inspector.registry import records

    app = create_app({"SQLALCHEMY_DATABASE_URI": url, "SECRET_KEY": SECRET, "TESTING": True,
                      "LOG_LEVEL": "WARNING"})
    done = []
    with app.app_context():
        admin = db.session.scalar(select(User).filter_by(username=ADMIN))
        town_id = admin.municipality_id
        ids = sorted(db.session.scalars(select(Vehicle.id)))
        picked = [db.session.get(Vehicle, v) for v in random.Random(10).sample(ids, 10)]
        for v in picked[:3]:
            records.save_vehicle(town_id, {"colour": "Azul"}, actor=admin, vehicle=v)
            done.append(f"vehicle {v.plate}: colour")
        for v in picked[3:6]:
            lic = v.licences[0]
            target = "active" if lic.status.value == "suspended" else "suspended"
            records.change_status(lic, target, "Bench: mudança de situação", actor=admin)
            done.append(f"licence {lic.number}: {target}")
        for v in picked[6:8]:
            ins = v.insurance_policies[0]
            records.save_insurance(town_id, {"valid_until": (date.today() + timedelta(days=400))
                                              .isoformat()}, actor=admin, insurance=ins)
            done.append(f"insurance {ins.policy_number}: valid_until")
        for v in picked[8:10]:
            d = v.drivers[0]
            records.change_status(d, "suspended", "Bench: registro suspenso", actor=admin)
            done.append(f"driver {d.registration_number}: suspended")
        db.session.commit()
        db.engine.dispose()
    return done
