"""Every name a package's face lists in `__all__` is there: `from inspector.rules import X`
must not fail at the first request that reaches it (ruff does not follow `__all__ +=`)."""
from __future__ import annotations

import importlib
import pkgutil

import inspector


def test_every_name_in_a_faces_all_is_defined():
    missing = []
    for info in pkgutil.iter_modules(inspector.__path__):
        if not info.ispkg:
            continue
        face = importlib.import_module(f"inspector.{info.name}")
        for name in getattr(face, "__all__", ()):
            if not hasattr(face, name):
                missing.append(f"inspector.{info.name}.{name}")
    assert missing == []
