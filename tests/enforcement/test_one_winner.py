"""Of eight decisions sent at the same moment on one shared object, exactly one is taken: the
others answer 409 with who decided and when, and write nothing (no second audit entry, no
document for a rejected act). Eight signed-in people against the app behind a real threaded
WSGI server; runs on SQLite and on PostgreSQL (DATABASE_URL)."""
from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import func, select

from inspector import enforcement
from inspector.clock import default_day
from inspector.extensions import db
from inspector.models import (
    Appeal,
    AppealStatus,
    AuditEntry,
    FinePayment,
    Notice,
    Sanction,
    SanctionStatus,
)
from tests import factories
from tests.support.concurrent import at_once, one_winner, people
from tests.support.enforcement import GRAVE, decided_in_office, fleet, inspect, local, set_values

_SEEN = re.compile(r'name="grant_seen" value="([^"]*)"')
DECISIONS = ("sanction_confirmed", "sanction_amended", "sanction_rejected")


def audit_count(entity: str, ident: int, actions) -> int:
    return db.session.scalar(select(func.count(AuditEntry.id)).where(
        AuditEntry.entity == entity, AuditEntry.entity_id == str(ident),
        AuditEntry.action.in_(actions)))


def notices_of(act_id: int) -> int:
    return db.session.scalar(select(func.count(Notice.id)).where(Notice.sanction_id == act_id))


@pytest.fixture
def proposed(app):
    """A Tapurah rider's notice for a missing tank sign (Lei 406/2001 Art. 27 I), proposed from
    an inspection signed on the street two hours ago."""
    with app.app_context():
        f = fleet("tapurah", "mototaxi")
        agent = factories.user("agent", "tapurah")
        insp = inspect(f["vehicle"], agent, {"tank-sign": "fail"},
                       datetime.now(UTC) - timedelta(hours=2))
        db.session.commit()
        [act] = enforcement.acts_of(insp)
        return act.id


def test_four_confirmations_and_four_rejections_at_once_take_one_decision(app, live_server,
                                                                          proposed):
    sups = people(live_server, app, "supervisor", "tapurah")
    base = f"/revisao/atos/{proposed}"
    answers = at_once([(p, f"{base}/confirmar", {}) for p in sups[:4]]
                      + [(p, f"{base}/rejeitar", {"reason": "A placa estava no tanque."})
                         for p in sups[4:]])
    refusal = one_winner(answers)
    assert "Este ato já foi decidido por Supervisor " in refusal
    with app.app_context():
        act = db.session.get(Sanction, proposed)
        assert audit_count("sanction", proposed, DECISIONS) == 1
        # the act a citizen receives never contradicts the record: a document iff confirmed
        if act.status == SanctionStatus.CONFIRMED:
            assert notices_of(proposed) == 1
        else:
            assert act.status == SanctionStatus.REJECTED and notices_of(proposed) == 0
        assert db.session.scalar(select(func.count(AuditEntry.id)).where(
            AuditEntry.action == "notice_issued")) == notices_of(proposed)


def test_eight_amendments_at_once_take_one(app, live_server):
    """Nortelândia Lei 127/2009 Art. 26: a suspension the supervisor chose by the gravity of the
    fault; eight supervisors amend its length at once."""
    with app.app_context():
        f = fleet("nortelandia", "taxi")
        agent, sup = factories.user("agent", "nortelandia"), factories.user("supervisor",
                                                                            "nortelandia")
        insp = inspect(f["vehicle"], agent, {"clean": "fail"},
                       datetime.now(UTC) - timedelta(hours=2), ack="Condutor de Teste")
        [act] = enforcement.choose(insp, sup, datetime.now(UTC), key="gravity:suspension",
                                   reason=GRAVE)
        db.session.commit()
        act_id = act.id
    sups = people(live_server, app, "supervisor", "nortelandia")
    answers = at_once([(p, f"/revisao/atos/{act_id}/alterar",
                        {"days": str(3 + i), "reason": f"Gravidade apurada no relatório ({i})."})
                       for i, p in enumerate(sups)])
    assert "Este ato já foi decidido por Supervisor " in one_winner(answers)
    with app.app_context():
        assert db.session.get(Sanction, act_id).status == SanctionStatus.AMENDED
        assert audit_count("sanction", act_id, DECISIONS) == 1
        assert notices_of(act_id) == 1


def test_eight_grants_of_the_repair_days_and_eight_removals_take_one_each(app, live_server,
                                                                          proposed):
    """Tapurah Art. 19: "a critério, poderá ser concedido prazo máximo de 10 dias"."""
    sups = people(live_server, app, "supervisor", "tapurah")
    base = f"/revisao/atos/{proposed}/prazo"
    seen = [_SEEN.search(p.request("GET", f"/revisao/atos/{proposed}")[1]).group(1)
            for p in sups]   # each form carries the deadline as its page showed it
    answers = at_once([(p, base, {"grant_days": str(i + 2), "grant_seen": seen[i],
                                  "grant_reason": "Peça encomendada, chega na semana que vem."})
                       for i, p in enumerate(sups)])
    assert "Este ato já foi alterado por Supervisor " in one_winner(answers)
    with app.app_context():
        assert audit_count("sanction", proposed, ("sanction_deadline_granted",)) == 1
    seen = [_SEEN.search(p.request("GET", f"/revisao/atos/{proposed}")[1]).group(1)
            for p in sups]
    answers = at_once([(p, f"{base}/retirar", {"grant_seen": seen[i], "grant_reason":
                                               "A peça já chegou, não há motivo para o prazo."})
                       for i, p in enumerate(sups)])
    one_winner(answers)
    with app.app_context():
        assert audit_count("sanction", proposed, ("sanction_deadline_grant_removed",)) == 1
        assert db.session.get(Sanction, proposed).deadline_granted_by is None


def test_eight_deliveries_at_once_record_one(app, live_server):
    """Nortelândia 030 Art. 16 § 2º: time runs from the intimação, recorded once."""
    with app.app_context():
        o = decided_in_office("nortelandia", "taxi", {"clean": "fail"},
                              datetime.now(UTC) - timedelta(hours=2), ack="Condutor de Teste",
                              gravity="suspension", days=10)
        act_id, today = o.act.id, default_day(datetime.now(UTC))
    sups = people(live_server, app, "supervisor", "nortelandia")
    answers = at_once([(p, f"/revisao/atos/{act_id}/entrega",
                        {"delivered_on": today.isoformat(), "delivered_time": "",
                         "delivered_via": "hand", "delivery_ref": f"Recebido pelo titular {i}"})
                       for i, p in enumerate(sups)])
    assert "Este ato já foi entregue por Supervisor " in one_winner(answers)
    with app.app_context():
        assert audit_count("sanction", act_id, ("sanction_delivered",)) == 1
        assert audit_count("sanction", act_id, ("status_changed",)) == 0


@pytest.fixture
def fine(app):
    """Tapurah Art. 14 § único: the holder fined 100 UFIM = R$ 525,00, confirmed an hour ago
    on a notice signed on the street."""
    with app.app_context():
        f = fleet("tapurah", "mototaxi")
        set_values("tapurah", fiscal_unit=5.25)
        agent, sup = factories.user("agent", "tapurah"), factories.user("supervisor", "tapurah")
        db.session.commit()
        _, act = enforcement.acts_of(inspect(f["vehicle"], agent, {"one-passenger": "fail"},
                                             datetime.now(UTC) - timedelta(hours=2)))
        enforcement.confirm(act, sup, datetime.now(UTC) - timedelta(hours=1))
        db.session.commit()
        return act.id


def test_eight_appeals_at_once_file_one_and_eight_decisions_decide_it_once(app, live_server,
                                                                           fine):
    sups = people(live_server, app, "supervisor", "tapurah")
    today = default_day(datetime.now(UTC))
    answers = at_once([(p, f"/revisao/atos/{fine}/recurso",
                        {"filed_on": today.isoformat(), "filed_by": f"João da Silva {i}",
                         "filed_by_role": "holder",
                         "text": "A passageira era a minha filha de oito anos."})
                       for i, p in enumerate(sups)])
    one_winner(answers, lost=(409, 422))
    with app.app_context():
        [appeal] = db.session.scalars(select(Appeal).where(Appeal.sanction_id == fine)).all()
        assert audit_count("sanction", fine, ("sanction_appealed",)) == 1
        deciders = sups if appeal.to != "mayor" else people(live_server, app, "admin", "tapurah")
        appeal_id = appeal.id
    answers = at_once([(p, f"/revisao/recursos/{appeal_id}/decidir",
                        {"accepted": "1" if i % 2 else "0", "ref": "Decreto 7/2026",
                         "decision_text": "Fundamentação da decisão do recurso."})
                       for i, p in enumerate(deciders)])
    assert "Este recurso já foi decidido por " in one_winner(answers)
    with app.app_context():
        assert db.session.get(Appeal, appeal_id).status in (AppealStatus.ACCEPTED,
                                                            AppealStatus.REFUSED)
        assert audit_count("appeal", appeal_id, ("appeal_decided",)) == 1
        assert audit_count("sanction", fine, ("sanction_appeal_accepted",
                                              "sanction_appeal_refused")) == 1


def test_eight_full_payments_at_once_record_one_and_eight_reversals_reverse_it_once(
        app, live_server, fine):
    with app.app_context():
        due = enforcement.balance_of(db.session.get(Sanction, fine)).outstanding
    sups = people(live_server, app, "supervisor", "tapurah")
    today = default_day(datetime.now(UTC)).isoformat()
    amount = f"{due:.2f}".replace(".", ",")
    answers = at_once([(p, f"/revisao/atos/{fine}/pagamento",
                        {"paid_on": today, "amount_paid": amount, "receipt": f"DAM {1000 + i}"})
                       for i, p in enumerate(sups)])
    one_winner(answers, lost=(409, 422))
    with app.app_context():
        [payment] = db.session.scalars(select(FinePayment)).all()
        payment_id = payment.id
    answers = at_once([(p, f"/revisao/pagamentos/{payment_id}/estorno",
                        {"reason": "DAM de outra multa, lançado por engano."}) for p in sups])
    one_winner(answers)
    with app.app_context():
        assert audit_count("fine", payment.fine_id, ("fine_payment_reversed",)) == 1


@pytest.fixture
def mayors_act(app):
    """Sapezal Lei 060/1998 Art. 20 § único: the employer's licence revoked for not acting on
    the driver's offence, a measure the law gives the mayor; chosen by the supervisor."""
    with app.app_context():
        f = fleet("sapezal", "taxi")
        agent, sup = factories.user("agent", "sapezal"), factories.user("supervisor", "sapezal")
        insp = inspect(f["vehicle"], agent, {"roof-light": "fail"}, local(2026, 3, 2))
        db.session.commit()
        [act] = enforcement.choose(insp, sup, datetime.now(UTC), key="employer-inaction",
                                   reason="O titular foi avisado e não tomou providências.")
        db.session.commit()
        return act.id


def test_eight_confirmations_of_a_mayors_act_forward_it_once_and_the_mayors_decision_once(
        app, live_server, mayors_act):
    admins = people(live_server, app, "admin", "sapezal")   # who also reviews, as supervisors do
    refusal = one_winner(at_once([(p, f"/revisao/atos/{mayors_act}/confirmar", {})
                                  for p in admins]))
    assert "Este ato já foi encaminhado ao prefeito por Admin " in refusal
    with app.app_context():
        assert audit_count("sanction", mayors_act, ("sanction_forwarded_to_mayor",)) == 1
    answers = at_once([(p, f"/revisao/atos/{mayors_act}/prefeito",
                        {"decision": "confirm" if i % 2 else "reject", "ref": "Decreto 12/2026",
                         "reason": "O titular provou que afastou o motorista."})
                       for i, p in enumerate(admins)])
    assert "Este ato já foi decidido por Admin " in one_winner(answers)
    with app.app_context():
        act = db.session.get(Sanction, mayors_act)
        assert audit_count("sanction", mayors_act, DECISIONS) == 1
        assert notices_of(mayors_act) == (1 if act.status == SanctionStatus.CONFIRMED else 0)
