"""Escalation as the product owner reads the laws, through the database (../shared/DOMAIN.md,
December 2026):
- Tapurah Lei 406/2001 Art. 27 III: the removal may be asked once three notices exist and the
  rider still does not comply: a notice that is the third or a later one missing its 72 hours
  (Art. 29 § único) without repair brings the proposal of the removal request;
- Nortelândia Lei 127/2009 Art. 26: the supervisor chooses the suspension of the Alvará or the
  cancellation of the permit by gravity, instead of the notice the finding proposes;
- Nortelândia Lei 030/1998 Art. 16 II: a penalty is final (for a reincidência) once its window
  closed unused or its appeal was refused; never while an appeal is pending.
"""
from __future__ import annotations

from datetime import date, timedelta

import pytest
from sqlalchemy import select

from inspector import enforcement
from inspector.enforcement.propose import history
from inspector.errors import ValidationFailed
from inspector.extensions import db
from inspector.models import AuditEntry, Sanction, SanctionStatus
from tests import factories
from tests.support.enforcement import deliver, fleet, inspect, local

T0 = local(2026, 3, 2, 10)


def _tapurah_notices(n: int):
    """The rider's n-th notice for a missing mirror, signed on the street (its 72 hours run),
    the earlier ones confirmed; returns (the n-th notice, supervisor)."""
    f = fleet("tapurah", "mototaxi")
    agent, sup = factories.user("agent", "tapurah"), factories.user("supervisor", "tapurah")
    db.session.commit()
    notice = None
    for k in range(n):
        when = T0 + timedelta(days=10 * k)
        [notice] = [a for a in enforcement.acts_of(inspect(f["vehicle"], agent,
                                                           {"mirrors": "fail"}, when))
                    if a.kind == "notice"]
        enforcement.confirm(notice, sup, when + timedelta(hours=1))
        db.session.commit()
    return notice, sup


def test_the_third_notice_missed_without_repair_proposes_the_removal_request(app):
    with app.app_context():
        third, _ = _tapurah_notices(3)
        assert third.occurrence == 3 and third.deadline_hours == 72
        report = enforcement.tick(third.deadline_at + timedelta(minutes=1))
        assert third.id in report.converted
        removal = db.session.scalar(select(Sanction).where(
            Sanction.origin_key == f"removal:{third.id}"))
        assert removal.kind == "removal_request" and removal.status == SanctionStatus.PROPOSED
        assert removal.decided_by == "agent" and removal.parent_id == third.id
        assert removal.citation["article"] == "Art. 27, III"
        assert "3ª do condutor" in removal.reason and "continua sem cumprir" in removal.reason
        assert db.session.scalar(select(AuditEntry.id).where(
            AuditEntry.action == "sanction_proposed", AuditEntry.entity_id == str(removal.id)))
        enforcement.tick(third.deadline_at + timedelta(days=1))   # once only
        assert db.session.scalars(select(Sanction).where(
            Sanction.kind == "removal_request")).all() == [removal]


def test_the_second_notice_missed_is_a_daily_fine_only(app):
    with app.app_context():
        second, _ = _tapurah_notices(2)
        report = enforcement.tick(second.deadline_at + timedelta(minutes=1))
        assert second.id in report.converted
        assert db.session.scalar(select(Sanction.id).where(
            Sanction.kind == "removal_request")) is None


def _nortelandia_taxi():
    f = fleet("nortelandia", "taxi")
    agent, sup = factories.user("agent", "nortelandia"), factories.user("supervisor", "nortelandia")
    db.session.commit()
    insp = inspect(f["vehicle"], agent, {"clean": "fail", "displayed-documents": "fail"}, T0)
    db.session.commit()
    return f, agent, sup, insp


def test_nortelandia_127_offers_suspension_and_cancellation_by_gravity(app):
    with app.app_context():
        _, agent, sup, insp = _nortelandia_taxi()
        keys = {c.key: c for c in enforcement.choices(insp)}
        assert {"gravity:suspension", "gravity:revocation"} <= set(keys)
        assert "gravidade da falta" in keys["gravity:suspension"].why
        with pytest.raises(enforcement.NotAllowed):
            enforcement.choose(insp, agent, T0, key="gravity:suspension", reason="Grave, sim.")
        with pytest.raises(ValidationFailed) as info:
            enforcement.choose(insp, sup, T0, key="gravity:suspension", reason="")
        assert "reason" in info.value.errors


def test_choosing_the_suspension_by_gravity_replaces_the_notices(app):
    with app.app_context():
        f, _, sup, insp = _nortelandia_taxi()
        notices = enforcement.acts_of(insp)
        assert [a.kind for a in notices] == ["notice", "notice"]
        [susp] = enforcement.choose(insp, sup, T0 + timedelta(hours=1), key="gravity:suspension",
                                    reason="Carro imundo e sem documentos à vista no ponto.")
        db.session.commit()
        assert (susp.kind, susp.target, susp.step_id, susp.status.value) == \
            ("suspension", "licence", "suspension", "proposed")
        assert susp.reason.startswith("Proposta da supervisão pela gravidade da falta: Carro")
        assert susp.citation["article"] == "Art. 26"
        breach = susp.breach_citation
        assert {breach["article"]} | {c["article"] for c in breach.get("also", [])} == \
            {"Art. 14, V", "Art. 14, X"}
        for a in notices:
            a = db.session.get(Sanction, a.id)
            assert a.status == SanctionStatus.REJECTED and a.reason.startswith("Substituída")
        with pytest.raises(ValidationFailed):   # once per inspection
            enforcement.choose(insp, sup, T0 + timedelta(hours=2), key="gravity:suspension",
                               reason="De novo, a mesma falta.")


def test_other_laws_offer_no_gravity_rung(app):
    with app.app_context():
        f = fleet("tapurah", "mototaxi")
        agent = factories.user("agent", "tapurah")
        db.session.commit()
        insp = inspect(f["vehicle"], agent, {"mirrors": "fail"}, T0)
        assert not [c for c in enforcement.choices(insp) if c.key.startswith("gravity:")]


def test_a_nortelandia_030_penalty_is_final_when_its_window_closes_or_its_appeal_fails(app):
    with app.app_context():
        f = fleet("nortelandia", "mototaxi")
        agent, sup = factories.user("agent", "nortelandia"), factories.user("supervisor", "nortelandia")
        admin = factories.user("admin", "nortelandia")
        db.session.commit()
        [warning] = enforcement.acts_of(inspect(f["vehicle"], agent, {"vest": "fail"}, T0))
        offender = warning.offender
        enforcement.confirm(warning, sup, T0 + timedelta(hours=1))
        db.session.commit()
        [prior] = history(warning.municipality_id, offender)
        assert prior.final_on is None            # not delivered: no time runs
        assert prior.provision == "nortelandia-lei-030-1998-mototaxi#art-10-iv"
        deliver(warning, sup, T0 + timedelta(hours=1))
        db.session.commit()
        # 10 business days from Mon 02/03 end Mon 16/03 (Art. 16 § 2º, CPC Art. 219)
        assert history(warning.municipality_id, offender)[0].final_on == date(2026, 3, 17)
        ap = enforcement.file_appeal(warning, filed_on=date(2026, 3, 10), filed_by="Empresa X",
                                     filed_by_role="company", text_="Recorremos da advertência.",
                                     user=sup, now=local(2026, 3, 10, 9))
        db.session.commit()
        assert history(warning.municipality_id, offender)[0].final_on is None   # pending
        enforcement.decide_appeal(ap, admin, local(2026, 3, 20, 9), accepted=False,
                                  text_="Mantida.", ref="Decisão 1/2026")
        db.session.commit()
        assert history(warning.municipality_id, offender)[0].final_on == date(2026, 3, 20)
