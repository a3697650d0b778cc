"""The law's limits when an admin saves a registry record. The caps on the number of vehicles
(the fleet, the quota per inhabitants, a company's share, a stand's cars) refuse the save
that would pass them, with the article, and write nothing; where the law lets the town pass
one by decree (Sapezal 060 Art. 18) the save goes through only with the decree and a reason,
recorded in the audit log. Every other limit the compliance page computes shows on the saved
record's page (or as a message after saving) with its article when broken, and not when
within it; a licence for a holder owing a fine is refused in Nortelândia (Lei 127 Arts. 23,
34) with nothing written, and not elsewhere. Runs on SQLite and PostgreSQL (DATABASE_URL)."""
from __future__ import annotations

import html as html_lib
import json
import re
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

from sqlalchemy import func, select

from inspector.clock import default_day
from inspector.extensions import db
from inspector.identifiers import make_cpf
from inspector.models import (
    AuditEntry,
    Fine,
    FinePayment,
    Licence,
    SanctionStatus,
    Status,
    Vehicle,
)
from tests import factories
from tests.support.registry import fine_for, licensed_taxis

TODAY = default_day()


def admin_of(app, client, make, town: str):
    user = make(factories.user, "admin", town)
    assert client.login(user.username).status_code == 302
    return user


def text(response) -> str:
    return html_lib.unescape(response.get_data(as_text=True))


def limits_card(page: str) -> str:
    """The "Limites da lei" card of a page ('' when there is none)."""
    m = re.search(r'<section class="card limits".*?</section>', page, re.S)
    return m.group(0) if m else ""


def flashes(page: str) -> list[str]:
    return re.findall(r'<p class="flash flash-info" role="status">(.*?)</p>', page, re.S)


def save(client, path: str, data: dict):
    """POST a registry form; on success follow the redirect and return the page's text."""
    r = client.post_form(path, data)
    assert r.status_code == 303, text(r)[:2000]
    return text(client.get(r.headers["Location"]))


def new_taxi(app, town: str, **kw) -> tuple[str, str]:
    """An unlicensed taxi: its plate and its holder's CPF."""
    with app.app_context():
        v = factories.vehicle(town, "taxi", **kw)
        db.session.commit()
        return v.plate, v.holder.tax_id


def licence_form(plate: str, number: str) -> dict:
    """This year's Alvará: lawful in every town (Sapezal Lei 060/1998 Art. 10: the exercício;
    Nova Santa Helena Lei 535/2013 Art. 4 § 2º and Nortelândia Lei 030/1998 Art. 6: a year)."""
    return {"number": number, "vehicle_plate": plate,
            "valid_from": date(TODAY.year, 1, 1).isoformat(),
            "valid_until": date(TODAY.year, 12, 31).isoformat()}


def taxi_form(plate: str, holder_tax_id: str, **kw) -> dict:
    return {"service": "taxi", "plate": plate, "make_model": "Chevrolet Onix",
            "year_of_manufacture": str(TODAY.year - 1), "colour": "Branca", "doors": "4",
            "holder_tax_id": holder_tax_id, **kw}


def refusal(r) -> str:
    """The form's error summary, as a person reads it."""
    m = re.search(r'<div class="error error-summary" role="alert">(.*?)</div>', text(r), re.S)
    return " ".join(re.sub(r"<[^>]+>", " ", m.group(1)).split()) if m else ""


def written(app) -> tuple[int, int, int]:
    """Vehicles, licences and audit entries: what a refused save must leave as it was."""
    with app.app_context():
        return tuple(db.session.scalar(select(func.count()).select_from(t))
                     for t in (Vehicle, Licence, AuditEntry))


# ------------------------------------------------------------- fleet cap (Nortelândia Art. 3)
def test_a_seventh_taxi_licence_in_nortelandia_is_refused_with_article_3(app, client, make):
    admin_of(app, client, make, "nortelandia")
    licensed_taxis(app, "nortelandia", 6)
    plate, _ = new_taxi(app, "nortelandia")
    before = written(app)
    r = client.post_form("/cadastro/alvaras/novo", licence_form(plate, "007/2026"))
    assert r.status_code == 422
    why = refusal(r)
    assert "7 veículos licenciados: o limite da lei é 6" in why
    assert "(Lei 127/2009, Art. 3)" in why and "A lei não admite exceção" in why
    assert "acima_do_limite_motivo" not in text(r)    # Art. 3 lets no decree pass it
    # a reason does not pass a cap the law gives no way past
    r = client.post_form("/cadastro/alvaras/novo", {**licence_form(plate, "007/2026"),
                         "acima_do_limite_motivo": "Decreto nº 1/2026 amplia a frota"})
    assert r.status_code == 422
    assert written(app) == before                     # nothing written, not even the audit


def test_sapezal_passes_its_fleet_cap_only_by_decree_with_a_reason_in_the_audit_log(
        app, client, make):
    """Sapezal 060 Art. 14 fixes 15 taxis; Art. 18 lets the town enlarge the fleet by decree."""
    admin_of(app, client, make, "sapezal")
    licensed_taxis(app, "sapezal", 15)
    plate, _ = new_taxi(app, "sapezal")
    before = written(app)
    r = client.post_form("/cadastro/alvaras/novo", licence_form(plate, "016/2026"))
    assert r.status_code == 422
    page = text(r)
    assert "16 veículos licenciados: o limite da lei é 15" in refusal(r)
    assert "por decreto (Lei 060/1998, Art. 18)" in refusal(r)
    assert 'name="acima_do_limite_motivo"' in page
    assert 'href="/leis/sapezal-lei-060-1998-taxi#art-18"' in page
    short = client.post_form("/cadastro/alvaras/novo", {**licence_form(plate, "016/2026"),
                             "acima_do_limite_motivo": "decreto"})
    assert short.status_code == 422 and "O motivo precisa ter de 10 a 500" in refusal(short)
    assert written(app) == before
    reason = "Decreto nº 12/2026 amplia a frota para 16 táxis"
    save(client, "/cadastro/alvaras/novo",
         {**licence_form(plate, "016/2026"), "acima_do_limite_motivo": reason})
    with app.app_context():
        assert db.session.scalar(select(Licence).filter_by(number="016/2026")) is not None
        entry = db.session.scalar(select(AuditEntry).filter_by(action="registry.cap_override"))
        recorded = json.loads(entry.after)
    assert recorded["reason"] == reason and recorded["rule_id"] == "town.fleet_cap"
    assert (recorded["before"], recorded["after"]) == (15, 16)
    assert recorded["override"]["citation"]["article"] == "Art. 18"
    assert recorded["citation"]["article"] == "Art. 14"


def test_the_sixth_taxi_licence_is_within_the_cap_and_shows_no_warning(app, client, make):
    admin_of(app, client, make, "nortelandia")
    licensed_taxis(app, "nortelandia", 5)
    plate, _ = new_taxi(app, "nortelandia")
    page = save(client, "/cadastro/alvaras/novo", licence_form(plate, "006/2026"))
    assert limits_card(page) == "" and "Limites da lei" not in page


def test_a_new_taxi_when_the_fleet_is_full_warns_that_its_licence_would_pass_the_cap(
        app, client, make):
    admin_of(app, client, make, "nortelandia")
    licensed_taxis(app, "nortelandia", 6)
    with app.app_context():
        cpf = factories.holder("nortelandia").tax_id
        db.session.commit()
    page = save(client, "/cadastro/veiculos/novo", taxi_form("QBX1A11", cpf))
    card = limits_card(page)
    assert "já tem 6 veículos licenciados e o limite da lei é 6" in card
    assert "Lei 127/2009, Art. 3" in card


# ------------------------------------------------------------------ vehicle age (Sapezal Art. 11)
def test_an_eight_year_old_taxi_in_sapezal_is_saved_with_the_age_warning(app, client, make):
    admin_of(app, client, make, "sapezal")
    with app.app_context():
        cpf = factories.holder("sapezal").tax_id
        db.session.commit()
    old = save(client, "/cadastro/veiculos/novo",
               taxi_form("QBY2B22", cpf, year_of_manufacture=str(TODAY.year - 8)))
    card = limits_card(old)
    assert f"fabricado em {TODAY.year - 8}: tem 8 anos e o limite é 5 anos" in card
    assert "Lei 060/1998, Art. 11" in card and "Fora do limite" in card
    with app.app_context():
        cpf2 = factories.holder("sapezal").tax_id
        db.session.commit()
    new = save(client, "/cadastro/veiculos/novo",
               taxi_form("QBY2B23", cpf2, year_of_manufacture=str(TODAY.year - 2)))
    assert limits_card(new) == ""


# ------------------------------------------------------- auxiliaries (Nortelândia 127 Art. 9)
def aux_form(plate: str, holder_cpf: str, i: int) -> dict:
    return {"category": "auxiliar", "name": f"Auxiliar {i}",
            "cpf": make_cpf(f"{700000000 + i:09d}"), "registration_number": f"AUX-{i}",
            "registration_expiry": (TODAY + timedelta(days=200)).isoformat(),
            "cnh_number": f"{90000000000 + i:011d}", "cnh_category": "B",
            "cnh_expiry": (TODAY + timedelta(days=700)).isoformat(),
            "holder_tax_id": holder_cpf, "vehicle_plate": plate}


def test_a_third_auxiliary_driver_is_saved_with_the_article_9_warning(app, client, make):
    admin_of(app, client, make, "nortelandia")
    plate, cpf = new_taxi(app, "nortelandia")
    for i in (1, 2):
        page = save(client, "/cadastro/condutores/novo", aux_form(plate, cpf, i))
        assert flashes(page) == []                       # up to two: nothing to say
    page = save(client, "/cadastro/condutores/novo", aux_form(plate, cpf, 3))
    [message] = flashes(page)
    assert "tem 3 motoristas auxiliares: o limite é 2" in message
    assert "(Lei 127/2009, Art. 9)" in message and message.startswith("Atenção:")


# ------------------------------------------ one permit per self-employed driver (127 Art. 4 III)
def permit_form(cpf: str, number: str) -> dict:
    return {"kind": "permissao", "service": "taxi", "number": number, "holder_tax_id": cpf,
            "valid_from": (TODAY - timedelta(days=10)).isoformat()}


def test_a_second_permit_for_a_self_employed_driver_warns_with_article_4(app, client, make):
    admin_of(app, client, make, "nortelandia")
    with app.app_context():
        cpf = factories.holder("nortelandia").tax_id
        db.session.commit()
    first = save(client, "/cadastro/permissoes/novo", permit_form(cpf, "TP-1"))
    assert flashes(first) == []
    second = save(client, "/cadastro/permissoes/novo", permit_form(cpf, "TP-2"))
    [message] = flashes(second)
    assert "tem 2 permissões em vigor: a lei permite 1" in message
    assert "(Lei 127/2009, Art. 4, III)" in message
    compliance = text(client.get("/conformidade"))
    assert "tem 2 permissões em vigor" in compliance


# ------------------------------------------------------------- stand capacity (Sapezal Art. 14)
def test_a_fifth_taxi_on_sapezal_stand_01_is_refused_and_an_older_excess_is_on_compliance(
        app, client, make):
    admin_of(app, client, make, "sapezal")
    with app.app_context():
        s = factories.stand("sapezal", code="01", place="Av. Surubim Jaú - Ponto de Ônibus",
                            capacity=4, service="taxi",
                            legal_basis="Lei 060/1998 (Sapezal), Art. 14")
        stand_id = s.id
        db.session.commit()
    cpfs = []
    with app.app_context():
        for _ in range(5):
            cpfs.append(factories.holder("sapezal").tax_id)
        db.session.commit()
    for i in range(4):
        page = save(client, "/cadastro/veiculos/novo",
                    taxi_form(f"QBZ3C{i:02d}", cpfs[i], stand_code="01"))
        assert limits_card(page) == "", i               # 4 cars: the stand's number
    before = written(app)
    r = client.post_form("/cadastro/veiculos/novo", taxi_form("QBZ3C09", cpfs[4], stand_code="01"))
    assert r.status_code == 422
    assert "Ponto 01 (Av. Surubim Jaú - Ponto de Ônibus) tem 5 veículos: a capacidade do " \
           "ponto é 4 (Lei 060/1998, Art. 14). A lei não admite exceção" in refusal(r)
    assert written(app) == before
    # a stand whose number the town lowers below its cars (a new decree of the stands): a
    # warning on the stand and on /conformidade, and editing a car of that stand is not
    # refused, since the edit adds no car to it
    save(client, f"/cadastro/pontos/{stand_id}/editar",
         {"code": "01", "place": "Av. Surubim Jaú - Ponto de Ônibus", "capacity": "3",
          "service": "taxi", "legal_basis": "Lei 060/1998 (Sapezal), Art. 14"})
    stand_page = text(client.get(f"/cadastro/pontos/{stand_id}"))
    assert "a capacidade do ponto é 3" in limits_card(stand_page)
    compliance = text(client.get("/conformidade"))
    section = compliance[compliance.index("Lotação dos pontos"):]
    assert "tem 4 veículos: a capacidade do ponto é 3" in section
    assert f'href="/cadastro/pontos/{stand_id}">Ponto 01</a>' in section
    with app.app_context():
        vehicle_id = db.session.scalar(select(Vehicle.id).filter_by(plate="QBZ3C00"))
    r = client.post_form(f"/cadastro/veiculos/{vehicle_id}/editar",
                         taxi_form("QBZ3C00", cpfs[0], stand_code="01", colour="Prata"))
    assert r.status_code == 303, refusal(r)


# ------------------------------------------------- unpaid fines (Nortelândia 127 Arts. 23 and 34)
def pay(app, fine_id: int, amount: str, reversed_: bool = False) -> None:
    now = datetime.now(UTC)
    with app.app_context():
        fine = db.session.get(Fine, fine_id)
        db.session.add(FinePayment(municipality_id=fine.municipality_id, fine_id=fine.id,
                                   paid_on=TODAY, amount_brl=Decimal(amount),
                                   receipt=f"DAM{factories.n()}", recorded_at=now,
                                   reversed_at=now if reversed_ else None,
                                   reversal_reason="lançado por engano" if reversed_ else None))
        db.session.commit()


def counts(app) -> tuple[int, int]:
    with app.app_context():
        return (db.session.scalar(select(func.count()).select_from(Licence)),
                db.session.scalar(select(func.count()).select_from(AuditEntry)))


def test_nortelandia_refuses_a_licence_while_the_holder_owes_a_fine(app, client, make):
    admin_of(app, client, make, "nortelandia")
    plate, cpf = new_taxi(app, "nortelandia")
    fine_id = fine_for(app, "nortelandia", cpf)
    before = counts(app)
    r = client.post_form("/cadastro/alvaras/novo", licence_form(plate, "AL-D1"))
    page = text(r)
    assert r.status_code == 422
    error = re.search(r'<p class="field-error" id="f-vehicle_plate-error">(.*?)</p>', page,
                      re.S).group(1)
    assert "Alvará não expedido" in error and "multa em aberto" in error
    assert "em aberto: R$ 300,00" in error
    assert "Lei 127/2009, Arts. 23 e 34" in error
    assert "Não será expedido Alvará ao permissionário em débito" in error
    assert counts(app) == before                      # nothing written, not even the audit
    pay(app, fine_id, "100.00")                        # partly paid: still owed
    assert client.post_form("/cadastro/alvaras/novo",
                            licence_form(plate, "AL-D1")).status_code == 422
    pay(app, fine_id, "200.00", reversed_=True)        # a reversed payment does not count
    assert client.post_form("/cadastro/alvaras/novo",
                            licence_form(plate, "AL-D1")).status_code == 422
    pay(app, fine_id, "200.00")                        # paid in full: issued
    save(client, "/cadastro/alvaras/novo", licence_form(plate, "AL-D1"))
    with app.app_context():
        assert db.session.scalar(select(Licence).filter_by(number="AL-D1")) is not None


def test_a_void_fine_does_not_bar_the_licence(app, client, make):
    admin_of(app, client, make, "nortelandia")
    plate, cpf = new_taxi(app, "nortelandia")
    fine_for(app, "nortelandia", cpf, status=SanctionStatus.APPEAL_ACCEPTED)
    save(client, "/cadastro/alvaras/novo", licence_form(plate, "AL-V1"))


def test_other_towns_do_not_bar_a_licence_for_a_debt(app, client, make):
    admin_of(app, client, make, "sapezal")
    plate, cpf = new_taxi(app, "sapezal")
    fine_for(app, "sapezal", cpf)
    page = save(client, "/cadastro/alvaras/novo", licence_form(plate, "AL-S1"))
    assert "Alvará não expedido" not in page
    with app.app_context():
        assert db.session.scalar(select(Vehicle).filter_by(plate=plate)).current_licence \
            is not None


# ------------------------------------------------ quota per inhabitants (Nova Santa Helena Art. 3)
def test_nova_santa_helena_refuses_a_licence_past_1_taxi_per_750_inhabitants(app, client, make):
    make(factories.town, "nova-santa-helena", seat=1500, interior=0)   # 1500 / 750 = 2 taxis
    admin_of(app, client, make, "nova-santa-helena")
    licensed_taxis(app, "nova-santa-helena", 1)
    plate, _ = new_taxi(app, "nova-santa-helena")
    page = save(client, "/cadastro/alvaras/novo", licence_form(plate, "AL-N2"))
    assert limits_card(page) == ""
    plate, _ = new_taxi(app, "nova-santa-helena")
    before = written(app)
    r = client.post_form("/cadastro/alvaras/novo", licence_form(plate, "AL-N3"))
    assert r.status_code == 422
    why = refusal(r)
    assert "3 veículos licenciados: o limite da lei é 2" in why and "1500 habitantes" in why
    assert "Lei 535/2013, Art. 3, § 3º" in why and "A lei não admite exceção" in why
    assert written(app) == before


# ------------------------------------------------------- company share (Sapezal Art. 3 § único)
def test_a_company_above_20_percent_of_sapezal_taxis_is_refused(app, client, make):
    admin_of(app, client, make, "sapezal")
    licensed_taxis(app, "sapezal", 4)
    with app.app_context():
        company = factories.holder("sapezal", company=True)
        plates = [factories.vehicle("sapezal", "taxi", holder=company).plate for _ in range(2)]
        db.session.commit()
    first = save(client, "/cadastro/alvaras/novo", licence_form(plates[0], "AL-E1"))
    assert limits_card(first) == ""                               # 1 of 5 = 20%: the ceiling
    before = written(app)
    r = client.post_form("/cadastro/alvaras/novo", licence_form(plates[1], "AL-E2"))
    assert r.status_code == 422
    why = refusal(r)
    assert "tem 2 de 6 veículos (33,3%): o limite por empresa é 20,0%" in why
    assert "Lei 060/1998, Art. 3, parágrafo único" in why and "não admite exceção" in why
    assert written(app) == before


# ----------------------------------------- one licence per self-employed driver (Sapezal Art. 13)
def test_a_second_licensed_taxi_of_one_self_employed_driver_is_warned(app, client, make):
    admin_of(app, client, make, "sapezal")
    with app.app_context():
        person = factories.holder("sapezal")
        plates = [factories.vehicle("sapezal", "taxi", holder=person).plate for _ in range(2)]
        db.session.commit()
    assert limits_card(save(client, "/cadastro/alvaras/novo",
                            licence_form(plates[0], "AL-P1"))) == ""
    card = limits_card(save(client, "/cadastro/alvaras/novo", licence_form(plates[1], "AL-P2")))
    assert "(motorista autônomo) tem 2 veículos: a lei permite 1" in card
    assert "Lei 060/1998, Art. 13" in card


# ------------------------------------------------------ moto-taxi engine size (Tapurah Art. 13)
def moto_form(plate: str, cpf: str, cc: str) -> dict:
    return {"service": "mototaxi", "plate": plate, "make_model": "Honda", "engine_cc": cc,
            "year_of_manufacture": str(TODAY.year - 1), "colour": "Vermelha",
            "holder_tax_id": cpf}


def test_a_100_cc_moto_taxi_in_tapurah_is_warned_a_160_cc_one_is_not(app, client, make):
    admin_of(app, client, make, "tapurah")
    with app.app_context():
        cpfs = [factories.holder("tapurah", company=True).tax_id for _ in range(2)]
        db.session.commit()
    card = limits_card(save(client, "/cadastro/veiculos/novo",
                            moto_form("QCA1B11", cpfs[0], "100")))
    assert "Motocicleta de 100 cc" in card and "Lei 406/2001, Art. 13" in card
    assert limits_card(save(client, "/cadastro/veiculos/novo",
                            moto_form("QCA1B12", cpfs[1], "160"))) == ""


def test_bringing_back_a_revoked_licence_past_the_fleet_cap_is_refused(app, client, make):
    """Nortelândia 127 Art. 3: six taxis licensed, a seventh's revoked Alvará reactivated
    would make seven; refused with the article, its status unchanged."""
    admin_of(app, client, make, "nortelandia")
    licensed_taxis(app, "nortelandia", 6)
    with app.app_context():
        v = factories.vehicle("nortelandia", "taxi")
        lic = factories.licence(v, status=Status.REVOKED)
        db.session.commit()
        lic_id = lic.id
    before = written(app)
    r = client.post_form(f"/cadastro/alvaras/{lic_id}/situacao",
                         {"to_status": "active", "reason": "Recurso aceito pela Secretaria"})
    assert r.status_code == 422, text(r)[:500]
    assert "7 veículos licenciados: o limite da lei é 6" in text(r)
    assert "Lei 127/2009, Art. 3" in text(r)
    with app.app_context():
        assert db.session.get(Licence, lic_id).status.value == "revoked"
    assert written(app) == before
