"""Benchmark: the agent's field app. Prints figures; asserts nothing.

    .venv/bin/python bench/field.py [--vehicles 5000] [--scans 300] [--inspections 100]
        [--database-url postgresql+psycopg://user:pw@127.0.0.1:5432/any]

On a throwaway SQLite database (temporary directory; or a database of its own on the
PostgreSQL server given, dropped at the end) it bulk-loads Tapurah with N
moto-taxis: holders, permits, licences, insurance, one rider each with a small photo
(240x320 JPEG, as a phone's portrait reduced), and a signed QR credential per vehicle.
It serves the app with gunicorn (2 sync workers; --threads N: as `make serve` does, gthread
workers with N threads each) on a free loopback port, built with
BENCH_ENDPOINTS=True (PUT /_bench/upload: reads the body, keeps nothing), and prints:

1. the app shell over the wire: every URL of /sw.js's precache list fetched with
   `Accept-Encoding: gzip`, bodies as received, without the QR decoder's wasm and the
   wasm alone (goal: under 200 KB without the wasm); Brotli beside it for comparison;
2. the full snapshot (raw, gzip, br; time of the first request per worker and warm),
   then a delta (`?since=`) after 10 changes made through the registry services;
3. decoded QR -> result card, offline, on Debian Chromium (Playwright) whose IndexedDB
   holds that snapshot (downloaded and stored by the app itself, timed too): the app's
   own `fieldApp.handleCode(url)` (signature check in WebCrypto, IndexedDB look-ups,
   card built and shown), median over many tokens (goal under 100 ms);
4. the sync of 100 inspections with 3 photos each (valid JPEGs of camera-like noise, ~300 KB
   and then ~2 MB, the size of a phone camera's original at a modest resolution;
   --photo-sizes) through the real endpoints, 4 inspections side by side as the app does
   (static/js/field/sync.js WORKERS), as a ratio to PUTting the same bodies with the same
   headers to /_bench/upload in the same run: trivial, real, trivial, ... real, trivial
   (--rounds real ones), each real round with new inspections and new photos, medians
   (goal above 0.5). After each trivial round, a "checked" one: the same trivial PUTs, each
   photo also checked whole as the sync checks it (inspections/evidence.py check_photo) and
   nothing else kept or written: the best ratio any sync that keeps that check can reach on
   this machine.
   Evidence packs are fsynced as inspector/inspections/evidence_store.py durable() says (on
   PostgreSQL, not on SQLite); EVIDENCE_FSYNC=1 in the environment forces it.
"""
from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import random
import re
import statistics
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from multiprocessing import Pool

from _common import Client, CpuMeter, Server, machine, throwaway_database
from field_data import AGENT, PASSWORD, SECRET, build, evidence_photo, ten_changes

KB = 1024


# ------------------------------------------------------------------ 1. shell
def _decoded(answer) -> bytes:
    enc = answer.headers.get("content-encoding")
    if enc == "gzip":
        return gzip.decompress(answer.data)
    if enc == "br":
        import brotli
        return brotli.decompress(answer.data)
    return answer.data


def shell_figures(client: Client) -> None:
    """Every precached URL of /sw.js with Accept-Encoding gzip (and br), bodies as received."""
    sw = client.fetch("GET", "/sw.js", headers={"Accept-Encoding": "gzip"})
    source = _decoded(sw).decode()
    urls = json.loads(re.search(r"const PRECACHE_URLS = (\[.*?\]);", source).group(1))
    rows = []
    for u in ["/sw.js"] + urls:
        gz = client.fetch("GET", u, headers={"Accept-Encoding": "gzip"})
        br = client.fetch("GET", u, headers={"Accept-Encoding": "br"})
        assert gz.status == br.status == 200, (u, gz.status)
        rows.append((u, len(_decoded(gz)), len(gz.data), gz.headers.get("content-encoding", "-"),
                     len(br.data)))
    print(f"\n1. App shell over the wire (/sw.js's precache list, {len(urls)} URLs, + /sw.js; "
          "bodies as received, headers not counted)")
    print(f"   {'URL':<40}{'raw B':>10}{'gzip B':>10}{'enc':>6}{'br B':>10}")
    for u, raw, wire, enc, brw in rows:
        print(f"   {u:<40}{raw:>10,}{wire:>10,}{enc:>6}{brw:>10,}")
    wasm = [r for r in rows if r[0].endswith(".wasm")]
    rest = [r for r in rows if not r[0].endswith(".wasm")]
    total = sum(r[2] for r in rest)
    print(f"   shell without the wasm: {sum(r[1] for r in rest) / KB:,.1f} KB raw -> "
          f"{total / KB:,.1f} KB gzip ({sum(r[4] for r in rest) / KB:,.1f} KB br); goal under "
          f"200 KB: {'met' if total < 200 * KB else 'NOT met'}")
    laws = [r for r in rest if r[0].startswith("/leis/")]
    if laws:
        print(f"   of which the {len(laws)} law pages (/leis/<law>, offline citations): "
              f"{sum(r[1] for r in laws) / KB:,.1f} KB raw -> {sum(r[2] for r in laws) / KB:,.1f} "
              f"KB gzip")
    for u, raw, wire, _, brw in wasm:
        print(f"   the wasm ({u.rsplit('/', 1)[1]}): {raw / KB:,.1f} KB raw -> {wire / KB:,.1f} "
              f"KB gzip ({brw / KB:,.1f} KB br)")


# ------------------------------------------------------------------ 2. snapshot
def _get(client: Client, path: str, encoding: str):
    answer = client.fetch("GET", path, headers={"Accept-Encoding": encoding})
    if answer.status != 200:
        raise SystemExit(f"{path} answered {answer.status}: {answer.text[:200]}")
    return answer


def _twin(client: Client) -> Client:
    other = Client(client.port)
    other.cookies = dict(client.cookies)
    return other


def snapshot_figures(client: Client, path: str, label: str, warm: int = 3) -> dict:
    """Sizes (raw, gzip, br) and times; the first two requests go side by side, one to each
    worker, so both pay their cold start (thumbnails, standing) before the warm ones."""
    cold = []
    with ThreadPoolExecutor(2) as pool:
        for answer in pool.map(lambda c: _get(c, path, "gzip"), [client, _twin(client)]):
            cold.append(answer.seconds)
    gz = [_get(client, path, "gzip") for _ in range(warm)]
    raw = [_get(client, path, "identity") for _ in range(warm)]
    br = _get(client, path, "br")
    body = json.loads(_decoded(gz[-1]))
    assert len(body["vehicles"]) == len(json.loads(raw[-1].data)["vehicles"])
    counts = ", ".join(f"{len(body[k]):,} {k}" for k in ("vehicles", "drivers", "credentials",
                                                         "standing") if body.get(k))
    med = lambda xs: statistics.median(a.seconds for a in xs) * 1000  # noqa: E731
    photos = sum(len(d.get("photo") or "") for d in body.get("drivers", []))
    print(f"   {label}: {counts or 'nothing'}; rider photos (data: URIs) "
          f"{photos / KB:,.1f} KB of the raw JSON")
    print(f"     size: {len(raw[-1].data) / KB:,.1f} KB raw, {len(gz[-1].data) / KB:,.1f} KB gzip, "
          f"{len(br.data) / KB:,.1f} KB br")
    print(f"     time: first request per worker {max(cold) * 1000:,.0f} ms; warm median "
          f"{med(gz):,.0f} ms gzip, {med(raw):,.0f} ms raw (loopback, {warm} requests each)")
    return body


# ------------------------------------------------------------------ 3. QR -> card, offline
TIMING_JS = """
async ({codes, warmup}) => {
  const registry = await import('/static/js/field/registry.js');
  const frame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  const out = [];
  for (let i = 0; i < codes.length; i++) {
    const [url, vehicleId] = codes[i];
    const t0 = performance.now();
    await window.fieldApp.handleCode(url);           // the app's own path
    const t1 = performance.now();
    await frame();
    const t2 = performance.now();
    const card = document.querySelector('#result [data-vehicle-id]');
    const banner = document.querySelector('#result [data-verdict]');
    const ok = !!card && Number(card.dataset.vehicleId) === vehicleId && !!banner
      && banner.dataset.verdict === 'valid' && !document.querySelector('#screen-result').hidden;
    const t3 = performance.now();                    // the two halves, measured apart
    const v = await window.fieldApp.verifyCode(url);
    const t4 = performance.now();
    await registry.vehicleDetails(v.claims.subjectId);
    const t5 = performance.now();
    if (i >= warmup) out.push({card: t1 - t0, painted: t2 - t0, verify: t4 - t3,
                               details: t5 - t4, ok});
  }
  return out;
}
"""


def qr_figures(base: str, codes: list[tuple[str, int]], warmup: int) -> None:
    """Sign in, let the app store the snapshot, go offline, time handleCode over the codes."""
    from playwright.sync_api import sync_playwright

    from tests.support.config import CHROMIUM, CHROMIUM_ARGS

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(base_url=base, locale="pt-BR")
            page = context.new_page()
            page.set_default_timeout(300_000)
            page.goto("/entrar?next=/campo")
            page.fill("#username", AGENT)
            page.fill("#password", PASSWORD)
            page.click("button[type=submit]")
            page.wait_for_url("**/campo")
            ready = ("() => navigator.serviceWorker.controller !== null"
                     " && document.body.dataset.ready === '1'")
            page.wait_for_function(ready)
            page.reload()
            page.wait_for_function(ready)
            stored = page.evaluate("""async () => {
                await window.fieldApp.store.clearSnapshot();
                const t0 = performance.now();
                const r = await window.fieldApp.sync.refreshSnapshot();
                return {ms: performance.now() - t0, ok: r.ok,
                        vehicles: await window.fieldApp.store.countRows('vehicles'),
                        drivers: await window.fieldApp.store.countRows('drivers')};
            }""")
            context.set_offline(True)
            runs = page.evaluate(TIMING_JS, {"codes": codes, "warmup": warmup})
            version = browser.version
        finally:
            browser.close()
    bad = sum(1 for r in runs if not r["ok"])
    med = {k: statistics.median(r[k] for r in runs) for k in ("card", "painted", "verify",
                                                               "details")}
    p90 = sorted(r["card"] for r in runs)[int(len(runs) * 0.9) - 1]
    print(f"\n3. Decoded QR -> result card, offline (Chromium {version}, headless)")
    print(f"   the app downloaded and stored the snapshot in {stored['ms'] / 1000:,.1f} s "
          f"({stored['vehicles']:,} vehicles, {stored['drivers']:,} drivers in IndexedDB)")
    print(f"   fieldApp.handleCode(url) over {len(runs)} tokens (after {warmup} warm-up): median "
          f"{med['card']:.1f} ms, p90 {p90:.1f} ms; to the next frame {med['painted']:.1f} ms; "
          f"goal under 100 ms: {'met' if med['card'] < 100 else 'NOT met'}")
    print(f"   of which: signature + credential look-up (verifyCode) {med['verify']:.1f} ms, "
          f"card data from IndexedDB (vehicleDetails) {med['details']:.1f} ms"
          + (f"; {bad} cards WRONG" if bad else "; every card showed the right vehicle, valid"))


# ------------------------------------------------------------------ 4. sync
def _inspection(vehicle_id: int, items: list[dict], photos: list[bytes], version: int) -> tuple:
    """(uuid, JSON body, [(photo uuid, bytes, sha256)]) of one inspection, 3 failed items."""
    start = datetime.now(UTC) - timedelta(minutes=9)
    declared, answers = [], []
    for n, item in enumerate(items):
        entry = {"item_id": item["id"], "result": "ok"}
        if n < len(photos):
            data = photos[n]
            pid, sha = str(uuid.uuid4()), hashlib.sha256(data).hexdigest()
            declared.append((pid, data, sha))
            entry.update(result="fail", note=f"Defeito {n + 1}", photos=[{
                "id": pid, "sha256": sha, "mime": "image/jpeg", "size": len(data),
                "taken_at": (start + timedelta(minutes=n + 1)).isoformat()}])
        answers.append(entry)
    body = {"vehicle_id": vehicle_id, "credential_token": None, "snapshot_version": version,
            "started_at": start.isoformat(timespec="milliseconds"),
            "finished_at": datetime.now(UTC).isoformat(timespec="milliseconds"),
            "location": {"lat": -12.73, "lon": -56.51, "accuracy_m": 12}, "items": answers}
    return str(uuid.uuid4()), json.dumps(body).encode(), declared


# how each kind of round sends an inspection's body and its photos
_PATHS = {"real": ("/api/field/inspections/{iid}", "/api/field/inspections/{iid}/photos/{pid}"),
          "trivial": ("/_bench/upload", "/_bench/upload"),
          "checked": ("/_bench/upload", "/_bench/upload?check=photo")}


def _send(client: Client, headers: dict, insp: tuple, kind: str, times: dict) -> bool:
    """One inspection as the app sends it (the body, then its photos) to the endpoints of
    `kind` (_PATHS); True when complete. Each request's time goes to times["inspection" |
    "photo" | "last photo"]."""
    iid, body, photos = insp
    body_path, photo_path = _PATHS[kind]
    path = body_path.format(iid=iid)
    got = client.fetch("PUT", path, body, {**headers, "Content-Type": "application/json"})
    if got.status != 201:
        raise SystemExit(f"PUT {path}: {got.status} {got.text[:300]}")
    times["inspection"].append(got.seconds)
    complete = False
    for n, (pid, data, sha) in enumerate(photos):
        path = photo_path.format(iid=iid, pid=pid)
        got = client.fetch("PUT", path, data, {**headers, "Content-Type": "image/jpeg",
                                               "X-Content-SHA256": sha})
        if got.status != 201:
            raise SystemExit(f"PUT {path}: {got.status} {got.text[:300]}")
        times["last photo" if n == len(photos) - 1 else "photo"].append(got.seconds)
        complete = kind != "real" or json.loads(got.data)["complete"]
    return complete


def sync_figures(client: Client, snapshot: dict, count: int, per: int, workers: int,
                 size: tuple[int, int] = (720, 540), rounds: int = 3,
                 client_engine: str = "sqlite", meter: CpuMeter | None = None) -> None:
    """The real endpoints against the trivial one, same bodies, same headers, same run:
    trivial, real, trivial, checked, ... real, trivial, checked; each real round sends new
    inspections with new photos (never bytes the server already holds); medians of the
    rounds."""
    session = json.loads(client.fetch("GET", "/api/field/session").data)
    headers = {"X-CSRFToken": session["csrf_token"], "Accept": "application/json"}
    items = next(c for c in snapshot["checklists"] if c["service"] == "mototaxi")["items"]
    local = threading.local()

    def batch_of(r: int) -> list[tuple]:
        with Pool(2) as pool:
            photos = pool.starmap(evidence_photo, [(r * count * per + i, size)
                                                   for i in range(count * per)], chunksize=10)
        vehicles = random.Random(5 + r).sample([v["id"] for v in snapshot["vehicles"]], count)
        return [_inspection(v, items, photos[i * per:(i + 1) * per], snapshot["version"])
                for i, v in enumerate(vehicles)]

    cpu: dict[str, list[dict]] = {kind: [] for kind in _PATHS}

    def run(batch: list[tuple], kind: str) -> tuple[float, int, dict]:
        times = {"inspection": [], "photo": [], "last photo": []}

        def one(insp):
            if not hasattr(local, "client"):
                local.client = _twin(client)
            return _send(local.client, headers, insp, kind, times)
        start = meter.read() if meter else None
        t0 = time.perf_counter()
        with ThreadPoolExecutor(workers) as pool:
            complete = sum(pool.map(one, batch))
        seconds = time.perf_counter() - t0
        if meter:
            cpu[kind].append(meter.since(start))
        return seconds, complete, times

    batch = batch_of(0)
    sent = sum(len(b[1]) + sum(len(p[1]) for p in b[2]) for b in batch)
    photo_kb = statistics.mean(len(p[1]) for b in batch for p in b[2]) / KB
    floors, reals, checks, complete = [run(batch, "trivial")[0]], [], [], 0
    floor_times = real_times = None
    for r in range(rounds):
        if r:
            batch = batch_of(r)
        seconds, done, real_times = run(batch, "real")
        reals.append(seconds)
        complete += done
        seconds, _, floor_times = run(batch, "trivial")
        floors.append(seconds)
        checks.append(run(batch, "checked")[0])
    floor, real, check = (statistics.median(floors), statistics.median(reals),
                          statistics.median(checks))
    mb = sent / (KB * KB)
    show = lambda xs: ", ".join(f"{x:.2f}" for x in xs)  # noqa: E731
    forced = os.environ.get("EVIDENCE_FSYNC")
    fsync = (forced.strip().lower() in ("1", "true", "yes", "on") if forced
             else not client_engine.startswith("sqlite"))
    print(f"\n4. Sync: {count} inspections x {per} photos, {photo_kb:,.0f} KB each "
          f"({mb:,.1f} MB with the JSON), {workers} inspections side by side, {rounds} rounds; "
          f"evidence fsynced: {'yes' if fsync else 'no'} "
          f"({'EVIDENCE_FSYNC' if forced else 'as durable as the database'})")
    print(f"   real endpoints (PUT inspection, then each photo): {show(reals)} s, median "
          f"{real:.2f} s = {mb / real:,.1f} MB/s; {complete} of {count * rounds} answered complete")
    print(f"   trivial PUT /_bench/upload, same bodies: {show(floors)} s, median {floor:.2f} s "
          f"= {mb / floor:,.1f} MB/s")
    print(f"   ratio (trivial time / real time, medians) = {floor / real:.2f}; goal above 0.5: "
          f"{'met' if floor / real > 0.5 else 'NOT met'}")
    print(f"   trivial, each photo also checked whole as the sync checks it (PUT "
          f"/_bench/upload?check=photo), and nothing else: {show(checks)} s, median {check:.2f} s;"
          f" ratio {floor / check:.2f}: no sync that checks its photos so can do better here")
    med = lambda xs: statistics.median(xs) * 1000  # noqa: E731
    print("   median per request in the last rounds, real / trivial: " + ", ".join(
        f"{k} {med(real_times[k]):,.0f} / {med(floor_times[k]):,.0f} ms"
        for k in ("inspection", "photo", "last photo")))
    if meter:
        cores = os.cpu_count() or 1
        used = {kind: {k: statistics.median(c[k] for c in cpu[kind]) for k in cpu[kind][0]}
                for kind in cpu}
        print("   CPU seconds per round (medians), real / trivial / checked: " + ", ".join(
            f"{k} {used['real'][k]:.2f} / {used['trivial'][k]:.2f} / {used['checked'][k]:.2f}"
            for k in used["real"])
            + f" ({cores} cores); 'others' in the real rounds includes the kernel writing the "
            "evidence packs back to disk")
        busy = used["trivial"]["others"] / (floor * cores)
        if busy > 0.1:
            print(f"   NOTE: other work used {busy:.0%} of the machine during the trivial rounds: "
                  "the ratio above was taken on a busy machine")


# ------------------------------------------------------------------ main
def main() -> None:
    """Build, serve, measure, print."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vehicles", type=int, default=5000)
    ap.add_argument("--scans", type=int, default=300, help="tokens timed offline")
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--inspections", type=int, default=100)
    ap.add_argument("--photos", type=int, default=3, help="photos per inspection")
    ap.add_argument("--workers", type=int, default=2, help="gunicorn workers")
    ap.add_argument("--threads", type=int, default=0,
                    help="serve as `make serve` does (inspector/gunicorn_conf.py: gthread "
                    "workers with this many threads each) instead of sync workers")
    ap.add_argument("--photo-sizes", default="720x540,1920x1440",
                    type=lambda v: [tuple(map(int, x.split("x"))) for x in v.split(",")],
                    help="evidence photo sizes synced in part 4, one run each (~300 KB and "
                    "~2 MB, a phone camera's original at a modest resolution)")
    ap.add_argument("--rounds", type=int, default=5, help="real sync rounds in part 4, each "
                    "between two trivial ones (medians)")
    ap.add_argument("--parts", default="1234", help="which figures to print, e.g. 4 for the "
                    "sync alone (default: all four)")
    ap.add_argument("--database-url", help="a PostgreSQL server URL: the bench creates its own "
                    "database there and drops it afterwards (default: a SQLite file)")
    args = ap.parse_args()
    load = os.getloadavg()[0]
    with throwaway_database(args.database_url) as url:
        t0 = time.perf_counter()
        tokens = build(url, args.vehicles)
        engine = url.split(":", 1)[0].split("+")[0]
        print(f"loaded Tapurah with {args.vehicles:,} moto-taxis, riders with photos and QR "
              f"credentials in {time.perf_counter() - t0:,.1f} s ({engine})")
        env = {"DATABASE_URL": url, "SECRET_KEY": SECRET, "LOG_LEVEL": "WARNING"}
        served = ("--timeout", "300")
        if args.threads:
            env["WEB_THREADS"] = str(args.threads)
            served += ("--config", "python:inspector.gunicorn_conf")
        print(f"served by gunicorn: {args.workers} "
              + (f"gthread workers x {args.threads} threads (as make serve)" if args.threads
                 else "sync workers"))
        with Server(env, workers=args.workers, config={"BENCH_ENDPOINTS": True},
                    extra_args=served) as server:
            client = Client(server.port)
            if "1" in args.parts:
                shell_figures(client)
            client.sign_in(AGENT, PASSWORD)
            if "2" not in args.parts:
                full = json.loads(_decoded(client.fetch("GET", "/api/field/snapshot")))
                if "4" in args.parts:
                    for size in args.photo_sizes:
                        sync_figures(client, full, args.inspections, args.photos, 4, size,
                                     rounds=args.rounds, client_engine=engine,
                                     meter=CpuMeter(server.proc.pid))
                return
            print(f"\n2. Snapshot (GET /api/field/snapshot as {AGENT}, gunicorn "
                  f"{args.workers} workers, {engine})")
            full = snapshot_figures(client, "/api/field/snapshot", "full")
            changes = ten_changes(url)
            delta = snapshot_figures(client, f"/api/field/snapshot?since={full['version']}",
                                     f"delta after {len(changes)} changes via the registry "
                                     f"services (?since={full['version']})", warm=5)
            print(f"     the delta's version {delta['version']} (+{delta['version'] - full['version']}"
                  f" audit entries): {'; '.join(changes)}")
            rng = random.Random(3)
            picked = rng.sample(sorted(tokens), min(len(tokens), args.scans + args.warmup))
            if "3" in args.parts:
                qr_figures(server.base, [(tokens[v], v) for v in picked], args.warmup)
            if "4" in args.parts:
                for size in args.photo_sizes:
                    sync_figures(client, full, args.inspections, args.photos, 4, size,
                                 rounds=args.rounds, client_engine=engine,
                                 meter=CpuMeter(server.proc.pid))
    print(f"\nmachine: {machine()}; load average {load:.2f} at the start, "
          f"{os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
