"""Time runs from delivery, not from the decision (enforcement/delivery.py).

Nova Santa Helena Lei 535/2013 Art. 27 § único / Art. 28 § único ("Após o recebimento ... da
notificação"), Nortelândia Lei 030/1998 Art. 16 § 2º ("contados a partir da intimação"): an
act decided in the office issues its document and waits ("Aguardando entrega") until a
supervisor records its delivery; nothing runs before. The cases of each law
(tests/enforcement_cases/*.yaml, `do: deliver`) check the same for Nova Santa Helena's fine
(Art. 27 § único) and revocation, Nortelândia 030's suspension and Tapurah's revocation. Runs
on SQLite and PostgreSQL (DATABASE_URL)."""
from __future__ import annotations

from datetime import date, datetime, time, timedelta

import pytest
from sqlalchemy import func, select

from inspector import audit, enforcement
from inspector.clock import utc
from inspector.errors import ValidationFailed
from inspector.extensions import db
from inspector.models import AuditEntry, EnforcementEvent, Licence, Sanction, SanctionStatus, Status
from tests import factories
from tests.support.enforcement import GRAVE, decided_in_office, deliver, fleet, inspect, local
from tests.support.instants import CUIABA

T0 = local(2026, 3, 2, 10)


def _nortelandia_suspension():
    """Nortelândia 127 (Art. 26): the suspension of a dirty taxi's Alvará, chosen at T0 by the
    supervisor for the gravity of the fault instead of the notice the finding proposes."""
    f = fleet("nortelandia", "taxi")
    agent, sup = factories.user("agent", "nortelandia"), factories.user("supervisor", "nortelandia")
    db.session.commit()
    insp = inspect(f["vehicle"], agent, {"clean": "fail"}, T0)
    [act] = enforcement.choose(insp, sup, T0, key="gravity:suspension", reason=GRAVE)
    return f, sup, act


def test_art_26_suspension_decided_in_the_office_starts_at_its_delivery_not_at_the_decision(app):
    """Lei 127/2009 Art. 26 (and the rule of delivery.py): the decision issues the document
    but suspends nothing; two weeks of ticks change nothing; the delivery starts the period."""
    with app.app_context():
        f, sup, act = _nortelandia_suspension()
        d = enforcement.confirm(act, sup, T0 + timedelta(hours=1), days=10)
        db.session.commit()
        act = db.session.get(Sanction, act.id)
        assert d.notice is not None and act.awaiting_delivery
        assert act.notified_at is None and act.suspension_start is None
        assert act.effect_applied_at is None and act.notice.deadline_at is None
        assert db.session.get(Licence, f["licence"].id).status == Status.ACTIVE
        report = enforcement.tick(local(2026, 3, 16))
        assert act.id not in report.effects + report.closed + report.lifted
        assert db.session.get(Licence, f["licence"].id).status == Status.ACTIVE
        assert db.session.get(Sanction, act.id).status == SanctionStatus.CONFIRMED
        deliver(act, sup, local(2026, 3, 20, 9, 30), via="mail_ar", ref="AR JT123BR",
                recorded=local(2026, 3, 21, 8))
        db.session.commit()
        act = db.session.get(Sanction, act.id)
        assert not act.awaiting_delivery and act.delivered_via == "mail_ar"
        assert act.delivered_via_label == "correio com AR"
        assert (act.suspension_start, act.suspension_end) == (date(2026, 3, 20), date(2026, 3, 29))
        lic = db.session.get(Licence, f["licence"].id)
        assert lic.status == Status.SUSPENDED and lic.suspended_until == date(2026, 3, 29)
        assert act.delivery_recorded_by_id == sup.id
        entry = db.session.scalar(select(AuditEntry).where(
            AuditEntry.action == "sanction_delivered"))
        assert entry is not None and "AR JT123BR" in entry.after
        assert db.session.scalar(select(EnforcementEvent.text).where(
            EnforcementEvent.kind == "delivered")).startswith("Entrega registrada: correio com AR")
        assert audit.verify()[1] is None


def test_an_undelivered_72_hour_notice_never_turns_into_a_daily_fine(app):
    """Tapurah Lei 406/2001 Art. 29 § único: the 72 hours run from the notice's receipt; a
    notice nobody signed on the street and decided in the office is not converted by the tick
    before it is delivered. Without a time of day the hours count from the end of that day."""
    with app.app_context():
        f = fleet("tapurah", "mototaxi")
        agent, sup = factories.user("agent", "tapurah"), factories.user("supervisor", "tapurah")
        db.session.commit()
        [act] = enforcement.acts_of(inspect(f["vehicle"], agent, {"mirrors": "fail"}, T0,
                                            ack=None))
        assert act.notified_at is None and act.deadline_hours == 72
        enforcement.confirm(act, sup, T0 + timedelta(hours=1))
        db.session.commit()
        assert enforcement.tick(T0 + timedelta(days=10)).converted == []
        act = db.session.get(Sanction, act.id)
        assert act.deadline_at is None and act.status == SanctionStatus.CONFIRMED
        enforcement.record_delivery(act, sup, local(2026, 3, 13, 9), day=date(2026, 3, 12),
                                    via="hand", ref="Entregue ao condutor no ponto")
        db.session.commit()
        act = db.session.get(Sanction, act.id)
        end_of_12 = datetime.combine(date(2026, 3, 13), time(0), CUIABA) - timedelta(microseconds=1)
        assert utc(act.deadline_at) == end_of_12 + timedelta(hours=72)
        assert act.notice.deadline_at is not None
        assert enforcement.tick(local(2026, 3, 15, 23)).converted == []
        assert enforcement.tick(local(2026, 3, 16, 0, 1)).converted == [act.id]


@pytest.mark.parametrize("field, kw, message", [
    ("delivered_on", {"day": date(2026, 3, 2)},
     "A data da entrega não pode ser anterior à decisão (03/03/2026)."),
    ("delivered_on", {"day": date(2026, 3, 9)}, "A data da entrega não pode ser futura."),
    ("delivered_on", {"day": "ontem"}, "Informe a data da entrega."),
    ("delivered_time", {"at": "25:99"}, "Hora da entrega inválida: use hh:mm."),
    ("delivered_time", {"day": date(2026, 3, 3), "at": "08:00"},
     "A hora da entrega não pode ser anterior à decisão (10:00)."),
    ("delivered_via", {"via": "pombo"}, "Escolha como o documento foi entregue: em mãos, "
                                        "correio com AR, e-mail ou edital."),
    ("delivered_via", {"via": "street"}, "Escolha como o documento foi entregue: em mãos, "
                                         "correio com AR, e-mail ou edital."),
    ("delivery_ref", {"ref": ""}, "Informe a referência da entrega (nº do AR, quem recebeu, "
                                  "e-mail ou edital)."),
])
def test_a_bad_delivery_is_refused_naming_the_field_and_nothing_changes(app, field, kw, message):
    """The day is local, not in the future, not before the decision (the act cannot reach the
    offender before it exists); the means is one the office uses; a reference is kept."""
    with app.app_context():
        _, sup, act = _nortelandia_suspension()
        enforcement.confirm(act, sup, local(2026, 3, 3, 10), days=10)
        db.session.commit()
        before = db.session.scalar(select(func.count()).select_from(AuditEntry))
        args = {"day": date(2026, 3, 5), "via": "hand", "ref": "Recebido pelo titular"} | kw
        with pytest.raises(ValidationFailed) as info:
            enforcement.record_delivery(act, sup, local(2026, 3, 8, 12), **args)
        db.session.rollback()
        assert info.value.errors[field] == message
        act = db.session.get(Sanction, act.id)
        assert act.notified_at is None and act.delivered_via is None
        assert db.session.scalar(select(func.count()).select_from(AuditEntry)) == before


def test_only_supervision_records_a_delivery_and_only_once(app):
    with app.app_context():
        _, sup, act = _nortelandia_suspension()
        agent = factories.user("agent", "nortelandia", username="agente2")
        enforcement.confirm(act, sup, T0 + timedelta(hours=1), days=10)
        db.session.commit()
        with pytest.raises(enforcement.NotAllowed):
            enforcement.record_delivery(act, agent, T0 + timedelta(days=1), day=date(2026, 3, 2),
                                        via="hand", ref="Recebido pelo titular")
        db.session.rollback()
        deliver(act, sup, T0 + timedelta(hours=2))
        db.session.commit()
        with pytest.raises(ValidationFailed) as info:
            deliver(act, sup, T0 + timedelta(hours=3))
        # who recorded it, and when: the card beside it says the day of the delivery
        assert info.value.errors["status"].startswith("Este ato já foi entregue por Supervisor")


def test_a_street_notice_signed_by_the_rider_still_runs_from_the_street(app):
    """Tapurah Lei 406/2001 Art. 27 I: the rider's notice is handed over and signed ("ciente")
    on the street; its confirmation does not wait for any delivery."""
    with app.app_context():
        f = fleet("tapurah", "mototaxi")
        agent, sup = factories.user("agent", "tapurah"), factories.user("supervisor", "tapurah")
        db.session.commit()
        [act] = enforcement.acts_of(inspect(f["vehicle"], agent, {"mirrors": "fail"}, T0))
        enforcement.confirm(act, sup, T0 + timedelta(days=2))
        db.session.commit()
        act = db.session.get(Sanction, act.id)
        assert not act.awaiting_delivery and act.appeal_until == date(2026, 3, 10)


def test_migration_0020_down_and_up_with_a_delivered_act_present(app):
    """The delivery columns go with a downgrade to 0019 (the act and its `notified_at` stay:
    time still runs from the delivery) and come back empty with the upgrade."""
    import flask_migrate
    from sqlalchemy import inspect as sa_inspect

    with app.app_context():
        _, sup, act = _nortelandia_suspension()
        enforcement.confirm(act, sup, T0 + timedelta(hours=1), days=10)
        deliver(act, sup, local(2026, 3, 4, 9), via="email", ref="titular@example.com",
                recorded=local(2026, 3, 4, 10))
        db.session.commit()
        act_id, notified = act.id, utc(act.notified_at)
        db.session.remove()
        flask_migrate.downgrade(revision="0019")
        try:
            cols = {c["name"] for c in sa_inspect(db.engine).get_columns("sanctions")}
            assert not cols & {"delivered_via", "delivery_ref", "delivery_recorded_by_id",
                               "delivery_recorded_at"}
            with db.engine.connect() as conn:
                t = Sanction.__table__
                got = conn.execute(select(t.c.notified_at).where(t.c.id == act_id)).scalar()
            assert utc(got) == notified
        finally:
            flask_migrate.upgrade()
        row = db.session.get(Sanction, act_id)
        assert utc(row.notified_at) == notified and row.delivered_via is None
        assert row.delivery_recorded_by_id is None and not row.awaiting_delivery


def test_a_notice_fixed_before_its_delivery_is_complied_with_and_waits_no_more(app):
    """Tapurah Lei 406/2001 Art. 29: the notice asks "as providências necessárias ao saneamento
    da irregularidade"; a re-inspection that finds it fixed closes it even before the document
    reached the rider, so it no longer waits for a delivery that would start a dead deadline."""
    with app.app_context():
        o = decided_in_office("tapurah", "mototaxi", {"mirrors": "fail"}, T0 + timedelta(hours=1))
        act = o.act
        assert db.session.get(Sanction, act.id).awaiting_delivery
        inspect(o.fleet["vehicle"], o.agent, {"mirrors": "ok"}, T0 + timedelta(days=1))
        db.session.commit()
        act = db.session.get(Sanction, act.id)
        assert act.status == SanctionStatus.COMPLIED and not act.awaiting_delivery
        assert act.notice.complied_at is not None and act.deadline_at is None
