"""Moved to tests/support/credentials.py; this name stays only while work in progress imports it."""
from tests.support.credentials import *  # noqa: F403
