"""Admin pages and CLI for credentials: who may do what, the printed sheet, the key set."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from inspector.credentials import issuing
from inspector.credentials.tokens import PublicKey, b64d, verify
from inspector.extensions import db
from inspector.models import AuditEntry, Credential
from tests import factories
from tests.support.credentials import regular_mototaxi
from tests.support.documents import qr_codes, rasterise


def _fleet(app, town="nortelandia", n=3):
    """n moto-taxis with riders, and one taxi with its driver, of one town (Nortelândia: its
    laws cover both, Leis 030/1998 and 127/2009; Tapurah has no taxi law, so no taxi card)."""
    with app.app_context():
        for i in range(n):
            regular_mototaxi(town, plate=f"QB{chr(65 + i)}1A2{i}")
        taxi = factories.vehicle(town, "taxi", plate="TAX1B23", prefix="0101")
        taxi.drivers.append(factories.driver(town, "autonomo", name="Maria Taxista"))
        db.session.commit()


def _urls(runner, town, kind=None) -> list[str]:
    args = ["credentials", "list", "--town", town, "--json"] + (["--kind", kind] if kind else [])
    result = runner.invoke(args=args)
    assert result.exit_code == 0, result.output
    return [c["url"] for c in json.loads(result.output)["credentials"] if c["status"] == "active"]


def test_cli_issues_lists_with_urls_and_fails_cleanly(app, runner):
    _fleet(app)
    app.config["PUBLIC_BASE_URL"] = "https://fiscaliza.example.gov.br/"
    result = runner.invoke(args=["credentials", "issue", "--town", "nortelandia"])
    assert result.exit_code == 0 and "8 credenciais" in result.output  # 4 vehicles, 4 drivers
    urls = _urls(runner, "nortelandia")
    assert len(urls) == 8 and all(u.startswith("https://fiscaliza.example.gov.br/v/")
                                  for u in urls)
    again = runner.invoke(args=["credentials", "issue", "--town", "nortelandia"])
    assert "0 credenciais" in again.output  # nothing issued twice

    bad = runner.invoke(args=["credentials", "list", "--town", "atlantis"])
    assert bad.exit_code == 2
    assert bad.stderr.strip().count("\n") == 0 and "atlantis" in bad.stderr
    kind = runner.invoke(args=["credentials", "sheet", "--town", "nortelandia", "--kind", "vest"])
    assert kind.exit_code == 2 and kind.stderr.count("\n") == 1 and "vest" in kind.stderr
    missing = runner.invoke(args=["credentials", "revoke", "999", "--reason", "teste"])
    assert missing.exit_code == 2 and "999" in missing.stderr


@pytest.mark.parametrize("kind, expected", [("vehicle", 4), ("rider", 3), ("card", 1)])
def test_sheet_pdf_holds_exactly_the_issued_qr_codes(app, runner, tmp_path, kind, expected):
    if not shutil.which("pdftoppm"):
        pytest.fail("pdftoppm is missing: `make test` installs poppler-utils")
    _fleet(app)
    out = tmp_path / f"{kind}.pdf"
    result = runner.invoke(args=["credentials", "sheet", "--town", "nortelandia", "--kind", kind,
                                 "--issue-missing", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_bytes().startswith(b"%PDF")
    issued = _urls(runner, "nortelandia", kind)
    assert len(issued) == expected

    pages = rasterise(out.read_bytes(), tmp_path, 150)
    assert pages
    for page in pages:
        assert abs(page.width / page.height - 210 / 297) < 0.01  # A4
    assert sorted(qr_codes(pages)) == sorted(issued)


def test_a_revoked_credential_is_not_printed(app, runner, tmp_path):
    _fleet(app, n=2)
    runner.invoke(args=["credentials", "issue", "--town", "nortelandia", "--kind", "vehicle"])
    with app.app_context():
        first = db.session.scalar(db.select(Credential).order_by(Credential.id))
        first_id, first_url = first.id, issuing.public_url(first.token)
    r = runner.invoke(args=["credentials", "revoke", str(first_id), "--reason", "adesivo perdido"])
    assert r.exit_code == 0
    out = tmp_path / "v.pdf"
    runner.invoke(args=["credentials", "sheet", "--town", "nortelandia", "--out", str(out)])
    found = set(qr_codes(rasterise(out.read_bytes(), tmp_path, 150, pages=1)))
    assert first_url not in found and len(found) == 2


def test_admin_issues_revokes_and_reissues_in_the_ui_with_audit(app, client, make):
    _fleet(app, n=1)
    admin = make(factories.user, "admin", "nortelandia")
    client.login(admin.username)
    page = client.get("/credenciais").get_data(as_text=True)
    assert "Sem credencial" in page and "QBA1A20" in page
    resp = client.post_form("/credenciais/emitir", {"folha": "vehicle"})
    assert resp.status_code == 302
    with app.app_context():
        cred = db.session.scalar(db.select(Credential).filter_by(kind="vehicle")
                                 .order_by(Credential.id))
        cid, token = cred.id, cred.token
    detail = client.get(f"/credenciais/{cid}").get_data(as_text=True)
    assert f"/v/{token}" in detail and "Ativa" in detail

    no_reason = client.post_form(f"/credenciais/{cid}/cancelar", {"motivo": ""})
    assert no_reason.status_code == 422 and "motivo" in no_reason.get_data(as_text=True)
    resp = client.post_form(f"/credenciais/{cid}/reemitir", {"motivo": "adesivo danificado",
                                                              "confirmo": "1"})
    assert resp.status_code == 302
    new_id = int(resp.headers["Location"].rsplit("/", 1)[1])
    assert new_id != cid
    assert "Cancelada" in client.get(f"/credenciais/{cid}").get_data(as_text=True)
    pdf = client.get(f"/credenciais/{new_id}/folha.pdf")
    assert pdf.status_code == 200 and pdf.data.startswith(b"%PDF")
    assert client.get(f"/credenciais/{cid}/folha.pdf").status_code == 404  # revoked
    sheet = client.get("/credenciais/folha/vehicle.pdf")
    assert sheet.status_code == 200 and sheet.mimetype == "application/pdf"
    with app.app_context():
        actions = [e.action for e in db.session.scalars(
            db.select(AuditEntry).where(AuditEntry.entity == "credential")
            .order_by(AuditEntry.seq))]
    # two vehicles issued at once, then one revoked and reissued
    assert actions == ["credential_issued", "credential_issued", "credential_revoked",
                       "credential_reissued"]


def test_supervisor_views_but_cannot_change_and_other_towns_get_404(app, client, make):
    _fleet(app, n=1)
    with app.app_context():
        cred = issuing.issue_missing(db.session.scalar(
            db.select(factories.Municipality).filter_by(slug="nortelandia")).id, "vehicle")[0]
        db.session.commit()
        cid = cred.id
    sup = make(factories.user, "supervisor", "nortelandia")
    client.login(sup.username)
    assert client.get("/credenciais").status_code == 200
    assert client.get(f"/credenciais/{cid}").status_code == 200
    assert client.get("/credenciais/folha/vehicle.pdf").status_code == 200
    assert client.post_form(f"/credenciais/{cid}/cancelar",
                            {"motivo": "sem permissão"}).status_code == 403
    assert client.post_form("/credenciais/emitir", {"folha": "vehicle"}).status_code == 403
    client.post_form("/sair")

    stranger = make(factories.user, "admin", "sapezal")
    client.login(stranger.username)
    assert client.get(f"/credenciais/{cid}").status_code == 404
    assert client.post_form(f"/credenciais/{cid}/cancelar",
                            {"motivo": "outra cidade"}).status_code == 404
    assert "QBA1A20" not in client.get("/credenciais").get_data(as_text=True)
    client.post_form("/sair")

    agent = make(factories.user, "agent", "nortelandia")
    client.login(agent.username)
    assert client.get("/credenciais").status_code == 403


def test_agents_get_the_public_keys_that_verify_printed_codes(app, client, make):
    _fleet(app, n=1)
    with app.app_context():
        town_id = db.session.scalar(db.select(factories.Municipality.id).filter_by(slug="nortelandia"))
        token = issuing.issue_missing(town_id, "vehicle")[0].token
        db.session.commit()
    assert client.get("/api/credential-keys").status_code == 401
    agent = make(factories.user, "agent", "nortelandia")
    client.login(agent.username)
    body = client.get("/api/credential-keys").get_json()
    keys = {k["kid"]: PublicKey(k["kid"], b64d(k["x"]), None) for k in body["keys"]}
    assert body["keys"][0]["crv"] == "Ed25519" and len(keys) == 1
    from datetime import date
    assert verify(token, keys, date.today()).kind == "vehicle"
    assert "private" not in json.dumps(body)


def test_docs_describe_the_token_format():
    doc = (Path(__file__).resolve().parents[2] / "docs" / "credentials.md").read_text()
    for word in ("kid", "Ed25519", "base64url", "/api/credential-keys", "rotate-key"):
        assert word in doc
