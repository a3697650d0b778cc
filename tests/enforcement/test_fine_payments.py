"""Payments of fines recorded from the treasury's DAM or receipt: validation in pt-BR with
nothing written on a refusal, the audit entry, the states "em aberto" / "paga parcialmente" /
"quitada", a daily fine that keeps accruing until the fix whatever is paid, and the
supervisor's list of open fines. Runs on SQLite and PostgreSQL (DATABASE_URL)."""
from __future__ import annotations

import json
from datetime import date, timedelta
from decimal import Decimal

import pytest
from sqlalchemy import func, select

from inspector import audit, enforcement
from inspector.enforcement import payments
from inspector.errors import ValidationFailed
from inspector.extensions import db
from inspector.models import AuditEntry, FinePayment, Sanction
from tests import factories
from tests.support.enforcement import inspect, local
from tests.support.fines import T0, confirmed_fine, daily_fine


def _count(model) -> int:
    return db.session.scalar(select(func.count()).select_from(model))


def test_bad_payments_are_refused_field_by_field_in_portuguese_and_nothing_is_written(app):
    with app.app_context():
        _, sup, act = confirmed_fine()
        entries = _count(AuditEntry)
        now = local(2026, 3, 10, 15)
        cases = [
            ({"paid_on": "2026-03-11", "amount": "100", "receipt": "DAM-1"},
             {"paid_on": "A data do pagamento não pode ser futura."}),
            ({"paid_on": "2026-03-01", "amount": "100", "receipt": "DAM-1"},
             {"paid_on": "A data do pagamento não pode ser anterior à multa (02/03/2026)."}),
            ({"paid_on": "31/02/2026", "amount": "-5", "receipt": ""},
             {"paid_on": "Data inválida: use dd/mm/aaaa.",
              "amount": "O valor pago não pode ser negativo.",
              "receipt": "Informe o número do DAM ou do recibo."}),
            ({"paid_on": "", "amount": "0,00", "receipt": "D"},
             {"paid_on": "Informe a data do pagamento.",
              "amount": "O valor pago deve ser maior que zero.",
              "receipt": "Número do DAM/recibo inválido: de 3 a 40 letras ou números (pode "
                         "ter ponto, barra e hífen)."}),
            ({"paid_on": "2026-03-05", "amount": "dez reais", "receipt": "DAM 1"},
             {"amount": "Valor inválido: use números, por exemplo 1.234,56."}),
            ({"paid_on": "2026-03-05", "amount": "10,005", "receipt": "DAM 1"},
             {"amount": "Use no máximo dois decimais (centavos)."}),
            ({"paid_on": "2026-03-05", "amount": "525,01", "receipt": "DAM 1"},
             {"amount": "O valor passa do saldo devedor (R$ 525,00). Juros ou correção "
                        "cobrados pela Fazenda não entram aqui: registre só o valor da multa."}),
        ]
        for data, errors in cases:
            with pytest.raises(ValidationFailed) as info:
                payments.record_payment(act, sup, now, **data)
            db.session.rollback()
            assert info.value.errors == errors, data
        assert _count(FinePayment) == 0 and _count(AuditEntry) == entries
        agent = factories.user("agent", "tapurah")
        with pytest.raises(enforcement.NotAllowed):
            payments.record_payment(act, agent, now, paid_on="2026-03-05", amount="10",
                                    receipt="DAM-2")


def test_open_then_partly_paid_then_paid_and_each_payment_audited(app):
    with app.app_context():
        _, sup, act = confirmed_fine()
        act = db.session.get(Sanction, act.id)
        assert payments.balance_of(act).label == "em aberto"
        payments.record_payment(act, sup, local(2026, 3, 5, 9), paid_on="05/03/2026",
                                amount="200,00", receipt="dam 2026/0001")
        db.session.commit()
        b = payments.balance_of(db.session.get(Sanction, act.id))
        assert (b.state, b.label, b.paid, b.outstanding) == \
            ("partial", "paga parcialmente", Decimal("200.00"), Decimal("325.00"))
        assert b.text == "paga parcialmente: R$ 200,00 de R$ 525,00, faltam R$ 325,00"
        with pytest.raises(ValidationFailed) as info:      # the same DAM twice
            payments.record_payment(act, sup, local(2026, 3, 6), paid_on="2026-03-06",
                                    amount="325", receipt="DAM2026/0001")
        db.session.rollback()
        assert info.value.errors == {"receipt": f"O DAM/recibo DAM2026/0001 já foi registrado "
                                                f"(ato nº {act.id})."}
        payments.record_payment(act, sup, local(2026, 3, 6), paid_on=date(2026, 3, 6),
                                amount="325", receipt="DAM2026/0002")
        db.session.commit()
        b = payments.balance_of(db.session.get(Sanction, act.id))
        assert (b.state, b.label, b.outstanding) == ("paid", "quitada", Decimal("0.00"))
        with pytest.raises(ValidationFailed) as info:
            payments.record_payment(act, sup, local(2026, 3, 7), paid_on="2026-03-07",
                                    amount="1", receipt="DAM2026/0003")
        db.session.rollback()
        assert info.value.errors == {"amount": "Esta multa já está quitada (R$ 525,00 pagos)."}
        entries = db.session.scalars(select(AuditEntry).where(
            AuditEntry.action == "fine_payment_recorded").order_by(AuditEntry.id)).all()
        after = [json.loads(e.after) for e in entries]
        assert [a["state"] for a in after] == ["partial", "paid"]
        assert after[0]["receipt"] == "DAM2026/0001" and after[0]["amount_brl"] == "200.00"
        assert audit.verify()[1] is None


def test_a_daily_fine_keeps_accruing_after_a_payment_until_the_fix(app):
    with app.app_context():
        f, agent, sup, daily = daily_fine()
        b = payments.balance_of(daily)
        assert b.running and b.due == Decimal("972.60") and b.state == "open"  # 1 day
        payments.record_payment(daily, sup, T0 + timedelta(hours=74), paid_on="2026-03-05",
                                amount="972,60", receipt="DAM-77")
        db.session.commit()
        assert payments.balance_of(db.session.get(Sanction, daily.id)).state == "paid"
        enforcement.tick(T0 + timedelta(hours=73 + 24))          # a second day is due
        b = payments.balance_of(db.session.get(Sanction, daily.id))
        assert (b.state, b.due, b.outstanding, b.running) == \
            ("partial", Decimal("1945.20"), Decimal("972.60"), True)
        inspect(f["vehicle"], agent, {"mirrors": "ok"}, T0 + timedelta(hours=100))  # fixed
        db.session.commit()
        enforcement.tick(T0 + timedelta(days=30))
        b = payments.balance_of(db.session.get(Sanction, daily.id))
        assert not b.running and b.due == Decimal("1945.20") and b.state == "partial"


def test_a_fine_voided_by_an_upheld_appeal_is_not_paid(app):
    with app.app_context():
        _, sup, act = confirmed_fine()
        ap = enforcement.file_appeal(act, filed_on=date(2026, 3, 4), filed_by="Titular",
                                     filed_by_role="holder", text_="Era a filha de 8 anos.",
                                     user=sup, now=local(2026, 3, 4, 9))
        enforcement.decide_appeal(ap, sup, local(2026, 3, 5), accepted=True,
                                  text_="Certidão de nascimento juntada.")
        db.session.commit()
        act = db.session.get(Sanction, act.id)
        assert payments.balance_of(act).label == "anulada"
        with pytest.raises(ValidationFailed) as info:
            payments.record_payment(act, sup, local(2026, 3, 6), paid_on="2026-03-06",
                                    amount="10", receipt="DAM-9")
        assert "Não há o que pagar" in info.value.errors["status"]


def test_the_open_fines_list_is_the_towns_unpaid_fines_a_page_at_a_time(app):
    with app.app_context():
        fines = [confirmed_fine(values=n == 0)[2] for n in range(3)]
        sup = factories.user("supervisor", "tapurah")
        payments.record_payment(fines[0], sup, local(2026, 3, 5), paid_on="2026-03-05",
                                amount="525", receipt="DAM-A")
        payments.record_payment(fines[1], sup, local(2026, 3, 5), paid_on="2026-03-05",
                                amount="25", receipt="DAM-B")
        db.session.commit()
        town_id = fines[0].municipality_id
        rows, more = payments.open_fines(town_id, per_page=1)
        assert [r.act.id for r in rows] == [fines[1].id] and more
        rows, more = payments.open_fines(town_id, page=2, per_page=1)
        assert [r.act.id for r in rows] == [fines[2].id] and not more
        assert [r.state for r in payments.open_fines(town_id)[0]] == ["partial", "open"]
        assert payments.open_fines(factories.town("sapezal").id) == ([], False)
