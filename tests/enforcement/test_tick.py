"""`enforcement.tick(now)`: what time brings under the law, idempotent and safe to run twice at
once (SQLite and PostgreSQL with DATABASE_URL); the CLI around it."""
from __future__ import annotations

import importlib
import json
from datetime import date, timedelta
from decimal import Decimal

import pytest
from sqlalchemy import func, select

from inspector import audit, enforcement
from inspector.documents import issuing
from inspector.documents.pdf import Rows, Text
from inspector.enforcement.common import unsubscribe
from inspector.enforcement.queries import deadline_soon
from inspector.extensions import db
from inspector.models import (
    AuditEntry,
    Driver,
    EnforcementEvent,
    Fine,
    InspectionStatus,
    Notice,
    Permit,
    Sanction,
    SanctionStatus,
    Status,
    StatusChange,
)
from tests import factories
from tests.support.enforcement import (
    confirm_delivered,
    fleet,
    inspect,
    local,
    nortelandia_030_suspension,
    ticks_at_once,
)

T0 = local(2026, 3, 2, 10)


def _counts() -> dict:
    return {m.__name__: db.session.scalar(select(func.count()).select_from(m))
            for m in (Sanction, Fine, Notice, EnforcementEvent, AuditEntry, StatusChange)}


def _confirmed_notice(item: str = "mirrors", grants: dict | None = None):
    """A Tapurah rider's notice, signed on the street at T0 and confirmed an hour later."""
    f = fleet("tapurah", "mototaxi")
    agent, sup = factories.user("agent", "tapurah"), factories.user("supervisor", "tapurah")
    insp = inspect(f["vehicle"], agent, {item: "fail"}, T0, grants=grants)
    [act] = enforcement.acts_of(insp)
    enforcement.confirm(act, sup, T0 + timedelta(hours=1))
    db.session.commit()
    return f, agent, sup, act.id


def test_tick_twice_with_the_same_clock_changes_nothing_the_second_time(app):
    with app.app_context():
        _, _, _, act_id = _confirmed_notice()
        old = factories.driver("nortelandia", "autonomo",
                               registration_expiry=date(2026, 1, 1))  # cancelled on 01/02 + 1
        db.session.commit()
        now = T0 + timedelta(days=12)
        first = enforcement.tick(now)
        assert first.converted == [act_id] and first.windows_closed and first.automatic
        before = _counts()
        second = enforcement.tick(now)
        assert second.changes == 0, second.as_dict()
        assert _counts() == before
        assert db.session.get(Driver, old.id).status == Status.REVOKED
        assert audit.verify()[1] is None


def test_two_ticks_at_once_change_nothing_twice(app):
    with app.app_context():
        _, _, _, act_id = _confirmed_notice()
        for _i in range(3):
            factories.driver("nortelandia", "autonomo", registration_expiry=date(2026, 1, 1))
        db.session.commit()
        db.engine.dispose()  # fresh connections for the threads
    now = T0 + timedelta(days=12)
    out = ticks_at_once(app, now)
    assert all(not isinstance(r, Exception) for r in out), out
    assert sorted(len(r.converted) for r in out) == [0, 1]
    assert sorted(len(r.automatic) for r in out) == [0, 3]
    with app.app_context():
        assert db.session.scalar(select(func.count()).select_from(Sanction).where(
            Sanction.parent_id == act_id)) == 1
        assert db.session.scalar(select(func.count()).select_from(StatusChange)) == 3
        assert db.session.scalar(select(func.count()).select_from(Fine)) == 1
        keys = db.session.scalars(select(AuditEntry.action)).all()
        assert keys.count("sanction_converted") == 1
        assert audit.verify()[1] is None
        again = enforcement.tick(now)
        assert again.changes == 0


def test_daily_fine_accrues_per_started_day_and_stops_when_a_reinspection_finds_it_fixed(app):
    with app.app_context():
        f, agent, _, act_id = _confirmed_notice()
        deadline = T0 + timedelta(hours=72)
        enforcement.tick(deadline + timedelta(hours=1))
        enforcement.tick(deadline + timedelta(days=2, hours=1))
        fine = db.session.scalar(select(Fine))
        assert fine.accrued_days == 3 and fine.accrued_brl == Decimal("2917.80")
        # the rider comes back with new mirrors: the notice is complied, the fine stops there
        inspect(f["vehicle"], agent, {"mirrors": "ok"}, deadline + timedelta(days=3, hours=5))
        db.session.commit()
        act = db.session.get(Sanction, act_id)
        assert act.status == SanctionStatus.COMPLIED and act.notice.complied_at
        fine = db.session.scalar(select(Fine))
        assert fine.accrued_days == 4 and fine.stopped_at is not None
        enforcement.tick(deadline + timedelta(days=30))
        assert db.session.scalar(select(Fine)).accrued_days == 4


def test_a_notice_complied_within_the_deadline_never_becomes_a_fine(app):
    with app.app_context():
        f, agent, _, act_id = _confirmed_notice()
        inspect(f["vehicle"], agent, {"mirrors": "ok"}, T0 + timedelta(hours=30))
        db.session.commit()
        report = enforcement.tick(T0 + timedelta(days=5))
        assert report.converted == []
        assert db.session.get(Sanction, act_id).status == SanctionStatus.COMPLIED
        assert db.session.scalar(select(func.count()).select_from(Fine)) == 0


def test_a_deadline_two_days_away_is_announced_once(app):
    calls = []
    listener = enforcement.subscribe("deadline_soon", lambda act, deadline_at: calls.append(act.id))
    try:
        with app.app_context():
            _, _, _, act_id = _confirmed_notice(   # 10 days granted by the agent (Art. 19)
                "tank-sign", {"tank-sign": {"days": 10, "reason": "Adesivo encomendado"}})
            assert enforcement.tick(T0 + timedelta(days=5)).reminders == []
            assert enforcement.tick(T0 + timedelta(days=9)).reminders == [act_id]
            assert enforcement.tick(T0 + timedelta(days=9, hours=3)).reminders == []
            assert calls == [act_id]
            assert [a.id for a in deadline_soon(None, T0 + timedelta(days=9),
                                                            timedelta(days=2))] == [act_id]
    finally:
        unsubscribe("deadline_soon", listener)


def test_registration_not_revalidated_30_days_after_expiry_is_cancelled(app):
    """Nortelândia 127 Art. 8 § ú; the other laws set no automatic cancellation."""
    with app.app_context():
        due = factories.driver("nortelandia", "autonomo", registration_expiry=date(2026, 2, 1))
        grace = factories.driver("nortelandia", "auxiliar", registration_expiry=date(2026, 2, 2))
        rider = factories.driver("nortelandia", "mototaxista", registration_expiry=date(2026, 1, 1))
        other = factories.driver("sapezal", "autonomo", registration_expiry=date(2025, 1, 1))
        db.session.commit()
        report = enforcement.tick(local(2026, 3, 4, 8))   # 01/02 + 30 = 03/03: over
        assert len(report.automatic) == 1
        statuses = {d.id: db.session.get(Driver, d.id).status for d in (due, grace, rider, other)}
        assert statuses == {due.id: Status.REVOKED, grace.id: Status.ACTIVE,
                            rider.id: Status.ACTIVE, other.id: Status.ACTIVE}
        act = db.session.get(Sanction, report.automatic[0])
        assert (act.kind, act.target, act.automatic, act.status) == \
            ("revocation", "registration", True, SanctionStatus.CONFIRMED)
        assert act.citation["article"] == "Art. 8, parágrafo único"
        change = db.session.scalar(select(StatusChange))
        assert change.subject_id == due.id and "Art. 8" in change.reason
        assert act.notice.document_kind == "decision"


def test_lapsed_insurance_revokes_the_moto_taxi_permit_in_tapurah_only(app):
    """Tapurah Art. 17 ("revogação automática"); Nortelândia 030 Art. 11 requires insurance
    but says nothing of revoking, so nothing is done there."""
    with app.app_context():
        t = fleet("tapurah", "mototaxi")
        n = fleet("nortelandia", "mototaxi")
        for row in (t, n):
            for p in row["vehicle"].insurance_policies:
                p.valid_until = date(2026, 3, 1)
            if not row["vehicle"].insurance_policies:
                factories.insurance(row["vehicle"], valid_from=date(2025, 3, 1),
                                    valid_until=date(2026, 3, 1))
        db.session.commit()
        assert enforcement.tick(local(2026, 3, 1, 20)).automatic == []   # still covered today
        report = enforcement.tick(local(2026, 3, 2, 0, 5))
        assert len(report.automatic) == 1
        assert db.session.get(Permit, t["permit"].id).status == Status.REVOKED
        assert db.session.get(Permit, n["permit"].id).status == Status.ACTIVE
        act = db.session.get(Sanction, report.automatic[0])
        assert act.citation["article"] == "Art. 17"
        assert enforcement.tick(local(2026, 3, 3)).automatic == []
        # its document states the law's act and names no driver "not identified" at a
        # vistoria that never took place
        [facts] = [s for s in issuing.notice_sheet(act.notice).sections
                   if s.title == "Fatos"]
        rows = dict(r for b in facts.blocks if isinstance(b, Rows) for r in b.rows)
        assert "Condutor" not in rows and "Titular da permissão" in rows
        assert any("sem vistoria" in b.text for b in facts.blocks if isinstance(b, Text))


def test_a_suspensive_appeal_window_holds_the_suspension_until_it_closes(app):
    """Nortelândia 030 Art. 16 § 2º: appeal to the mayor within 10 days, suspensive."""
    with app.app_context():
        f, _, _, susp = nortelandia_030_suspension(T0)
        # 10 business days from Mon 02/03 (Art. 16 § 2º "na forma prevista no CPC", CPC 219)
        assert susp.appeal_until == date(2026, 3, 16)
        enforcement.tick(local(2026, 3, 16, 23))
        assert db.session.get(Permit, f["permit"].id).status == Status.ACTIVE
        report = enforcement.tick(local(2026, 3, 17, 0, 1))
        assert susp.id in report.windows_closed and susp.id in report.effects
        assert db.session.get(Permit, f["permit"].id).status == Status.SUSPENDED


def test_a_refused_suspensive_appeal_lets_the_suspension_apply(app):
    with app.app_context():
        f, sup, admin, susp = nortelandia_030_suspension(T0)
        ap = enforcement.file_appeal(susp, filed_on=date(2026, 3, 10), filed_by="Empresa X",
                                     filed_by_role="company", text_="Recorremos da suspensão.",
                                     user=sup, now=local(2026, 3, 10, 11))
        assert ap.admitted and susp.suspended and ap.to == "mayor"
        db.session.commit()
        enforcement.tick(local(2026, 3, 20))
        assert db.session.get(Permit, f["permit"].id).status == Status.ACTIVE
        with pytest.raises(enforcement.NotAllowed):     # the mayor's: recorded by an admin
            enforcement.decide_appeal(ap, sup, local(2026, 3, 21), accepted=False,
                                      text_="Mantida a suspensão.")
        db.session.rollback()
        enforcement.decide_appeal(ap, admin, local(2026, 3, 21), accepted=False,
                                  text_="Mantida a suspensão.", ref="Decisão 4/2026")
        db.session.commit()
        assert db.session.get(Sanction, susp.id).status == SanctionStatus.APPEAL_REFUSED
        assert db.session.get(Permit, f["permit"].id).status == Status.SUSPENDED


def test_an_upheld_appeal_voids_the_daily_fine(app):
    with app.app_context():
        _, _, sup, act_id = _confirmed_notice()
        enforcement.tick(T0 + timedelta(days=4))
        act = db.session.get(Sanction, act_id)
        ap = enforcement.file_appeal(act, filed_on=date(2026, 3, 9), filed_by="Condutor",
                                     filed_by_role="driver", text_="O retrovisor estava lá.",
                                     user=sup, now=local(2026, 3, 9, 9))
        enforcement.decide_appeal(ap, sup, local(2026, 3, 9, 10), accepted=True,
                                  text_="A foto não mostra o defeito.")
        db.session.commit()
        daily = db.session.scalar(select(Sanction).where(Sanction.parent_id == act_id))
        assert daily.status == SanctionStatus.APPEAL_ACCEPTED
        assert daily.fine.accrued_days == 0 and daily.fine.accrued_brl == Decimal("0")
        assert enforcement.tick(local(2026, 3, 20)).accrued == []


def test_warnings_close_when_the_appeal_window_is_over(app):
    with app.app_context():
        f = fleet("nortelandia", "mototaxi")
        agent, sup = factories.user("agent", "nortelandia"), factories.user("supervisor", "nortelandia")
        db.session.commit()
        [warning] = enforcement.acts_of(inspect(f["vehicle"], agent, {"vest": "fail"}, T0))
        confirm_delivered(warning, sup, T0)
        db.session.commit()
        # 10 business days from Mon 02/03 end Mon 16/03 (Lei 030/1998 Art. 16 § 2º, CPC 219)
        assert enforcement.tick(local(2026, 3, 16, 23)).closed == []
        assert enforcement.tick(local(2026, 3, 17, 1)).closed == [warning.id]
        assert db.session.get(Sanction, warning.id).status == SanctionStatus.CLOSED


def test_cli_tick_with_a_frozen_clock_and_json(app, runner):
    with app.app_context():
        _, _, _, act_id = _confirmed_notice()
    r = runner.invoke(args=["enforcement", "tick", "--now", "2026-03-05T10:30:00-04:00",
                            "--json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert out["converted"] == [act_id] and out["now"].startswith("2026-03-05T14:30")
    r = runner.invoke(args=["enforcement", "tick", "--now", "2026-03-05T10:30"])  # local time
    assert r.exit_code == 0 and "0 alteração(ões)" in r.output
    with app.app_context():  # a synced inspection whose proposals are still to be made
        f = fleet("nortelandia", "mototaxi")
        agent = factories.user("agent", "nortelandia")
        insp = inspect(f["vehicle"], agent, {"vest": "fail"}, T0, complete=False)
        insp.status, insp.completed_at = InspectionStatus.AWAITING_REVIEW, T0
        db.session.commit()
    r = runner.invoke(args=["enforcement", "tick", "--now", "2026-03-05T10:31"])
    assert r.exit_code == 0 and "1 vistoria(s) com atos propostos" in r.output, r.output
    bad = runner.invoke(args=["enforcement", "tick", "--now", "amanhã"])
    assert bad.exit_code == 2 and "--now inválido" in bad.output


def test_an_upheld_appeal_restores_the_registration_the_act_revoked(app):
    """Tapurah Art. 14 § ú: the rider's licence revoked; the appeal (Art. 30) is upheld."""
    with app.app_context():
        f = fleet("tapurah", "mototaxi")
        agent, sup = factories.user("agent", "tapurah"), factories.user("supervisor", "tapurah")
        db.session.commit()
        revocation, fine = enforcement.acts_of(
            inspect(f["vehicle"], agent, {"one-passenger": "fail"}, T0))
        confirm_delivered(revocation, sup, T0 + timedelta(hours=1))
        confirm_delivered(fine, sup, T0 + timedelta(hours=1))
        db.session.commit()
        assert db.session.get(Driver, f["driver"].id).status == Status.REVOKED
        ap = enforcement.file_appeal(revocation, filed_on=date(2026, 3, 4), filed_by="Condutor",
                                     filed_by_role="driver", text_="Era minha filha de 8 anos.",
                                     user=sup, now=local(2026, 3, 4, 9))
        enforcement.decide_appeal(ap, sup, local(2026, 3, 5, 9), accepted=True,
                                  text_="Certidão de nascimento comprova 8 anos.")
        db.session.commit()
        assert db.session.get(Driver, f["driver"].id).status == Status.ACTIVE
        assert db.session.get(Sanction, fine.id).status == SanctionStatus.CONFIRMED  # own appeal


def test_an_upheld_appeal_does_not_reactivate_what_was_revoked_before(app):
    with app.app_context():
        f = fleet("tapurah", "mototaxi")
        agent, sup = factories.user("agent", "tapurah"), factories.user("supervisor", "tapurah")
        f["driver"].status = Status.REVOKED      # revoked earlier, for another reason
        db.session.commit()
        revocation, _ = enforcement.acts_of(
            inspect(f["vehicle"], agent, {"one-passenger": "fail"}, T0))
        assert revocation.driver_id == f["driver"].id
        confirm_delivered(revocation, sup, T0 + timedelta(hours=1))
        assert revocation.effect_applied_at is not None
        ap = enforcement.file_appeal(revocation, filed_on=date(2026, 3, 4), filed_by="Condutor",
                                     filed_by_role="driver", text_="Recorro da cassação.",
                                     user=sup, now=local(2026, 3, 4, 9))
        enforcement.decide_appeal(ap, sup, local(2026, 3, 5, 9), accepted=True,
                                  text_="Provido por falta de prova.")
        db.session.commit()
        assert db.session.get(Driver, f["driver"].id).status == Status.REVOKED


def test_a_tick_cut_short_keeps_its_finished_phases_and_the_next_does_the_rest(app, monkeypatch):
    """Each phase is its own transaction (row locks held one phase at a time): a tick that
    dies while accruing keeps the notice it had already converted (Tapurah Lei 406/2001
    Art. 29 § único: the daily fine once the 72 hours are over); the next tick does what the
    cut one never reached (Nortelândia Lei 127/2009 Art. 8 § único: a registration not
    revalidated is cancelled) without converting the notice twice."""
    tick_module = importlib.import_module("inspector.enforcement.tick")  # the face's tick() hides it
    with app.app_context():
        _, _, _, act_id = _confirmed_notice()
        late = factories.driver("nortelandia", "autonomo", registration_expiry=date(2026, 1, 1))
        db.session.commit()
        now = T0 + timedelta(days=4)

        def power_cut(*_a):
            raise RuntimeError("power cut")

        monkeypatch.setattr(tick_module, "_accrue", power_cut)
        with pytest.raises(RuntimeError):
            enforcement.tick(now)
        db.session.rollback()
        db.session.expire_all()
        assert db.session.get(Sanction, act_id).status == SanctionStatus.CONVERTED_TO_DAILY_FINE
        assert db.session.get(Driver, late.id).status != Status.REVOKED  # never reached
        monkeypatch.undo()
        again = enforcement.tick(now)
        assert again.converted == [] and len(again.automatic) == 1
        assert db.session.get(Driver, late.id).status == Status.REVOKED
        assert db.session.scalar(select(func.count(Sanction.id)).where(
            Sanction.parent_id == act_id)) == 1
        assert audit.verify()[1] is None
