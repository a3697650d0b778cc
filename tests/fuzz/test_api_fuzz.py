"""Schemathesis, a fuzzer nobody here wrote, against the running server.

The real app behind a real threaded WSGI server on loopback, a Tapurah agent signed in (the
session cookie and the CSRF token given the way a deployment's run gives them:
`[auth.openapi.session]` and `[auth.openapi.csrf]` in a schemathesis.toml), every operation of
/api/openapi.json, the examples, coverage (boundaries and wrong types) and fuzzing phases,
with every check Schemathesis has (server errors, response schemas, statuses, content types
and headers, a schema-valid request accepted and an invalid one rejected, the authentication
ignored or not, undeclared methods answered 405 with `Allow`, ...), but the few listed in
`LEFT_OUT` with the reason the schema cannot express what the server checks. Any failure
fails the build. Afterwards the audit chain and the evidence still verify.

Bounded: `MAX_EXAMPLES` cases per operation and phase, generation stops at `MAX_TIME` and
the run is killed at `BUDGET` seconds. `tests/fuzz/hooks.py` gives some inspection bodies the
town's vehicle and moments inside the window, so that the storing code is fuzzed too.
"""
from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

from sqlalchemy import func, select

from inspector.extensions import db
from inspector.models import Inspection
from tests import factories
from tests.support.field_api import LiveClient

ROOT = Path(__file__).resolve().parents[2]
MAX_EXAMPLES = 30
MAX_TIME = 90  # seconds of generating: fuzzing repeats until they are spent, then stops
BUDGET = 150   # the run is killed after this many: the file stays under 3 minutes
# a new seed each run (the fuzzer keeps looking), printed with the figures to replay a failure
SEED = int(os.environ.get("FUZZ_SEED") or random.randrange(1, 2**31))
# Checks not run on an operation, and why: what the server refuses there depends on something
# a JSON Schema cannot say, so a request valid by the schema may rightly be refused (422).
# Everything else runs everywhere (no --checks list: Schemathesis runs all its checks).
LEFT_OUT = {
    ("PUT /api/field/inspections/{inspection_id}", "positive_data_acceptance"):
        "the end after the start, item ids of the checklist in force that day, a vehicle of the "
        "town, each photo's SHA-256 declared once: relations between fields and with the "
        "registry, not shapes",
    ("PUT /api/field/inspections/{inspection_id}/photos/{photo_id}", "positive_data_acceptance"):
        "X-Content-SHA256 must be the SHA-256 of the body, the photo must have been declared by "
        "its inspection, and the bytes must be an image of the declared type",
    ("POST /api/push/subscriptions", "positive_data_acceptance"):
        "p256dh must be a point on the P-256 curve, and the endpoint's name must not resolve to "
        "an internal address when it is saved (docs/security.md)",
}


def _schemathesis() -> str:
    here = Path(sys.executable).parent / "schemathesis"
    return str(here) if here.exists() else (shutil.which("schemathesis") or "schemathesis")


def _world():
    """A Tapurah moto-taxi with its licence, insurance and driver, and the agent."""
    vehicle = factories.vehicle("tapurah", "mototaxi")
    driver = factories.driver("tapurah", "mototaxista", holder=vehicle.holder)
    driver.vehicles.append(vehicle)
    factories.licence(vehicle)
    factories.insurance(vehicle)
    return factories.user("agent", "tapurah", badge_number="AG-99")


def _config(path: Path, session: str, csrf: str) -> None:
    """The auth a deployment's run gives the same way (docs/api.md), and
    the checks left out (LEFT_OUT)."""
    text = (f'[auth.openapi.session]\napi_key = "{session}"\n\n'
            f'[auth.openapi.csrf]\napi_key = "{csrf}"\n')
    for (operation, check), _why in LEFT_OUT.items():
        text += (f'\n[[operations]]\ninclude-name = "{operation}"\n'
                 f"checks.{check}.enabled = false\n")
    path.write_text(text, encoding="utf-8")


def _figures(report: dict, stored: int) -> str:
    """One line for the log and docs/api.md: operations, cases tried, failures, errors."""
    ops, cases = report["operations"], report["test_cases"]
    failures = sum(f.get("count", 1) for f in report.get("failures", []))
    errors = sum(e.get("count", 1) for e in report.get("errors", []))
    return (f"schemathesis {report['schemathesis_version']}: {ops['tested']} of {ops['total']} "
            f"operations, {cases['generated']} cases tried, {failures} failures, {errors} "
            f"errors, {stored} inspections stored, {report['running_time']:.0f} s, "
            f"seed {report.get('seed')} (FUZZ_SEED=... to replay)")


def _statuses(log: Path) -> str:
    """How the server answered, per operation: "PUT /api/...: 201 x2, 422 x80"."""
    if not log.exists():
        return "(no statuses noted)"
    seen: dict[str, Counter] = {}
    for line in log.read_text(encoding="utf-8").splitlines():
        method, path, status = line.split(" ")
        seen.setdefault(f"{method} {path}", Counter())[status] += 1
    return "\n".join(f"  {op}: " + ", ".join(f"{s} x{n}" for s, n in sorted(c.items()))
                     for op, c in sorted(seen.items()))


def test_the_api_holds_against_schemathesis(app, make, live_server, tmp_path, capsys):
    app.config.update(HOLDER_PAGE_RATE_LIMIT="100000 per minute",
                      HOLDER_CODE_RATE_LIMIT="100000 per minute")
    agent = make(_world)
    phone = LiveClient(live_server.url, agent.username)
    snapshot = json.loads(phone.request("GET", "/api/field/snapshot")[2])
    vehicle_id = snapshot["vehicles"][0]["id"]
    items = [i["id"] for c in snapshot["checklists"] if c["service"] == "mototaxi"
             for i in c["items"]]
    config = tmp_path / "schemathesis.toml"
    _config(config, phone.cookie.split("=", 1)[1], phone.csrf)
    report = tmp_path / "report.json"
    env = dict(os.environ, SCHEMATHESIS_HOOKS="tests.fuzz.hooks", FUZZ_VEHICLE_ID=str(vehicle_id),
               FUZZ_ITEM_IDS=",".join(items), PYTHONPATH=str(ROOT),
               FUZZ_STATUS_LOG=str(tmp_path / "statuses.txt"))
    cmd = [_schemathesis(), "--config-file", str(config), "run",
           f"{live_server.url}/api/openapi.json",
           "--phases", "examples,coverage,fuzzing", "--max-examples", str(MAX_EXAMPLES),
           "--max-time", str(MAX_TIME),
           "--workers", "1", "--seed", str(SEED), "--request-timeout", "20",
           "--report", "json", "--report-json-path", str(report), "--no-color"]
    run = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=BUDGET)
    out = run.stdout + run.stderr
    (tmp_path / "schemathesis.txt").write_text(out, encoding="utf-8")
    assert report.exists(), out[-3000:]
    result = json.loads(report.read_text())
    with app.app_context():
        stored = db.session.scalar(select(func.count()).select_from(Inspection))
    with capsys.disabled():
        print("\n" + _figures(result, stored))
        print(_statuses(tmp_path / "statuses.txt"))
    assert run.returncode == 0, out[out.find("FAILURES"):][:12000]
    assert result["operations"]["tested"] == result["operations"]["total"]
    # the audit chain and the evidence hold after everything the fuzzer sent
    runner = app.test_cli_runner()
    audit = runner.invoke(args=["audit", "verify", "--json"])
    assert audit.exit_code == 0 and json.loads(audit.output)["ok"], audit.output
    evidence = runner.invoke(args=["evidence", "verify", "--json"])
    assert evidence.exit_code == 0 and json.loads(evidence.output)["ok"], evidence.output
