"""Moved to tests/support/push.py; this name stays only while work in progress imports it."""
from tests.support.push import *  # noqa: F403
