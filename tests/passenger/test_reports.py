"""'Denunciar': a passenger's report reaches the town's supervisors; bots and bursts don't.
The "Denúncia recebida" page answers the form's POST, so reloading it (or a double tap on a
slow network) sends the same report again: it is kept once, and the passenger is thanked
again; a different report of the same ride, or the same words about another code, is a new
one. A report filed from an expired sticker's page is kept as 'expired' and the supervisors
read CREDENCIAL VENCIDA (not CANCELADA, what the town did to a revoked one)."""
from __future__ import annotations

import io
import re
from datetime import date

import pytest
from PIL import Image

from inspector.credentials import issuing
from inspector.extensions import db
from inspector.models import AuditEntry, PassengerReport
from tests import factories
from tests.support.credentials import jpeg, regular_mototaxi


def _exif_with_gps() -> bytes:
    ex = Image.Exif()
    ex[0x010F] = "PhoneMaker"                       # Make
    ex.get_ifd(0x8825)[2] = (15.0, 30.0, 0.0)       # GPSLatitude
    return ex.tobytes()


@pytest.fixture
def token(app):
    app.config["REPORT_MIN_FILL_SECONDS"] = 0
    with app.app_context():
        cred = issuing.issue(regular_mototaxi(), actor="test")
        db.session.commit()
        return cred.token


def _form(client, token) -> dict:
    html = client.get(f"/v/{token}/denunciar").get_data(as_text=True)
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', html).group(1)
    stamp = re.search(r'name="t" value="([^"]+)"', html).group(1)
    return {"csrf_token": csrf, "t": stamp, "categoria": "driving",
            "texto": "Levou dois passageiros na garupa na Av. Brasil às 18h.",
            "contato": "", "website": ""}


def _post(client, token, data, photo: bytes | None = None, **kw):
    data = dict(data)
    if photo is not None:
        data["foto"] = (io.BytesIO(photo), "foto.jpg")
    return client.post(f"/v/{token}/denunciar", data=data,
                       content_type="multipart/form-data", **kw)


def test_report_with_photo_reaches_the_supervisors_queue_without_metadata(app, client, make,
                                                                          token):
    original = jpeg((800, 600), exif=_exif_with_gps())
    assert b"PhoneMaker" in original
    resp = _post(client, token, _form(client, token), original)
    assert resp.status_code == 201, resp.get_data(as_text=True)
    assert "Denúncia recebida" in resp.get_data(as_text=True)

    sup = make(factories.user, "supervisor", "tapurah")
    client.login(sup.username)
    listing = client.get("/denuncias").get_data(as_text=True)
    assert "Direção perigosa" in listing and "QBA1D23" in listing
    with app.app_context():
        report = db.session.scalar(db.select(PassengerReport))
        rid = report.id
        assert report.seen_status == "regular" and report.photo_sha256
    detail = client.get(f"/denuncias/{rid}").get_data(as_text=True)
    assert "Levou dois passageiros" in detail and f"/denuncias/{rid}/foto" in detail
    photo = client.get(f"/denuncias/{rid}/foto")
    assert photo.status_code == 200 and photo.mimetype == "image/jpeg"
    kept = Image.open(io.BytesIO(photo.data))
    assert kept.size == (800, 600)
    assert not kept.getexif() and b"PhoneMaker" not in photo.data

    # Another town's supervisor sees nothing of it; an agent is not a supervisor.
    other = make(factories.user, "supervisor", "sapezal")
    client.post_form("/sair")
    client.login(other.username)
    assert "QBA1D23" not in client.get("/denuncias").get_data(as_text=True)
    assert client.get(f"/denuncias/{rid}").status_code == 404

    # The supervisor closes it with a note; the log has no free text from the passenger.
    client.post_form("/sair")
    client.login(sup.username)
    resp = client.post_form(f"/denuncias/{rid}/concluir", {"nota": "Condutor notificado."})
    assert resp.status_code == 302
    with app.app_context():
        logs = [e for e in db.session.scalars(db.select(AuditEntry))
                if e.entity == "passenger_report"]
        assert [e.action for e in logs] == ["passenger_report_received",
                                           "passenger_report_closed"]
        assert "Levou" not in (logs[0].after or "")


def test_a_burst_from_one_client_gets_429(client, token):
    codes = [_post(client, token, _form(client, token)).status_code for _ in range(7)]
    assert codes[:5] == [201] * 5
    assert codes[5:] == [429, 429]
    page = client.get(f"/v/{token}/denunciar")  # reading still works
    assert page.status_code == 200


def test_honeypot_is_thanked_but_not_stored(app, client, token):
    data = _form(client, token) | {"website": "http://spam.example"}
    resp = _post(client, token, data)
    assert resp.status_code == 200 and "Denúncia recebida" in resp.get_data(as_text=True)
    with app.app_context():
        assert db.session.scalar(db.select(db.func.count(PassengerReport.id))) == 0


def test_a_form_sent_faster_than_a_person_can_type_is_refused(app, client, token):
    app.config["REPORT_MIN_FILL_SECONDS"] = 3
    resp = _post(client, token, _form(client, token))
    assert resp.status_code == 422 and "rápido demais" in resp.get_data(as_text=True)
    data = _form(client, token) | {"t": "forged"}
    app.config["REPORT_MIN_FILL_SECONDS"] = 0
    assert _post(client, token, data).status_code == 422


def test_without_csrf_token_nothing_is_stored(app, client, token):
    data = _form(client, token)
    del data["csrf_token"]
    assert _post(client, token, data).status_code == 400
    with app.app_context():
        assert db.session.scalar(db.select(db.func.count(PassengerReport.id))) == 0


def _png_bomb(side: int = 12000) -> bytes:
    """A small PNG of side x side pixels (144 MP by default: above Pillow's warning level,
    below its hard error, above our cap)."""
    out = io.BytesIO()
    Image.new("1", (side, side)).save(out, "PNG")
    return out.getvalue()


@pytest.mark.parametrize("photo, message", [
    (b"%PDF-1.4 not a photo", "JPEG, PNG ou WebP"),
    (None, "pixels demais"),
    (jpeg()[:200], "corrompida"),
])
def test_bad_photos_are_refused_with_a_reason(app, client, token, photo, message):
    if photo is None:
        photo = _png_bomb()
        assert len(photo) < 200_000
    resp = _post(client, token, _form(client, token), photo)
    assert resp.status_code == 422
    assert message in resp.get_data(as_text=True)
    with app.app_context():
        assert db.session.scalar(db.select(db.func.count(PassengerReport.id))) == 0


def test_bomb_warning_is_an_error_even_under_the_configured_cap(app, client, token):
    app.config["REPORT_PHOTO_MAX_PIXELS"] = 10**12  # only Pillow's own bomb check is left
    resp = _post(client, token, _form(client, token), _png_bomb())
    assert resp.status_code == 422 and "pixels demais" in resp.get_data(as_text=True)


def test_short_text_and_bad_category_are_explained(client, token):
    data = _form(client, token) | {"texto": "ruim", "categoria": "nope"}
    body = _post(client, token, data).get_data(as_text=True)
    assert "conte o que aconteceu" in body and "escolha o tipo" in body


def test_no_report_for_an_unrecognised_code(client, token):
    assert client.get(f"/v/{'A' * 126}/denunciar").status_code == 404


@pytest.fixture
def tokens(app):
    app.config["REPORT_MIN_FILL_SECONDS"] = 0
    with app.app_context():
        one = issuing.issue(regular_mototaxi(plate="QBA1D23"), actor="test")
        two = issuing.issue(regular_mototaxi(plate="QBA1D24"), actor="test")
        db.session.commit()
        return one.token, two.token


def _filled_form(client, token, text, photo: bytes | None = None):
    html = client.get(f"/v/{token}/denunciar").get_data(as_text=True)
    data = {"csrf_token": re.search(r'name="csrf_token" value="([^"]+)"', html).group(1),
            "t": re.search(r'name="t" value="([^"]+)"', html).group(1),
            "categoria": "driving", "texto": text, "contato": "65 99999-1234", "website": ""}
    if photo is not None:
        data["foto"] = (io.BytesIO(photo), "foto.jpg")
    return data


def _post_again(client, token, data):
    data = {k: (io.BytesIO(v[0].getvalue()), v[1]) if isinstance(v, tuple) else v
            for k, v in data.items()}
    return client.post(f"/v/{token}/denunciar", data=data, content_type="multipart/form-data")


def _reports(app) -> list[tuple[int | None, str]]:
    with app.app_context():
        return [(r.credential_id, r.text) for r in
                db.session.scalars(db.select(PassengerReport).order_by(PassengerReport.id))]


def test_the_same_report_posted_again_is_kept_once(app, client, tokens):
    first, second = tokens
    form = _filled_form(client, first, "Levou dois passageiros na garupa na Av. Brasil.", jpeg((64, 48)))
    for _ in range(3):                     # sent, then the thanks page reloaded twice
        resp = _post_again(client, first, form)
        assert resp.status_code == 201 and "Denúncia recebida" in resp.get_data(as_text=True)
    assert len(_reports(app)) == 1
    with app.app_context():
        received = [e for e in db.session.scalars(db.select(AuditEntry))
                    if e.action == "passenger_report_received"]
        assert len(received) == 1

    # Other words, or the same words about another code: new reports.
    other_words = _filled_form(client, first, "Cobrou o dobro da tarifa ontem à noite.")
    assert _post_again(client, first, other_words).status_code == 201
    other_code = _filled_form(client, second, "Levou dois passageiros na garupa na Av. Brasil.",
                              jpeg((64, 48)))
    assert _post_again(client, second, other_code).status_code == 201
    assert len(_reports(app)) == 3


def test_a_refused_form_says_at_the_top_that_nothing_was_sent(app, client, tokens):
    first, _ = tokens
    form = _filled_form(client, first, "O condutor era outra pessoa, não a da foto.")
    form["foto"] = (io.BytesIO(b"not an image at all"), "foto.jpg")
    resp = _post_again(client, first, form)
    html = resp.get_data(as_text=True)
    assert resp.status_code == 422
    alert = html.index("A denúncia ainda não foi enviada: veja abaixo o que corrigir e escolha "
                       "a foto de novo.")
    assert alert < html.index('<form method="post"')              # above the form, seen first
    assert "O condutor era outra pessoa" in html                  # the words are kept
    assert _reports(app) == []
    form = _filled_form(client, first, "curto")
    html = _post_again(client, first, form).get_data(as_text=True)
    assert "A denúncia ainda não foi enviada: veja abaixo o que corrigir." in html


def _expired_token(app) -> str:
    with app.app_context():
        cred = issuing.issue(regular_mototaxi(), actor="test", today=date(2022, 1, 10))
        db.session.commit()
        return cred.token


def _revoked_token(app) -> str:
    with app.app_context():
        cred = issuing.issue(regular_mototaxi(plate="QBB2E34"), actor="test")
        issuing.revoke(cred, "adesivo roubado", actor="test")
        db.session.commit()
        return cred.token


def _report(client, token: str, text: str):
    html = client.get(f"/v/{token}/denunciar").get_data(as_text=True)
    data = {"csrf_token": re.search(r'name="csrf_token" value="([^"]+)"', html).group(1),
            "t": re.search(r'name="t" value="([^"]+)"', html).group(1),
            "categoria": "driving", "texto": text, "contato": "", "website": ""}
    return client.post(f"/v/{token}/denunciar", data=data,
                       content_type="multipart/form-data")


def test_a_report_from_an_expired_sticker_reads_vencida_for_the_supervisors(app, client, make):
    app.config["REPORT_MIN_FILL_SECONDS"] = 0
    expired, revoked = _expired_token(app), _revoked_token(app)
    assert _report(client, expired, "Mostrou um adesivo vencido na rodoviária.").status_code == 201
    assert _report(client, revoked, "Mostrou um adesivo cancelado no centro.").status_code == 201
    with app.app_context():
        rows = {r.text: (r.id, r.seen_status) for r in db.session.scalars(
            db.select(PassengerReport))}
    expired_id, expired_seen = rows["Mostrou um adesivo vencido na rodoviária."]
    revoked_id, revoked_seen = rows["Mostrou um adesivo cancelado no centro."]
    assert (expired_seen, revoked_seen) == ("expired", "revoked")

    client.login(make(factories.user, "supervisor", "tapurah").username)
    seen = re.compile(r"<dt>O passageiro viu</dt><dd>([^<]*)</dd>")
    detail = client.get(f"/denuncias/{expired_id}").get_data(as_text=True)
    assert seen.search(detail).group(1) == "CREDENCIAL VENCIDA"
    detail = client.get(f"/denuncias/{revoked_id}").get_data(as_text=True)
    assert seen.search(detail).group(1) == "CREDENCIAL CANCELADA"
