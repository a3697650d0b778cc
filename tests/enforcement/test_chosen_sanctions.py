"""Sanctions no checklist item proposes, chosen by the town's supervisor on the review of an
inspection (POST /revisao/vistorias/<id>/sancoes) and decided like any proposal:
Tapurah's request to seize an irregular vehicle (Lei 406/2001, Art. 27, IV), the employer's
revocation (Sapezal Lei 060/1998, Art. 20 § ú; Nova Santa Helena Lei 535/2013, Art. 25 § ú),
Nova Santa Helena's permit suspension or revocation (Art. 25, III) and ban (Art. 25, V,
after the inquiry of Art. 29). An agent gets 403, another town's supervisor 404.
Runs on SQLite and PostgreSQL (DATABASE_URL)."""
from __future__ import annotations

import pytest
from sqlalchemy import select

from inspector.extensions import db
from inspector.models import (
    AuditEntry,
    Driver,
    Notice,
    Permit,
    Sanction,
    SanctionStatus,
    Status,
    StatusChange,
    User,
    Vehicle,
)
from inspector.models.registry import Licence
from tests import factories
from tests.support.enforcement import fleet, inspect, local

WHEN = local(2026, 3, 2, 10, 0)
FIRST_ITEM = {"tapurah": "tank-sign", "sapezal": "roof-light", "nova-santa-helena": "roof-light"}
SERVICE = {"tapurah": "mototaxi", "sapezal": "taxi", "nova-santa-helena": "taxi"}


def _world(town: str, *, fail: bool = True, year: int = 2024) -> dict:
    f = fleet(town, SERVICE[town])
    f["vehicle"].year_of_manufacture = year
    users = {r: factories.user(r, town) for r in ("agent", "supervisor", "admin")}
    other = "sapezal" if town != "sapezal" else "tapurah"
    users["other"] = factories.user("supervisor", other)
    results = {FIRST_ITEM[town]: "fail" if fail else "ok"}
    insp = inspect(f["vehicle"], users["agent"], results, WHEN)
    db.session.commit()
    return {"insp": insp.id, "vehicle": f["vehicle"].id, "holder": f["holder"].id,
            "driver": f["driver"].id, "permit": f["permit"].id, "licence": f["licence"].id,
            **{k: u.username for k, u in users.items()}}


def _login(app, username):
    c = app.test_client()
    assert c.login(username).status_code == 302
    return c


def _chosen(app, insp_id: int) -> list[Sanction]:
    with app.app_context():
        rows = db.session.scalars(select(Sanction).where(
            Sanction.inspection_id == insp_id, Sanction.inspection_item_id.is_(None))
            .order_by(Sanction.id)).all()
        for r in rows:
            db.session.expunge(r)
        return rows


def _choose(c, insp_id: int, key: str, reason: str = "Fatos apurados pela supervisão."):
    return c.post_form(f"/revisao/vistorias/{insp_id}/sancoes",
                       {"choice": key, "reason": reason}, token_from=f"/revisao/vistorias/{insp_id}")


def _audit(app, action: str, act_id: int) -> list[AuditEntry]:
    with app.app_context():
        return db.session.scalars(select(AuditEntry).where(
            AuditEntry.action == action, AuditEntry.entity == "sanction",
            AuditEntry.entity_id == str(act_id))).all()


# --- Tapurah, Art. 27, IV -------------------------------------------------------------------------

def test_tapurah_supervisor_requests_seizure_of_an_over_age_moto_taxi(app):
    with app.app_context():
        w = _world("tapurah", year=2015)
    sup = _login(app, w["supervisor"])
    page = sup.get(f"/revisao/vistorias/{w['insp']}").get_data(as_text=True)
    assert "Outras sanções previstas em lei" in page
    assert "Art. 27, IV" in page and "apreensão do veículo irregular" in page

    r = _choose(sup, w["insp"], "irregular-vehicle", "Moto de 2015, com mais de 5 anos de uso.")
    assert r.status_code == 303, r.get_data(as_text=True)[:500]
    [act] = _chosen(app, w["insp"])
    assert (act.kind, act.target, act.status) == ("seizure_request", "vehicle",
                                                  SanctionStatus.PROPOSED)
    assert act.citation["article"] == "Art. 27, IV"
    assert act.offender == f"vehicle:{w['vehicle']}" and act.rule_id == "vehicle.age"
    assert "Moto de 2015" in act.reason
    page = sup.get(f"/revisao/vistorias/{w['insp']}").get_data(as_text=True)
    assert f'id="ato-{act.id}"' in page and "Pedido de apreensão" in page

    r = sup.post_form(f"/revisao/atos/{act.id}/confirmar", {},
                      token_from=f"/revisao/vistorias/{w['insp']}")
    assert r.status_code == 303
    [act] = _chosen(app, w["insp"])
    assert act.status == SanctionStatus.CONFIRMED
    [proposed] = _audit(app, "sanction_proposed", act.id)
    assert proposed.actor == w["supervisor"]
    assert _audit(app, "sanction_confirmed", act.id)
    # proposed once per inspection
    assert _choose(sup, w["insp"], "irregular-vehicle").status_code == 422


def test_tapurah_seizure_is_not_offered_for_a_regular_vehicle(app):
    with app.app_context():
        w = _world("tapurah", year=2024)
    sup = _login(app, w["supervisor"])
    page = sup.get(f"/revisao/vistorias/{w['insp']}").get_data(as_text=True)
    assert "apreensão do veículo irregular" not in page
    r = _choose(sup, w["insp"], "irregular-vehicle")
    assert r.status_code == 422
    assert "não prevista pela lei para esta vistoria" in r.get_data(as_text=True)
    assert _chosen(app, w["insp"]) == []


def test_agent_gets_403_and_another_towns_supervisor_404(app):
    with app.app_context():
        w = _world("tapurah", year=2015)
    agent = _login(app, w["agent"])
    r = agent.post_form(f"/revisao/vistorias/{w['insp']}/sancoes",
                        {"choice": "irregular-vehicle", "reason": "Tentativa do agente."})
    assert r.status_code == 403
    other = _login(app, w["other"])
    r = other.post_form(f"/revisao/vistorias/{w['insp']}/sancoes",
                        {"choice": "irregular-vehicle", "reason": "Outra cidade tentando."})
    assert r.status_code == 404
    assert _chosen(app, w["insp"]) == []


def test_a_reason_is_required(app):
    with app.app_context():
        w = _world("tapurah", year=2015)
    sup = _login(app, w["supervisor"])
    r = _choose(sup, w["insp"], "irregular-vehicle", "")
    assert r.status_code == 422
    assert "motivo" in r.get_data(as_text=True)
    assert _chosen(app, w["insp"]) == []


# --- the employer's revocation: Sapezal Art. 20 § ú, Nova Santa Helena Art. 25 § ú --------------

@pytest.mark.parametrize("town,article", [("sapezal", "Art. 20, parágrafo único"),
                                          ("nova-santa-helena", "Art. 25, parágrafo único")])
def test_employer_revocation_goes_to_the_mayor_and_revokes_the_licence(app, town, article):
    with app.app_context():
        w = _world(town)
    sup = _login(app, w["supervisor"])
    page = sup.get(f"/revisao/vistorias/{w['insp']}").get_data(as_text=True)
    assert article in page
    r = _choose(sup, w["insp"], "employer-inaction",
                "O titular foi avisado da infração do motorista e não tomou providências.")
    assert r.status_code == 303
    [act] = _chosen(app, w["insp"])
    assert (act.kind, act.target, act.decided_by) == ("revocation", "licence", "mayor")
    assert act.citation["article"] == article
    assert act.offender == f"holder:{w['holder']}"

    r = sup.post_form(f"/revisao/atos/{act.id}/confirmar", {},
                      token_from=f"/revisao/vistorias/{w['insp']}")
    assert r.status_code == 303
    [act] = _chosen(app, w["insp"])
    assert act.awaiting_mayor and act.status == SanctionStatus.PROPOSED
    assert _audit(app, "sanction_forwarded_to_mayor", act.id)

    admin = _login(app, w["admin"])
    r = admin.post_form(f"/revisao/atos/{act.id}/prefeito",
                        {"decision": "confirm", "ref": "Decreto 12/2026"},
                        token_from=f"/revisao/atos/{act.id}")
    assert r.status_code == 303
    [act] = _chosen(app, w["insp"])
    assert act.status == SanctionStatus.CONFIRMED and act.decision_ref == "Decreto 12/2026"
    with app.app_context():   # nothing applies before the decision reaches the employer
        assert db.session.get(Licence, w["licence"]).status == Status.ACTIVE
    assert _deliver(admin, act.id).status_code == 303
    with app.app_context():
        assert db.session.get(Licence, w["licence"]).status == Status.REVOKED
        assert db.session.scalar(select(Notice).where(Notice.sanction_id == act.id)) is not None


def test_employer_revocation_needs_an_infraction_at_the_inspection(app):
    with app.app_context():
        w = _world("sapezal", fail=False)
    sup = _login(app, w["supervisor"])
    page = sup.get(f"/revisao/vistorias/{w['insp']}").get_data(as_text=True)
    assert "employer-inaction" not in page
    assert _choose(sup, w["insp"], "employer-inaction").status_code == 422


# --- Nova Santa Helena Art. 25, III and V ---------------------------------------------------------

def test_nsh_permit_suspension_is_the_mayors_within_the_pack_bounds(app):
    with app.app_context():
        w = _world("nova-santa-helena")
    sup = _login(app, w["supervisor"])
    page = sup.get(f"/revisao/vistorias/{w['insp']}").get_data(as_text=True)
    assert "Art. 25, III" in page and "Suspensão ou cassação do Termo de Permissão" in page
    r = _choose(sup, w["insp"], "permit-sanction:suspension",
                "Cobrança acima da tabela, reiterada, comprovada por passageiros.")
    assert r.status_code == 303
    [act] = _chosen(app, w["insp"])
    assert (act.kind, act.target, act.decided_by) == ("suspension", "permit", "mayor")
    assert act.citation["article"] == "Art. 25, III"
    assert act.permit_id == w["permit"]
    assert sup.post_form(f"/revisao/atos/{act.id}/confirmar", {},
                         token_from=f"/revisao/vistorias/{w['insp']}").status_code == 303
    admin = _login(app, w["admin"])
    r = admin.post_form(f"/revisao/atos/{act.id}/prefeito",
                        {"decision": "confirm", "ref": "Decreto 13/2026", "days": "200"},
                        token_from=f"/revisao/atos/{act.id}")
    assert r.status_code == 422  # the pack allows at most 90 days
    r = admin.post_form(f"/revisao/atos/{act.id}/prefeito",
                        {"decision": "confirm", "ref": "Decreto 13/2026", "days": "20"},
                        token_from=f"/revisao/atos/{act.id}")
    assert r.status_code == 303
    [act] = _chosen(app, w["insp"])
    assert act.status == SanctionStatus.CONFIRMED and act.suspension_days == 20
    with app.app_context():   # Art. 28 § único: time runs "após o recebimento"
        assert db.session.get(Permit, w["permit"]).status == Status.ACTIVE
    assert _deliver(sup, act.id).status_code == 303
    with app.app_context():
        assert db.session.get(Permit, w["permit"]).status == Status.SUSPENDED


def test_of_two_permits_alike_the_suspension_names_the_newest(app):
    """A holder with two active permits of the service from the same day: the act names the
    one made last, whatever order the database returns them in."""
    with app.app_context():
        w = _world("nova-santa-helena")
        holder = db.session.get(Permit, w["permit"]).holder
        newer = factories.permit(holder, "taxi", valid_from=db.session.get(
            Permit, w["permit"]).valid_from).id
        db.session.commit()
    sup = _login(app, w["supervisor"])
    assert _choose(sup, w["insp"], "permit-sanction:suspension",
                   "Cobrança acima da tabela, reiterada.").status_code == 303
    [act] = _chosen(app, w["insp"])
    assert newer > w["permit"] and act.permit_id == newer


def test_nsh_ban_after_an_inquiry_and_the_ladder_still_counts_occasions(app):
    with app.app_context():
        w = _world("nova-santa-helena")
    sup = _login(app, w["supervisor"])
    page = sup.get(f"/revisao/vistorias/{w['insp']}").get_data(as_text=True)
    assert "Art. 25, V" in page and "Impedimento para prestação futura do serviço" in page
    r = _choose(sup, w["insp"], "ban", "Inquérito 3/2026 concluído, com ampla defesa.")
    assert r.status_code == 303
    [ban] = _chosen(app, w["insp"])
    assert (ban.kind, ban.target, ban.decided_by) == ("ban", "driver", "mayor")
    assert ban.citation["article"] == "Art. 25, V"
    assert ban.offender == f"driver:{w['driver']}"
    with app.app_context():
        warning = db.session.scalar(select(Sanction).where(
            Sanction.inspection_id == w["insp"], Sanction.inspection_item_id.is_not(None)))
        warning_id = warning.id
        assert warning.kind == "oral_warning"
    for act_id in (warning_id, ban.id):
        assert sup.post_form(f"/revisao/atos/{act_id}/confirmar", {},
                             token_from=f"/revisao/vistorias/{w['insp']}").status_code == 303
    admin = _login(app, w["admin"])
    assert admin.post_form(f"/revisao/atos/{ban.id}/prefeito",
                           {"decision": "confirm", "ref": "Decreto 14/2026"},
                           token_from=f"/revisao/atos/{ban.id}").status_code == 303
    [ban] = _chosen(app, w["insp"])
    assert ban.status == SanctionStatus.CONFIRMED and ban.awaiting_delivery
    assert _deliver(admin, ban.id).status_code == 303
    # the driver may no longer provide the service: the registration ends, citing the article,
    # and cannot be reactivated by hand while the act stands
    with app.app_context():
        driver = db.session.get(Driver, w["driver"])
        assert driver.status == Status.REVOKED
        change = db.session.scalars(select(StatusChange).where(
            StatusChange.subject_type == "driver", StatusChange.subject_id == driver.id)).one()
        assert "Art. 25, V" in change.reason and f"Ato nº {ban.id}." in change.reason
    r = admin.post_form(f"/cadastro/condutores/{w['driver']}/situacao",
                        {"to_status": "active", "reason": "Pediu para voltar a trabalhar."},
                        token_from=f"/cadastro/condutores/{w['driver']}")
    assert r.status_code == 422
    assert f"impedido de prestar o serviço pelo ato nº {ban.id}" in r.get_data(as_text=True)
    with app.app_context():
        assert db.session.get(Driver, w["driver"]).status == Status.REVOKED
    # the ban and the warning are one occasion: the next finding is the 2nd rung, not the 3rd
    with app.app_context():
        v = db.session.get(Vehicle, w["vehicle"])
        agent = db.session.scalar(select(User).filter_by(username=w["agent"]))
        second = inspect(v, agent, {"roof-light": "fail"}, local(2026, 3, 20, 10, 0))
        db.session.commit()
        [nxt] = db.session.scalars(select(Sanction).where(
            Sanction.inspection_id == second.id)).all()
        assert (nxt.step_id, nxt.occurrence) == ("written-warning", 2)


def _deliver(client, act_id: int):
    """Record that the decided act was handed over today (its time runs from there)."""
    from datetime import UTC, datetime

    from inspector.clock import default_day

    return client.post_form(f"/revisao/atos/{act_id}/entrega",
                            {"delivered_on": default_day(datetime.now(UTC)).isoformat(),
                             "delivered_via": "hand", "delivery_ref": "Recebido pelo titular"},
                            token_from=f"/revisao/atos/{act_id}")
