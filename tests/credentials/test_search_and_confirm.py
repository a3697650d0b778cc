"""The admin's credentials list finds a lost vest in one query (plate, prefix, name,
registration or the credential's number), never another town's, a page at a time, with or
without htmx; and cancelling or reissuing asks for its own reason and an explicit
"Confirmo", so nothing is cancelled by a tap on the wrong button."""
from __future__ import annotations

import re

from inspector.credentials import issuing
from inspector.extensions import db
from inspector.models import AuditEntry, Credential
from tests import factories
from tests.support.credentials import regular_mototaxi


def _world(app) -> dict:
    """Two Tapurah moto-taxis with riders, and a Nortelândia one whose rider has the same
    kind of name and whose moto has a similar plate, all with credentials."""
    with app.app_context():
        a = regular_mototaxi("tapurah", plate="QBA1D23")
        a.prefix = "TMT07"
        a.drivers[0].name = "Gervásio Pereira"
        b = regular_mototaxi("tapurah", plate="RST2E45")
        b.prefix = "TMT12"
        b.drivers[0].name = "Lúcia Andrade"
        other = regular_mototaxi("nortelandia", plate="QBA1D99")
        other.prefix = "TMT07"
        other.drivers[0].name = "Gervásio Nortelandense"
        ids = {}
        for key, v in (("a", a), ("b", b), ("other", other)):
            ids[key + "_vehicle"] = issuing.issue(v, actor="test").id
            ids[key + "_rider"] = issuing.issue(v.drivers[0], actor="test").id
        ids["a_registration"] = a.drivers[0].registration_number
        admin = factories.user("admin", "tapurah")
        db.session.commit()
        ids["admin"] = admin.username
    return ids


def _found(client, q: str, **extra) -> set[int]:
    r = client.get("/credenciais", query_string={"q": q, **extra})
    assert r.status_code == 200
    html = r.get_data(as_text=True)
    results = html.split('id="results"', 1)[1].split("</div>\n<nav", 1)[0] \
        if 'id="results"' in html else html
    return {int(n) for n in re.findall(r'href="/credenciais/(\d+)"', results)}


def test_search_by_plate_prefix_name_registration_and_number(app, client):
    w = _world(app)
    client.login(w["admin"])
    a = {w["a_vehicle"], w["a_rider"]}
    # the moto's plate finds its sticker and its rider's vest badge (a lost vest)
    assert _found(client, "QBA1D23") == a
    assert _found(client, "qba-1d") == a                     # typed loosely, partly
    assert _found(client, "TMT07") == a                      # the prefix
    assert _found(client, "gervasio") == {w["a_rider"]}      # the name, accents ignored
    assert _found(client, w["a_registration"]) == {w["a_rider"]}
    # the number: bare, it is also text a plate or prefix may hold ("4" in RST2E45), so the
    # credential is among those found; "nº 4" is the number alone
    assert w["b_rider"] in _found(client, str(w["b_rider"]))
    assert _found(client, f"nº {w['b_rider']}") == {w["b_rider"]}
    assert _found(client, "RST2E45", folha="rider") == {w["b_rider"]}   # within one sheet
    # another town's credential is never found, by any key
    others = {w["other_vehicle"], w["other_rider"]}
    for q in ("QBA1D99", "QBA1D", "TMT07", "Nortelandense", str(w["other_rider"]),
              str(w["other_vehicle"])):
        assert not _found(client, q) & others, q
    assert not _found(client, "") & others


def test_search_answers_htmx_with_the_results_alone_and_pages(app, client):
    w = _world(app)
    client.login(w["admin"])
    frag = client.get("/credenciais?q=QBA1D23", headers={"HX-Request": "true"})
    html = frag.get_data(as_text=True)
    assert frag.status_code == 200 and "<h1>" not in html and "Busca por “QBA1D23”" in html
    assert "HX-Request" in frag.headers.get("Vary", "")
    with app.app_context():
        town = factories.town("tapurah")
        for i in range(26):
            issuing.issue(regular_mototaxi("tapurah", plate=f"QCA1B{i:02d}"), actor="test")
        db.session.commit()
        total = db.session.scalar(db.select(db.func.count(Credential.id))
                                  .where(Credential.municipality_id == town.id))
    first = client.get("/credenciais").get_data(as_text=True)
    assert 'rel="next"' in first and "há mais na próxima página" in first
    second = _found(client, "", pagina="2")
    assert len(_found(client, "")) == 25 and len(second) == total - 25
    # bad input: a long query is cut at 100 characters, a silly page is page 1, never a 5xx
    assert client.get("/credenciais", query_string={"q": "A" * 5000}).status_code == 200
    assert client.get("/credenciais?pagina=abc").status_code == 200
    assert client.get("/credenciais?q=%25_%5C").status_code == 200


def _audit(app) -> list[str]:
    with app.app_context():
        return [e.action for e in db.session.scalars(
            db.select(AuditEntry).where(AuditEntry.entity == "credential",
                                        AuditEntry.action != "credential_issued")
            .order_by(AuditEntry.seq))]


def _status(app, ident: int):
    with app.app_context():
        return db.session.get(Credential, ident).revoked_at


def test_cancel_needs_its_reason_and_the_confirm_box(app, client):
    w = _world(app)
    client.login(w["admin"])
    cid = w["a_rider"]
    page = client.get(f"/credenciais/{cid}").get_data(as_text=True)
    # two forms, each with its own reason and its own required "Confirmo" box
    assert page.count('name="motivo"') == 2 and page.count('name="confirmo"') == 2
    assert 'id="motivo-cancelar"' in page and 'id="motivo-reemitir"' in page
    assert page.count("required>") >= 2

    no_confirm = client.post_form(f"/credenciais/{cid}/cancelar", {"motivo": "colete roubado"})
    html = no_confirm.get_data(as_text=True)
    assert no_confirm.status_code == 422 and "marque “Confirmo” para cancelar" in html
    assert 'value="colete roubado"' in html                  # what was typed is kept
    no_reason = client.post_form(f"/credenciais/{cid}/cancelar", {"confirmo": "1"})
    assert no_reason.status_code == 422 and "diga o motivo" in no_reason.get_data(as_text=True)
    assert _status(app, cid) is None and _audit(app) == []  # nothing changed, nothing audited

    ok = client.post_form(f"/credenciais/{cid}/cancelar",
                          {"motivo": "colete roubado", "confirmo": "1"})
    assert ok.status_code == 302 and _status(app, cid) is not None
    assert _audit(app) == ["credential_revoked"]
    with app.app_context():
        assert db.session.get(Credential, cid).revoked_reason == "colete roubado"


def test_reissue_has_its_own_reason_and_confirmation(app, client):
    w = _world(app)
    client.login(w["admin"])
    cid = w["a_vehicle"]
    no_confirm = client.post_form(f"/credenciais/{cid}/reemitir", {"motivo": "adesivo rasgado"})
    html = no_confirm.get_data(as_text=True)
    assert no_confirm.status_code == 422 and "marque “Confirmo” para reemitir" in html
    # the error and the kept reason are in the reissue form, not in the cancel form
    cancel_form = html.split('id="cancelar-title"', 1)[1]
    assert "adesivo rasgado" not in cancel_form and "Confirmo” para" not in cancel_form
    assert _status(app, cid) is None and _audit(app) == []

    ok = client.post_form(f"/credenciais/{cid}/reemitir",
                          {"motivo": "adesivo rasgado", "confirmo": "1"})
    assert ok.status_code == 302
    new_id = int(ok.headers["Location"].rsplit("/", 1)[1])
    assert new_id != cid and _status(app, cid) is not None and _status(app, new_id) is None
    assert _audit(app) == ["credential_revoked", "credential_reissued"]


def test_supervisor_sees_no_cancel_or_reissue_form(app, client):
    w = _world(app)
    with app.app_context():
        sup = factories.user("supervisor", "tapurah")
        db.session.commit()
        name = sup.username
    client.login(name)
    page = client.get(f"/credenciais/{w['a_vehicle']}").get_data(as_text=True)
    assert 'name="confirmo"' not in page
    r = client.post_form(f"/credenciais/{w['a_vehicle']}/cancelar",
                         {"motivo": "colete roubado", "confirmo": "1"})
    assert r.status_code == 403 and _status(app, w["a_vehicle"]) is None
