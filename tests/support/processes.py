"""Stopping the real servers a test started (gunicorn, nginx, redis-server), each in a process
group of its own (`start_new_session=True`), so its workers go with it."""
from __future__ import annotations

import os
import signal
import subprocess


def stop(*procs: subprocess.Popen, grace: float = 20) -> None:
    """SIGTERM each group, then wait for each; a group still there after `grace` seconds is
    killed."""
    for proc in procs:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
    for proc in procs:
        try:
            proc.wait(grace)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(5)
