"""The passenger's page `/v/<token>`: live banner, only what a passenger needs, tiny."""
from __future__ import annotations

import re
from datetime import date, timedelta

from inspector.credentials import issuing
from inspector.extensions import db
from inspector.models import Licence, Status, Vehicle
from tests import factories
from tests.support.credentials import CPF_SHAPED, banner, regular_mototaxi


def _issue(app, build=regular_mototaxi, **kw):
    with app.app_context():
        subject = build(**kw)
        cred = issuing.issue(subject, actor="test")
        db.session.commit()
        return cred.token, subject.id


def _page(client, token):
    resp = client.get(f"/v/{token}")
    return resp, resp.get_data(as_text=True)


def test_valid_token_shows_regular_and_what_to_match_and_nothing_private(app, client):
    token, vid = _issue(app)
    resp, html = _page(client, token)
    assert resp.status_code == 200
    assert banner(html) == "REGULAR"
    for shown in ("QBA1D23", "Honda CG 160 Titan", "Vermelha", "07", "João Batista da Silva",
                  "Moto Táxi Tapurah Ltda"):
        assert shown in html
    with app.app_context():
        v = db.session.get(Vehicle, vid)
        rider = v.drivers[0]
        lic_until = v.current_licence.valid_until.strftime("%d/%m/%Y")
        private = [rider.cpf, rider.cnh_number, v.holder.tax_id, v.holder.address,
                   "Rua das Palmeiras", rider.registration_number, v.current_licence.number]
    assert lic_until in html
    assert not CPF_SHAPED.search(html), "a CPF-shaped number is on the public page"
    for value in private:
        assert value not in html
    assert "<script" not in html and "style=" not in html
    assert not re.search(r'(src|href)="(https?:)?//', html), "a request would leave the site"
    assert resp.headers["Cache-Control"] == "no-store"
    assert "Set-Cookie" not in resp.headers  # the passenger leaves no trace


def test_page_is_under_30_kb_without_images(client, app):
    token, _ = _issue(app)
    resp, html = _page(client, token)
    css_paths = re.findall(r'<link rel="stylesheet" href="([^"]+)"', html)
    assert css_paths == ["/static/css/verify.css"]  # not the app's stylesheet
    css = client.get(css_paths[0])
    total = len(resp.data) + len(css.data)
    css.close()
    assert total < 30 * 1024, total


def test_rider_badge_token_shows_the_rider_and_their_motorcycle(app, client):
    with app.app_context():
        v = regular_mototaxi()
        cred = issuing.issue(v.drivers[0], actor="test")
        db.session.commit()
        token = cred.token
    _, html = _page(client, token)
    assert banner(html) == "REGULAR"
    assert "João Batista da Silva" in html and "QBA1D23" in html
    assert "Registro válido até" in html


def test_driver_photo_is_served_only_for_a_credential_that_names_the_driver(app, client):
    with app.app_context():
        v = regular_mototaxi()
        rider_id = v.drivers[0].id
        stranger = factories.driver("tapurah", photo=b"x", photo_mime="image/jpeg")
        cred = issuing.issue(v, actor="test")
        db.session.commit()
        token, stranger_id, cred_id = cred.token, stranger.id, cred.id
    ok = client.get(f"/v/{token}/foto/{rider_id}")
    assert ok.status_code == 200 and ok.mimetype == "image/jpeg"
    assert client.get(f"/v/{token}/foto/{stranger_id}").status_code == 404
    with app.app_context():
        issuing.revoke(db.session.get(type(cred), cred_id), "teste de foto", actor="test")
        db.session.commit()
    assert client.get(f"/v/{token}/foto/{rider_id}").status_code == 404


def test_expired_licence_is_irregular_with_the_reason(instant, app, client):
    def expired():
        v = regular_mototaxi(plate="QBE2E22")
        lic = v.current_licence
        lic.valid_from, lic.valid_until = date.today() - timedelta(400), date.today() - timedelta(5)
        return v
    token, _ = _issue(app, expired)
    _, html = _page(client, token)
    assert banner(html) == "IRREGULAR"
    assert "QBE2E22" in html and "lvará" in html


def test_revoked_credential_says_cancelada_and_shows_no_ride_details(app, client):
    with app.app_context():
        v = regular_mototaxi()
        cred = issuing.issue(v, actor="test")
        issuing.revoke(cred, "adesivo roubado", actor="test")
        db.session.commit()
        token = cred.token
    resp, html = _page(client, token)
    assert resp.status_code == 200
    assert banner(html) == "CREDENCIAL CANCELADA"
    assert "QBA1D23" not in html and "João" not in html
    assert "Denunciar" in html


def test_unknown_forged_and_garbage_tokens_are_not_recognised(app, client):
    token, _ = _issue(app)
    changed = token[:50] + ("A" if token[50] != "A" else "B") + token[51:]
    for bad in (changed, "A" * 126, "abc", "x" * 500, token[:-1]):
        resp, html = _page(client, bad)
        assert resp.status_code == 404
        assert banner(html) == "NÃO RECONHECIDA"
        assert "QBA1D23" not in html and "João" not in html
        assert "Não embarque." in html
        if bad in (changed, token[:-1]):  # still names Tapurah: its form for a false code
            assert "Denunciar código falso" in html and "Prefeitura de Tapurah" in html
        else:
            assert "Denunciar" not in html


def test_status_is_live_not_cached(app, client):
    token, vid = _issue(app)
    assert banner(_page(client, token)[1]) == "REGULAR"
    with app.app_context():
        lic = db.session.scalar(db.select(Licence).filter_by(vehicle_id=vid))
        lic.status = Status.SUSPENDED
        db.session.commit()
    assert banner(_page(client, token)[1]) == "SUSPENSO"


def test_verification_is_rate_limited_per_client(app, client):
    app.config["VERIFY_RATE_LIMIT"] = "3 per minute"
    token, _ = _issue(app)
    codes = [client.get(f"/v/{token}").status_code for _ in range(4)]
    assert codes == [200, 200, 200, 429]
    other = client.get(f"/v/{token}", environ_base={"REMOTE_ADDR": "10.0.0.7"})
    assert other.status_code == 200  # per client, not global


def test_a_reused_page_follows_every_change_of_the_rows_behind_it(app, client):
    token, vid = _issue(app)
    assert banner(_page(client, token)[1]) == "REGULAR"
    with app.app_context():  # the licence ran out (same row, new date)
        lic = db.session.scalar(db.select(Licence).filter_by(vehicle_id=vid))
        lic.valid_until = date.today() - timedelta(days=2)  # past in Cuiabá too (UTC-4)
        db.session.commit()
    assert banner(_page(client, token)[1]) == "IRREGULAR"
    with app.app_context():  # renewed, and a new auxiliary joins the vehicle
        lic = db.session.scalar(db.select(Licence).filter_by(vehicle_id=vid))
        lic.valid_until = date.today() + timedelta(days=300)
        v = db.session.get(Vehicle, vid)
        v.drivers.append(factories.driver("tapurah", "mototaxista", name="Ana Nova Condutora"))
        db.session.commit()
    _, html = _page(client, token)
    assert banner(html) == "REGULAR" and "Ana Nova Condutora" in html


def test_without_reuse_every_page_is_built_afresh(app, client):
    app.config["VERIFY_CACHE_SIZE"] = 0
    token, _ = _issue(app)
    for _ in range(2):
        assert banner(_page(client, token)[1]) == "REGULAR"
    assert not app.extensions.get("render_cache:passenger_views")


def test_valid_revoked_and_unknown_tokens_do_the_same_database_work(app, client):
    from sqlalchemy import event

    with app.app_context():
        v = regular_mototaxi()
        good = issuing.issue(v, actor="test")
        gone = issuing.issue(factories.vehicle("tapurah"), actor="test")
        issuing.revoke(gone, "teste de tempo", actor="test")
        db.session.commit()
        tokens = {"valid": good.token, "revoked": gone.token, "unknown": "A" * 126,
                  "altered": good.token[:-2] + ("AA" if good.token[-2:] != "AA" else "BA")}
        engine = db.engine
    client.get(f"/v/{tokens['valid']}")  # first view of a page builds it
    statements = []
    listener = lambda *a, **k: statements.append(a[2])  # noqa: E731
    event.listen(engine, "before_cursor_execute", listener)
    try:
        counts = {}
        for label, token in tokens.items():
            statements.clear()
            client.get(f"/v/{token}")
            counts[label] = [s for s in statements if "credentials" in s]
    finally:
        event.remove(engine, "before_cursor_execute", listener)
    assert {k: len(v) for k, v in counts.items()} == {k: 1 for k in tokens}
    assert len({s for v in counts.values() for s in v}) == 1  # one and the same query


def test_a_suspended_riders_badge_says_suspenso(app, client):
    with app.app_context():
        rider = regular_mototaxi().drivers[0]
        rider.status = Status.SUSPENDED
        cred = issuing.issue(rider, actor="test")
        db.session.commit()
        token = cred.token
    _, html = _page(client, token)
    assert banner(html) == "SUSPENSO" and "João Batista da Silva" in html


def test_a_vehicle_page_shows_only_the_drivers_allowed_to_drive_today(instant, app, client):
    with app.app_context():
        v = regular_mototaxi()
        v.drivers.append(factories.driver("tapurah", "mototaxista", name="Pedro Suspenso",
                                          status=Status.SUSPENDED))
        v.drivers.append(factories.driver("tapurah", "mototaxista", name="Caio Vencido",
                                          registration_expiry=date.today() - timedelta(90)))
        cred = issuing.issue(v, actor="test")
        db.session.commit()
        token = cred.token
    _, html = _page(client, token)
    assert "João Batista da Silva" in html
    assert "Pedro Suspenso" not in html and "Caio Vencido" not in html


def test_a_vehicle_nobody_may_drive_today_says_so_under_its_banner(app, client):
    """The only rider suspended: the sticker's page stays REGULAR for the vehicle (nobody can
    tell from a sticker who is riding) but says that whoever drives was not allowed."""
    with app.app_context():
        v = regular_mototaxi()
        v.drivers[0].status = Status.SUSPENDED
        cred = issuing.issue(v, actor="test")
        db.session.commit()
        token = cred.token
    _, html = _page(client, token)
    assert banner(html) == "REGULAR" and "João Batista da Silva" not in html
    assert "Nenhum dos condutores cadastrados neste veículo pode dirigir hoje" in html
    with app.app_context():
        v = regular_mototaxi(plate="QBA2B34")
        v.drivers.clear()
        token = issuing.issue(v, actor="test").token
        db.session.commit()
    assert "Nenhum condutor está cadastrado neste veículo" in _page(client, token)[1]
    # a vehicle with a driver allowed today shows no such line
    token, _ = _issue(app, plate="QBA3C45")
    assert "no-driver" not in _page(client, token)[1]

