"""Typed errors that views turn into form errors or HTTP 4xx."""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class ValidationFailed(Exception):
    """One or more fields are wrong; each carries a reason a person understands."""

    errors: dict[str, str] = field(default_factory=dict)

    def __str__(self) -> str:
        return "; ".join(f"{k}: {v}" for k, v in self.errors.items())
