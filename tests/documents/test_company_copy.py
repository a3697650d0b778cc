"""The company's copy of a rider's notice (Tapurah Lei 406/2001 Art. 27 I: "conseqüente
remessa de cópia da notificação à empresa"): made with the notice where the rule pack asks
for it, marked as a copy on the PDF, pending on the act page and the deadlines page until a
supervisor records its remittance (once), or remitted at once through the company's push
subscription. A town whose law asks for no copy shows nothing. SQLite and PostgreSQL."""
from __future__ import annotations

import re
from datetime import UTC, date, datetime

import flask_migrate
import pytest
from sqlalchemy import inspect as sa_inspect
from sqlalchemy import select

from inspector.clock import default_day
from inspector.documents import copies
from inspector.extensions import db
from inspector.models import AuditEntry, EnforcementEvent, Notice, NoticeDocument
from inspector.models.enforcement import NoticeCompanyCopy
from inspector.notifications import push
from tests import factories
from tests.support.documents import COMPANY, RIDER, company_notice, pdf_text
from tests.support.push import FakePushService, Subscriber


def _copy(app, notice_id: int) -> NoticeCompanyCopy | None:
    with app.app_context():
        row = db.session.scalar(select(NoticeCompanyCopy)
                                .where(NoticeCompanyCopy.notice_id == notice_id))
        if row is not None:
            row.pdf  # noqa: B018 - load the deferred bytes
            db.session.expunge(row)
        return row


def _today() -> str:
    return default_day(datetime.now(UTC)).isoformat()


def _br(day: str) -> str:
    return date.fromisoformat(day).strftime("%d/%m/%Y")


def test_tapurah_notice_has_a_pending_company_copy_marked_on_its_pdf(app, client, tmp_path):
    out = company_notice(app)
    row = _copy(app, out["notice_id"])
    assert row is not None and row.remitted_on is None and row.company_name == COMPANY
    client.login(out["sup"])
    page = client.get(f"/revisao/atos/{out['act_id']}").get_data(as_text=True)
    assert "Cópia à empresa:" in page and "pendente" in page and COMPANY in page
    assert "Lei 406/2001, Art. 27, I" in page
    assert "Registrar a remessa da cópia" in page
    deadlines = client.get("/revisao/prazos").get_data(as_text=True)
    assert "Cópias à empresa a remeter" in deadlines and out["number"] in deadlines

    r = client.get(f"/revisao/atos/{out['act_id']}/copia-empresa.pdf")
    assert r.status_code == 200 and r.mimetype == "application/pdf"
    text = pdf_text(r.data, tmp_path)
    assert f"CÓPIA — remetida à empresa {COMPANY}" in text
    assert f"NOTIFICAÇÃO Nº {out['number']}" in text and RIDER in text
    assert out["code"] in text  # the same notice: the company can follow it with the code
    with app.app_context():  # the rider's own document is not marked
        original = db.session.scalar(select(NoticeDocument).where(
            NoticeDocument.notice_id == out["notice_id"])).pdf
        made = db.session.scalar(select(AuditEntry).where(
            AuditEntry.action == "notice_company_copy_made"))
    assert "CÓPIA" not in pdf_text(original, tmp_path)
    assert made is not None and row.sha256 in made.after


def test_supervisor_records_the_remittance_once(instant, app, client):
    out = company_notice(app)
    client.login(out["sup"])
    path = f"/revisao/atos/{out['act_id']}/copia-empresa"
    day = _today()
    r = client.post_form(path, {"data": day, "meio": "mail", "referencia": "AR BR123456789"})
    assert r.status_code == 303
    page = client.get(r.headers["Location"]).get_data(as_text=True)
    assert (f"remetida em {_br(day)} por Sueli Supervisora (correio) — AR BR123456789"
            in page)
    assert "Registrar a remessa da cópia" not in page
    assert "Cópias à empresa a remeter" not in client.get("/revisao/prazos").get_data(
        as_text=True)
    with app.app_context():
        entry = db.session.scalar(select(AuditEntry).where(
            AuditEntry.action == "notice_copy_remitted"))
        assert entry is not None and entry.actor == out["sup"] and '"via":"mail"' in entry.after
        assert db.session.scalar(select(EnforcementEvent).where(
            EnforcementEvent.kind == "company_copy_remitted")) is not None

    again = client.post_form(path, {"data": day, "meio": "hand"})
    assert again.status_code == 409
    assert "já foi registrada" in again.get_data(as_text=True)
    assert _copy(app, out["notice_id"]).remitted_via == "mail"


@pytest.mark.parametrize("form, field_text", [
    ({"data": "", "meio": "mail"}, "Informe a data da remessa"),
    ({"data": "2099-01-01", "meio": "mail"}, "não pode ser futura"),
    ({"data": "2001-01-01", "meio": "mail"}, "anterior à emissão do documento"),
    ({"data": "amanhã", "meio": "hand"}, "Informe a data da remessa"),
    ({"meio": "pombo", "data": "TODAY"}, "Escolha como a cópia foi remetida"),
    ({"meio": "app", "data": "TODAY"}, "Escolha como a cópia foi remetida"),
])
def test_bad_input_is_refused_in_portuguese_and_nothing_is_written(instant, app, client, form,
                                                                   field_text):
    out = company_notice(app)
    client.login(out["sup"])
    form = {k: (_today() if v == "TODAY" else v) for k, v in form.items()}
    r = client.post_form(f"/revisao/atos/{out['act_id']}/copia-empresa", form)
    assert r.status_code == 422
    assert field_text in r.get_data(as_text=True)
    assert _copy(app, out["notice_id"]).remitted_on is None
    with app.app_context():
        assert db.session.scalar(select(AuditEntry).where(
            AuditEntry.action == "notice_copy_remitted")) is None


def test_only_the_towns_supervisors_and_admins_with_a_csrf_token(app, client):
    out = company_notice(app)
    path = f"/revisao/atos/{out['act_id']}/copia-empresa"
    form = {"data": _today(), "meio": "hand"}
    client.login(out["agent"])
    assert client.post_form(path, form).status_code == 403
    assert client.get(path + ".pdf").status_code == 403
    with app.app_context():
        other = factories.user("supervisor", "sapezal")
        admin = factories.user("admin", "tapurah")
        db.session.commit()
        other, admin = other.username, admin.username
    other_client = app.test_client()
    other_client.login(other)
    assert other_client.post_form(path, form).status_code == 404
    assert other_client.get(path + ".pdf").status_code == 404
    admin_client = app.test_client()
    admin_client.login(admin)
    assert admin_client.post(path, data=form).status_code == 400  # no CSRF token
    assert _copy(app, out["notice_id"]).remitted_on is None
    assert admin_client.post_form(path, form).status_code == 303


def test_a_town_whose_law_asks_for_no_copy_shows_nothing(app, client):
    out = company_notice(app, "nortelandia", "tank-sign")  # Lei 030/1998: a written warning
    assert out["kind"] == "written_warning"
    assert _copy(app, out["notice_id"]) is None
    client.login(out["sup"])
    page = client.get(f"/revisao/atos/{out['act_id']}").get_data(as_text=True)
    assert "Cópia à empresa" not in page
    assert "Cópias à empresa a remeter" not in client.get("/revisao/prazos").get_data(
        as_text=True)
    assert client.get(f"/revisao/atos/{out['act_id']}/copia-empresa.pdf").status_code == 404
    assert client.post_form(f"/revisao/atos/{out['act_id']}/copia-empresa",
                            {"data": _today(), "meio": "hand"}).status_code == 404


def test_a_subscribed_company_is_pushed_the_copy_and_it_is_recorded_remitted(app, client):
    service = FakePushService()
    try:
        app.config["PUSH_ALLOW_HTTP_LOOPBACK"] = True
        phone = Subscriber(service.endpoint("company"))
        out = company_notice(app, subscribe=phone)
        row = _copy(app, out["notice_id"])
        assert row.remitted_via == "app" and row.notification_id is not None
        with app.app_context():
            issued = db.session.get(Notice, out["notice_id"]).issued_at
            assert row.remitted_on == default_day(issued.replace(tzinfo=issued.tzinfo or UTC))
            push.deliver_pending(datetime.now(UTC))
        [got] = service.to("company")  # one push: the notice, as the company's copy
        msg = phone.decrypt(got.body)
        assert msg["body"].startswith(f"Cópia à empresa (Lei 406/2001, Art. 27, I), condutor "
                                      f"{RIDER}: Notificação nº {out['number']}")
        assert msg["url"] == f"/notificacoes/tapurah/{out['number']}"

        client.login(out["sup"])
        page = client.get(f"/revisao/atos/{out['act_id']}").get_data(as_text=True)
        assert re.search(r"remetida em \d\d/\d\d/\d{4} pelo sistema \(notificação no "
                         r"aplicativo\)", page)
        assert "Registrar a remessa da cópia" not in page
        r = client.post_form(f"/revisao/atos/{out['act_id']}/copia-empresa",
                             {"data": _today(), "meio": "hand"})
        assert r.status_code == 409
    finally:
        service.close()


def test_migration_0017_down_and_up_with_copies_present(app):
    out = company_notice(app)
    with app.app_context():
        db.session.remove()
        flask_migrate.downgrade(revision="0016")
        try:
            tables = set(sa_inspect(db.engine).get_table_names())
            assert "notice_company_copies" not in tables
            assert db.session.get(Notice, out["notice_id"]) is not None  # the notice stays
            db.session.remove()
        finally:
            flask_migrate.upgrade()
        assert "notice_company_copies" in set(sa_inspect(db.engine).get_table_names())
        assert db.session.scalar(select(NoticeCompanyCopy)) is None
        notice = db.session.get(Notice, out["notice_id"])
        assert copies.copy_citation(notice.sanction) is not None


def test_the_public_page_recognises_the_company_copy(app, client):
    out = company_notice(app)
    row = _copy(app, out["notice_id"])
    path = f"/documentos/tapurah/{out['number']}"
    page = client.get(path).get_data(as_text=True)
    assert row.sha256 in page
    token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    import io
    r = client.post(path + "/conferir", data={"csrf_token": token,
                                               "arquivo": (io.BytesIO(row.pdf), "c.pdf")},
                    content_type="multipart/form-data")
    assert r.status_code == 200
    assert "é a cópia deste documento remetida à empresa" in r.get_data(as_text=True)


def test_a_refused_remittance_keeps_what_was_typed(instant, app, client):
    out = company_notice(app)
    client.login(out["sup"])
    html = client.post_form(f"/revisao/atos/{out['act_id']}/copia-empresa", {
        "data": _today(), "meio": "", "referencia": "AR BR123456789"}).get_data(as_text=True)
    assert "Escolha como a cópia foi remetida" in html
    assert f'name="data" required value="{_today()}"' in html
    assert 'value="AR BR123456789"' in html
    html = client.post_form(f"/revisao/atos/{out['act_id']}/copia-empresa", {
        "data": "2099-01-01", "meio": "mail"}).get_data(as_text=True)
    assert '<option value="mail" selected>Correio</option>' in html
