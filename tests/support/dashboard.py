"""A town with a month of work to count: Tapurah in March 2026, two agents'
inspections with failed items, acts proposed, confirmed and rejected, a fine partly paid,
passenger reports; and Sapezal's work in the same days, which Tapurah's figures must never
count. Built through the services (inspections as the sync stores them, decisions, payments)."""
from __future__ import annotations

from inspector import enforcement
from inspector.enforcement import payments
from inspector.extensions import db
from inspector.models import PassengerReport, ReportCategory, ReportStatus
from tests import factories
from tests.support.enforcement import fleet, inspect, local, set_values

PERIOD = "de=2026-03-01&ate=2026-03-31"


def _report(town_slug: str, category: str, at, status: str = "new") -> None:
    t = factories.town(town_slug)
    db.session.add(PassengerReport(municipality_id=t.id, category=ReportCategory(category),
                                   text="Relato de teste", created_at=at,
                                   status=ReportStatus(status), seen_status="regular"))


def build() -> dict:
    """Tapurah's month and Sapezal's; returns the users and a few ids."""
    set_values("tapurah", minimum_wage=1518, fiscal_unit=5.25)
    set_values("sapezal", minimum_wage=1518, fiscal_unit=5.25)
    cars = [fleet("tapurah", "mototaxi") for _ in range(3)]
    ana = factories.user("agent", "tapurah", name="Ana Agente")
    beto = factories.user("agent", "tapurah", name="Beto Agente")
    sup = factories.user("supervisor", "tapurah", name="Sara Supervisora")
    admin = factories.user("admin", "tapurah")
    far = fleet("sapezal", "taxi")
    far_agent = factories.user("agent", "sapezal")
    far_sup = factories.user("supervisor", "sapezal")
    db.session.commit()
    plan = [  # (car, agent, day, results)
        (0, ana, 2, {"mirrors": "fail", "helmet-band": "ok"}),
        (1, ana, 3, {"mirrors": "ok", "helmet-band": "ok"}),
        (2, beto, 10, {"mirrors": "fail", "helmet-band": "fail"}),
        (0, beto, 17, {"one-passenger": "fail"}),
        (1, ana, 24, {"mirrors": "ok"}),
        (2, ana, 31, {"helmet-band": "fail"}),
        (1, beto, 20, {"mirrors": "ok"}),
    ]
    acts = []
    for car, agent, day, results in plan:
        acts += enforcement.acts_of(inspect(cars[car]["vehicle"], agent, results,
                                            local(2026, 3, day, 10)))
        db.session.commit()
    inspect(cars[0]["vehicle"], ana, {"mirrors": "fail"}, local(2026, 4, 2, 10))  # outside
    db.session.commit()
    fine = next(a for a in acts if a.kind == "fine")
    enforcement.confirm(fine, sup, local(2026, 3, 17, 15))
    notice = next(a for a in acts if a.kind == "notice")
    enforcement.confirm(notice, sup, local(2026, 3, 3, 9))
    other = [a for a in acts if a.kind == "notice" and a.id != notice.id][0]
    enforcement.reject(other, sup, local(2026, 3, 11, 9), reason="Foto não mostra o defeito.")
    db.session.commit()
    payments.record_payment(fine, sup, local(2026, 3, 20, 12), paid_on="2026-03-20",
                            amount="100,00", receipt="DAM-1")
    db.session.commit()
    _report("tapurah", "fare", local(2026, 3, 5))
    _report("tapurah", "fare", local(2026, 3, 6), "done")
    _report("tapurah", "conduct", local(2026, 3, 7))
    _report("tapurah", "conduct", local(2026, 2, 7))   # before the period
    for day in (3, 10):   # Sapezal: its own work, never Tapurah's
        enforcement.acts_of(inspect(far["vehicle"], far_agent, {"roof-light": "fail"},
                                    local(2026, 3, day, 11)))
        _report("sapezal", "fare", local(2026, 3, day))
    db.session.commit()
    return {"sup": sup.username, "admin": admin.username, "agent": ana.username,
            "far_sup": far_sup.username, "fine": fine.id, "ana": ana.id, "beto": beto.id,
            "vehicles": [c["vehicle"].id for c in cars], "far_vehicle": far["vehicle"].id}


