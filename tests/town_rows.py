"""Moved to tests/support/town_rows.py; this name stays only while work in progress imports it."""
from tests.support.town_rows import *  # noqa: F403
