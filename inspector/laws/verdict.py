"""The one verdict on a vehicle or a driver today: REGULAR, IRREGULAR or SUSPENSO, with every
reason and the article behind it.

Judged by the compliance engine (`compliance.vehicle_standing` / `driver_standing`, the law's
rules on a given day). The passenger's page, the registry's lists and pages, the credentials
and the field snapshot all read it from here (the field app judges offline with the same
rules, shipped in the snapshot), so no two screens disagree about one vehicle.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any

from inspector.laws.compliance import driver_standing, vehicle_standing
from inspector.models import Driver, Vehicle

LABELS = {"regular": "REGULAR", "irregular": "IRREGULAR", "suspended": "SUSPENSO"}


@dataclass(frozen=True)
class Reason:
    """A plain-words reason and the article of law behind it."""

    message: str
    law: str = ""
    article: str = ""
    href: str = ""
    until: date | None = None   # the last day of a suspension with a known end
    rule_id: str = ""           # the engine's kind of finding ("driver.registration.cancelled")
    day: date | None = None     # the finding's date (due_on): expiry, cancellation, end


@dataclass(frozen=True)
class Verdict:
    """regular / irregular / suspended, and why."""

    state: str
    reasons: list[Reason] = field(default_factory=list)

    @property
    def label(self) -> str:
        """REGULAR, IRREGULAR or SUSPENSO, as the passenger reads it."""
        return LABELS[self.state]


def read(obj: Any, name: str, default: Any = "") -> Any:
    """A field of an object or a dict (the engine's findings, or their cached JSON form)."""
    if obj is None:
        return default
    if isinstance(obj, dict):
        return obj.get(name, default)
    return getattr(obj, name, default)


def reason_of(violation: Any) -> Reason:
    """A finding of the engine (object or dict) as a reason with its article and link."""
    cite = read(violation, "citation", None)
    slug, anchor = read(cite, "law_slug"), read(cite, "anchor")
    href = f"/leis/{slug}#{anchor}" if slug else ""
    until = read(violation, "due_on", None) if read(violation, "effect") == "suspended" else None
    day = read(violation, "due_on", None)
    if isinstance(day, str):   # the cached JSON form
        day = date.fromisoformat(day) if day else None
        until = day if until else None
    return Reason(message=str(read(violation, "message")), law=str(read(cite, "law")),
                  article=str(read(cite, "article")), href=href, until=until,
                  rule_id=str(read(violation, "rule_id")), day=day)


def verdict_of_standing(standing: Any) -> Verdict:
    """The verdict of a standing the engine made (object, or the dict the field cache keeps)."""
    status = read(standing, "status", "regular")
    status = str(getattr(status, "value", status))
    return Verdict(status, [reason_of(v) for v in read(standing, "reasons", []) or []])


def verdict_of(subject: Vehicle | Driver, on: date) -> Verdict:
    """The verdict on a vehicle or a driver on `on`."""
    judge = vehicle_standing if isinstance(subject, Vehicle) else driver_standing
    return verdict_of_standing(judge(subject, on))


def combine_verdicts(parts: list[Verdict]) -> Verdict:
    """Suspended beats irregular beats regular; every reason is kept, once."""
    states = {p.state for p in parts}
    state = next((s for s in ("suspended", "irregular") if s in states), "regular")
    reasons: list[Reason] = []
    for p in parts:
        reasons.extend(r for r in p.reasons if r not in reasons)
    return Verdict(state, reasons)
