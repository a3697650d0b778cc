"""The passenger page's request path: signature, one query, and a view recomputed whenever
the rows behind it change.

Every request, whatever the token, does one Ed25519 check and runs the same Core query
by SHA-256(token). The query returns the credential with every registry row the page
and the standing read (vehicle(s), licences and their permits, the holder and its
permits, insurance, drivers, town). Those rows are fingerprinted; if this process
already built the page's view for the same token, day and fingerprint, it is reused,
otherwise the ORM loads the credential and the compliance engine judges it afresh.
So a revocation, a suspended licence or an expired policy shows on the very next
request, and the ORM and the engine run only when something changed.

`VERIFY_CACHE_SIZE` (default 4096 views per process; 0 turns the reuse off) and
`VERIFY_CACHE_SECONDS` (default 300: a view is rebuilt at least this often, in case the
engine ever reads rows that are not in the fingerprint); the maps are `render_cache`'s.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date

from sqlalchemy import LABEL_STYLE_TABLENAME_PLUS_COL, and_, bindparam, func, or_, select

from inspector import credentials, render_cache, rules
from inspector.credentials import Lookup
from inspector.extensions import db
from inspector.models import (
    Credential,
    Driver,
    Holder,
    InsurancePolicy,
    Licence,
    Municipality,
    Permit,
    Vehicle,
    Vistoria,
    vehicle_drivers,
)
from inspector.passenger import view


def _statement():
    c, m, v = Credential.__table__, Municipality.__table__, Vehicle.__table__
    lic, lp = Licence.__table__, Permit.__table__.alias("lp")
    h, hp = Holder.__table__, Permit.__table__.alias("hp")
    ins, vd, d = InsurancePolicy.__table__, vehicle_drivers, Driver.__table__
    vd2 = vehicle_drivers.alias("vd2")
    rider_vehicles = select(vd2.c.vehicle_id).where(vd2.c.driver_id == c.c.driver_id)
    holder_cols = [h.c.id, h.c.kind, h.c.name]  # nothing else of the holder can matter
    driver_cols = [col for col in d.c if col.key != "photo"]
    # The vehicles are the credential's town's (redundant, always true): the OR below cannot
    # use an index, and without the town PostgreSQL read every town's vehicles, licences,
    # policies and links for it (bench/many_towns.py); with it, the town's index range.
    joined = (c.join(m, m.c.id == c.c.municipality_id)
              .outerjoin(v, and_(v.c.municipality_id == c.c.municipality_id,
                                 or_(v.c.id == c.c.vehicle_id,
                                     v.c.id.in_(rider_vehicles.scalar_subquery()))))
              .outerjoin(lic, lic.c.vehicle_id == v.c.id)
              .outerjoin(lp, lp.c.id == lic.c.permit_id)
              .outerjoin(h, h.c.id == v.c.holder_id)
              .outerjoin(hp, hp.c.holder_id == h.c.id)
              .outerjoin(ins, ins.c.vehicle_id == v.c.id)
              .outerjoin(vd, vd.c.vehicle_id == v.c.id)
              .outerjoin(d, or_(d.c.id == vd.c.driver_id, d.c.id == c.c.driver_id)))
    cred_cols = [c.c.id, c.c.token_hash, c.c.kind, c.c.vehicle_id, c.c.driver_id, c.c.kid,
                 c.c.expires_on, c.c.revoked_at]
    # the vehicle's newest vistoria: a rejected one changes the page (its return day) but no
    # registry row
    vis = Vistoria.__table__
    newest_vistoria = (select(func.max(vis.c.id)).where(vis.c.vehicle_id == v.c.id)
                       .scalar_subquery().label("newest_vistoria"))
    return (select(*cred_cols, m.c.name, m.c.slug, *v.c, *lic.c, *lp.c, *holder_cols, *hp.c,
                   *ins.c, *driver_cols, newest_vistoria)
            .select_from(joined)
            .where(c.c.token_hash == bindparam("digest"))
            .set_label_style(LABEL_STYLE_TABLENAME_PLUS_COL))


_STATEMENT = _statement()


class _CredentialRow:
    """The credential's own fields out of the first joined row (names as on the model)."""

    __slots__ = ("id", "token_hash", "kind", "vehicle_id", "driver_id", "kid", "expires_on",
                 "revoked_at", "town_name", "town_slug")

    def __init__(self, row):
        (self.id, self.token_hash, self.kind, self.vehicle_id, self.driver_id, self.kid,
         self.expires_on, self.revoked_at, self.town_name, self.town_slug) = tuple(row[:10])


# bench/caches.py: /v/<token> 2.2x (20 vehicles) to 2.4x (500) slower without these maps
def _reuse(name: str, key, make):
    """`VERIFY_CACHE_SIZE` / `VERIFY_CACHE_SECONDS` govern both of the page's maps."""
    return render_cache.reuse(name, key, make, settings="VERIFY_CACHE", size=4096, seconds=300)


@dataclass(frozen=True)
class Page:
    """What the route needs: the outcome (for logs), the view, and `version`, which names
    this exact content (same version, same HTML for the same minute)."""

    outcome: str
    reason: str | None
    credential_id: int | None
    view: view.View
    version: tuple


def page_for(token: str, today: date) -> Page:
    """The page for a token, the banner judged now."""
    digest = credentials.token_hash(token)
    claims, reason = credentials.check_signature(token, today)
    rows = db.session.connection().execute(_STATEMENT, {"digest": digest}).all()
    cred = _CredentialRow(rows[0]) if rows else None
    outcome, why = credentials.decide_token(cred, digest, claims, reason, today)
    if outcome == "unknown":
        town = claimed_municipality(token)
        shown = view.unknown(town.name if town else "")
        return Page(outcome, why, None, shown, ("unknown", today, town.id if town else None))
    if outcome != "active":
        return Page(outcome, why, cred.id, view.closed(outcome, cred.town_name),
                    (digest, today, outcome))
    if not rules.packs_for_town(cred.town_slug):   # the town's law cannot be read: no verdict
        return Page("unavailable", "rule pack missing", cred.id,
                    view.unavailable(cred.town_name), (digest, today, "unavailable"))
    version = (digest, today, hash(frozenset(tuple(r) for r in rows)))
    shown = _reuse("passenger_views", version, lambda: view.build(
        Lookup("active", credentials.load_for_page(cred.id), claims, None), today))
    return Page(outcome, why, cred.id, shown, version)


def claimed_municipality(token: str):
    """The town a code we did not issue claims to be from (IBGE code in its head), when it
    is one of ours: (id, name), else None. Where a report about a false code goes."""
    ibge = credentials.claimed_town(token)
    if ibge is None:
        return None
    m = Municipality.__table__
    return db.session.connection().execute(
        select(m.c.id, m.c.name).where(m.c.ibge_code == ibge)).first()


def town_zone(token: str) -> str | None:
    """The time zone of the town a code names (IBGE code in its head), None when it names
    none of ours: the day the page judges is that town's day (its credentials expire at its
    midnight). A forged head only picks the clock of the town it forges."""
    ibge = credentials.claimed_town(token)
    if ibge is None:
        return None
    m = Municipality.__table__
    return db.session.connection().execute(
        select(m.c.timezone).where(m.c.ibge_code == ibge)).scalar()


def page_html(p: Page, stamp: str, render: Callable[[], str]) -> str:
    """The page's HTML, rendered once per version and `stamp` (the minute it shows). The page
    of an unknown code links to its own report form, so it is rendered every time (made-up
    codes must not fill the map)."""
    if p.outcome == "unknown":
        return render()
    return _reuse("passenger_html", (p.version, stamp), render)
