"""Benchmark: the supervisor's review queue on 100,000 inspections against a trivial page, and
notice PDFs per second. Prints figures; asserts nothing.

    .venv/bin/python bench/review.py [--inspections 100000] [--vehicles 4000] [--rounds 150]
        [--clients 2] [--pdfs 50] [--database-url postgresql+psycopg://user:pw@127.0.0.1:5432/any]

On a throwaway SQLite database (temporary directory; or a database of its own on the
PostgreSQL server given, dropped at the end) it bulk-loads Tapurah (Lei 406/2001, where
sanctions are plentiful) with N moto-taxis and two years of inspections by 12 agents, as
the field sync stores them, and the acts the enforcement services would have proposed and
decided for them (bench/review_data.py, bench/review_acts.py). It serves the app with
gunicorn (2 sync workers) on a free loopback port, signs in as a supervisor and prints:

1. the first page of the review queue (`GET /revisao`), as a full page and as the htmx
   fragment its filter form asks for, with the default filter (awaiting review) and the
   common ones as the form sends them (one agent, whose status select still says
   "awaiting review"; one agent, all statuses; reviewed; all statuses; one day; one month;
   the last 30 days awaiting review), against `GET /healthz` (one SELECT 1) and, for
   reference, `GET /inicio` (the smallest signed-in page): median and p90 of each over
   --rounds requests after a warm-up, the requests of every route shuffled together and
   sent by --clients clients side by side (as many as gunicorn has workers, so that a
   request waits for the server's work rather than for another request), and each median
   as a ratio to /healthz's median in the same run (goal: at most 2x);
2. notice PDFs: in one process, the real `render_notice_pdf` for --pdfs decided notices
   whose item has two evidence photos kept with their bytes (unique camera-like
   2000x1500 JPEGs of ~320 KB): PDFs per second, the time split between content (queries,
   two thumbnails) and layout (ReportLab), mean size; then under gunicorn, --pdfs proposed
   notices with two such photos each confirmed through `POST /revisao/atos/<id>/confirmar`
   as the review page does (decision, access code, PDF made and stored, audit entries, in
   one request), 2 side by side; then those stored PDFs downloaded through
   `GET /documentos/tapurah/<number>/pdf`.

The bulk load leaves out what no figure reads (bench/review_data.py says what); on
PostgreSQL it runs ANALYZE afterwards, as autovacuum would within a minute.
"""
from __future__ import annotations

import argparse
import os
import random
import re
import statistics
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

from _common import Client, Server, machine, pct, served_bench_args, throwaway_database
from review_data import PASSWORD, SECRET, SUPERVISOR, Loaded, build

KB = 1024
_TOKEN = re.compile(r'name="csrf-token" content="([^"]+)"')
HX = {"HX-Request": "true", "Accept": "text/html"}


def _twin(client: Client) -> Client:
    other = Client(client.port)
    other.cookies = dict(client.cookies)
    return other


# ------------------------------------------------------------------ 1. the queue
def variants(loaded: Loaded, rng: random.Random) -> dict[str, callable]:
    """Query strings as the filter form sends them: every field, the status select starting
    at "Aguardando revisão" (so picking an agent alone asks for their inspections awaiting
    review)."""
    agents = list(loaded.agents)
    days = loaded.days[:-14]   # days of the past, not the last two weeks
    last = loaded.days[-1]

    def q(agent="", status="awaiting_review", de="", ate="") -> str:
        return f"?agente={agent}&situacao={status}&de={de}&ate={ate}"

    def month() -> str:
        start = rng.choice(days[:-31])
        return q(status="todas", de=start.isoformat(), ate=(start + timedelta(days=30)).isoformat())

    def day() -> str:
        d = rng.choice(days).isoformat()
        return q(status="todas", de=d, ate=d)

    return {
        "default (awaiting review)": lambda: "",
        "one agent (awaiting review)": lambda: q(rng.choice(agents)),
        "one agent, all statuses": lambda: q(rng.choice(agents), "todas"),
        "status: reviewed": lambda: q(status="reviewed"),
        "all statuses": lambda: q(status="todas"),
        "one day, all statuses": day,
        "one month, all statuses": month,
        "last 30 days (awaiting review)": lambda: q(
            de=(last - timedelta(days=30)).isoformat(), ate=last.isoformat()),
    }


def queue_figures(client: Client, loaded: Loaded, rounds: int, warmup: int, clients: int,
                  fragments: bool) -> None:
    """Every variant as page and fragment, and /healthz, shuffled, `clients` side by side."""
    rng = random.Random(8)
    routes: dict[str, tuple] = {"GET /healthz": ("/healthz", None, lambda: ""),
                                "GET /inicio (signed in)": ("/inicio", None, lambda: "")}
    for name, make in variants(loaded, rng).items():
        routes[f"page: {name}"] = ("/revisao", None, make)
        if fragments:
            routes[f"htmx: {name}"] = ("/revisao", HX, make)
    shown: dict[str, str] = {}
    for name, (path, headers, make) in routes.items():   # what each variant shows
        got = client.fetch("GET", path + make(), headers=headers)
        if got.status != 200:
            raise SystemExit(f"{name}: HTTP {got.status}: {got.text[:300]}")
        if path == "/revisao":
            rows = got.text.count('class="row-link"')
            shown[name.split(": ", 1)[1]] = f"{rows} rows" + (
                ", a next page" if "Seguintes" in got.text else "")
    lock = threading.Lock()
    times: dict[str, list[float]] = {name: [] for name in routes}
    local = threading.local()

    def one(job: tuple[str, bool]) -> None:
        name, measured = job
        if not hasattr(local, "client"):
            local.client = _twin(client)
        path, headers, make = routes[name]
        got = local.client.fetch("GET", path + make(), headers=headers)
        if got.status != 200:
            raise SystemExit(f"{name}: HTTP {got.status}")
        if measured:
            with lock:
                times[name].append(got.seconds)

    jobs = [(n, False) for n in routes for _ in range(warmup)]
    rng.shuffle(jobs)
    measured = [(n, True) for n in routes for _ in range(rounds)]
    rng.shuffle(measured)
    load = os.getloadavg()[0]
    with ThreadPoolExecutor(clients) as pool:
        list(pool.map(one, jobs))
        t0 = time.perf_counter()
        list(pool.map(one, measured))
        took = time.perf_counter() - t0
    med = {k: statistics.median(v) * 1000 for k, v in times.items()}
    base = med["GET /healthz"]
    print(f"\n1. Review queue, first page (GET /revisao as {SUPERVISOR}): {rounds} requests per "
          f"route after {warmup} warm-up, all routes shuffled, {clients} clients side by side "
          f"({len(measured) / took:,.0f} requests/s overall; load average {load:.2f} -> "
          f"{os.getloadavg()[0]:.2f})")
    print(f"   {'route':<44}{'median ms':>10}{'p90 ms':>9}{'ratio':>8}   shows")
    met = []
    for name, values in times.items():
        ratio = med[name] / base
        if routes[name][0] == "/revisao":
            met.append((ratio, name))
        print(f"   {name:<44}{med[name]:>10.2f}{pct(values, 90) * 1000:>9.2f}{ratio:>7.2f}x"
              f"   {shown.get(name.split(': ', 1)[-1], '')}")
    worst = max(met)
    first = med["page: default (awaiting review)"] / base
    print(f"   goal, the queue's first page as a supervisor opens it (default filter), at most "
          f"2x /healthz's median: {first:.2f}x -> {'met' if first <= 2 else 'NOT met'}")
    print(f"   every variant at most 2x: {'met' if worst[0] <= 2 else 'NOT met'} (worst "
          f"{worst[0]:.2f}x: {worst[1]}; a page is rendered anew for filters not asked since "
          f"the town's last recorded change, then reused)")


# ------------------------------------------------------------------ 2. PDFs
def pdf_in_process(url: str, notice_ids: list[int]) -> None:
    """The real content builder and renderer, one process, one notice after another."""
    from inspector import create_app
    from inspector.documents import issuing
    from inspector.documents.content import build_sheet
    from inspector.documents.drawing import authenticity_url, holder_url
    from inspector.documents.pdf import render
    from inspector.extensions import db
    from inspector.models import Notice

    app = create_app({"SQLALCHEMY_DATABASE_URI": url, "SECRET_KEY": SECRET, "TESTING": True,
                      "LOG_LEVEL": "WARNING"})
    with app.app_context():
        first = db.session.get(Notice, notice_ids[0])
        issuing.render_notice_pdf(first, "ABCDE-FGHJK")   # fonts, packs: once
        content, layout, sizes = [], [], []
        t_all = time.perf_counter()
        for nid in notice_ids:
            notice = db.session.get(Notice, nid)
            t0 = time.perf_counter()
            sheet = build_sheet(notice, url=authenticity_url(
                "tapurah", notice.number), access_code="ABCDE-FGHJK",
                holder_url=holder_url(notice.number))
            t1 = time.perf_counter()
            pdf = render(sheet)
            layout.append(time.perf_counter() - t1)
            content.append(t1 - t0)
            photos = sum(1 for s in sheet.sections for b in s.blocks
                         if type(b).__name__ == "PhotoEntry" and b.thumbnail)
            if not pdf.startswith(b"%PDF") or photos != 2:
                raise SystemExit(f"notice {notice.number}: not a PDF with two photos")
            sizes.append(len(pdf))
            db.session.expunge_all()
        total = time.perf_counter() - t_all
        db.engine.dispose()
    n = len(notice_ids)
    print(f"\n2. Notice PDFs ({n} decided notices, each with two evidence photos of ~320 KB, "
          f"the driver's signature and a QR code)")
    print(f"   one process, render_notice_pdf: {n / total:,.1f} PDFs/s "
          f"({total / n * 1000:,.0f} ms each: content {statistics.mean(content) * 1000:,.0f} ms "
          f"[queries, two thumbnails], layout {statistics.mean(layout) * 1000:,.0f} ms "
          f"[ReportLab]); mean size {statistics.mean(sizes) / KB:,.1f} KB "
          f"(min {min(sizes) / KB:,.1f}, max {max(sizes) / KB:,.1f})")


def pdf_over_http(client: Client, url: str, act_ids: list[int], side: int = 2) -> None:
    """Confirm proposed notices as the review page does, then download the stored PDFs."""
    from sqlalchemy import create_engine, text

    page = client.fetch("GET", "/revisao").text
    token = _TOKEN.search(page).group(1)
    headers = {**HX, "X-CSRFToken": token}
    local = threading.local()

    def confirm(act_id: int) -> float:
        if not hasattr(local, "client"):
            local.client = _twin(client)
        got = local.client.fetch("POST", f"/revisao/atos/{act_id}/confirmar", "comment=",
                                 headers=headers)
        if got.status != 200 or "Ato confirmado" not in got.text:
            raise SystemExit(f"confirm act {act_id}: HTTP {got.status}: {got.text[:300]}")
        return got.seconds

    t0 = time.perf_counter()
    with ThreadPoolExecutor(side) as pool:
        each = list(pool.map(confirm, act_ids))
    took = time.perf_counter() - t0
    engine = create_engine(url)
    with engine.connect() as conn:
        rows = conn.execute(text(
            "SELECT n.number, d.size FROM notices n JOIN notice_documents d ON d.notice_id = n.id"
            " WHERE n.sanction_id IN (" + ",".join(map(str, act_ids)) + ")")).all()
    engine.dispose()
    n = len(act_ids)
    print(f"   gunicorn, POST /revisao/atos/<id>/confirmar (htmx), {side} side by side: "
          f"{n / took:,.1f} notices issued/s ({n} in {took:,.1f} s; median "
          f"{statistics.median(each) * 1000:,.0f} ms per request: decision, access code "
          f"[Argon2], PDF made and stored, audit); {len(rows)} PDFs stored, mean "
          f"{statistics.mean(r.size for r in rows) / KB:,.1f} KB")

    def download(number: str) -> tuple[float, int]:
        if not hasattr(local, "client"):
            local.client = _twin(client)
        got = local.client.fetch("GET", f"/documentos/tapurah/{number}/pdf")
        if got.status != 200 or not got.data.startswith(b"%PDF"):
            raise SystemExit(f"PDF {number}: HTTP {got.status}")
        return got.seconds, len(got.data)

    numbers = [r.number for r in rows] * 3
    t0 = time.perf_counter()
    with ThreadPoolExecutor(side) as pool:
        got = list(pool.map(download, numbers))
    took = time.perf_counter() - t0
    print(f"   gunicorn, GET /documentos/tapurah/<number>/pdf (the stored bytes), {side} side "
          f"by side: {len(numbers) / took:,.1f} PDFs/s (median "
          f"{statistics.median(g[0] for g in got) * 1000:,.1f} ms, "
          f"{statistics.mean(g[1] for g in got) / KB:,.1f} KB each)")


# ------------------------------------------------------------------ main
def main() -> None:
    """Build, serve, measure, print."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    served_bench_args(ap, rounds=150, warmup=10)
    ap.add_argument("--pdfs", type=int, default=50, help="notices turned into PDFs")
    ap.add_argument("--no-fragments", action="store_true", help="full pages only")
    args = ap.parse_args()
    load = os.getloadavg()[0]
    with throwaway_database(args.database_url) as url:
        engine = url.split(":", 1)[0].split("+")[0]
        t0 = time.perf_counter()
        loaded = build(url, args.inspections, args.vehicles, args.pdfs)
        print(f"loaded Tapurah ({engine}) in {time.perf_counter() - t0:,.1f} s: "
              f"{args.vehicles:,} moto-taxis, {len(loaded.agents)} agents, "
              f"{loaded.inspections:,} inspections over {len(loaded.days)} days ("
              + ", ".join(f"{v:,} {k.replace('_', ' ')}" for k, v in loaded.by_status.items())
              + f"), {loaded.acts:,} acts, {loaded.notices:,} notices")
        print("   " + "; ".join(f"{k} {v:,.1f} s" for k, v in loaded.seconds.items()))
        with Server({"DATABASE_URL": url, "SECRET_KEY": SECRET, "LOG_LEVEL": "WARNING"},
                    workers=args.workers, extra_args=("--timeout", "300")) as server:
            client = Client(server.port)
            client.sign_in(SUPERVISOR, PASSWORD)
            queue_figures(client, loaded, args.rounds, args.warmup, args.clients,
                          not args.no_fragments)
            pdf_in_process(url, loaded.pdf_notices)
            pdf_over_http(client, url, loaded.pdf_acts)
    print(f"\nmachine: {machine()}; load average {load:.2f} at the start, "
          f"{os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
