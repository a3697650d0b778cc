"""The driver's "ciente" on the street notifies the driver, not the company or the permit
holder: an act the agent addresses to them starts its appeal window when the document is
issued to them (the decision), not at the rider's signature. Runs on SQLite and PostgreSQL
(DATABASE_URL)."""
from __future__ import annotations

from datetime import date, timedelta

from inspector import enforcement
from inspector.clock import default_day
from inspector.extensions import db
from tests import factories
from tests.support.enforcement import deliver, fleet, inspect, local, set_values


def test_nortelandia_company_warning_appeal_counts_from_the_company_intimacao(app):
    """Lei 030/1998 Art. 16 § 2º: "Das penalidades poderá a autorizada recorrer ao Chefe do
    Poder Executivo, no prazo de 10 (dez) dias, contados a partir da intimação". The written
    warning (Art. 16 § 1º) is addressed to the company (the autorizada); the rider who signed
    the ciente on the street is not the company, so the ten days run from the warning's
    delivery to the company (recorded after the decision), not from the inspection nor from
    the decision."""
    with app.app_context():
        f = fleet("nortelandia", "mototaxi")
        agent = factories.user("agent", "nortelandia")
        sup = factories.user("supervisor", "nortelandia")
        db.session.commit()
        street = local(2026, 3, 2, 10)
        insp = inspect(f["vehicle"], agent, {"vest": "fail"}, street, ack="Piloto da Empresa")
        db.session.commit()
        (warning,) = enforcement.acts_of(insp)
        # the law names no one to decide: the agent proposes, the supervision decides
        assert (warning.kind, warning.target, warning.decided_by) == \
            ("written_warning", "company", "supervisor")
        assert warning.notified_at is None          # nobody from the company signed
        decided = local(2026, 3, 5, 15)
        enforcement.confirm(warning, sup, decided)
        db.session.commit()
        assert warning.notified_at is None and warning.appeal_until is None  # not delivered
        deliver(warning, sup, local(2026, 3, 9, 11), via="mail_ar", ref="AR JT000111222BR",
                recorded=local(2026, 3, 10, 9))
        db.session.commit()
        warning = db.session.get(type(warning), warning.id)
        assert default_day(warning.notified_at) == date(2026, 3, 9)
        # 10 business days from Mon 09/03 (Art. 16 § 2º "na forma prevista no CPC", CPC Art. 219)
        assert warning.appeal_until == date(2026, 3, 23)   # was 2026-03-12, from the street
        assert warning.appeal_citation["article"] == "Art. 16, § 2º"


def test_tapurah_holder_fine_is_not_notified_by_the_rider_but_his_notice_is(app):
    """Lei 406/2001 Art. 14 § ú fines "o proprietário da permissão" (100 UFIM) and Art. 30
    gives "as empresas permissionárias e os condutores, quando penalizados" 8 days to appeal.
    The rider's ciente (Art. 27 I: "advertir o condutor, notificando-o por escrito, com o
    respectivo ciente") notifies the rider: his notice still runs from the street, the
    company's fine from its delivery to the company."""
    with app.app_context():
        f = fleet("tapurah", "mototaxi")
        set_values("tapurah", fiscal_unit=5.25)
        agent = factories.user("agent", "tapurah")
        sup = factories.user("supervisor", "tapurah")
        db.session.commit()
        street = local(2026, 3, 2, 10)
        insp = inspect(f["vehicle"], agent, {"one-passenger": "fail", "vest-id": "fail"},
                       street, ack="Piloto de Teste")
        db.session.commit()
        acts = {(a.kind, a.target): a for a in enforcement.acts_of(insp)}
        fine = acts[("fine", "holder")]
        notice = acts[("notice", "driver")]
        assert fine.notified_at is None
        assert default_day(notice.notified_at) == date(2026, 3, 2)
        assert notice.appeal_until == date(2026, 3, 10)
        decided = street + timedelta(days=4)
        enforcement.confirm(fine, sup, decided)
        assert fine.notified_at is None and fine.appeal_until is None
        deliver(fine, sup, decided + timedelta(hours=2), via="hand",
                ref="Recebido pelo gerente da empresa")
        db.session.commit()
        fine = db.session.get(type(fine), fine.id)
        assert default_day(fine.notified_at) == date(2026, 3, 6)
        # 8 days from Fri 06/03 end Sat 14/03: moved to Mon 16/03 (Lei 9.784/1999 Art. 66 § 1º)
        assert fine.appeal_until == date(2026, 3, 16)      # was 2026-03-10, from the street
        assert fine.appeal_citation["article"] == "Art. 30"
