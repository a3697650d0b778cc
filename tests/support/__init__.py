"""Plain helpers the tests share: builders, clients, readers. No tests and no fixtures here
(fixtures live in the conftest.py of the folder whose tests use them)."""
