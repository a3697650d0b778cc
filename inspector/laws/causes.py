"""Why a permit, licence or driver registration is suspended, revoked or cancelled: the act
whose effect set its current status (`Sanction.effect_change_id`), read from the registry.

A standing cites the article of the cause: Tapurah's company permit "cassada" because a
policy lapsed cites Art. 17 (revogação automática), not Art. 6 (which requires a permit). A
status set by hand (no act behind it) has no cause: the law's article for the sanction stays.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import date, timedelta

from sqlalchemy import select

from inspector import clock
from inspector.extensions import db
from inspector.models import Driver, InsurancePolicy, Municipality, Sanction, StatusChange, Vehicle
from inspector.rules import Citation, RulesError, StatusCause, find_pack

KINDS = ("permit", "licence", "driver")
_NOUNS = {"mototaxi": "moto-táxi", "taxi": "táxi"}


def _citation(c: dict | None) -> Citation | None:
    if not isinstance(c, dict) or not c.get("law") or not c.get("article"):
        return None
    return Citation(str(c["law"]), str(c.get("law_slug", "")), str(c["article"]),
                    str(c.get("anchor", "")), str(c.get("quote", "")))


def _words(act: Sanction) -> str:
    """The cause in a few plain words, as a rider or a passenger reads it."""
    if act.rule_id == "insurance.lapsed":
        v = db.session.get(Vehicle, act.vehicle_id) if act.vehicle_id else None
        if v is None:
            return "seguro obrigatório vencido"
        return f"seguro do {_NOUNS.get(str(getattr(v.service, 'value', v.service)), 'veículo')} " \
               f"{v.plate} vencido"
    if act.rule_id == "driver.registration.cancelled":
        return "inscrição não revalidada no prazo da lei"
    label = " ".join((act.label or "").split()).rstrip(".")
    if "(" in label and label.endswith(")"):   # "Revogação ... (seguro não renovado)": the cause
        label = label[label.rindex("(") + 1:-1]
    return label[:1].lower() + label[1:] if label[1:2].islower() else label


def _law_day(act: Sanction, change: StatusChange) -> date:
    """The day the status holds from by the law, not the day the tick wrote it: an automatic
    revocation for a lapsed insurance holds from the day after the policy ended (Tapurah Art.
    17: "revogação automática"), a registration not revalidated lapses the day after its grace
    (Nortelândia 127 Art. 8 § ú); any other act from the day it was decided."""
    written = clock.town_day(db.session.get(Municipality, act.municipality_id), change.at)
    if not act.automatic:
        return written
    if act.rule_id == "insurance.lapsed" and act.vehicle_id:
        ended = db.session.scalars(select(InsurancePolicy.valid_until).where(
            InsurancePolicy.vehicle_id == act.vehicle_id, InsurancePolicy.valid_until < written)).all()
        return max(ended) + timedelta(days=1) if ended else written
    if act.rule_id == "driver.registration.cancelled" and act.driver_id:
        driver = db.session.get(Driver, act.driver_id)
        grace = _grace_days(driver, written) if driver is not None else None
        if driver is not None and grace is not None:
            day = driver.registration_expiry + timedelta(days=grace + 1)
            return day if day <= written else written
    return written


def _grace_days(driver: Driver, on: date) -> int | None:
    """The days of grace after a registration's expiry the law in force gives (None: none)."""
    town = db.session.get(Municipality, driver.municipality_id)
    service = "mototaxi" if str(getattr(driver.category, "value", driver.category)) == "mototaxista" \
        else "taxi"
    try:
        return find_pack(town.slug, service, on).value("periodicity.registration_grace_days", on)
    except RulesError:
        return None


def status_causes(kind: str, rows: Iterable) -> dict[int, StatusCause]:
    """The cause of each row's current status, for rows of `kind` (permit | licence | driver)
    that are suspended or revoked and whose status an act set; rows without one are absent."""
    held = {r.id: str(getattr(r.status, "value", r.status)) for r in rows
            if str(getattr(r.status, "value", r.status)) in ("suspended", "revoked")}
    if not held:
        return {}
    latest: dict[int, tuple[StatusChange, Sanction | None]] = {}
    found = db.session.execute(
        select(StatusChange, Sanction).outerjoin(Sanction, Sanction.effect_change_id == StatusChange.id)
        .where(StatusChange.subject_type == kind, StatusChange.subject_id.in_(sorted(held)))
        .order_by(StatusChange.id))
    for change, act in found:
        latest[change.subject_id] = (change, act)
    out = {}
    for subject_id, (change, act) in latest.items():
        status = str(getattr(change.to_status, "value", change.to_status))
        if act is None or status != held[subject_id]:
            continue   # set by hand, or changed again since: no act to name
        cancelled = bool(act.automatic) and act.rule_id.endswith(".cancelled")
        out[subject_id] = StatusCause(_words(act), _law_day(act, change), _citation(act.citation),
                                      cancelled)
    return out


_PRELOADED: ContextVar[dict | None] = ContextVar("status_causes", default=None)


@contextmanager
def preloaded_causes(rows_by_kind: dict[str, Iterable]) -> Iterator[None]:
    """Read the causes of many rows at once (one query per kind), for a town-wide judgement:
    `cause_of` answers from them inside the block, so the queries do not grow with the fleet."""
    known = {}
    for kind, rows in rows_by_kind.items():
        rows = list(rows)
        found = status_causes(kind, rows)
        known.update({(kind, r.id): found.get(r.id) for r in rows})
    token = _PRELOADED.set(known)
    try:
        yield
    finally:
        _PRELOADED.reset(token)


def cause_of(kind: str, row) -> StatusCause | None:
    """The cause of one row's current status (see `causes`), or None."""
    if row is None:
        return None
    known = _PRELOADED.get()
    if known is not None and (kind, row.id) in known:
        return known[(kind, row.id)]
    return status_causes(kind, [row]).get(row.id)
