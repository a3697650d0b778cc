"""Rendered HTML reused while the rows behind it are unchanged.

A page whose content depends only on a few arguments and on data that every change records
(the town's audit sequence number, or a fingerprint of the rows read) can be rendered once
per version and served from memory until the version moves. Each process keeps its own
least-recently-used map, bounded in entries (`<NAME>_SIZE`, 0 turns reuse off) and in age
(`<NAME>_SECONDS`: rebuilt at least this often, for anything the version does not cover).
"""
from __future__ import annotations

import threading
import time
from collections import OrderedDict
from typing import Callable, Hashable

from flask import current_app

_lock = threading.Lock()


def _settings(name: str, size: int, seconds: float) -> tuple[OrderedDict, int, float]:
    store = current_app.extensions.setdefault(f"render_cache:{name}", OrderedDict())
    upper = name.upper()
    return (store, int(current_app.config.get(f"{upper}_SIZE", size)),
            float(current_app.config.get(f"{upper}_SECONDS", seconds)))


def reuse(name: str, key: Hashable, build: Callable[[], str], *, size: int = 512,
          seconds: float = 60.0) -> str:
    """The value stored under `key` if younger than the limit; else `build()`, stored."""
    store, limit, ttl = _settings(name, size, seconds)
    if limit > 0:
        with _lock:
            hit = store.get(key)
            if hit is not None and time.monotonic() - hit[0] < ttl:
                store.move_to_end(key)
                return hit[1]
    value = build()
    if limit > 0:
        with _lock:
            store[key] = (time.monotonic(), value)
            store.move_to_end(key)
            while len(store) > limit:
                store.popitem(last=False)
    return value
