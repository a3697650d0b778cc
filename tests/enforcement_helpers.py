"""Moved to tests/support/enforcement.py; this name stays only while work in progress imports it."""
from tests.support.enforcement import *  # noqa: F403
