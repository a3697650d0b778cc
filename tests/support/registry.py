"""Registry builders: a saved holder and a moto-taxi's fields for the services, an admin
form's fields, licensed taxis and a decided fine for the limits."""
from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

from sqlalchemy import select

from inspector.clock import default_day
from inspector.extensions import db
from inspector.identifiers import make_cnpj
from inspector.models import Fine, Holder, Sanction, SanctionStatus
from inspector.registry import records
from tests import factories

TODAY = default_day()


CNPJ = make_cnpj("112223330001")


def saved_holder(town: int, tax_id: str = CNPJ, **kw) -> Holder:
    return records.save_holder(town, {"name": "Moto Rápida Ltda", "tax_id": tax_id, **kw},
                           actor="teste")


def moto_fields(town: int, plate: str = "QBA1D23", **kw) -> dict:
    return {"service": "mototaxi", "plate": plate, "make_model": "Honda CG 160",
            "year_of_manufacture": "2023", "engine_cc": "160", "colour": "Vermelha",
            "holder_tax_id": CNPJ, **kw}


def licensed_taxis(app, town: str, n: int, **kw) -> list[str]:
    """n taxis, each of its own self-employed holder, each with an alvará in force."""
    with app.app_context():
        plates = []
        for _ in range(n):
            v = factories.vehicle(town, "taxi", **kw)
            factories.licence(v)
            plates.append(v.plate)
        db.session.commit()
        return plates


def fine_for(app, town: str, holder_cpf: str, amount: str = "300.00",
             status: SanctionStatus = SanctionStatus.CONFIRMED) -> int:
    """A decided fine against a holder; its id."""
    now = datetime.now(UTC)
    with app.app_context():
        t = factories.town(town)
        holder = db.session.scalar(select(factories.Holder).filter_by(
            municipality_id=t.id, tax_id=holder_cpf))
        act = Sanction(municipality_id=t.id, origin_key=f"test:{factories.n()}",
                       pack_id="test", law="Lei de teste", rule_id="test", kind="fine",
                       target="holder", label="Multa", offender=f"holder:{holder.id}",
                       holder_id=holder.id, citation={}, decided_by="supervisor",
                       status=status, proposed_at=now, decided_at=now, updated_at=now)
        db.session.add(act)
        db.session.flush()
        fine = Fine(municipality_id=t.id, sanction_id=act.id, unit="BRL",
                    amount=Decimal(amount), amount_brl=Decimal(amount), value_on=TODAY)
        db.session.add(fine)
        db.session.commit()
        return fine.id


def moto_form(holder_tax_id: str, **kw) -> dict:
    return {"service": "mototaxi", "plate": "QBC1D23", "make_model": "Honda CG 160",
            "year_of_manufacture": "2024", "engine_cc": "160", "colour": "Vermelha",
            "holder_tax_id": holder_tax_id, **kw}
