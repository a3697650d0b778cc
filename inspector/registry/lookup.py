"""Find a town's registry rows by their natural keys, remembering every answer.

The services ask a `Lookup` for "the holder with this CPF", "the vehicle with this
plate". One lookup per call costs one query; the CSV import primes a single lookup
with every key of the file in a few bulk queries, so 500 rows do not cost 5,000.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import selectinload

from inspector.extensions import db
from inspector.models import Driver, Holder, Licence, Permit, Stand, Vehicle

# The natural keys of each model: unique within a town.
KEYS: dict[type, tuple[str, ...]] = {
    Holder: ("tax_id",), Stand: ("code",), Vehicle: ("plate",), Permit: ("number",),
    Licence: ("number",), Driver: ("cpf", "registration_number"),
}

# Collections the services read while saving; loaded in bulk when priming.
_PRIME_OPTIONS = {
    Vehicle: (selectinload(Vehicle.drivers), selectinload(Vehicle.insurance_policies)),
    Driver: (selectinload(Driver.vehicles),),
}

_CHUNK = 500


class Lookup:
    """A town's rows by natural key; answers (including 'not there') are cached."""

    def __init__(self, town_id: int, *, batch: bool = False):
        self.town_id = town_id
        self._rows: dict[tuple[str, str, str], Any] = {}
        # In a batch, saves wait for registry.settle() to flush and audit (see _write).
        self.pending: dict[int, tuple] | None = {} if batch else None

    def get(self, model: type, attr: str, key: str) -> Any:
        """The row of this town whose `attr` equals `key`, or None."""
        slot = (model.__name__, attr, key)
        if slot not in self._rows:
            self._rows[slot] = db.session.scalar(
                select(model).where(model.municipality_id == self.town_id,
                                    getattr(model, attr) == key))
        return self._rows[slot]

    def prime(self, model: type, attr: str, keys: Iterable[str]) -> None:
        """Load every row with one of these keys in a few queries."""
        wanted = sorted({k for k in keys if k} - {s[2] for s in self._rows
                                                  if s[:2] == (model.__name__, attr)})
        column = getattr(model, attr)
        for start in range(0, len(wanted), _CHUNK):
            chunk = wanted[start:start + _CHUNK]
            for key in chunk:
                self._rows[(model.__name__, attr, key)] = None
            query = select(model).where(model.municipality_id == self.town_id,
                                        column.in_(chunk)).options(*_PRIME_OPTIONS.get(model, ()))
            for row in db.session.scalars(query):
                self._rows[(model.__name__, attr, getattr(row, attr))] = row

    def keys_of(self, row: Any) -> dict[str, Any]:
        """The current natural-key values of a row."""
        return {attr: getattr(row, attr) for attr in KEYS.get(type(row), ())}

    def moved(self, row: Any, old_keys: dict[str, Any]) -> None:
        """Note that a row was created or its keys changed."""
        name = type(row).__name__
        for attr, old in old_keys.items():
            if old is not None and self._rows.get((name, attr, old)) is row:
                self._rows[(name, attr, old)] = None
        for attr, new in self.keys_of(row).items():
            self._rows[(name, attr, new)] = row
