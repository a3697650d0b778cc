"""The five laws as data: law texts, rule packs, a strict loader and a pure engine.

Imports no Flask and no SQLAlchemy. See docs/rule-packs.md.
"""
from .results import Citation, Violation

__all__ = ["Citation", "Violation"]
