"""Reversing (estorno) a fine payment recorded by mistake: the payment is never deleted or
edited, it stays with who reversed it, when and why, stops counting (a fine paid in full is
"em aberto" again, back on the open fines list), the audit log and the enforcement history
say so, and its DAM/receipt number may be recorded again. Reversing twice, another town's
payment, without the role or without a reason is refused in pt-BR and changes nothing.
Runs on SQLite and PostgreSQL (DATABASE_URL)."""
from __future__ import annotations

import json
from datetime import date, timedelta
from decimal import Decimal

import pytest
from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError

from inspector import audit, enforcement
from inspector.enforcement import payments
from inspector.errors import ValidationFailed
from inspector.extensions import db
from inspector.models import AuditEntry, EnforcementEvent, FinePayment, Sanction
from tests import factories
from tests.support.enforcement import local
from tests.support.fines import T0, confirmed_fine, daily_fine


def _count(model, *where) -> int:
    return db.session.scalar(select(func.count()).select_from(model).where(*where))


def _paid_in_full(act, sup):
    """R$ 525,00 paid in two DAMs on 05/03 and 06/03/2026: "quitada"."""
    first = payments.record_payment(act, sup, local(2026, 3, 5, 9), paid_on="2026-03-05",
                                    amount="200,00", receipt="DAM-1")
    second = payments.record_payment(act, sup, local(2026, 3, 6, 9), paid_on="2026-03-06",
                                     amount="325,00", receipt="DAM-2")
    db.session.commit()
    assert payments.balance_of(db.session.get(Sanction, act.id)).state == "paid"
    return first.id, second.id


def test_a_reversed_payment_stays_in_the_history_and_the_paid_fine_is_open_again(app):
    with app.app_context():
        _, sup, act = confirmed_fine()
        town = act.municipality_id
        first, second = _paid_in_full(act, sup)
        assert payments.open_fines(town) == ([], False)
        p = db.session.get(FinePayment, second)
        payments.reverse_payment(p, sup, local(2026, 3, 9, 14),
                                 reason="  Valor digitado errado: o DAM é de R$ 235,00.  ")
        db.session.commit()
        p = db.session.get(FinePayment, second)
        assert p.reversed and p.reversed_by_id == sup.id
        assert p.reversal_reason == "Valor digitado errado: o DAM é de R$ 235,00."
        assert (p.paid_on, p.amount_brl, p.receipt) == \
            (date(2026, 3, 6), Decimal("325.00"), "DAM-2")          # kept as it was
        assert payments.reversal_text(p) == ("estornado em 09/03/2026 por Supervisor de "
                                             "Teste: Valor digitado errado: o DAM é de "
                                             "R$ 235,00.")
        b = payments.balance_of(db.session.get(Sanction, act.id))
        assert (b.state, b.label, b.paid, b.outstanding) == \
            ("partial", "paga parcialmente", Decimal("200.00"), Decimal("325.00"))
        payments.reverse_payment(db.session.get(FinePayment, first), sup,
                                 local(2026, 3, 9, 15), reason="DAM de outra multa.")
        db.session.commit()
        b = payments.balance_of(db.session.get(Sanction, act.id))
        assert (b.state, b.label, b.text) == ("open", "em aberto", "em aberto: R$ 525,00")
        assert _count(FinePayment) == 2                            # nothing deleted
        [row] = payments.open_fines(town)[0]                      # back on the list
        assert (row.fine.sanction_id, row.state, row.paid) == (act.id, "open", Decimal("0"))
        # audited in the hash chain, and in the act's history
        entries = db.session.scalars(select(AuditEntry).where(
            AuditEntry.action == "fine_payment_reversed").order_by(AuditEntry.id)).all()
        assert [e.actor_id for e in entries] == [sup.id, sup.id]
        before, after = json.loads(entries[0].before), json.loads(entries[0].after)
        assert (before["state"], before["paid_brl"]) == ("paid", "525.00")
        assert (after["state"], after["paid_brl"], after["payment_id"], after["receipt"]) == \
            ("partial", "200.00", second, "DAM-2")
        assert after["reason"] == "Valor digitado errado: o DAM é de R$ 235,00."
        assert json.loads(entries[1].after)["state"] == "open"
        assert audit.verify()[1] is None
        events = db.session.scalars(select(EnforcementEvent).where(
            EnforcementEvent.kind == "payment_reversed").order_by(EnforcementEvent.id)).all()
        assert [e.sanction_id for e in events] == [act.id, act.id]
        assert events[0].text == ("Pagamento estornado: R$ 325,00 em 06/03/2026 (DAM/recibo "
                                  "DAM-2). Motivo: Valor digitado errado: o DAM é de R$ 235,00. "
                                  "Multa paga parcialmente: R$ 200,00 de R$ 525,00, faltam "
                                  "R$ 325,00.")


def test_a_reversed_dam_may_be_recorded_again_but_a_live_one_only_once(app):
    with app.app_context():
        _, sup, act = confirmed_fine()
        _, second = _paid_in_full(act, sup)
        with pytest.raises(ValidationFailed) as info:            # paid: no more payments
            payments.record_payment(act, sup, local(2026, 3, 9), paid_on="2026-03-06",
                                    amount="235", receipt="DAM-2")
        db.session.rollback()
        assert info.value.errors["amount"] == "Esta multa já está quitada (R$ 525,00 pagos)."
        payments.reverse_payment(db.session.get(FinePayment, second), sup,
                                 local(2026, 3, 9, 14), reason="Valor digitado errado.")
        db.session.commit()
        act = db.session.get(Sanction, act.id)
        payments.record_payment(act, sup, local(2026, 3, 9, 15), paid_on="2026-03-06",
                                amount="235,00", receipt="DAM-2")  # the right amount
        db.session.commit()
        b = payments.balance_of(db.session.get(Sanction, act.id))
        assert (b.state, b.paid, b.outstanding) == ("partial", Decimal("435.00"),
                                                    Decimal("90.00"))
        with pytest.raises(ValidationFailed) as info:            # DAM-2 stands again
            payments.record_payment(act, sup, local(2026, 3, 9, 16), paid_on="2026-03-06",
                                    amount="90", receipt="DAM-2")
        db.session.rollback()
        assert info.value.errors == {"receipt": f"O DAM/recibo DAM-2 já foi registrado "
                                                f"(ato nº {act.id})."}
        # the database itself: one live row per number and town, reversed ones aside
        fine_id = db.session.get(Sanction, act.id).fine.id
        with pytest.raises(IntegrityError):
            db.session.add(FinePayment(municipality_id=act.municipality_id, fine_id=fine_id,
                                       paid_on=date(2026, 3, 6), amount_brl=Decimal("1"),
                                       receipt="DAM-2", recorded_at=local(2026, 3, 9)))
            db.session.flush()
        db.session.rollback()
        with pytest.raises(IntegrityError):                      # a reversal needs a reason
            db.session.add(FinePayment(municipality_id=act.municipality_id, fine_id=fine_id,
                                       paid_on=date(2026, 3, 6), amount_brl=Decimal("1"),
                                       receipt="DAM-3", recorded_at=local(2026, 3, 9),
                                       reversed_at=local(2026, 3, 9)))
            db.session.flush()
        db.session.rollback()


def test_refusals_are_in_portuguese_and_change_nothing(app):
    with app.app_context():
        _, sup, act = confirmed_fine()
        _, second = _paid_in_full(act, sup)
        agent = factories.user("agent", "tapurah")
        other = factories.user("supervisor", "sapezal")
        admin = factories.user("admin", "tapurah", name="Admin de Tapurah")
        db.session.commit()
        entries, events = _count(AuditEntry), _count(EnforcementEvent)
        now = local(2026, 3, 9, 14)
        cases = [
            (agent, "Engano.", enforcement.NotAllowed,
             {"role": "Só a supervisão ou a administração estornam pagamentos de multas."}),
            (other, "Engano de digitação.", enforcement.NotAllowed,
             {"role": "Este pagamento é de outro município."}),
            (sup, "", ValidationFailed, {"reason": "Informe o motivo do estorno."}),
            (sup, "   ", ValidationFailed, {"reason": "Informe o motivo do estorno."}),
            (sup, "erro", ValidationFailed,
             {"reason": "Texto curto demais: diga o motivo do estorno com clareza."}),
            (sup, "x" * 1001, ValidationFailed,
             {"reason": "Texto longo demais (máximo 1000 caracteres)."}),
        ]
        for user, reason, kind, errors in cases:
            with pytest.raises(kind) as info:
                payments.reverse_payment(db.session.get(FinePayment, second), user, now,
                                         reason=reason)
            db.session.rollback()
            assert info.value.errors == errors, reason
        assert _count(FinePayment, FinePayment.reversed_at.is_not(None)) == 0
        assert (_count(AuditEntry), _count(EnforcementEvent)) == (entries, events)
        # an admin of the town may reverse; a second reversal is refused, saying who and when
        payments.reverse_payment(db.session.get(FinePayment, second), admin, now,
                                 reason="Pagamento lançado na multa errada.")
        db.session.commit()
        entries, events = _count(AuditEntry), _count(EnforcementEvent)
        with pytest.raises(payments.AlreadyReversed) as info:
            payments.reverse_payment(db.session.get(FinePayment, second), sup,
                                     now + timedelta(days=1), reason="De novo, por engano.")
        db.session.rollback()
        assert info.value.errors == {"status": "Este pagamento já foi estornado em 09/03/2026 "
                                               "por Admin de Tapurah: Pagamento lançado na "
                                               "multa errada."}
        p = db.session.get(FinePayment, second)
        assert p.reversal_reason == "Pagamento lançado na multa errada."
        assert (_count(AuditEntry), _count(EnforcementEvent)) == (entries, events)


def test_reversing_a_payment_of_a_daily_fine_keeps_it_running(app):
    """The payment's reversal changes what is paid, never the accrual (Tapurah Art. 29 § ú)."""
    with app.app_context():
        _, _, sup, daily = daily_fine()
        p = payments.record_payment(daily, sup, T0 + timedelta(hours=74), paid_on="2026-03-05",
                                    amount="972,60", receipt="DAM-77")
        db.session.commit()
        payments.reverse_payment(p, sup, T0 + timedelta(hours=75), reason="DAM de outro ato.")
        db.session.commit()
        enforcement.tick(T0 + timedelta(hours=73 + 24))
        b = payments.balance_of(db.session.get(Sanction, daily.id))
        assert (b.state, b.due, b.paid, b.running) == \
            ("open", Decimal("1945.20"), Decimal("0.00"), True)


def test_two_reversals_at_once_let_one_through(app):
    """Two supervisors press "Estornar" together: one reversal, one audit entry, the other
    is told it was already reversed."""
    import threading
    with app.app_context():
        _, sup, act = confirmed_fine()
        other = factories.user("supervisor", "tapurah")
        _, second = _paid_in_full(act, sup)
        users = [sup.id, other.id]
        entries = _count(AuditEntry, AuditEntry.action == "fine_payment_reversed")
    out: list = [None, None]
    barrier = threading.Barrier(2)

    def one(i: int) -> None:
        with app.app_context():
            from inspector.models import User
            user, p = db.session.get(User, users[i]), db.session.get(FinePayment, second)
            barrier.wait()
            try:
                payments.reverse_payment(p, user, local(2026, 3, 9, 14),
                                         reason=f"Engano número {i}.")
                db.session.commit()
                out[i] = "ok"
            except Exception as e:  # noqa: BLE001 - the test reports it
                db.session.rollback()
                out[i] = e
            finally:
                db.session.remove()
    threads = [threading.Thread(target=one, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert sorted(type(x).__name__ for x in out) == ["AlreadyReversed", "str"], out
    with app.app_context():
        assert _count(AuditEntry, AuditEntry.action == "fine_payment_reversed") == entries + 1
        assert payments.balance_of(db.session.get(Sanction, act.id)).state == "partial"
