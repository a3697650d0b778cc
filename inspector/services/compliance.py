"""Registry rows -> the rules engine: a vehicle's standing and a town's compliance.

Public interface (stable; the QR/passenger page and the compliance page rely on it):
- `vehicle_standing(vehicle, on) -> Standing`
- `town_compliance(municipality, on) -> TownCompliance`
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from ..models import Status, Vehicle
from ..rules.results import Citation, Violation

__all__ = ["Standing", "Violation", "Citation", "vehicle_standing"]


@dataclass(frozen=True)
class Standing:
    """Is this vehicle licensed right now? `status` is regular | irregular | suspended.

    `reasons` are the violations that make it irregular or suspended (each with rule_id,
    message in plain pt-BR, citation with law, article, anchor, law_slug and quote);
    `warnings` are things due soon that do not (yet) change the status.
    """

    status: str
    reasons: list[Violation] = field(default_factory=list)
    warnings: list[Violation] = field(default_factory=list)
    on: date | None = None

    @property
    def is_regular(self) -> bool:
        """True when nothing stops this vehicle from carrying passengers."""
        return self.status == "regular"

    def as_dict(self) -> dict:
        """JSON-ready form."""
        return {"status": self.status, "on": self.on.isoformat() if self.on else None,
                "reasons": [r.as_dict() for r in self.reasons],
                "warnings": [w.as_dict() for w in self.warnings]}


def vehicle_standing(vehicle: Vehicle, on: date) -> Standing:
    """The standing of one vehicle on a day, with the reasons and their citations."""
    # Provisional body (registry statuses only); replaced by the rules engine.
    reasons: list[Violation] = []
    lic = vehicle.current_licence
    if lic is None:
        reasons.append(Violation("licence.missing", "Veículo sem alvará.", None))
    elif lic.status == Status.REVOKED:
        reasons.append(Violation("licence.revoked", "Alvará cassado.", None))
    elif lic.status == Status.SUSPENDED:
        reasons.append(Violation("licence.suspended", "Alvará suspenso.", None,
                                 effect="suspended"))
    elif lic.valid_until < on:
        reasons.append(Violation("licence.expired", "Alvará vencido.", None))
    return Standing(status=_status(reasons), reasons=reasons, on=on)


def _status(reasons: list[Violation]) -> str:
    if not reasons:
        return "regular"
    return "suspended" if all(r.effect == "suspended" for r in reasons) else "irregular"
