"""Benchmark: what each in-process cache saves, at a small town's size and at the state-wide
size. Prints figures and each cache's verdict; asserts nothing.

    .venv/bin/python bench/caches.py [--sizes 20,500] [--calls 30]
        [--database-url postgresql+psycopg://user:pw@127.0.0.1:5432/any]

For each size N it loads Tapurah with N moto-taxis and 25 N inspections over two years with
their acts (bench/review_data.py: 20 is the top of the 6-20 vehicles of the small towns,
500 a town of bench/load.py's state-wide day of 4 x 500), one signed QR credential and its
rider's photo, on a throwaway SQLite database (or a database of its own on the PostgreSQL
server given). Then, in one process, with the Flask test client signed in as a supervisor
(or in an app context for what no single route isolates), it times each cache's path twice,
median of --calls calls after a warm-up:

- **hit**: as the program runs it, the cache warm;
- **bypass**: the same call with that cache alone taken out: a `render_cache` map set to
  size 0 (its `<NAME>_SIZE` setting), an `lru_cache` replaced by the function it wraps
  wherever it is bound, an `app.extensions` map emptied before each call.

The baseline is `GET /healthz` (one SELECT 1) in the same run. Per cache it prints hit and
bypass in ms, bypass / hit, and the saving as a share of the baseline request. A cache
**matters** when bypass / hit >= 1.2 and the saving is at least 5% of the baseline request
(below that, no request would notice it gone); docs/figures.md ("Caches") keeps the verdicts.
Hit and bypass are timed in alternation, so a busy machine slows both alike.
"""
from __future__ import annotations

import argparse
import logging
import os
import re
import statistics
import sys
import time
from collections.abc import Callable
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from _common import machine, throwaway_database
from review_data import PASSWORD, SECRET, SUPERVISOR, build

RATIO, SHARE = 1.2, 0.05   # what "matters" means (module docstring)
_TOKEN = re.compile(r'name="csrf-token" content="([^"]+)"')


def paired_ms(case, calls: int) -> tuple[float, float]:
    """Median milliseconds of the case's call with its cache (hit) and without it (bypass),
    timed in alternation so that the machine's drift weighs on both alike; 3 warm-up rounds."""
    hits, misses = [], []
    with case.around():
        pairs(case, calls, hits, misses)
    return statistics.median(hits), statistics.median(misses)


def pairs(case, calls: int, hits: list, misses: list) -> None:
    for n in range(calls + 3):
        start = time.perf_counter()
        case.call()
        hit = time.perf_counter() - start
        with case.bypass():
            if case.setup:
                case.setup()
            start = time.perf_counter()
            case.call()
            miss = time.perf_counter() - start
        if n >= 3:
            hits.append(hit * 1000)
            misses.append(miss * 1000)


def median_ms(call: Callable[[], object], calls: int) -> float:
    """Median milliseconds of `call` (after 3 warm-up calls)."""
    times = []
    for n in range(calls + 3):
        start = time.perf_counter()
        call()
        if n >= 3:
            times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


@contextmanager
def unwrapped(fn):
    """`fn` (an lru_cache) replaced by the function it wraps in every module of the program
    that holds it, for the duration."""
    raw = fn.__wrapped__
    spots = [(m, name) for m in list(sys.modules.values())
             if getattr(m, "__name__", "").startswith("inspector")
             for name, value in list(vars(m).items()) if value is fn]
    for m, name in spots:
        setattr(m, name, raw)
    try:
        yield
    finally:
        for m, name in spots:
            setattr(m, name, fn)


@contextmanager
def setting(app, name: str, value):
    """One config value changed for the duration."""
    old = app.config.get(name, None)
    had = name in app.config
    app.config[name] = value
    try:
        yield
    finally:
        if had:
            app.config[name] = old
        else:
            app.config.pop(name, None)


@dataclass
class Case:
    """One cache: where it is, the call that goes through it, and how to take it out."""

    name: str
    where: str
    call: Callable[[], object]
    bypass: Callable[[], object]          # a context manager factory
    setup: Callable[[], object] | None = None   # run before each bypassed call (untimed)
    around: Callable[[], object] = nullcontext   # both timings run inside it


def get(client, path: str) -> Callable[[], object]:
    def call():
        r = client.get(path)
        assert r.status_code == 200, (path, r.status_code)
        return r
    return call


def sign_in(client) -> None:
    page = client.get("/entrar").get_data(as_text=True)
    token = _TOKEN.search(page).group(1)
    r = client.post("/entrar", data={"username": SUPERVISOR, "password": PASSWORD,
                                     "csrf_token": token})
    assert r.status_code == 302, r.status_code


def add_credential(app) -> tuple[str, int]:
    """A signed QR credential of the first vehicle and a photo of its rider."""
    from field_data import portrait
    from sqlalchemy import select, update

    from inspector.credentials import issuing, keys
    from inspector.credentials.tokens import encode
    from inspector.extensions import db
    from inspector.models import Credential, Driver, Municipality, Vehicle, vehicle_drivers
    from inspector.registry.photos import photo_thumbnail

    with app.app_context():
        town = db.session.scalar(select(Municipality))
        vehicle = db.session.scalar(select(Vehicle).order_by(Vehicle.id).limit(1))
        driver = db.session.scalar(select(vehicle_drivers.c.driver_id).where(
            vehicle_drivers.c.vehicle_id == vehicle.id))
        photo = portrait(1)
        db.session.execute(update(Driver).where(Driver.id == driver).values(
            photo=photo, photo_mime="image/jpeg", photo_thumb=photo_thumbnail(photo)))
        key = keys.ensure_active_key()
        expires = date.today() + timedelta(days=issuing.validity_days())
        token = encode(keys.private_key(key), key.kid, "vehicle", town.ibge_code, vehicle.id,
                       expires)
        db.session.add(Credential(municipality_id=town.id, kind="vehicle", vehicle_id=vehicle.id,
                                  token=token, token_hash=issuing.token_hash(token),
                                  kid=key.kid, issued_at=datetime.now(UTC), expires_on=expires))
        db.session.commit()
        db.engine.dispose()
    return token, driver


def cases(app, client, token: str, driver: int) -> list[Case]:
    """Every in-process cache of the program, with its path and its bypass."""
    from inspector import audit, clock, config, field
    from inspector.blueprints.field_api import openapi
    from inspector.credentials import keys
    from inspector.extensions import db
    from inspector.inspections import renditions
    from inspector.laws import in_force, pages
    from inspector.models import Municipality
    from inspector.registry import history, search
    from inspector.rules import calendar, loader, reading, texts

    town = db.session.query(Municipality).one()
    day = clock.today(town)
    version = audit.town_version(town.id)
    plate = search.search_vehicles(town.id, "")[0].plate
    law = next(iter(texts.law_texts()))
    law_file = next(p for d in loader.laws_dirs() for p in sorted(d.glob("*.txt")))
    photo = __import__("review_data").evidence_photo(1)

    def rendered():
        return renditions.rendition("b" * 64, "mini", lambda: photo)

    def drop_rendition():
        renditions._cache.pop(("b" * 64, renditions.RENDITION_SIZES["mini"]), None)

    def empty(name: str):
        return lambda: app.extensions.pop(name, None)

    off = nullcontext
    out = [
        # render_cache maps: the setting <NAME>_SIZE = 0 turns the map off
        Case("review_queue", "blueprints/review/routes.py", get(client, "/revisao"),
             lambda: setting(app, "REVIEW_QUEUE_SIZE", 0)),
        Case("dashboard", "blueprints/dashboard/routes.py", get(client, "/painel"),
             lambda: setting(app, "DASHBOARD_SIZE", 0)),
        Case("open_data", "blueprints/opendata/routes.py",
             get(client, f"/transparencia/dados/{town.slug}.json"),
             lambda: setting(app, "OPEN_DATA_SIZE", 0)),
        Case("compliance", "laws/compliance.py", get(client, "/conformidade"),
             lambda: setting(app, "COMPLIANCE_SIZE", 0)),
        Case("passenger_views + passenger_html", "passenger/page.py", get(client, f"/v/{token}"),
             lambda: setting(app, "VERIFY_CACHE_SIZE", 0)),
        # app.extensions maps, emptied before each bypassed call
        Case("field_standing", "field/standing.py",
             lambda: field.town_standing(town.id, day, version), off,
             setup=empty("field_standing")),
        Case("field_worker", "blueprints/field/routes.py", get(client, "/sw.js"), off,
             setup=empty("field_worker")),
        Case("compressed_static (QR decoder, br)", "compression.py",
             lambda: client.get("/static/vendor/zxing_reader.wasm",
                                headers={"Accept-Encoding": "gzip, deflate, br"}).get_data(),
             off, setup=empty("compressed_static")),
        Case("credential_keys (60 s)", "credentials/keys.py", lambda: keys.verification_keys(), off,
             setup=keys.invalidate_cache),
        Case("renditions (48 MB)", "inspections/renditions.py", rendered, off,
             setup=drop_rendition),
        # lru_cache / functools.cache, replaced by the function they wrap
        Case("rules.load_all", "rules/loader.py", lambda: loader.load_all(),
             lambda: unwrapped(loader.load_all)),
        Case("rules.law_texts", "rules/texts.py", lambda: texts.law_texts(),
             lambda: unwrapped(texts.law_texts)),
        Case("rules._read_law_cached", "rules/reading.py",
             lambda: reading._read_law_cached(str(law_file)),
             lambda: unwrapped(reading._read_law_cached)),
        Case("laws.law_index", "laws/pages.py", get(client, "/leis"),
             lambda: unwrapped(pages.law_index)),
        Case("laws.outline", "laws/pages.py", get(client, f"/leis/{law}"),
             lambda: unwrapped(pages.outline)),
        Case("laws.outline on /sw.js", "laws/pages.py", get(client, "/sw.js"),
             lambda: unwrapped(pages.outline)),
        Case("in_force._decrees_statement", "laws/in_force.py",
             lambda: in_force.decrees_in_force(town, day),
             lambda: unwrapped(in_force._decrees_statement)),
        Case("official_holidays", "rules/calendar.py",
             lambda: calendar.deadline_days(day, 30, calendar.BUSINESS),
             lambda: unwrapped(calendar.official_holidays)),
        Case("clock._known_zones", "clock.py", lambda: clock.zone("America/Sao_Paulo"),
             lambda: unwrapped(clock._known_zones)),
        Case("config.version", "config.py", lambda: config.version(), lambda: unwrapped(config.version)),
        Case("history._audit_statement", "registry/history.py",
             lambda: history.audit_entries(town.id, [("vehicle", 1), ("licence", 1)], 100),
             lambda: unwrapped(history._audit_statement)),
        Case("search plate statements (3)", "registry/search.py",
             lambda: search.search_vehicles(town.id, plate[:4]),
             lambda: _both(unwrapped(search._plate_page_statement),
                           unwrapped(search._plate_count_statement),
                           unwrapped(search._vehicles_by_id_statement))),
        Case("search._others_statement", "registry/search.py",
             lambda: search._other_vehicle_matches(town.id, plate[:4], plate[:4]),
             lambda: unwrapped(search._others_statement)),
        Case("openapi._document", "blueprints/field_api/openapi.py",
             get(client, "/api/openapi.json"), lambda: unwrapped(openapi._document)),
    ]
    return out


@contextmanager
def _both(*managers):
    for m in managers:
        m.__enter__()
    try:
        yield
    finally:
        for m in reversed(managers):
            m.__exit__(None, None, None)


def measure(url: str, vehicles: int, calls: int, only: str = "") -> list[tuple]:
    from inspector import create_app
    from inspector.extensions import db

    started = time.perf_counter()
    build(url, inspections=25 * vehicles, vehicles=vehicles, pdfs=0)
    app = create_app({"SQLALCHEMY_DATABASE_URI": url, "SECRET_KEY": SECRET, "TESTING": True,
                      "LOG_LEVEL": "WARNING", "RATELIMIT_ENABLED": False})
    token, driver = add_credential(app)
    with app.app_context():   # the bench's supervisor chose this password already
        from sqlalchemy import update

        from inspector.models import User
        db.session.execute(update(User).values(must_change_password=False))
        db.session.commit()
        db.engine.dispose()
    print(f"\n{vehicles} vehicles, {25 * vehicles} inspections: loaded in "
          f"{time.perf_counter() - started:.0f} s")
    logging.disable(logging.INFO)   # the request log line is not what is measured
    client = app.test_client()
    sign_in(client)
    rows = []
    with app.test_request_context():
        baseline = median_ms(get(client, "/healthz"), calls * 3)
        for case in cases(app, client, token, driver):
            if only not in case.name:
                continue
            hit, miss = paired_ms(case, calls)
            rows.append((case.name, case.where, hit, miss))
        db.session.remove()
    logging.disable(logging.NOTSET)
    print(f"baseline GET /healthz median {baseline:.3f} ms")
    print(f"{'cache':44} {'hit ms':>9} {'bypass ms':>10} {'bypass/hit':>10} "
          f"{'saved/healthz':>13}  verdict")
    for name, where, hit, miss in rows:
        ratio, share = miss / hit if hit else float("inf"), (miss - hit) / baseline
        verdict = "matters" if ratio >= RATIO and share >= SHARE else "negligible"
        print(f"{name:44} {hit:9.3f} {miss:10.3f} {ratio:10.2f} {share:13.2f}  {verdict}"
              f"  ({where})")
    with app.app_context():
        db.engine.dispose()
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="20,500", help="vehicles of the town, comma-separated")
    ap.add_argument("--calls", type=int, default=30)
    ap.add_argument("--only", default="", help="time only the caches whose name has this")
    ap.add_argument("--database-url", default=None,
                    help="a PostgreSQL server URL (a database is made and dropped on it)")
    args = ap.parse_args()
    print(f"caches.py on {machine()}, load average {os.getloadavg()[0]:.1f}")
    for size in (int(s) for s in args.sizes.split(",")):
        with throwaway_database(args.database_url) as url:
            measure(url, size, args.calls, args.only)
    print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
