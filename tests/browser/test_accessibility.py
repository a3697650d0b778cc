"""axe-core (npm, pinned in package.json) on the main pages of every person who uses the
product, on a 360 px phone: the suite fails on any violation, whatever its impact.

axe is injected with `add_init_script`, which the pages' CSP does not govern (an injected
<script> tag would be refused by `script-src 'self'`, as it should be)."""
from __future__ import annotations

import uuid
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from inspector.credentials import issuing
from inspector.extensions import db
from tests import factories
from tests.browser.field_helpers import sign_in, wait_controlled
from tests.support.credentials import regular_mototaxi
from tests.support.enforcement import enforcement_worker
from tests.support.field_api import Api, body, jpeg
from tests.support.review import inspection_ids

pytestmark = pytest.mark.browser
AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"
PHONE = {"width": 360, "height": 780}


@pytest.fixture
def place(app, town):
    """Tapurah with a printed credential, an irregular moto-taxi and a synced inspection
    whose failed item became a proposed act."""
    with app.app_context():
        vehicle = regular_mototaxi("tapurah", plate="QBA1D23")
        regular = issuing.public_url(issuing.issue(vehicle).token)
        lapsed = factories.vehicle("tapurah", "mototaxi")   # no licence: IRREGULAR
        irregular = issuing.public_url(issuing.issue(lapsed).token)
        db.session.commit()
    c = app.test_client()
    assert c.login(town["agent"]).status_code == 302
    iid = str(uuid.uuid4())
    b = body(town["vehicle_id"], fail={"mirrors": [jpeg(5)]}, ok=("general-condition",))
    api = Api(c)
    assert api.put_inspection(iid, b).status_code == 201
    photo = next(p for it in b["items"] for p in it["photos"])
    assert api.put_photo(iid, photo["id"], jpeg(5)).status_code == 201
    enforcement_worker(app)
    insp_id, acts, _ = inspection_ids(app, iid)
    return {"regular": urlsplit(regular).path, "irregular": urlsplit(irregular).path,
            "inspection": insp_id, "act": acts[0], **town}


def _axe(page, where: str) -> list[str]:
    """axe's violations on the page as it is, as 'where: rule (impact) at selectors' lines."""
    result = page.evaluate("async () => await axe.run(document)")
    assert len(result["passes"]) > 10, f"{where}: axe did not run"  # a blank page passes all
    return [f"{where}: {v['id']} ({v['impact']}) at "
            + ", ".join(" ".join(n["target"]) for n in v["nodes"][:3])
            for v in result["violations"]]


def _violations(context, paths: list[str]) -> list[str]:
    """axe's violations on each page."""
    found = []
    page = context.pages[0] if context.pages else context.new_page()
    for path in paths:
        page.goto(path)
        page.wait_for_load_state("load")
        found += _axe(page, path)
    return found


def _context(browser, live_server):
    context = browser.new_context(base_url=live_server.url, locale="pt-BR", viewport=PHONE)
    context.add_init_script(path=str(AXE))
    context.set_default_timeout(20_000)
    return context


def test_public_pages_have_no_accessibility_violation(browser, live_server, place):
    """The passenger's pages (regular, irregular, an unknown code, the report form), the
    sign-in page, the laws and the transparency pages (the chains' heads, the daily digests)."""
    context = _context(browser, live_server)
    try:
        assert _violations(context, [
            "/entrar", place["regular"], place["irregular"], "/v/nao-e-um-codigo",
            place["regular"] + "/denunciar", "/leis", "/leis/tapurah-lei-406-2001-mototaxi",
            "/transparencia/registro", "/transparencia/registro/resumos"]) == []
    finally:
        context.close()


def test_the_agents_field_app_has_no_accessibility_violation(browser, live_server, place):
    """The field app's home once it started (the agent's main screen)."""
    context = _context(browser, live_server)
    try:
        page = context.new_page()
        sign_in(page, place["agent"])
        wait_controlled(page)
        assert _axe(page, "/campo") == []
    finally:
        context.close()


def test_the_supervisors_pages_have_no_accessibility_violation(browser, live_server, place):
    """Home, the review queue, an inspection with its proposed act, the acts list, the
    compliance page, passenger reports, the registry."""
    context = _context(browser, live_server)
    try:
        page = context.new_page()
        sign_in(page, place["supervisor"], "/inicio")
        assert _violations(context, [
            "/inicio", "/revisao", f"/revisao/vistorias/{place['inspection']}", "/revisao/atos",
            "/conformidade", "/denuncias", "/cadastro/veiculos"]) == []
    finally:
        context.close()


def test_the_admins_pages_have_no_accessibility_violation(browser, live_server, place):
    """The registry lists and a form, credentials, the import and the decree values."""
    context = _context(browser, live_server)
    try:
        page = context.new_page()
        sign_in(page, place["admin"], "/inicio")
        assert _violations(context, [
            "/cadastro/veiculos", "/cadastro/veiculos/novo", "/cadastro/condutores",
            "/credenciais", "/cadastro/importar", "/conformidade/decretos"]) == []
    finally:
        context.close()
