"""A passenger's phone opens the URL printed on a sticker (Debian Chromium, real server)."""
from __future__ import annotations

import json
import re
from datetime import date, timedelta

import pytest
from playwright.sync_api import expect

from inspector.extensions import db
from tests import factories
from tests.support.credentials import regular_mototaxi
from tests.support.documents import qr_codes, rasterise

pytestmark = pytest.mark.browser


def _printed_urls(runner, tmp_path) -> list[str]:
    """Print the town's sticker sheet to PDF, rasterise it, decode every QR on it."""
    out = tmp_path / "stickers.pdf"
    result = runner.invoke(args=["credentials", "sheet", "--town", "tapurah", "--kind", "vehicle",
                                 "--issue-missing", "--out", str(out)])
    assert result.exit_code == 0, result.output
    return qr_codes(rasterise(out.read_bytes(), tmp_path, 150))


def _url_of(runner, plate: str) -> tuple[int, str]:
    listing = json.loads(runner.invoke(args=["credentials", "list", "--town", "tapurah",
                                             "--json"]).output)
    row = next(c for c in listing["credentials"] if c["plate"] == plate)
    return row["id"], row["url"]


def test_sticker_url_regular_then_revoked_expired_licence_and_forged(page, live_server, app,
                                                                     runner, make, tmp_path):
    app.config["PUBLIC_BASE_URL"] = live_server.url
    with app.app_context():
        regular_mototaxi(plate="QBA1D23")
        late = regular_mototaxi(plate="QBX9Z88")
        lic = late.current_licence
        lic.valid_from, lic.valid_until = date.today() - timedelta(400), date.today() - timedelta(3)
        db.session.commit()
    admin = make(factories.user, "admin", "tapurah")

    printed = _printed_urls(runner, tmp_path)
    cred_id, url = _url_of(runner, "QBA1D23")
    assert url in printed and url.startswith(live_server.url + "/v/")

    # 1. The passenger opens the sticker's URL: REGULAR, with the plate they can see.
    requests = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(url)
    expect(page.locator(".banner h1")).to_have_text("REGULAR")
    expect(page.locator(".plate")).to_have_text("QBA1D23")
    assert all(r.startswith(live_server.url) for r in requests)  # nothing from elsewhere
    assert not any(r.endswith(".js") for r in requests)

    # 2. An admin revokes it in the admin UI; the same URL now says CREDENCIAL CANCELADA.
    page.goto("/entrar")
    page.fill("#username", admin.username)
    page.fill("#password", factories.PASSWORD)
    page.click("button[type=submit]")
    expect(page).to_have_url(re.compile(r"/inicio$"))
    page.get_by_role("link", name="Credenciais").first.click()
    page.get_by_role("link", name=str(cred_id), exact=True).click()
    page.fill("#motivo-cancelar", "Adesivo arrancado do veículo")
    page.check("#confirmo-cancelar")                 # a destructive action asks to confirm
    page.get_by_role("button", name="Cancelar credencial").click()
    expect(page.locator("#credential-status")).to_have_text("Cancelada")
    page.goto(url)
    expect(page.locator(".banner h1")).to_have_text("CREDENCIAL CANCELADA")
    expect(page.locator(".plate")).to_have_count(0)

    # 3. A vehicle whose licence expired: IRREGULAR, the reason and the article.
    _, late_url = _url_of(runner, "QBX9Z88")
    assert late_url in printed
    page.goto(late_url)
    expect(page.locator(".banner h1")).to_have_text("IRREGULAR")
    expect(page.locator(".banner li")).to_contain_text("lvará")
    expect(page.locator(".banner li a")).to_contain_text(re.compile(r"Art\. \d+"))
    expect(page.locator(".plate")).to_have_text("QBX9Z88")

    # 4. The first URL with one character changed: NÃO RECONHECIDA.
    token = late_url.rsplit("/", 1)[1]
    i = 60
    forged = late_url[: -len(token)] + token[:i] + ("B" if token[i] == "A" else "A") + \
        token[i + 1:]
    page.goto(forged)
    expect(page.locator(".banner h1")).to_have_text("NÃO RECONHECIDA")
    expect(page.locator(".plate")).to_have_count(0)
