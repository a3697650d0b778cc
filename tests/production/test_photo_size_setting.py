"""The size of the field app's photos: the town's admin sets the longest
side (1280, 1600, 2048 px or the camera's original) and the JPEG quality on "Configuração do
município"; bounded, pt-BR errors, CSRF-checked, audited, never across towns, and sent to the
phones in the snapshot's town (a delta too: the audit entry moves the town's version)."""
from __future__ import annotations

import json

import pytest

from inspector import audit
from inspector.extensions import db
from inspector.models import AuditEntry, Municipality
from tests import factories

PAGE, POST = "/municipio", "/municipio/fotos"


def _admin(client, make, town="tapurah", username="admin.t"):
    make(factories.user, "admin", town, username=username)
    assert client.login(username).status_code == 302


def _town(app, slug="tapurah") -> tuple:
    with app.app_context():
        t = db.session.scalar(db.select(Municipality).filter_by(slug=slug))
        return t.photo_max_side, t.photo_quality


def test_the_default_is_the_measured_one_and_the_admin_changes_it(app, client, make):
    _admin(client, make)
    html = client.get(PAGE).get_data(as_text=True)
    section = html.split('id="fotos"')[1]
    assert '<option value="1600" selected>1600 px (padrão)</option>' in section
    assert 'name="quality" inputmode="numeric" value="85"' in section
    r = client.post_form(POST, {"max_side": "1280", "quality": "80"}, token_from=PAGE)
    assert r.status_code == 302 and r.headers["Location"].endswith("/municipio#fotos")
    assert _town(app) == (1280, 80)
    page = client.get(PAGE).get_data(as_text=True)
    assert "Tamanho das fotos: 1280 px, qualidade 80." in page
    assert '<option value="1280" selected>' in page
    with app.app_context():
        entry = db.session.scalar(db.select(AuditEntry).filter_by(action="photo_size_set"))
        assert entry.actor == "admin.t" and entry.entity == "municipality"
        assert json.loads(entry.before) == {"max_side": 1600, "quality": 85}
        assert json.loads(entry.after) == {"max_side": 1280, "quality": 80}
        assert audit.verify()[1] is None
    # "original": the camera's bytes as before the setting existed (stored as no size)
    assert client.post_form(POST, {"max_side": "original", "quality": "85"},
                            token_from=PAGE).status_code == 302
    assert _town(app) == (None, 85)


@pytest.mark.parametrize("data, field, words", [
    ({"max_side": "1000", "quality": "85"}, "max_side", "escolha 1280, 1600, 2048 px ou original"),
    ({"max_side": "9" * 400, "quality": "85"}, "max_side", "escolha 1280"),
    ({"max_side": "", "quality": "85"}, "max_side", "escolha 1280"),
    ({"max_side": "²", "quality": "85"}, "max_side", "escolha 1280"),  # str.isdigit's digit
    ({"max_side": "١٦٠٠", "quality": "85"}, "max_side", "escolha 1280"),
    ({"max_side": "1600", "quality": "49"}, "quality", "qualidade JPEG fora do intervalo (50 a 95)"),
    ({"max_side": "1600", "quality": "100"}, "quality", "fora do intervalo (50 a 95)"),
    ({"max_side": "1600", "quality": "0,8"}, "quality", "qualidade JPEG inválido: use só algarismos"),
    ({"max_side": "1600"}, "quality", "obrigatório"),
])
def test_bad_values_are_refused_in_portuguese_and_nothing_changes(app, client, make, data,
                                                                    field, words):
    _admin(client, make)
    r = client.post_form(POST, data, token_from=PAGE)
    html = r.get_data(as_text=True)
    assert r.status_code == 422
    assert f'id="f-{field}-error"' in html and words in html.split(f'id="f-{field}-error"')[1]
    assert _town(app) == (1600, 85)
    with app.app_context():
        assert db.session.scalar(db.select(AuditEntry).filter_by(action="photo_size_set")) is None


def test_without_the_csrf_token_nothing_changes(app, client, make):
    _admin(client, make)
    r = client.post(POST, data={"max_side": "1280", "quality": "80"})
    assert r.status_code in (400, 403) and _town(app) == (1600, 85)


def test_another_towns_admin_sets_only_their_own_town(app, client, make):
    make(factories.user, "admin", "tapurah", username="admin.t")
    _admin(client, make, "sapezal", "admin.s")
    assert client.post_form(POST, {"max_side": "2048", "quality": "90"},
                            token_from=PAGE).status_code == 302
    assert _town(app, "sapezal") == (2048, 90) and _town(app, "tapurah") == (1600, 85)


@pytest.mark.parametrize("role", ["agent", "supervisor"])
def test_only_the_admin_posts(app, client, make, role):
    make(factories.user, role, "tapurah", username="u.t")
    client.login("u.t")
    assert client.post_form(POST, {"max_side": "1280", "quality": "80"}).status_code == 403
    assert _town(app) == (1600, 85)


def test_the_phone_gets_the_setting_in_the_snapshot_and_its_delta(app, api, make):
    full = api.get("/api/field/snapshot").json
    assert full["town"]["photo"] == {"max_side": 1600, "quality": 85}
    admin = app.test_client()
    _admin(admin, make)
    assert admin.post_form(POST, {"max_side": "1280", "quality": "75"},
                           token_from=PAGE).status_code == 302
    delta = api.get(f"/api/field/snapshot?since={full['version']}").json
    assert delta["full"] is False and delta["version"] > full["version"]
    assert delta["town"]["photo"] == {"max_side": 1280, "quality": 75}
