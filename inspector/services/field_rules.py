"""The rules the field app needs: the checklist in force for a town, service and day.

A thin adapter over `inspector.rules` (the law as data). Everything here answers
`None` ("the rules engine cannot say") rather than failing when no rule packs are
installed, so the sync keeps accepting inspections; callers then skip the checks.
"""
from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone

try:
    from zoneinfo import ZoneInfo

    LOCAL_TZ = ZoneInfo("America/Cuiaba")  # Mato Grosso, UTC-4 all year
except Exception:  # pragma: no cover - tzdata missing
    LOCAL_TZ = timezone(timedelta(hours=-4))

SERVICES = ("taxi", "mototaxi")


def local_day(moment: datetime | None = None) -> date:
    """The calendar day in Mato Grosso at a moment (now by default)."""
    moment = moment or datetime.now(UTC)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(LOCAL_TZ).date()


class NoLawInForce(Exception):
    """No law of this town covers this service on that day."""


def _packs():
    """Every rule pack shipped with the app, or None while the loader is not installed."""
    try:
        from ..rules.loader import load_all
    except ImportError:
        return None
    return load_all()


def checklist(town, service: str, day: date) -> dict | None:
    """The checklist in force: {"service", "law", "pack", "items": [...]}.

    Items are those of the pack of this town and service in force on `day` whose own
    dates cover the day and whose population condition the town meets. None when the
    rules are not available; NoLawInForce when no law covers this service that day.
    """
    packs = _packs()
    if packs is None:
        return None
    pack = next((p for p in packs if p.town == town.slug and p.service == service
                 and p.span.covers(day)), None)
    if pack is None:
        raise NoLawInForce(f"{town.slug}/{service}/{day}")
    items = [i.as_dict() for i in pack.checklist if i.span.covers(day)
             and (i.seat_population_over is None
                  or town.population_seat > i.seat_population_over)]
    return {"service": service, "law": pack.law, "pack": pack.id, "law_slug": pack.law_slug,
            "items": items}


def checklists_in_force(town, day: date) -> list[dict]:
    """Every service's checklist in force in a town on a day (services without a law are
    left out); [] while the rules engine is not available."""
    out = []
    for service in SERVICES:
        try:
            found = checklist(town, service, day)
        except NoLawInForce:
            continue
        if found is not None:
            out.append(found)
    return out
