"""The real servers a test starts (gunicorn, nginx, redis-server): a free port on loopback,
waiting until one listens, and stopping each in a process group of its own
(`start_new_session=True`), so its workers go with it."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import time


def stop(*procs: subprocess.Popen, grace: float = 20, sig: int = signal.SIGTERM) -> None:
    """Send `sig` to each group, then wait for each; a group still there after `grace` seconds
    is killed."""
    for proc in procs:
        if proc.poll() is None:
            os.killpg(proc.pid, sig)
    for proc in procs:
        try:
            proc.wait(grace)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(5)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port: int, proc: subprocess.Popen, what: str, seconds: float = 60) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise AssertionError(f"{what} stopped with {proc.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"{what} did not listen on {port}")


def stop_gunicorn(proc: subprocess.Popen) -> None:
    """gunicorn's quick shutdown (SIGQUIT), for the tests that do not check the graceful one:
    SIGTERM's waits on the worker's poll and the arbiter's sleep, 1.7 s after every test."""
    stop(proc, sig=signal.SIGQUIT)
