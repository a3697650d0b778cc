"""Registry admin screens: search lists (htmx fragment and plain page), create and edit with
inline errors, status changes with a reason, driver photos, roles and town isolation."""
from __future__ import annotations

import re
import struct
import zlib
from io import BytesIO

import pytest
from PIL import Image

from inspector.extensions import db
from inspector.identifiers import make_cpf
from inspector.models import AuditEntry, Driver, Licence, Status, StatusChange, Vehicle
from tests import factories
from tests.support.registry import moto_form
from tests.support.web import field_error, text

HX = {"HX-Request": "true"}


@pytest.fixture
def admin(app, client, make):
    """A signed-in Tapurah admin."""
    user = make(factories.user, "admin", "tapurah")
    assert client.login(user.username).status_code == 302
    return user


def signed_in(app, make, role: str, town: str = "tapurah"):
    user = make(factories.user, role, town)
    c = app.test_client()
    assert c.login(user.username).status_code == 302
    return c


def history_of(html: str) -> str:
    """The history section of a record's page."""
    return html[html.index('id="history-title"'):]


# ------------------------------------------------------------------------- lists
def test_vehicle_list_shows_own_town_with_licence_status(client, make, admin):
    mine = make(factories.vehicle, "tapurah", plate="QAA1A11")
    make(factories.licence, mine, status=Status.SUSPENDED)
    make(factories.vehicle, "sapezal", "taxi", plate="ZZZ9Z99")
    r = client.get("/cadastro/veiculos")
    assert r.status_code == 200
    html = text(r)
    assert "QAA1A11" in html and "Suspenso" in html
    assert "ZZZ9Z99" not in html
    assert 'class="stack"' in html and 'data-label="Placa"' in html
    assert "HX-Request" in r.headers["Vary"]


def test_search_answers_htmx_with_a_fragment_and_plain_get_with_the_page(client, make, admin):
    make(factories.vehicle, "tapurah", plate="QAA1A11")
    make(factories.vehicle, "tapurah", plate="QBB2B22")
    frag = client.get("/cadastro/veiculos?q=qaa1", headers=HX)
    assert frag.status_code == 200
    assert "<html" not in text(frag) and "QAA1A11" in text(frag) and "QBB2B22" not in text(frag)
    assert "HX-Request" in frag.headers["Vary"]
    page = client.get("/cadastro/veiculos?q=QAA1A11")
    assert "<html" in text(page) and 'value="QAA1A11"' in text(page)
    assert "QAA1A11" in text(page) and "QBB2B22" not in text(page)
    # the search box asks for the fragment while typing, and still works as a GET form
    assert 'hx-trigger="input changed delay:250ms, search"' in text(page)
    assert 'method="get"' in text(page)


def test_lists_paginate(client, make, admin):
    h = make(factories.holder, "tapurah")
    with client.application.app_context():
        for i in range(26):
            factories.vehicle("tapurah", plate=f"QAA{i:04d}", holder=db.session.get(
                type(h), h.id))
        db.session.commit()
    first = text(client.get("/cadastro/veiculos"))
    assert "QAA-0024" in first and "QAA-0025" not in first and 'rel="next"' in first
    second = text(client.get("/cadastro/veiculos?pagina=2"))
    assert "QAA-0025" in second and "QAA-0000" not in second and 'rel="prev"' in second


def test_every_list_finds_its_records(client, make, admin):
    v = make(factories.vehicle, "tapurah", plate="QAA1A11")
    with client.application.app_context():
        v = db.session.get(Vehicle, v.id)
        factories.driver("tapurah", name="Maria Condutora", holder=v.holder)
        p = factories.permit(v.holder, number="AUT-77")
        factories.licence(v, number="ALV-55", permit_id=p.id)
        factories.stand("tapurah", code="P-9", place="Rodoviária")
        holder_name = v.holder.name
        db.session.commit()
    for path, q, expected in [("/cadastro/condutores", "maria", "Maria Condutora"),
                              ("/cadastro/permissionarios", holder_name, holder_name),
                              ("/cadastro/alvaras", "alv-55", "ALV-55"),
                              ("/cadastro/permissoes", "aut", "AUT-77"),
                              ("/cadastro/pontos", "rodov", "Rodoviária")]:
        frag = client.get(f"{path}?q={q}", headers=HX)
        assert frag.status_code == 200 and expected in text(frag), path
        empty = client.get(f"{path}?q=nada-disso-xyz", headers=HX)
        assert expected not in text(empty) and "nenhum resultado" in text(empty), path


def test_subnav_links_every_section(client, admin):
    html = text(client.get("/cadastro/veiculos"))
    for label in ("Veículos", "Condutores", "Permissionários", "Alvarás", "Permissões",
                  "Pontos"):
        assert f">{label}</a>" in html
    assert 'aria-current="page">Veículos' in html


# -------------------------------------------------------------------- create / edit
def test_create_vehicle_shows_every_error_inline_then_saves(client, make, admin, app):
    h = make(factories.holder, "tapurah")
    bad = client.post_form("/cadastro/veiculos/novo",
                           moto_form(h.tax_id, plate="12-XYZ", colour="", year_of_manufacture="1900"),
                           token_from="/cadastro/veiculos/novo")
    assert bad.status_code == 422
    html = text(bad)
    assert "Placa inválida" in field_error(html, "plate")
    assert field_error(html, "colour") and field_error(html, "year_of_manufacture")
    assert 'value="Honda CG 160"' in html  # what was typed stays
    with app.app_context():
        assert db.session.query(Vehicle).count() == 0
    ok = client.post_form("/cadastro/veiculos/novo", moto_form(h.tax_id, plate="qbc-1d23"),
                          token_from="/cadastro/veiculos/novo")
    assert ok.status_code == 303
    with app.app_context():
        v = db.session.scalar(db.select(Vehicle).filter_by(plate="QBC1D23"))
        assert v is not None and v.holder_id == h.id
        assert ok.headers["Location"].endswith(f"/cadastro/veiculos/{v.id}")
        assert db.session.query(AuditEntry).filter_by(entity="vehicle",
                                                      entity_id=str(v.id)).count() == 1
    page = client.get(ok.headers["Location"])
    assert "cadastrado" in text(page) and "Cadastro" in text(page)  # flash and history


def test_htmx_form_gets_the_form_back_on_error_and_a_redirect_on_success(client, make, admin):
    h = make(factories.holder, "tapurah")
    token = client.csrf_token("/cadastro/veiculos/novo")
    bad = client.post("/cadastro/veiculos/novo", headers={**HX, "X-CSRFToken": token},
                      data=moto_form(h.tax_id, plate="XX"))
    assert bad.status_code == 422
    assert text(bad).lstrip().startswith("{#") is False
    assert "<html" not in text(bad) and 'id="registry-form"' in text(bad)
    assert field_error(text(bad), "plate")
    assert 'autofocus' in text(bad)
    ok = client.post("/cadastro/veiculos/novo", headers={**HX, "X-CSRFToken": token},
                     data=moto_form(h.tax_id))
    assert ok.status_code == 200 and "/cadastro/veiculos/" in ok.headers["HX-Redirect"]


def test_edit_form_is_prefilled_and_saves_a_change(client, make, admin, app):
    v = make(factories.vehicle, "tapurah", plate="QAA1A11", colour="Vermelha",
             last_vistoria_on=None)  # the form below leaves the vistoria as it is: none
    form = text(client.get(f"/cadastro/veiculos/{v.id}/editar"))
    assert 'value="QAA1A11"' in form and 'value="Vermelha"' in form
    with app.app_context():
        tax_id = db.session.get(Vehicle, v.id).holder.tax_id
    data = moto_form(tax_id, plate="QAA1A11", colour="Preta", prefix=v.prefix)
    r = client.post_form(f"/cadastro/veiculos/{v.id}/editar", data,
                         token_from=f"/cadastro/veiculos/{v.id}/editar")
    assert r.status_code == 303
    page = text(client.get(f"/cadastro/veiculos/{v.id}"))
    assert "Preta" in page
    history = history_of(page)
    assert "Alteração" in history and "Cor" in history and "Admin de Teste" in history


def test_holder_with_bad_cpf_is_refused_inline(client, admin):
    r = client.post_form("/cadastro/permissionarios/novo",
                         {"kind": "person", "name": "Fulano", "tax_id": "111.111.111-11"},
                         token_from="/cadastro/permissionarios/novo")
    assert r.status_code == 422 and "CPF inválido" in field_error(text(r), "tax_id")


# ------------------------------------------------------------------ status changes
def test_suspending_a_licence_needs_a_reason_and_is_recorded(client, make, admin, app):
    v = make(factories.vehicle, "tapurah")
    lic = make(factories.licence, v)
    url = f"/cadastro/alvaras/{lic.id}/situacao"
    page = text(client.get(f"/cadastro/alvaras/{lic.id}"))
    assert 'value="suspended"' in page and 'value="active"' not in page
    no_reason = client.post_form(url, {"to_status": "suspended", "reason": ""},
                                 token_from=f"/cadastro/alvaras/{lic.id}")
    assert no_reason.status_code == 422
    assert re.search(r'id="status-reason-error">Informe o motivo', text(no_reason))
    with app.app_context():
        assert db.session.get(Licence, lic.id).status == Status.ACTIVE
    ok = client.post_form(url, {"to_status": "suspended",
                                "reason": "Notificação 12/2026 não atendida em 72 h"},
                          token_from=f"/cadastro/alvaras/{lic.id}")
    assert ok.status_code == 303
    with app.app_context():
        assert db.session.get(Licence, lic.id).status == Status.SUSPENDED
        change = db.session.scalar(db.select(StatusChange))
        assert change.reason.startswith("Notificação 12/2026") and change.user_id == admin.id
    history = history_of(text(client.get(f"/cadastro/veiculos/{v.id}")))
    assert "Notificação 12/2026 não atendida em 72 h" in history
    assert "Ativo → Suspenso" in history and "Admin de Teste" in history


def test_status_change_over_htmx_reswaps_the_form_on_error(client, make, admin):
    d = make(factories.driver, "tapurah")
    token = client.csrf_token(f"/cadastro/condutores/{d.id}")
    r = client.post(f"/cadastro/condutores/{d.id}/situacao", headers={**HX, "X-CSRFToken": token},
                    data={"reason": "sem escolher"})
    assert r.status_code == 422 and "<html" not in text(r)
    assert 'id="status-form"' in text(r) and "Escolha a nova situação" in text(r)
    ok = client.post(f"/cadastro/condutores/{d.id}/situacao",
                     headers={**HX, "X-CSRFToken": token},
                     data={"to_status": "revoked", "reason": "Dirigia embriagado (NSH Art. 19)"})
    assert ok.status_code == 200 and ok.headers["HX-Redirect"].endswith(f"/condutores/{d.id}")


# ------------------------------------------------------------------- driver photos
def _image(fmt: str, size=(800, 600), mode="RGB") -> bytes:
    out = BytesIO()
    Image.new(mode, size, "navy").save(out, fmt)
    return out.getvalue()


def _huge_png(width: int, height: int) -> bytes:
    """A tiny PNG file whose header claims enormous dimensions (a decompression bomb)."""
    raw = bytearray(_image("PNG", (1, 1)))
    ihdr = raw.index(b"IHDR")
    raw[ihdr + 4:ihdr + 12] = struct.pack(">II", width, height)
    crc = zlib.crc32(bytes(raw[ihdr:ihdr + 17]))
    raw[ihdr + 17:ihdr + 21] = struct.pack(">I", crc)
    return bytes(raw)


def _driver_form(**kw) -> dict:
    return {"category": "mototaxista", "name": "Ana Piloto", "cpf": make_cpf("321654987"),
            "cnh_number": "01234567890", "cnh_category": "A", "cnh_expiry": "2030-12-31",
            "registration_number": "MT-77", "registration_expiry": "2027-06-30", **kw}


def test_driver_photo_is_reencoded_and_served_only_in_town(client, make, admin, app):
    data = _driver_form(photo=(BytesIO(_image("PNG", (1200, 1600), "RGBA")), "eu.png"))
    r = client.post_form("/cadastro/condutores/novo", data, token_from="/cadastro/condutores/novo",
                         content_type="multipart/form-data")
    assert r.status_code == 303, text(r)
    with app.app_context():
        d = db.session.scalar(db.select(Driver).filter_by(name="Ana Piloto"))
        assert d.photo_mime == "image/jpeg"
        stored = Image.open(BytesIO(d.photo))
        assert stored.format == "JPEG" and max(stored.size) <= 640
        driver_id = d.id
    photo = client.get(f"/cadastro/condutores/{driver_id}/foto")
    assert photo.status_code == 200 and photo.mimetype == "image/jpeg"
    assert f"/cadastro/condutores/{driver_id}/foto" in text(client.get(f"/cadastro/condutores/{driver_id}"))
    supervisor = signed_in(app, make, "supervisor", "tapurah")
    assert supervisor.get(f"/cadastro/condutores/{driver_id}/foto").status_code == 200
    assert signed_in(app, make, "agent", "tapurah").get(
        f"/cadastro/condutores/{driver_id}/foto").status_code == 403
    assert signed_in(app, make, "admin", "sapezal").get(
        f"/cadastro/condutores/{driver_id}/foto").status_code == 404


@pytest.mark.parametrize("payload, message", [
    (lambda: _image("GIF", (40, 40), "P"), "Formato não aceito"),
    (lambda: b"%PDF-1.4 not an image", "Formato não aceito"),
    (lambda: _huge_png(20000, 20000), "pixels demais"),
])
def test_bad_photos_are_refused_with_the_other_errors(client, admin, app, payload, message):
    data = _driver_form(cpf="123", photo=(BytesIO(payload()), "x.img"))
    r = client.post_form("/cadastro/condutores/novo", data, token_from="/cadastro/condutores/novo",
                         content_type="multipart/form-data")
    assert r.status_code == 422
    assert message in field_error(text(r), "photo")
    assert field_error(text(r), "cpf")  # reported together
    with app.app_context():
        assert db.session.query(Driver).count() == 0


# ------------------------------------------------------------------- roles and towns
def test_supervisor_reads_without_edit_buttons_and_cannot_write(app, make):
    v = make(factories.vehicle, "tapurah")
    lic = make(factories.licence, v)
    sup = signed_in(app, make, "supervisor")
    page = sup.get(f"/cadastro/veiculos/{v.id}")
    assert page.status_code == 200 and "Editar</a>" not in text(page)
    assert "Novo veículo" not in text(sup.get("/cadastro/veiculos"))
    assert 'id="status-form"' not in text(sup.get(f"/cadastro/alvaras/{lic.id}"))
    assert sup.get("/cadastro/veiculos/novo").status_code == 403
    assert sup.post_form(f"/cadastro/alvaras/{lic.id}/situacao",
                         {"to_status": "revoked", "reason": "tentativa indevida"}
                         ).status_code == 403
    assert sup.post_form(f"/cadastro/veiculos/{v.id}/editar", {"colour": "Azul"}
                         ).status_code == 403


def test_agents_are_refused(app, make):
    agent = signed_in(app, make, "agent")
    for path in ("/cadastro/veiculos", "/cadastro/condutores", "/cadastro/veiculos/novo"):
        assert agent.get(path).status_code == 403, path


def test_another_towns_records_are_not_found(client, make, admin):
    v = make(factories.vehicle, "sapezal", "taxi", plate="ZZZ9Z99")
    lic = make(factories.licence, v)
    assert client.get(f"/cadastro/veiculos/{v.id}").status_code == 404
    assert client.get(f"/cadastro/veiculos/{v.id}/editar").status_code == 404
    assert client.post_form(f"/cadastro/alvaras/{lic.id}/situacao",
                            {"to_status": "revoked", "reason": "outro município"}
                            ).status_code == 404
    assert "ZZZ9Z99" not in text(client.get("/cadastro/veiculos?q=ZZZ", headers=HX))


# --------------------------------------------------------------------- vehicle page
def test_vehicle_page_shows_licence_holder_drivers_stand_insurance_and_history(client, make,
                                                                               admin, app):
    with app.app_context():
        stand = factories.stand("tapurah", code="P-1", place="Praça da Matriz")
        v = factories.vehicle("tapurah", plate="QAA1A11", stand_id=stand.id)
        d = factories.driver("tapurah", name="Rita Mototaxista", holder=v.holder)
        d.vehicles.append(v)
        factories.licence(v, number="ALV-1")
        factories.insurance(v, insurer="Seguradora Pantanal")
        holder_name, vid = v.holder.name, v.id
        db.session.commit()
    html = text(client.get(f"/cadastro/veiculos/{vid}"))
    for expected in ("ALV-1", "Ativo", "Até ", holder_name, "Rita Mototaxista",
                     "P-1", "Praça da Matriz", "Seguradora Pantanal", "Histórico", "sem foto"):
        assert expected in html, expected
    assert "Sem seguro em vigor" not in html


def test_licence_and_insurance_forms_are_prefilled_from_the_vehicle_page(client, make, admin,
                                                                         app):
    v = make(factories.vehicle, "tapurah", plate="QAA1A11")
    page = text(client.get(f"/cadastro/veiculos/{v.id}"))
    assert "/cadastro/alvaras/novo?vehicle_plate=QAA1A11" in page
    assert "/cadastro/seguros/novo?vehicle_plate=QAA1A11" in page
    form = text(client.get("/cadastro/seguros/novo?vehicle_plate=QAA1A11"))
    assert re.search(r'id="f-vehicle_plate"[^>]*value="QAA1A11"', form)
    r = client.post_form("/cadastro/seguros/novo",
                         {"vehicle_plate": "QAA1A11", "insurer": "Seguradora Cerrado",
                          "policy_number": "AP-1", "valid_from": "2026-01-01",
                          "valid_until": "2025-01-01"}, token_from="/cadastro/seguros/novo")
    assert r.status_code == 422 and field_error(text(r), "valid_until")
    r = client.post_form("/cadastro/seguros/novo",
                         {"vehicle_plate": "QAA1A11", "insurer": "Seguradora Cerrado",
                          "policy_number": "AP-1", "valid_from": "2026-01-01",
                          "valid_until": "2027-01-01"}, token_from="/cadastro/seguros/novo")
    assert r.status_code == 303 and r.headers["Location"].endswith(f"/cadastro/veiculos/{v.id}")
    r = client.post_form("/cadastro/alvaras/novo",
                         {"kind": "alvara_mototaxi", "number": "ALV-2026-9",
                          "vehicle_plate": "QAA-1A11", "valid_from": "2026-01-01",
                          "valid_until": "2027-01-01"}, token_from="/cadastro/alvaras/novo")
    assert r.status_code == 303
    page = text(client.get(f"/cadastro/veiculos/{v.id}"))
    assert "Seguradora Cerrado" in page and "ALV-2026-9" in page


def test_vehicle_list_does_not_query_per_row(client, make, admin, app):
    from sqlalchemy import event

    with app.app_context():
        for i in range(25):
            v = factories.vehicle("tapurah", plate=f"QAA{i:04d}",
                                  stand_id=factories.stand("tapurah").id)
            factories.licence(v)
        db.session.commit()
        statements = []
        listener = lambda *a, **k: statements.append(a[2])  # noqa: E731
        event.listen(db.engine, "before_cursor_execute", listener)
        try:
            r = client.get("/cadastro/veiculos", headers=HX)
        finally:
            event.remove(db.engine, "before_cursor_execute", listener)
    assert r.status_code == 200 and text(r).count('data-label="Placa"') == 25
    # 8 for the page, and a constant few for today's verdict of the town's fleet (the
    # "Hoje" column: computed once per town and day, eager-loaded in batches, then cached)
    assert len(statements) <= 12, statements


def test_admin_unlinks_a_driver_from_a_vehicle(client, make, admin, app):
    with app.app_context():
        v = factories.vehicle("tapurah", plate="QAA1A11")
        d = factories.driver("tapurah", name="Rita Mototaxista", holder=v.holder)
        d.vehicles.append(v)
        db.session.commit()
        vid, did = v.id, d.id
    page = text(client.get(f"/cadastro/condutores/{did}"))
    assert f"/cadastro/condutores/{did}/veiculos/{vid}/desvincular" in page
    r = client.post_form(f"/cadastro/condutores/{did}/veiculos/{vid}/desvincular",
                         token_from=f"/cadastro/condutores/{did}")
    assert r.status_code == 303
    with app.app_context():
        assert db.session.get(Driver, did).vehicles == []
    assert "não conduz mais o veículo QAA1A11" in text(client.get(r.headers["Location"]))
    assert "Rita Mototaxista" not in text(client.get(f"/cadastro/veiculos/{vid}"))


def test_import_link_is_for_admins_only_and_only_when_the_import_exists(app, client, make,
                                                                        admin):
    html = text(client.get("/cadastro/veiculos"))
    if "imports.upload" in app.view_functions:
        assert 'href="/cadastro/importar">Importar CSV</a>' in html
    else:
        assert "Importar CSV" not in html
    supervisor = signed_in(app, make, "supervisor")
    assert "Importar CSV" not in text(supervisor.get("/cadastro/veiculos"))
