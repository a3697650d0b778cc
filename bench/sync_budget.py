"""Benchmark: where the photo sync's time goes, as "what if" figures.
Prints figures; asserts nothing.

    .venv/bin/python bench/sync_budget.py [--vehicles 300] [--rounds 4]
        [--database-url postgresql+psycopg://user:pw@127.0.0.1:5432/any]

bench/field.py times the sync of 100 inspections x 3 photos (~290 KB each) against PUTting
the same bodies to a trivial endpoint (goal: ratio above 0.5). This script answers the next
question: which part of the real work that ratio pays for. In one process (Flask's test
client, one request at a time: steadier than gunicorn on two shared cores), it times the
same sync with pieces of the work switched off *from outside*, by replacing the service
function that does each one for the length of a round:

- csrf: the CSRF check of the PUTs (Flask-WTF's signed token);
- audit: the photo's audit entry (its hash, the chain's tail, the INSERT);
- file: appending the photo to this process's evidence pack;
- image: checking the image whole (its structure walked, every pixel decoded) and
  reading its EXIF;
- registry: comparing the registry with the phone's snapshot (the inspection's query);
- all five together.

Nothing here is a proposal to drop any of them: each is required (security, evidence, the
law). The figures say how far the goal is from what this stack costs for the rest (the
body's SHA-256, the statements, the commit, Flask's dispatch). Rounds alternate
configurations, each with new photos, between trivial rounds; medians.
"""
from __future__ import annotations

import argparse
import contextlib
import os
import re
import statistics
import sys
import time
from concurrent.futures import Future

from _common import throwaway_database
from field import _inspection
from field_data import AGENT, PASSWORD, SECRET, build, evidence_photo

BASE = "https://localhost"  # the session cookie is Secure


def _done(value=None) -> Future:
    f: Future = Future()
    f.set_result(value)
    return f


def switches() -> dict[str, list[tuple[object, str, object]]]:
    """Each piece of work -> (module or class, attribute, stand-in) replacements."""
    from flask_wtf.csrf import CSRFProtect

    from inspector import audit
    from inspector.inspections import evidence, evidence_store, records

    real_record = audit.record

    def record(action, *a, **k):  # only the photo's own entry is skipped
        return (0, "") if action == "photo_received" else real_record(action, *a, **k)
    facts = evidence.ImageFacts("JPEG", 720, 540)
    return {
        "csrf": [(CSRFProtect, "protect", lambda self: None)],
        "audit": [(records.audit, "record", record)],
        "file": [(evidence_store, "writing",
                  lambda sha, data, town_id=None: (evidence_store.Location("", 0),
                                                   _done()))],
        "image": [(evidence, "decode_photo", lambda data: facts),
                  (evidence, "expect_format", lambda facts, mime: None)],
        "registry": [(records, "registry_changes", lambda vehicle, since: [])],
    }


@contextlib.contextmanager
def without(pieces: list[str], table: dict):
    """Replace the functions doing these pieces of work for the block."""
    saved = []
    for piece in pieces:
        for owner, name, stand_in in table[piece]:
            saved.append((owner, name, getattr(owner, name)))
            setattr(owner, name, stand_in)
    try:
        yield
    finally:
        for owner, name, original in reversed(saved):
            setattr(owner, name, original)


def main() -> None:
    """Build, sync round after round, print."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vehicles", type=int, default=300)
    ap.add_argument("--inspections", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--database-url", help="a PostgreSQL server URL (default: SQLite file)")
    args = ap.parse_args()
    with throwaway_database(args.database_url) as url:
        build(url, args.vehicles)
        os.environ.update(DATABASE_URL=url, SECRET_KEY=SECRET, LOG_LEVEL="WARNING")
        from inspector import create_app
        app = create_app({"BENCH_ENDPOINTS": True})
        client = app.test_client()
        page = client.get("/entrar", base_url=BASE).get_data(as_text=True)
        token = re.search(r'name="csrf_token"[^>]*value="([^"]+)"', page).group(1)
        client.post("/entrar", base_url=BASE, data={
            "username": AGENT, "password": PASSWORD, "csrf_token": token})
        csrf = client.get("/api/field/session", base_url=BASE).get_json()["csrf_token"]
        headers = {"X-CSRFToken": csrf, "Accept": "application/json"}
        snap = client.get("/api/field/snapshot", base_url=BASE).get_json()
        items = next(c for c in snap["checklists"] if c["service"] == "mototaxi")["items"]
        vehicles = [v["id"] for v in snap["vehicles"]]
        seed = [0]

        def batch() -> list[tuple]:
            out = []
            for _i in range(args.inspections):
                photos = [evidence_photo(seed[0] + k) for k in range(3)]
                seed[0] += 3
                out.append(_inspection(vehicles[(seed[0] // 3) % len(vehicles)], items,
                                       photos, snap["version"]))
            return out

        def sync(sent: list[tuple], trivial: bool) -> float:
            """Milliseconds per request."""
            t0, n = time.perf_counter(), 0
            for iid, body, photos in sent:
                path = "/_bench/upload" if trivial else f"/api/field/inspections/{iid}"
                got = client.put(path, data=body, base_url=BASE, headers={
                    **headers, "Content-Type": "application/json"})
                n += 1
                if got.status_code != 201:
                    sys.exit(f"PUT {path}: {got.status_code} {got.get_data(as_text=True)[:200]}")
                for pid, data, sha in photos:
                    path = ("/_bench/upload" if trivial
                            else f"/api/field/inspections/{iid}/photos/{pid}")
                    got = client.put(path, data=data, base_url=BASE, headers={
                        **headers, "Content-Type": "image/jpeg", "X-Content-SHA256": sha})
                    n += 1
                    if got.status_code != 201:
                        sys.exit(f"PUT {path}: {got.status_code}")
            return (time.perf_counter() - t0) * 1000 / n

        table = switches()
        configs = [[]] + [[p] for p in table] + [list(table)]
        reals: dict[int, list[float]] = {i: [] for i in range(len(configs))}
        trivials = []
        sync(batch()[:10], False)  # warm up: statement caches, the first folders
        for _ in range(args.rounds):
            for i, pieces in enumerate(configs):
                sent = batch()
                with without(pieces, table):
                    reals[i].append(sync(sent, False))
                trivials.append(sync(sent, True))
        trivial = statistics.median(trivials)
        engine = url.split(":", 1)[0].split("+")[0]
        print(f"Photo sync, what if ({engine}, one process, Flask test client): "
              f"{args.inspections} inspections x 3 photos of ~290 KB per round, "
              f"{args.rounds} rounds of each configuration, medians")
        print(f"  trivial PUT /_bench/upload, same bodies: {trivial:.2f} ms per request")
        base = statistics.median(reals[0])
        for i, pieces in enumerate(configs):
            real = statistics.median(reals[i])
            label = ("everything (as served)" if not pieces else
                     "without all five" if len(pieces) > 1 else f"without {pieces[0]}")
            saved = "" if not pieces else f", saves {base - real:+.2f} ms"
            print(f"  {label:24s} {real:.2f} ms per request{saved}; "
                  f"ratio {trivial / real:.2f}")


if __name__ == "__main__":
    main()
