"""Requests that get no HTTP answer on a reused keep-alive connection (bench/load.py's lost
request at 200 users, docs/figures.md): gunicorn's gthread worker closes a connection idle for
`keepalive` seconds, and a client that sends its next request on it at that moment gets the
connection closed without an answer ("Remote end closed connection without response") or reset.

Many clients, each holding one connection, idle between requests for a random time around the
keep-alive, reusing the connection as urllib3 does (requests, Locust): a connection the server
has visibly closed is replaced before use; otherwise the request goes out on it. Run once with
gunicorn's default keep-alive (2 s, what the server had) and once with
inspector/gunicorn_conf.py's, on the same clients: the figure is the requests with no answer.

    .venv/bin/python bench/keepalive.py [--clients 100] [--duration 60] [--idle 1,4]
                                        [--keepalive 2,conf] [--busy 0]

--busy N runs N processes that only burn CPU meanwhile (the load run's starved machine).
"""
from __future__ import annotations

import argparse
import http.client
import multiprocessing
import os
import random
import select
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import Server, machine  # noqa: E402

from inspector import gunicorn_conf  # noqa: E402


def dropped(sock) -> bool:
    """urllib3's check before reusing a pooled connection: readable while idle means the peer
    closed it (or sent something unasked)."""
    return bool(select.select([sock], [], [], 0)[0])


class Tally:
    def __init__(self):
        self.lock = threading.Lock()
        self.counts: Counter = Counter()
        self.lost_idle: list[float] = []  # the idle time before each request with no answer

    def add(self, key: str, idle: float | None = None) -> None:
        with self.lock:
            self.counts[key] += 1
            if idle is not None:
                self.lost_idle.append(idle)


def client(port: int, until: float, idle: tuple[float, float], tally: Tally) -> None:
    conn, rest = None, 0.0
    while time.monotonic() < until:
        if conn is not None and dropped(conn.sock):
            conn.close()
            conn = None
            tally.add("closed by the server while idle, seen before reuse")
        reused = conn is not None
        if conn is None:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=15)
        try:
            conn.request("GET", "/healthz")
            r = conn.getresponse()
            r.read()
            tally.add("answered" + (" on a reused connection" if reused else ""))
            if r.status != 200:
                tally.add(f"HTTP {r.status}")
            if r.will_close:
                conn.close()
                conn = None
        except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError,
                TimeoutError) as e:
            tally.add(f"NO ANSWER ({type(e).__name__}{', reused' if reused else ''})", rest)
            conn.close()
            conn = None
        rest = random.uniform(*idle)
        time.sleep(rest)
    if conn is not None:
        conn.close()


def burn(until: float) -> None:
    while time.time() < until:
        pass


def run(keepalive: str, clients: int, duration: float, idle: tuple[float, float],
        busy: int, work: Path) -> Tally:
    extra = ["--config", "python:inspector.gunicorn_conf"]
    if keepalive != "conf":
        extra += ["--keep-alive", keepalive]
    env = {"DATABASE_URL": f"sqlite:///{work / 'bench.sqlite3'}", "LOG_LEVEL": "WARNING",
           "INSPECTOR_INSTANCE_DIR": str(work), "EVIDENCE_DIR": str(work / "evidence"),
           "SECRET_KEY": "keepalive-bench-" + "k" * 32}
    tally = Tally()
    with Server(env, workers=1, extra_args=tuple(extra)) as server:
        until = time.monotonic() + duration
        burners = [multiprocessing.Process(target=burn, args=(time.time() + duration,))
                   for _ in range(busy)]
        for p in burners:
            p.start()
        threads = [threading.Thread(target=client, args=(server.port, until, idle, tally))
                   for _ in range(clients)]
        for t in threads:
            t.start()
            time.sleep(idle[1] / clients)  # clients spread over the idle range, not in step
        for t in threads:
            t.join()
        for p in burners:
            p.join()
    return tally


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clients", type=int, default=100)
    ap.add_argument("--duration", type=float, default=60)
    ap.add_argument("--idle", default="1,4", help="LO,HI: seconds between a client's requests "
                    "(uniform), around the keep-alive being shown")
    ap.add_argument("--keepalive", default="2,conf", help="gunicorn keep-alive values to run, "
                    "'conf' for inspector/gunicorn_conf.py's")
    ap.add_argument("--busy", type=int, default=0, help="CPU-burning processes meanwhile")
    args = ap.parse_args()
    idle = tuple(float(x) for x in args.idle.split(","))
    print(f"{args.clients} clients x {args.duration:.0f} s, idle {idle[0]}-{idle[1]} s between "
          f"requests (GET /healthz), {args.busy} CPU burners; {machine()}, load average "
          f"{os.getloadavg()[0]:.2f}")
    for value in args.keepalive.split(","):
        with tempfile.TemporaryDirectory(prefix="inspector-keepalive-") as work:
            tally = run(value, args.clients, args.duration, idle, args.busy, Path(work))
        shown = f"{gunicorn_conf.keepalive} s (gunicorn_conf)" if value == "conf" else f"{value} s"
        lost = sum(n for k, n in tally.counts.items() if k.startswith("NO ANSWER"))
        total = sum(n for k, n in tally.counts.items() if k.startswith(("answered", "NO ")))
        print(f"\nkeep-alive {shown}: {total:,} requests, {lost} with no HTTP answer")
        for key, n in sorted(tally.counts.items()):
            print(f"  {n:7,}  {key}")
        if tally.lost_idle:
            print("  idle before each lost request (s): "
                  + ", ".join(f"{s:.2f}" for s in sorted(tally.lost_idle)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
