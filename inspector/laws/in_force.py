"""The rules the field app needs: the checklist in force for a town, service and day.

A thin adapter over `inspector.rules` (the law as data). Everything here answers
`None` ("the rules engine cannot say") rather than failing when no rule packs are
installed, so the sync keeps accepting inspections; callers then skip the checks.
"""
from __future__ import annotations

import functools
from datetime import date

SERVICES = ("taxi", "mototaxi")



class NoLawInForce(Exception):
    """No law of this town covers this service on that day."""


def checklist(town, service: str, day: date) -> dict | None:
    """The checklist in force: {"service", "law", "pack", "law_slug", "items": [...],
    "driver_registration": the citation of "only a registered driver drives", or None}.

    Items come from `inspector.rules` (the pack of this town and service in force on
    `day`, items whose dates and population condition hold). None when the rules engine
    is not installed; NoLawInForce when no law covers this service that day.
    """
    try:
        from inspector import rules
    except ImportError:  # pragma: no cover - the engine ships with the app
        return None
    try:
        pack = rules.find_pack(town.slug, service, day)
    except rules.RulesError as e:
        raise NoLawInForce(str(e)) from None
    decrees = decrees_in_force(town, day)
    items = rules.checklist_of(pack, day, town.population_seat, decrees)
    return {"service": service, "law": pack.law, "pack": pack.id, "law_slug": pack.law_slug,
            "items": [i.as_dict() | {"grant": _grant(pack, i.id, day)} for i in items],
            "driver_registration": _driver_registration(rules.rules_on(pack, day)),
            # the law's vistorias: the kinds the app offers beside the street inspection, each
            # with the items it checks (docs/vistoria.md); `vistoria_none`: why none is offered
            "vistorias": [p.as_dict() for p in rules.plans_of(pack, day, town.population_seat,
                                                              decrees)],
            "vistoria_none": pack.vistoria.none}


# bench/caches.py: building it anew costs 0.6-0.7 ms a call, a third of a /healthz request
@functools.cache
def _decrees_statement():
    """Built once (every synced inspection asks): building it cost more than running it."""
    from sqlalchemy import bindparam, select

    from inspector.models import DecreeValue

    return select(DecreeValue.key).distinct().where(
        DecreeValue.municipality_id == bindparam("town"), DecreeValue.valid_from <= bindparam("day"))


def decrees_in_force(town, day: date) -> set[str]:
    """The decree keys the town has a value for on that day (a checklist item conditional on
    a decree, e.g. Nortelândia's fare table, applies only then)."""
    from inspector.extensions import db

    return set(db.session.scalars(_decrees_statement(), {"town": town.id, "day": day}))


def _grant(pack, item_id: str, day: date) -> dict | None:
    """The discretionary deadline a failure of this item may get (Tapurah Art. 19): max days,
    citation, eligible or why not; None when the law has none. The field app offers it."""
    from inspector import rules

    option = rules.grant_option(pack, item_id, day)
    return option.as_dict() if option else None


def _driver_registration(on_day) -> dict | None:
    """The article that lets only a registered driver drive (None when the law asks none)."""
    if not on_day.value("requirements.driver_registration"):
        return None
    cite = on_day.cite("requirements.driver_registration")
    return cite.as_dict() if cite else {}


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
