"""Benchmark: `GET /sw.js` (the service worker with its version and precache list written in)
with the Flask test client, against `GET /manifest.webmanifest` (a trivial public route) in
the same run. Prints the medians of N requests each (after a few warm-up requests). No
database is touched; nothing is written.

    .venv/bin/python bench/sw_version.py [--requests 200]
"""
from __future__ import annotations

import argparse
import logging
import sys
import tempfile
import time
from pathlib import Path
from statistics import median

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def timed(client, path: str, n: int) -> list[float]:
    """Milliseconds of `n` GETs of `path` (each must answer 200)."""
    out = []
    for _ in range(n):
        start = time.perf_counter()
        response = client.get(path)
        out.append((time.perf_counter() - start) * 1000)
        assert response.status_code == 200, (path, response.status_code)
    return out


def main() -> None:
    """Print the medians."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200)
    args = parser.parse_args()
    from inspector import create_app

    logging.disable(logging.INFO)  # the per-request log line is not what is measured

    with tempfile.TemporaryDirectory() as tmp:
        app = create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp}/b.db",
                          "EVIDENCE_DIR": f"{tmp}/evidence", "RATELIMIT_ENABLED": False})
        client = app.test_client()
        timed(client, "/sw.js", 5)
        timed(client, "/manifest.webmanifest", 5)
        sw = timed(client, "/sw.js", args.requests)
        trivial = timed(client, "/manifest.webmanifest", args.requests)
    print(f"/sw.js                 median {median(sw):.3f} ms  (n={args.requests})")
    print(f"/manifest.webmanifest  median {median(trivial):.3f} ms  (n={args.requests})")
    print(f"ratio sw / manifest    {median(sw) / median(trivial):.2f}")


if __name__ == "__main__":
    main()
