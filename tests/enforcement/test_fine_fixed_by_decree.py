"""A fine whose amount a decree fixes (Nova Santa Helena Lei 535/2013, Art. 25, II, a and
Art. 31), driven as the supervisor and the admin do it: the supervisor amends an oral
warning to the fine (the mayor's, Art. 28), the admin registers the decree value in
/conformidade#decretos and records the mayor's decision. The amount is computed again when
the act is decided, so the auto de infração, its PDF, /revisao/multas and the holder's page
show it; with no decree value the decision is refused and nothing is issued. A decree value
stored in another town's unit (as the form once accepted) stops the decision too.
Runs on SQLite and PostgreSQL (DATABASE_URL)."""
from __future__ import annotations

from decimal import Decimal
from html import unescape

from sqlalchemy import func, select

from inspector.extensions import db
from inspector.models import AuditEntry, DecreeValue, Fine, Notice, Sanction, SanctionStatus
from tests import factories
from tests.support.documents import pdf_text
from tests.support.enforcement import fleet, inspect, local, set_values

TOWN = "nova-santa-helena"
WHEN = local(2026, 3, 2, 10, 0)
LABEL = "Valor da multa (Decreto previsto no Art. 25, II, a e no Art. 31)"


def _world(app) -> dict:
    """A taxi whose roof light failed: the proposal is the driver's oral warning."""
    app.config["PUBLIC_BASE_URL"] = "https://fiscaliza.nsh.example.gov.br"
    with app.app_context():
        f = fleet(TOWN, "taxi")
        users = {r: factories.user(r, TOWN) for r in ("agent", "supervisor", "admin")}
        insp = inspect(f["vehicle"], users["agent"], {"roof-light": "fail"}, WHEN)
        db.session.commit()
        act = db.session.scalar(select(Sanction).where(Sanction.inspection_id == insp.id))
        assert act.kind == "oral_warning"
        return {"act": act.id, "insp": insp.id, "holder": f["holder"].id,
                **{k: u.username for k, u in users.items()}}


def _login(app, username):
    c = app.test_client()
    assert c.login(username).status_code == 302
    return c


def _act(app, ident: int) -> Sanction:
    with app.app_context():
        act = db.session.get(Sanction, ident)
        db.session.expunge(act)
        return act


def _amend_to_fine(app, w) -> None:
    sup = _login(app, w["supervisor"])
    r = sup.post_form(f"/revisao/atos/{w['act']}/alterar",
                      {"option": "step:fine:0", "reason": "Terceira ocorrência apurada."},
                      token_from=f"/revisao/atos/{w['act']}")
    assert r.status_code == 303
    act = _act(app, w["act"])
    assert act.kind == "fine" and act.awaiting_mayor and act.amount_decree_key
    assert act.amount_brl is None      # no decree value yet


def _register(admin, **kw):
    form = {"key": "fine.amount", "amount": "250,00", "unit": "BRL",
            "valid_from": "2026-01-01", "source": "Decreto nº 5/2026, de 02/01/2026", **kw}
    return admin.post_form("/conformidade/decretos", form, token_from="/conformidade")


def _mayor(admin, ident: int):
    return admin.post_form(f"/revisao/atos/{ident}/prefeito",
                           {"decision": "confirm", "ref": "Decisão do prefeito nº 9/2026"},
                           token_from=f"/revisao/atos/{ident}")


def _notices(app) -> int:
    with app.app_context():
        return db.session.scalar(select(func.count()).select_from(Notice))


def test_a_decree_value_registered_before_the_mayors_decision_prices_the_fine(app, tmp_path):
    w = _world(app)
    _amend_to_fine(app, w)
    admin = _login(app, w["admin"])
    assert _register(admin).status_code == 302
    # the act page already prices the proposal with the value registered now
    page = admin.get(f"/revisao/atos/{w['act']}").get_data(as_text=True)
    assert "R$ 250,00" in page and "fine.amount" not in page
    r = _mayor(admin, w["act"])
    assert r.status_code == 303
    act = _act(app, w["act"])
    assert act.status == SanctionStatus.CONFIRMED
    assert (act.amount_unit, act.amount, act.amount_brl) == ("BRL", Decimal("250.00"),
                                                             Decimal("250.00"))
    assert "Decreto nº 5/2026" in act.amount_basis
    with app.app_context():
        notice = db.session.scalar(select(Notice).where(Notice.sanction_id == act.id))
        number = notice.number
        assert number.startswith("AI-2026/")
        fine = db.session.scalar(select(Fine).where(Fine.sanction_id == act.id))
        assert fine.amount_brl == Decimal("250.00") and fine.unit == "BRL"
    # the act page, the PDF, the open fines and the holder's page agree
    page = unescape(admin.get(f"/revisao/atos/{w['act']}").get_data(as_text=True))
    assert "R$ 250,00" in page and "não definido" not in page and "fine.amount" not in page
    pdf = admin.get(f"/documentos/{TOWN}/{number}/pdf")
    assert pdf.status_code == 200
    text = pdf_text(pdf.data, tmp_path)
    assert "Valor na unidade da lei R$ 250,00" in text
    assert "Valor em reais R$ 250,00, em 02/03/2026" in text
    assert "não definido" not in text and "fine.amount" not in text
    fines = unescape(admin.get("/revisao/multas").get_data(as_text=True))
    row = fines[fines.index(number):]
    row = row[:row.index("</tr>")]
    assert "R$ 250,00" in row and "não definido" not in row
    holder = unescape(admin.get(f"/cadastro/permissionarios/{w['holder']}").get_data(as_text=True))
    assert number in holder and "Multa em aberto" in holder
    assert "não definido" not in holder and "fine.amount" not in holder


def test_the_mayors_decision_without_the_decree_value_is_refused_and_nothing_issued(app):
    w = _world(app)
    _amend_to_fine(app, w)
    admin = _login(app, w["admin"])
    page = unescape(admin.get(f"/revisao/atos/{w['act']}").get_data(as_text=True))
    assert "fine.amount" not in page and LABEL in page
    r = _mayor(admin, w["act"])
    assert r.status_code == 422
    html = unescape(r.get_data(as_text=True))
    assert (f"Um(a) administrador(a) deve cadastrar o “{LABEL}” em Conformidade › Decretos "
            "antes de registrar a decisão do prefeito") in html
    assert "não está cadastrado para 02/03/2026, dia da infração" in html
    assert "fine.amount" not in html
    act = _act(app, w["act"])
    assert act.status == SanctionStatus.PROPOSED and act.awaiting_mayor
    assert _notices(app) == 0
    with app.app_context():
        assert db.session.scalar(select(func.count()).select_from(Fine)) == 0
        assert not db.session.scalars(select(AuditEntry).where(
            AuditEntry.action == "sanction_confirmed")).all()
    assert "fine.amount" not in admin.get("/revisao/multas").get_data(as_text=True)


def test_a_decree_value_from_after_the_infraction_does_not_price_it(app):
    w = _world(app)
    _amend_to_fine(app, w)
    admin = _login(app, w["admin"])
    assert _register(admin, valid_from="2026-06-01").status_code == 302
    r = _mayor(admin, w["act"])
    assert r.status_code == 422
    html = unescape(r.get_data(as_text=True))
    assert "vigora só a partir de 01/06/2026, depois da infração" in html
    assert _notices(app) == 0


def test_a_supervisor_decided_decree_fine_is_refused_on_confirm_too(app):
    """Sapezal Lei 060/1998, Art. 20–21: the fine is the supervisor's, its amount a decree's."""
    with app.app_context():
        f = fleet("sapezal", "taxi")
        agent = factories.user("agent", "sapezal")
        sup = factories.user("supervisor", "sapezal")
        insp = inspect(f["vehicle"], agent, {"roof-light": "fail"}, WHEN)
        db.session.commit()
        first = db.session.scalar(select(Sanction).where(Sanction.inspection_id == insp.id))
        ident, username = first.id, sup.username
    c = _login(app, username)
    options = [o for o in _act_options(app, ident) if o.endswith(":0") and "fine" in o]
    assert options
    r = c.post_form(f"/revisao/atos/{ident}/alterar",
                    {"option": options[0], "reason": "Multa cabível."},
                    token_from=f"/revisao/atos/{ident}")
    assert r.status_code == 422
    html = unescape(r.get_data(as_text=True))
    assert "antes de alterar o ato" in html and "fine.amount" not in html
    assert _notices(app) == 0 and _act(app, ident).status == SanctionStatus.PROPOSED


def _act_options(app, ident: int) -> list[str]:
    from inspector import enforcement
    with app.app_context():
        return [o.key for o in enforcement.amend_options(db.session.get(Sanction, ident))]


# --- a decree value in another town's unit -----------------------------------------------

def test_a_decree_value_in_another_towns_unit_stops_the_decision(app):
    """A decree value stored in another town's unit (as the form accepted before) is not
    priced with this town's UFM value, and the decision says what to correct."""
    w = _world(app)
    with app.app_context():
        set_values(TOWN, fiscal_unit="5.00", decree={"fine.amount": (2, "UFIM")},
                   since=WHEN.date().replace(month=1, day=1))
        db.session.commit()
    _amend_to_fine(app, w)
    admin = _login(app, w["admin"])
    page = unescape(admin.get(f"/revisao/atos/{w['act']}").get_data(as_text=True))
    assert "2 UFIM" in page and "R$ 10,00" not in page
    assert "UFIM não é a unidade fiscal de Nova Santa Helena (UFM)" in page
    r = _mayor(admin, w["act"])
    assert r.status_code == 422
    html = unescape(r.get_data(as_text=True))
    assert "está cadastrado em UFIM, que não é a unidade fiscal de Nova Santa Helena (UFM)" \
        in html
    assert _notices(app) == 0
    # corrected to the town's own unit, the same decision goes through at its UFM value
    with app.app_context():
        row = db.session.scalar(select(DecreeValue))
        row.unit = "UFM"
        db.session.commit()
    assert _mayor(admin, w["act"]).status_code == 303
    act = _act(app, w["act"])
    assert (act.amount_unit, act.amount, act.amount_brl) == ("UFM", Decimal("2.00"),
                                                             Decimal("10.00"))
