"""Moved to tests/support/field_api.py; this name stays only while work in progress imports it."""
from tests.support.field_api import *  # noqa: F403
