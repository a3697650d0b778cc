"""A registry row's status changes in one place for everyone: the change an act makes names
the act (status_changes.sanction_id), and an upheld appeal undoes exactly the change its act
made, found by that column (Nortelândia Lei 127/2009 Art. 26: the licence suspended for 10
days; Lei 030/1998 Art. 16 § 2º: from the delivery)."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import select, update

from inspector import enforcement, registry
from inspector.clock import default_day
from inspector.extensions import db
from inspector.models import Licence, Status, StatusChange
from tests.support.enforcement import decided_in_office


def test_the_change_an_act_makes_names_it_and_its_appeal_undoes_that_change(app):
    with app.app_context():
        now = datetime.now(UTC)
        o = decided_in_office("nortelandia", "taxi", {"clean": "fail"}, now - timedelta(hours=2),
                              ack="Condutor de Teste", gravity="suspension", days=10)
        enforcement.record_delivery(o.act, o.supervisor, now - timedelta(hours=1),
                                    day=default_day(now - timedelta(hours=1)).isoformat(),
                                    via="hand", ref="Recebido pelo titular")
        db.session.commit()
        lic = db.session.get(Licence, o.fleet["licence"].id)
        assert lic.status == Status.SUSPENDED
        [change] = db.session.scalars(select(StatusChange)).all()
        assert change.sanction_id == o.act.id and change.to_status == Status.SUSPENDED
        # the reason is text for people: rewording it does not lose which act made the change
        db.session.execute(update(StatusChange).values(reason="Suspenso pela fiscalização."))
        db.session.commit()
        appeal = enforcement.file_appeal(o.act, filed_on=default_day(now), filed_by="João Lima",
                                         filed_by_role="holder", text_="O carro estava limpo.",
                                         user=o.supervisor, now=now)
        enforcement.decide_appeal(appeal, o.supervisor, now, accepted=True,
                                  text_="A foto mostra o carro limpo.")
        db.session.commit()
        assert db.session.get(Licence, lic.id).status == Status.ACTIVE
        last = db.session.scalars(select(StatusChange).order_by(StatusChange.id.desc())).first()
        assert last.sanction_id == o.act.id and last.to_status == Status.ACTIVE
        # by hand: no act named
        registry.change_status(lic, Status.SUSPENDED, "Documento vencido.", actor=o.supervisor)
        db.session.commit()
        last = db.session.scalars(select(StatusChange).order_by(StatusChange.id.desc())).first()
        assert last.sanction_id is None
