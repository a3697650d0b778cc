"""Rendered HTML reused while the rows behind it are unchanged.

A page (or the view behind it) whose content depends only on a few arguments and on data that
every change records
(the town's audit sequence number, or a fingerprint of the rows read) can be rendered once
per version and served from memory until the version moves. Each process keeps its own
least-recently-used map, bounded in entries (`<NAME>_SIZE`, 0 turns reuse off) and in age
(`<NAME>_SECONDS`: rebuilt at least this often, for anything the version does not cover).
"""
from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import TypeVar

from flask import current_app

_lock = threading.Lock()
T = TypeVar("T")


def _settings(name: str, settings: str | None, size: int,
              seconds: float) -> tuple[OrderedDict, int, float]:
    store = current_app.extensions.setdefault(f"render_cache:{name}", OrderedDict())
    prefix = settings or name.upper()
    return (store, int(current_app.config.get(f"{prefix}_SIZE", size)),
            float(current_app.config.get(f"{prefix}_SECONDS", seconds)))


def reuse(name: str, key: Hashable, build: Callable[[], T], *, settings: str | None = None,
          size: int = 512, seconds: float = 60.0) -> T:
    """The value stored under `key` if younger than the limit; else `build()`, stored.
    `settings` names the config prefix when several maps share one (default: NAME)."""
    store, limit, ttl = _settings(name, settings, size, seconds)
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
