"""Demonstration data for the four towns (make run)."""

# The names other areas use. Modules of this area import each other's modules, never
# this face: that keeps the import order free of circles.
from inspector.config import DEMO_PASSWORD
from inspector.demo.seed import seed_towns

__all__ = [
    "DEMO_PASSWORD", "seed_towns"
]
