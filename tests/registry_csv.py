"""Moved to tests/support/registry_csv.py; this name stays only while work in progress imports it."""
from tests.support.registry_csv import *  # noqa: F403
