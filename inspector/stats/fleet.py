"""The share of a town's fleet regular today, and its trend.

Today's standing is the field snapshot's (`field.standing.town_standing`: every vehicle
judged by the rules engine, kept per town and day and brought up to date from the audit
log). The first computation of a day also writes that day's counts to
`fleet_standing_days`, so the trend reads a few rows per day instead of judging the fleet
again for every past day (which the registry as it is today could not say anyway).
The enforcement tick (`flask enforcement tick`, every minute in production) records each
town's day too (`record_day`), so the trend has every day the tick ran, not only the days
someone opened the dashboard.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import date, datetime

from sqlalchemy import exists, select

from inspector import audit, field
from inspector.clock import now, town_day
from inspector.extensions import db, insert_once
from inspector.models import FleetStandingDay, Municipality, Service, Vehicle
from inspector.stats.period import Period

SERVICE_LABELS = {"taxi": "Táxi", "mototaxi": "Mototáxi"}
STANDING_LABELS = {"regular": "Regulares", "irregular": "Irregulares", "suspended": "Suspensos"}


@dataclass(frozen=True)
class ServiceFleet:
    """One service's fleet on a day."""

    service: str
    vehicles: int
    regular: int
    irregular: int
    suspended: int

    @property
    def label(self) -> str:
        """Táxi / Mototáxi."""
        return SERVICE_LABELS.get(self.service, self.service)

    @property
    def share(self) -> float | None:
        """The share regular, 0..1 (None without vehicles)."""
        return self.regular / self.vehicles if self.vehicles else None

    def count(self, standing: str) -> int:
        """How many are in a standing (regular, irregular, suspended)."""
        return getattr(self, standing)


def standing_today(town_id: int, day: date | None = None) -> tuple[dict[int, dict], dict[int, str]]:
    """Every vehicle's standing today ({vehicle id: entry}) and its service ({id: value})."""
    day = day or town_day(db.session.get(Municipality, town_id))
    entries = field.town_standing(town_id, day, audit.town_version(town_id))
    services = {vid: getattr(s, "value", s) for vid, s in db.session.execute(
        select(Vehicle.id, Vehicle.service).where(Vehicle.municipality_id == town_id))}
    return entries, services


def fleet_today(town_id: int, day: date | None = None) -> list[ServiceFleet]:
    """The fleet by service today; the day's counts are recorded (flushed: the caller
    commits) when they were not yet, or changed."""
    return _judge(town_id, day or town_day(db.session.get(Municipality, town_id)))[0]


def _judge(town_id: int, day: date) -> tuple[list[ServiceFleet], int]:
    """The fleet by service on `day`, and how many of the day's rows this call wrote."""
    entries, services = standing_today(town_id, day)
    counts: dict[str, Counter] = {}
    for vid, service in services.items():
        status = entries.get(vid, {}).get("status", "irregular")
        counts.setdefault(service, Counter())[status] += 1
    fleet = [ServiceFleet(s, sum(c.values()), c["regular"], c["irregular"], c["suspended"])
             for s, c in sorted(counts.items())]
    return fleet, _record(town_id, day, fleet)


def record_fleet_day(town: Municipality, moment: datetime) -> int:
    """Record the town's fleet standing of its local day at `moment`, unless that day has a
    row already (a cheap check first: the tick calls this every minute, and judging the
    fleet is the expensive part). Flushes; the caller commits. How many rows were written."""
    day = town_day(town, moment)
    if db.session.scalar(select(exists().where(FleetStandingDay.municipality_id == town.id,
                                               FleetStandingDay.day == day))):
        return 0
    # another node's tick may record the same day at the same moment: only its rows count
    return _judge(town.id, day)[1]


def _record(town_id: int, day: date, fleet: list[ServiceFleet]) -> int:
    """Write the day's counts where they are missing or changed; how many rows it wrote (an
    insert another writer made first is not one)."""
    written = 0
    kept = {r.service.value: r for r in db.session.scalars(
        select(FleetStandingDay).where(FleetStandingDay.municipality_id == town_id,
                                       FleetStandingDay.day == day))}
    for f in fleet:
        values = {"vehicles": f.vehicles, "regular": f.regular, "irregular": f.irregular,
                  "suspended": f.suspended}
        row = kept.get(f.service)
        if row is None:
            written += insert_once(FleetStandingDay(municipality_id=town_id, day=day,
                                                    service=Service(f.service),
                                                    recorded_at=now(), **values))
        elif any(getattr(row, k) != v for k, v in values.items()):
            for k, v in values.items():
                setattr(row, k, v)
            row.recorded_at = now()
            written += 1
    db.session.flush()
    return written


def fleet_trend(town_id: int, period: Period) -> list[tuple[date, dict[str, ServiceFleet]]]:
    """The recorded days of the period, oldest first, with each service's fleet."""
    days: dict[date, dict[str, ServiceFleet]] = {}
    for r in db.session.scalars(
            select(FleetStandingDay).where(FleetStandingDay.municipality_id == town_id,
                                           FleetStandingDay.day >= period.first,
                                           FleetStandingDay.day <= period.last)
            .order_by(FleetStandingDay.day, FleetStandingDay.service)):
        service = r.service.value
        days.setdefault(r.day, {})[service] = ServiceFleet(service, r.vehicles, r.regular,
                                                           r.irregular, r.suspended)
    return sorted(days.items())


def vehicles_in(town_id: int, service: str, standing: str,
                day: date | None = None, cause: str = "") -> list[tuple[Vehicle, list[dict]]]:
    """The vehicles of a service in a standing today (or on `day`, the town's today), by
    prefix, with the reasons; with `cause`, only those with a reason of that rule."""
    entries, services = standing_today(town_id, day)
    ids = [vid for vid, s in services.items() if s == service
           and entries.get(vid, {}).get("status", "irregular") == standing
           and (not cause or any(r.get("rule_id") == cause
                                 for r in entries.get(vid, {}).get("reasons", [])))]
    rows = []
    for start in range(0, len(ids), 500):
        rows += list(db.session.scalars(select(Vehicle).where(Vehicle.id.in_(ids[start:start + 500]))))
    rows.sort(key=lambda v: (v.prefix or "", v.plate))
    return [(v, entries.get(v.id, {}).get("reasons", [])) for v in rows]
