"""`make run`: the app under gunicorn on 127.0.0.1, and the enforcement tick beside it.

gunicorn (a real WSGI server) runs with the settings of inspector/gunicorn_conf.py (one worker
process with threads, so rate limits count for the whole server; gunicorn's own refusals carry
the security headers); a small loop runs `flask enforcement tick` every 60 seconds (deadlines,
daily fines, appeal windows: docs/enforcement.md, "The tick")."""
from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time

# The venv's own bin/ (not realpath: that is the base interpreter's, without gunicorn).
BIN = os.path.dirname(os.path.abspath(sys.executable))


def tick_loop(every: float) -> None:
    """Run `flask --app inspector enforcement tick` now and then every `every` seconds."""
    flask = os.path.join(BIN, "flask")
    try:
        while True:
            started = time.monotonic()
            try:
                done = subprocess.run([flask, "--app", "inspector", "enforcement", "tick"],
                                      capture_output=True, text=True, timeout=max(every, 30))
                line = (done.stdout or done.stderr).strip().splitlines()
                print(f"[enforcement] {line[-1] if line else done.returncode}", flush=True)
            except subprocess.TimeoutExpired:
                print("[enforcement] tick took too long; trying again later", flush=True)
            time.sleep(max(1.0, every - (time.monotonic() - started)))
    except KeyboardInterrupt:
        pass


def child_env(port: int, environ) -> dict:
    """The environment of gunicorn and the tick loop: the QR codes the demo prints open this
    server (PUBLIC_BASE_URL), unless another address was given."""
    env = dict(environ)
    if not env.get("PUBLIC_BASE_URL", "").strip():
        env["PUBLIC_BASE_URL"] = f"http://127.0.0.1:{port}"
    return env


def gunicorn_command(gunicorn: str, port: int, workers: int | None = None) -> list[str]:
    """The gunicorn command line of `make run`: the settings of inspector/gunicorn_conf.py."""
    cmd = [gunicorn, "--config", "python:inspector.gunicorn_conf", "--bind", f"127.0.0.1:{port}",
           "--access-logfile", "-"]
    if workers is not None:
        cmd += ["--workers", str(workers)]
    return cmd + ["inspector:create_app()"]


def main() -> None:
    """Parse --port; run gunicorn (inspector/gunicorn_conf.py) and the tick loop until either
    stops."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", 5000)))
    parser.add_argument("--workers", type=int, default=None,
                        help="worker processes (default 1: more need a shared rate-limit "
                             "store, RATELIMIT_STORAGE_URI=redis://...)")
    parser.add_argument("--tick-every", type=float,
                        default=float(os.environ.get("TICK_EVERY", 60)),
                        help="seconds between enforcement ticks (0: no tick loop)")
    parser.add_argument("--tick-loop", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.tick_loop:
        tick_loop(args.tick_every)
        return
    gunicorn = os.path.join(BIN, "gunicorn")
    env = child_env(args.port, os.environ)
    server = subprocess.Popen(gunicorn_command(gunicorn, args.port, args.workers), env=env)
    ticker = None
    if args.tick_every > 0:
        ticker = subprocess.Popen([sys.executable, "-m", "inspector.devserver", "--tick-loop",
                                   "--tick-every", str(args.tick_every)], env=env)

    def stop(signum, _frame):
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, stop)
    code = 0
    try:
        code = server.wait()
    except (KeyboardInterrupt, SystemExit) as e:
        code = e.code if isinstance(e, SystemExit) and isinstance(e.code, int) else 130
    finally:
        for child in (server, ticker):
            if child is not None and child.poll() is None:
                child.terminate()
        for child in (server, ticker):
            if child is not None:
                try:
                    child.wait(10)
                except subprocess.TimeoutExpired:
                    child.kill()
    sys.exit(code)


if __name__ == "__main__":
    main()
