"""Rate limits kept in memory are counted per gunicorn worker and lost on restart: the app
says so once at start, unless it runs tests or debug, or a shared store is configured."""
from __future__ import annotations

import logging

from inspector import config, create_app
from tests.support.config import app_config

WARNING = "RATELIMIT_STORAGE_URI=memory://"


def _warnings(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records
            if r.levelno == logging.WARNING and WARNING in r.getMessage()]


def test_memory_storage_outside_tests_warns_once_at_start(schema, start_logs):
    create_app(app_config(schema) | {"TESTING": False, "DEBUG": False,
                                       "RATELIMIT_STORAGE_URI": "memory://"})
    found = _warnings(start_logs)
    assert len(found) == 1
    assert "memória deste processo" in found[0] and "redis://" in found[0]


def test_no_warning_in_tests_or_debug(schema, start_logs):
    create_app(app_config(schema) | {"RATELIMIT_STORAGE_URI": "memory://"})
    create_app(app_config(schema) | {"TESTING": False, "DEBUG": True,
                                       "RATELIMIT_STORAGE_URI": "memory://"})
    assert _warnings(start_logs) == []


def test_a_shared_store_needs_no_warning():
    for uri in ("redis://127.0.0.1:6379", "memcached://127.0.0.1:11211"):
        assert config.rate_limit_warning({"RATELIMIT_STORAGE_URI": uri}) is None
    assert config.rate_limit_warning({"RATELIMIT_STORAGE_URI": "memory://"})
