"""A vistoria whose validity the inspector shortened (Nova Santa Helena Lei 535/2013 Art. 32
§ 3º): set by an admin in the vehicle form only where the law allows it, audited, and used by
the compliance check, the vehicle page, the passenger page and the field snapshot. Migration
0018 down and up with data. Runs on SQLite and PostgreSQL (DATABASE_URL)."""
from __future__ import annotations

import html as html_lib
import json
import re
from datetime import date, timedelta

import flask_migrate
from sqlalchemy import inspect as sa_inspect
from sqlalchemy import select

from inspector.clock import default_day
from inspector.credentials import issuing
from inspector.extensions import db
from inspector.laws import compliance
from inspector.models import AuditEntry, Vehicle
from inspector.registry import records
from inspector.registry.lookup import Lookup
from inspector.rules.engine import add_months
from tests import factories
from tests.support.credentials import banner
from tests.support.field_api import Api

TODAY = default_day()
ART_32_P3 = "Art. 32, § 3º"


def _fmt(day: date) -> str:
    return day.strftime("%d/%m/%Y")


def _taxi(town: str = "nova-santa-helena", **kw) -> Vehicle:
    """A regular taxi: permit, licence, a vistoria 100 days ago, a registered driver."""
    v = factories.vehicle(town, "taxi", last_vistoria_on=TODAY - timedelta(days=100), **kw)
    factories.permit(v.holder, "taxi")
    factories.licence(v)
    factories.insurance(v)
    d = factories.driver(town, "autonomo", holder=v.holder, cnh_category="B")
    d.vehicles.append(v)
    db.session.flush()
    return v


def _admin(app, make, town: str = "nova-santa-helena"):
    user = make(factories.user, "admin", town)
    c = app.test_client()
    assert c.login(user.username).status_code == 302
    return c


def _form(v: Vehicle, **kw) -> dict:
    v = db.session.get(Vehicle, v.id)
    return {"service": "taxi", "plate": v.plate, "make_model": v.make_model,
            "year_of_manufacture": str(v.year_of_manufacture), "doors": "4",
            "colour": v.colour, "prefix": v.prefix, "holder_tax_id": v.holder.tax_id,
            "last_vistoria_on": v.last_vistoria_on.isoformat(), **kw}


REASON = "Correção: vistoria de papel anterior ao aplicativo"


def _post(app, c, v: Vehicle, **kw):
    """The vehicle form, the vistoria dates changed as an audited correction (with a reason)."""
    kw.setdefault("vistoria_correction_reason", REASON)
    with app.app_context():
        data = _form(v, **kw)
    return c.post_form(f"/cadastro/veiculos/{v.id}/editar", data)


def _error(html: str, name: str = "vistoria_valid_until") -> str | None:
    """The error shown next to the field, as a person reads it (lower case for comparing)."""
    m = re.search(rf'<p class="field-error" id="f-{name}-error">([^<]+)</p>', html)
    return html_lib.unescape(m.group(1)).lower() if m else None


def _audits(app, vid: int) -> list[tuple[str, dict | None, dict | None]]:
    """The vehicle's audit entries, oldest first: (action, before, after)."""
    with app.app_context():
        rows = db.session.scalars(select(AuditEntry).filter_by(entity="vehicle",
                                                               entity_id=str(vid))
                                  .order_by(AuditEntry.seq))
        return [(e.action, json.loads(e.before) if e.before else None,
                 json.loads(e.after) if e.after else None) for e in rows]


# ------------------------------------------------------------------------ the form
def test_nova_santa_helena_admin_shortens_a_vistoria_audited_and_shown(app, make):
    v = make(_taxi)
    c = _admin(app, make)
    page = c.get(f"/cadastro/veiculos/{v.id}/editar").get_data(as_text=True)
    assert 'name="vistoria_valid_until"' in page
    before = len(_audits(app, v.id))
    until = TODAY - timedelta(days=5)
    # typed without a reason: refused, the date comes from the vistoria (docs/vistoria.md)
    r = _post(app, c, v, vistoria_valid_until=_fmt(until), vistoria_correction_reason="")
    assert r.status_code == 422
    assert "motivo da correção" in _error(r.get_data(as_text=True), "vistoria_correction_reason")
    assert len(_audits(app, v.id)) == before
    r = _post(app, c, v, vistoria_valid_until=_fmt(until))
    assert r.status_code in (302, 303), r.get_data(as_text=True)
    with app.app_context():
        assert db.session.get(Vehicle, v.id).vistoria_valid_until == until
    entries = _audits(app, v.id)
    assert [e[0] for e in entries[before:]] == ["vehicle_updated", "vehicle_vistoria_corrected"]
    _, old, new = entries[-2]
    assert old["vistoria_valid_until"] is None
    assert new["vistoria_valid_until"] == until.isoformat()
    assert entries[-1][2]["reason"] == REASON
    page = c.get(f"/cadastro/veiculos/{v.id}").get_data(as_text=True)
    assert f"{_fmt(until)} — prazo reduzido pelo responsável pela vistoria " \
           f"(Lei 535/2013, {ART_32_P3}) (vencida)" in page
    # clearing it is a change too, audited
    r = _post(app, c, v, vistoria_valid_until="")
    assert r.status_code in (302, 303)
    assert _audits(app, v.id)[-2][2]["vistoria_valid_until"] is None
    page = c.get(f"/cadastro/veiculos/{v.id}").get_data(as_text=True)
    normal = add_months(v.last_vistoria_on, 12)
    assert f"<dt>Vistoria periódica válida até</dt><dd>{_fmt(normal)}</dd>" in page


def test_bad_shortened_dates_are_422_with_the_reason_and_nothing_saved(app, make):
    v = make(_taxi)
    c = _admin(app, make)
    before = len(_audits(app, v.id))
    normal = add_months(v.last_vistoria_on, 12)
    cases = {
        _fmt(v.last_vistoria_on): f"depois da vistoria de {_fmt(v.last_vistoria_on)}",
        _fmt(v.last_vistoria_on - timedelta(days=3)): "depois da vistoria",
        _fmt(normal + timedelta(days=1)): f"não pode passar de {_fmt(normal)}",
        "31/02/2026": "data inválida",
    }
    for value, reason in cases.items():
        r = _post(app, c, v, vistoria_valid_until=value)
        assert r.status_code == 422, value
        assert reason in (_error(r.get_data(as_text=True)) or ""), (value, r.get_data(as_text=True))
    r = _post(app, c, v, last_vistoria_on="", vistoria_valid_until=_fmt(TODAY))
    assert r.status_code == 422
    assert "informe a data da última vistoria" in _error(r.get_data(as_text=True))
    # the normal end itself is allowed (not later than it)
    r = _post(app, c, v, vistoria_valid_until=_fmt(normal))
    assert r.status_code in (302, 303)
    assert len(_audits(app, v.id)) == before + 2  # the change and its correction's reason


def test_elsewhere_the_law_does_not_allow_it_422_citing_why(app, make):
    v = make(_taxi, "sapezal")
    c = _admin(app, make, "sapezal")
    page = c.get(f"/cadastro/veiculos/{v.id}/editar").get_data(as_text=True)
    assert 'name="vistoria_valid_until"' not in page  # the form does not offer it
    before = len(_audits(app, v.id))
    r = _post(app, c, v, vistoria_valid_until=_fmt(TODAY + timedelta(days=5)))
    assert r.status_code == 422
    why = _error(r.get_data(as_text=True))
    assert "não prevê reduzir a validade da vistoria" in why
    assert "lei 060/1998" in why and "6 meses" in why and "art. 11, § 1º" in why
    with app.app_context():
        assert db.session.get(Vehicle, v.id).vistoria_valid_until is None
    assert len(_audits(app, v.id)) == before
    # an edit without the field still saves
    r = _post(app, c, v, colour="Prata")
    assert r.status_code in (302, 303)


def test_a_new_vistoria_date_from_a_spreadsheet_ends_the_shortening(app, make):
    v = make(_taxi, vistoria_valid_until=TODAY + timedelta(days=10))
    with app.app_context():
        row = db.session.get(Vehicle, v.id)
        batch = Lookup(row.municipality_id, batch=True)  # as the CSV import saves
        records.save_vehicle(row.municipality_id, {"last_vistoria_on": TODAY.isoformat()},
                              actor=None, vehicle=row, lookup=batch)
        records.settle(batch)
        db.session.commit()
        row = db.session.get(Vehicle, v.id)
        assert row.last_vistoria_on == TODAY and row.vistoria_valid_until is None


# ------------------------------------------------------------ compliance, passenger, phone
def test_compliance_and_the_passenger_page_use_the_shortened_day(app, client, make):
    v = make(_taxi)
    with app.app_context():
        row = db.session.get(Vehicle, v.id)
        assert compliance.vehicle_standing(row, TODAY).status == "regular"
        row.vistoria_valid_until = TODAY - timedelta(days=1)
        cred = issuing.issue(row, actor="test")
        db.session.commit()
        token = cred.token
        standing = compliance.vehicle_standing(db.session.get(Vehicle, v.id), TODAY)
        assert standing.status == "irregular"
        (reason,) = standing.reasons
        assert reason.rule_id == "vistoria.overdue"
        assert reason.citation.article == ART_32_P3 and reason.citation.law == "Lei 535/2013"
        assert _fmt(TODAY - timedelta(days=1)) in reason.message
        # the day itself is still valid
        assert compliance.vehicle_standing(db.session.get(Vehicle, v.id),
                                           TODAY - timedelta(days=1)).status == "regular"
    html = client.get(f"/v/{token}").get_data(as_text=True)
    assert banner(html) != "REGULAR"
    assert ART_32_P3 in html and "validade reduzida" in html


def test_field_snapshot_carries_the_shortened_day_and_the_standing(app, client, make):
    v = make(_taxi, vistoria_valid_until=TODAY - timedelta(days=2))
    agent = make(factories.user, "agent", "nova-santa-helena", badge_number="AG-9")
    assert client.login(agent.username).status_code == 302
    s = Api(client).get("/api/field/snapshot").json
    (row,) = [x for x in s["vehicles"] if x["id"] == v.id]
    assert row["vistoria_valid_until"] == (TODAY - timedelta(days=2)).isoformat()
    assert row["last_vistoria_on"] == v.last_vistoria_on.isoformat()
    st = s["standing"][str(v.id)] if isinstance(s["standing"], dict) else \
        next(x for x in s["standing"] if x["vehicle_id"] == v.id)
    assert st["status"] == "irregular"
    assert any(ART_32_P3 in str(r) for r in st["reasons"])


# ------------------------------------------------------------------------ migration
def test_migration_0018_down_and_up_with_a_shortened_vistoria_present(app, make):
    v = make(_taxi, vistoria_valid_until=TODAY + timedelta(days=10))
    with app.app_context():
        db.session.remove()
        flask_migrate.downgrade(revision="0017")
        try:
            cols = {c["name"] for c in sa_inspect(db.engine).get_columns("vehicles")}
            assert "vistoria_valid_until" not in cols
            with db.engine.connect() as conn:
                assert conn.execute(select(Vehicle.__table__.c.plate).where(
                    Vehicle.__table__.c.id == v.id)).scalar() == v.plate  # the row stays
        finally:
            flask_migrate.upgrade()
        row = db.session.get(Vehicle, v.id)
        assert row.plate == v.plate and row.vistoria_valid_until is None
        row.vistoria_valid_until = row.last_vistoria_on  # the check holds after the upgrade
        try:
            db.session.flush()
        except Exception as e:  # noqa: BLE001 - either driver's IntegrityError
            assert "vistoria_valid_until" in str(e)
        else:
            raise AssertionError("the check constraint is missing")
        finally:
            db.session.rollback()
