"""`make run`: serve the app with gunicorn (a real WSGI server) on 127.0.0.1."""
from __future__ import annotations

import argparse
import os


def main() -> None:
    """Parse --port and exec gunicorn with two workers."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", 5000)))
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    # The venv's own bin/ (not realpath: that is the base interpreter's, without gunicorn).
    gunicorn = os.path.join(os.path.dirname(os.path.abspath(os.sys.executable)), "gunicorn")
    os.execv(gunicorn, [gunicorn, "--workers", str(args.workers), "--bind",
                        f"127.0.0.1:{args.port}", "--access-logfile", "-",
                        "inspector:create_app()"])


if __name__ == "__main__":
    main()
