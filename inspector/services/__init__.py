"""Business operations: plain functions that take data and raise typed errors."""
