"""Load the passenger page `/v/<token>` under wrk and compare it with `/healthz`.

Starts gunicorn as `make run` does (inspector/gunicorn_conf.py: one worker process, 8 threads;
`--sync-workers 2` for the former two sync workers) on a free loopback port against a throwaway SQLite
database with the demo data and credentials for one town, rate limits off, then runs
wrk for a bounded time against, in one run:

  /healthz (trivial route) · /v/<valid> (one code) · /v/<each active code in turn> ·
  /v/<altered> · /v/<revoked>

several rounds in a row, and prints requests/s and p99 latency of each and their ratios
to the trivial route measured in the same round (median over rounds, so a neighbour's
load on a shared machine skews one round, not the figure). Goal: the valid page at >= 0.5
of /healthz's throughput;
altered and revoked codes should cost about as much as valid ones.

    python bench/verify.py [--seconds 4] [--rounds 3] [--connections 16] [--no-reuse]
                           [--sync-workers N]
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request
from pathlib import Path
from statistics import median

from _common import BIN, ROOT, Server


def flask(env: dict, *args: str) -> str:
    """Run a `flask --app inspector` command; its stdout."""
    out = subprocess.run([str(BIN / "flask"), "--app", "inspector", *args], env=env, cwd=ROOT,
                         capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"flask {' '.join(args)} failed: {out.stderr.strip()[-500:]}")
    return out.stdout


def fetch(url: str) -> tuple[int, str]:
    """GET a URL: status and body, errors included."""
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def banner(html: str) -> str:
    """The banner's words on a passenger page."""
    m = re.search(r"<h1>([^<]+)</h1>", html)
    return m.group(1) if m else "?"


def _ms(value: str) -> float:
    m = re.match(r"([\d.]+)(us|ms|s)", value)
    n, unit = float(m.group(1)), m.group(2)
    return n / 1000 if unit == "us" else n * 1000 if unit == "s" else n


def rotation_script(paths: list[str], folder: Path) -> Path:
    """A wrk Lua script that requests the paths in turn (each connection its own cycle)."""
    script = folder / "rotate.lua"
    items = ",".join(f'"{p}"' for p in paths)
    script.write_text(f"local paths = {{{items}}}\nlocal i = math.random(#paths)\n"
                      "request = function()\n  i = i % #paths + 1\n"
                      "  return wrk.format('GET', paths[i])\nend\n")
    return script


def run_wrk(url: str, seconds: int, connections: int, script: Path | None = None) -> dict:
    """One bounded wrk run: requests/s, p50 and p99 latency (ms), non-2xx count."""
    cmd = ["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", "--latency", "--timeout", "5s"]
    if script is not None:
        cmd += ["-s", str(script)]
    out = subprocess.run(cmd + [url], capture_output=True, text=True, check=True)
    text = out.stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
    p50 = _ms(re.search(r"^\s+50%\s+(\S+)", text, re.M).group(1))
    p99 = _ms(re.search(r"^\s+99%\s+(\S+)", text, re.M).group(1))
    bad = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", text)
    errors = re.search(r"Socket errors:.*", text)
    return {"rps": rps, "p50_ms": p50, "p99_ms": p99, "non_2xx": int(bad.group(1)) if bad else 0,
            "socket_errors": errors.group(0) if errors else ""}


def prepare(env: dict, town: str) -> tuple[str, str]:
    """Schema, demo data, credentials; returns (a token of a REGULAR vehicle, a revoked one)."""
    flask(env, "db", "upgrade")
    flask(env, "demo", "seed")
    flask(env, "credentials", "issue", "--town", town, "--kind", "vehicle")
    listing = json.loads(flask(env, "credentials", "list", "--town", town, "--kind",
                               "vehicle", "--json"))["credentials"]
    tokens = [c["url"].rsplit("/", 1)[1] for c in listing]
    revoked = listing[-1]
    flask(env, "credentials", "revoke", str(revoked["id"]), "--reason", "bench: revogada")
    return tokens[:-1], revoked["url"].rsplit("/", 1)[1]


def main() -> None:
    """Prepare, serve, load, report."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=int, default=4, help="length of each wrk run")
    ap.add_argument("--rounds", type=int, default=3, help="times the whole plan is run")
    ap.add_argument("--connections", type=int, default=16)
    ap.add_argument("--town", default="tapurah")
    ap.add_argument("--sync-workers", type=int, default=0,
                    help="N sync worker processes instead of make run's settings (comparison)")
    ap.add_argument("--no-reuse", action="store_true",
                    help="VERIFY_CACHE_SIZE=0: build every page from the ORM and the engine")
    args = ap.parse_args()
    if not shutil.which("wrk"):
        sys.exit("wrk is missing: `make bench` installs it (apt-get install wrk)")

    tmp = Path(tempfile.mkdtemp(prefix="bench-verify-"))
    env = dict(os.environ, DATABASE_URL=f"sqlite:///{tmp / 'bench.sqlite3'}",
               SECRET_KEY="bench-secret-not-for-production", LOG_LEVEL="WARNING")
    print(f"preparing a throwaway database in {tmp} (demo data, credentials of {args.town})")
    tokens, revoked = prepare(env, args.town)

    how = (("--config", "python:inspector.gunicorn_conf") if not args.sync_workers
           else ("--worker-class", "sync"))
    server = Server(env, workers=args.sync_workers or 1, extra_args=how,
                    config={"RATELIMIT_ENABLED": False,
                            "VERIFY_CACHE_SIZE": 0 if args.no_reuse else 4096})
    base = server.base
    try:
        valid = next((t for t in tokens if banner(fetch(f"{base}/v/{t}")[1]) == "REGULAR"), None)
        if valid is None:
            sys.exit("no REGULAR vehicle among the demo credentials")
        altered = valid[:60] + ("B" if valid[60] == "A" else "A") + valid[61:]
        for label, t, want in (("valid", valid, "REGULAR"), ("altered", altered,
                                                            "NÃO RECONHECIDA"),
                               ("revoked", revoked, "CREDENCIAL CANCELADA")):
            got = banner(fetch(f"{base}/v/{t}")[1])
            assert got == want, f"{label}: expected {want}, got {got}"
        size = len(fetch(f"{base}/v/{valid}")[1].encode())
        css = len(fetch(f"{base}/static/css/verify.css")[1].encode())

        rotate = rotation_script([f"/v/{t}" for t in tokens], tmp)
        fleet_label = f"/v/<{len(tokens)} active>"
        plan = [("/healthz", "/healthz", None), ("/v/<valid>", f"/v/{valid}", None),
                (fleet_label, "/", rotate), ("/v/<altered>", f"/v/{altered}", None),
                ("/v/<revoked>", f"/v/{revoked}", None)]
        rounds = []  # the whole plan, several times: neighbours in time are compared
        for _ in range(args.rounds):
            rounds.append({label: run_wrk(base + path, args.seconds, args.connections, script)
                           for label, path, script in plan})
    finally:
        server.stop()
        shutil.rmtree(tmp, ignore_errors=True)

    served = (f"{args.sync_workers} sync workers" if args.sync_workers
              else "make run's settings (1 worker, 8 threads)")
    print(f"\ngunicorn {served}, wrk -t2 -c{args.connections} -d{args.seconds}s per run, "
          f"{args.rounds} rounds, loopback, SQLite, rate limits off, view reuse "
          f"{'off' if args.no_reuse else 'on'}; page {size} B + CSS {css} B")
    print("ratios: median over rounds of (route / /healthz of the same round)")
    print(f"{'route':<18}{'req/s':>10}{'p50 ms':>9}{'p99 ms':>9}{'rps ratio':>11}"
          f"{'p99 ratio':>11}{'non-2xx':>9}")
    summary = {}
    for label, *_ in plan:
        runs = [r[label] for r in rounds]
        summary[label] = {
            "rps": median(x["rps"] for x in runs), "p50": median(x["p50_ms"] for x in runs),
            "p99": median(x["p99_ms"] for x in runs),
            "rps_ratio": median(r[label]["rps"] / r["/healthz"]["rps"] for r in rounds),
            "p99_ratio": median(r[label]["p99_ms"] / r["/healthz"]["p99_ms"] for r in rounds),
            "non_2xx": sum(x["non_2xx"] for x in runs)}
        m = summary[label]
        print(f"{label:<18}{m['rps']:>10.0f}{m['p50']:>9.2f}{m['p99']:>9.2f}"
              f"{m['rps_ratio']:>11.2f}{m['p99_ratio']:>11.2f}{m['non_2xx']:>9}")
    ratio, fleet = summary["/v/<valid>"]["rps_ratio"], summary[fleet_label]["rps_ratio"]
    print(f"\nverification page throughput = {ratio:.2f} x /healthz (one code), {fleet:.2f} x "
          f"(the town's {len(tokens)} codes in turn); goal >= 0.5: "
          f"{'met' if min(ratio, fleet) >= 0.5 else 'NOT met'}")
    same = [summary[k]["p50"] / summary["/v/<valid>"]["p50"]
            for k in ("/v/<altered>", "/v/<revoked>")]
    print(f"median latency of altered / revoked codes vs valid: {same[0]:.2f} / {same[1]:.2f}")
    if summary["/v/<valid>"]["non_2xx"] or summary[fleet_label]["non_2xx"]:
        sys.exit("the valid page answered non-2xx under load")


if __name__ == "__main__":
    main()
