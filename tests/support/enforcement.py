"""Builders for enforcement tests: an inspection stored as the field sync stores it (rows,
checklist wording and citation of the day), completed at a chosen moment, so the clock of
every legal step can be frozen."""
from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

from inspector import audit, clock, enforcement
from inspector.enforcement.pending import on_inspection_complete
from inspector.extensions import db
from inspector.models import (
    DatedValue,
    DecreeValue,
    Inspection,
    InspectionItem,
    InspectionStatus,
    ItemResult,
    Municipality,
    Sanction,
    Service,
)
from inspector.rules.engine import checklist
from tests import factories
from tests.support.instants import (
    CUIABA,
)

SERVICE_OF = {"tapurah": "mototaxi", "nova-santa-helena": "taxi", "sapezal": "taxi"}


def local(y, m, d, hh=10, mm=0) -> datetime:
    """A moment given in Mato Grosso's local time, as an aware UTC datetime."""
    return datetime(y, m, d, hh, mm, tzinfo=CUIABA).astimezone(UTC)


def fleet(town_slug: str, service: str, *, moto_wage: bool = True) -> dict:
    """A licensed vehicle with one driver of its service, its holder's permit and insurance."""
    v = factories.vehicle(town_slug, service)
    category = "mototaxista" if service == "mototaxi" else "autonomo"
    d = factories.driver(town_slug, category, holder=v.holder)
    d.vehicles.append(v)
    p = factories.permit(v.holder, service)
    lic = factories.licence(v, permit_id=p.id)
    if service == "mototaxi":
        factories.insurance(v)
    db.session.flush()
    return {"vehicle": v, "driver": d, "holder": v.holder, "permit": p, "licence": lic}


def set_values(town_slug: str, *, minimum_wage=None, fiscal_unit=None, decree=None,
               since: date = date(2000, 1, 1)) -> None:
    """The town's minimum wage, fiscal unit value and decree values from `since`."""
    t = factories.town(town_slug)
    for kind, value in (("minimum_wage", minimum_wage), ("fiscal_unit", fiscal_unit)):
        if value is not None:
            db.session.add(DatedValue(municipality_id=t.id, kind=kind, valid_from=since,
                                      value_brl=Decimal(str(value))))
    for key, (amount, unit) in (decree or {}).items():
        db.session.add(DecreeValue(municipality_id=t.id, key=key, valid_from=since,
                                   amount=Decimal(str(amount)), unit=unit,
                                   source="Decreto de teste"))
    db.session.flush()


def inspect(vehicle, agent, results: dict[str, str], finished: datetime, *,
            ack: str | None = "Condutor de Teste", complete: bool = True,
            grants: dict[str, dict] | None = None,
            notes: dict[str, str] | None = None) -> Inspection:
    """Store an inspection of `vehicle` finished at `finished` and (if complete) hand it to
    enforcement as the sync does when its last photo lands. `grants`: the deadline the agent
    granted per item, {"tank-sign": {"days": 10, "reason": "..."}} (Tapurah Art. 19), as
    the body's items[].grant. `notes`: the agent's note per item."""
    town = db.session.get(Municipality, vehicle.municipality_id)
    day = clock.town_day(town, finished)   # the law in force on the town's day
    service = vehicle.service.value if isinstance(vehicle.service, Service) else vehicle.service
    items = {i.id: i for i in checklist(town.slug, service, day,
                                              seat_population=town.population_seat)}
    body = audit.canonical({"vehicle_id": vehicle.id, "results": results,
                            "finished": finished.isoformat(), "n": uuid.uuid4().hex}
                           | ({"items": [{"item_id": k, "grant": g} for k, g in grants.items()]}
                              if grants else {}))
    insp = Inspection(
        uuid=str(uuid.uuid4()), municipality_id=town.id, agent_id=agent.id,
        vehicle_id=vehicle.id, service=vehicle.service, started_at=finished - timedelta(minutes=8),
        finished_at=finished, rules_day=day, snapshot_version=None, lat=-12.7, lon=-56.5,
        accuracy_m=10, body_sha256=hashlib.sha256(body.encode()).hexdigest(), body=body,
        ack_name=ack, ack_signature=b"\x89PNG-test" if ack else None,
        status=InspectionStatus.AWAITING_REVIEW if complete else InspectionStatus.INCOMPLETE,
        failed_items=sum(1 for r in results.values() if r == "fail"),
        registry_changed=False, received_at=finished, completed_at=finished if complete else None)
    db.session.add(insp)
    db.session.flush()
    for pos, (item_id, result) in enumerate(results.items()):
        rule = items[item_id.split(":", 1)[0]]
        db.session.add(InspectionItem(inspection_id=insp.id, position=pos, item_id=item_id,
                                      result=ItemResult(result), note=(notes or {}).get(item_id, ""),
                                      label=rule.label,
                                      citation=rule.citation.as_dict()))
    db.session.flush()
    db.session.expire(insp, ["items"])
    if complete:
        on_inspection_complete(insp, finished)
    return insp


def acts(insp: Inspection):
    """The inspection's acts, in order."""
    return enforcement.acts_of(insp)


def deliver(act: Sanction, user, at: datetime, *, via: str = "hand",
            ref: str = "Recebido pelo próprio infrator", recorded: datetime | None = None
            ) -> Sanction:
    """Record that the decided act was handed over at `at` (recorded then, or at `recorded`):
    its deadline, appeal window and suspension run from there, not from the decision (Nova
    Santa Helena Lei 535/2013 Art. 27 § único; Nortelândia Lei 030/1998 Art. 16 § 2º)."""
    moment = clock.town_moment(db.session.get(Municipality, act.municipality_id), at)
    return enforcement.record_delivery(act, user, recorded or at, day=moment.date(),
                                       at=moment.time(), via=via, ref=ref)


def confirm_delivered(act: Sanction, user, now: datetime, **kw):
    """Confirm an act and hand its document over at the same moment (the clock of a test
    about what runs after delivery); returns the Decision."""
    d = enforcement.confirm(act, user, now, **kw)
    if act.awaiting_delivery:
        deliver(act, user, now)
    return d


@dataclass
class OfficeDecision:
    """What `decided_in_office` made: the act, its Decision (notice, access code), the fleet."""

    act: Sanction
    decision: object
    fleet: dict
    agent: object
    supervisor: object


GRAVE = "Falta grave: a supervisão apurou a gravidade (fatos descritos no relatório)."


def decided_in_office(town: str, service: str, results: dict[str, str], decided: datetime, *,
                      ack: str | None = None, gravity: str | None = None,
                      **confirm) -> OfficeDecision:
    """One failed item's act confirmed in the office at `decided` by the town's supervisor (the
    inspection an hour before, with no rider's ciente unless `ack`): its document issued, not
    delivered, so no time runs yet (Nortelândia Lei 030/1998 Art. 16 § 2º "a partir da
    intimação"; Nova Santa Helena Lei 535/2013 Art. 27 § único "Após o recebimento").
    `gravity`: the rung the supervisor chooses by the gravity of the fault instead of the
    proposal (Nortelândia Lei 127/2009 Art. 26: "suspension" or "revocation")."""
    f = fleet(town, service)
    agent = factories.user("agent", town)
    sup = factories.user("supervisor", town)
    db.session.commit()
    insp = inspect(f["vehicle"], agent, results, decided - timedelta(hours=1), ack=ack)
    [act] = enforcement.acts_of(insp)
    if gravity is not None:
        [act] = enforcement.choose(insp, sup, decided, key=f"gravity:{gravity}", reason=GRAVE)
    d = enforcement.confirm(act, sup, decided, **confirm)
    db.session.commit()
    return OfficeDecision(act, d, f, agent, sup)


def enforcement_worker(app, now: datetime | None = None) -> list[int]:
    """What runs after a sync: the enforcement tick's first step (also run before any review
    page) makes the proposals of the inspections the sync completed."""
    with app.app_context():
        done = enforcement.propose_pending(now or datetime.now(UTC))
        db.session.commit()
        return done


def ticks_at_once(app, now: datetime, n: int = 2) -> list:
    """`n` enforcement ticks started together, a thread and a connection each; their
    reports (or what each raised), in thread order."""
    import threading

    out: list = [None] * n
    barrier = threading.Barrier(n)

    def one(i: int) -> None:
        with app.app_context():
            barrier.wait()
            try:
                out[i] = enforcement.tick(now)
            except Exception as e:  # noqa: BLE001 - the test reports it
                out[i] = e
            finally:
                db.session.remove()
    threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    return out


def running_daily_fine() -> tuple[Sanction, Sanction, object]:
    """Tapurah (Lei 406): a notice confirmed four days ago whose 72 hours ran out, so the tick
    turned it into a daily fine (Art. 29 § ú); committed. (notice, daily fine, supervisor)."""
    f = fleet("tapurah", "mototaxi")
    agent, sup = factories.user("agent", "tapurah"), factories.user("supervisor", "tapurah")
    db.session.commit()
    started = datetime.now(UTC) - timedelta(days=4)
    [notice] = enforcement.acts_of(inspect(f["vehicle"], agent, {"mirrors": "fail"}, started))
    enforcement.confirm(notice, sup, started + timedelta(hours=1))
    db.session.commit()
    enforcement.tick(datetime.now(UTC))
    db.session.commit()
    daily = db.session.scalar(db.select(Sanction).where(Sanction.parent_id == notice.id))
    return notice, daily, sup


def nsh_failed_seat_belts(*roles: str) -> tuple[Inspection, dict]:
    """Nova Santa Helena (Lei 535): a taxi whose seat belts failed an inspection two hours ago,
    committed; (the inspection, users by role: agent, supervisor and any `roles`)."""
    f = fleet("nova-santa-helena", "taxi")
    users = {r: factories.user(r, "nova-santa-helena") for r in ("agent", "supervisor", *roles)}
    db.session.commit()
    insp = inspect(f["vehicle"], users["agent"], {"seat-belts": "fail"},
                   datetime.now(UTC) - timedelta(hours=2))
    db.session.commit()
    return insp, users


def chosen_permit_suspension(insp: Inspection, supervisor, reason: str, *,
                             confirmed: bool = False) -> Sanction:
    """The permit's suspension the supervision chose an hour ago with `reason` (Nova Santa
    Helena 535 Art. 25 III; the mayor's to decide, Art. 27), confirmed half an hour ago when
    asked; committed."""
    now = datetime.now(UTC)
    [act] = enforcement.choose(insp, supervisor, now - timedelta(hours=1),
                               key="permit-sanction:suspension", reason=reason)
    if confirmed:
        enforcement.confirm(act, supervisor, now - timedelta(minutes=30))
    db.session.commit()
    return act


def nortelandia_030_suspension(at: datetime, *, days: int | None = None):
    """Nortelândia 030, a moto-taxi: a warning and a fine (confirmed, never delivered: neither is
    final, so no reincidência under Art. 16 II as the product owner reads it), then a third
    finding at `at` whose proposed fine is amended an hour later into the suspension of the
    company's authorisation (Art. 16 III, "separadas ou cumulativamente"; `days` long, or the
    pack's default) and delivered then: the appeal window, to the mayor and suspensive
    (Art. 16 § 2º), counts from that intimação. Returns (fleet, supervisor, admin, act),
    committed."""
    f = fleet("nortelandia", "mototaxi")
    agent = factories.user("agent", "nortelandia")
    sup, admin = factories.user("supervisor", "nortelandia"), factories.user("admin", "nortelandia")
    db.session.commit()
    for k in range(2):
        earlier = inspect(f["vehicle"], agent, {"vest": "fail"}, at - timedelta(days=20 - k))
        for a in enforcement.acts_of(earlier):
            enforcement.confirm(a, sup, at - timedelta(days=19 - k),
                                amount=a.amount_max if a.amount is None else None)
    [susp] = enforcement.acts_of(inspect(f["vehicle"], agent, {"vest": "fail"}, at))
    enforcement.amend(susp, sup, at + timedelta(hours=1), option="step:repeat-fine:1:suspension",
                      days=days, reason="Terceira falta.")
    deliver(susp, sup, at + timedelta(hours=1))
    db.session.commit()
    return f, sup, admin, susp
