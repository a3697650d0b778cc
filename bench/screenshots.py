"""`make screenshots`: each person's main screens at 360 px (a phone) and 1280 px (a desk), so
anyone can look before and after a change.

Builds the demo (`demo seed`) in a temporary folder, serves it on a free loopback port with a
threaded WSGI server, signs in as each demo account in Debian's Chromium and saves PNGs
under `docs/screenshots/` (kept in git, so a change's pictures are reviewed with it):
`<person>-<screen>-<width>.png`. Nothing is written under `instance/`.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import threading
from pathlib import Path

from werkzeug.serving import make_server

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
WIDTHS = {360: 780, 1280: 900}
TOWN = "tapurah"


def build(folder: Path):
    """The demo app on a fresh SQLite file in `folder`, migrated and seeded."""
    from flask_migrate import upgrade

    from inspector import MIGRATIONS, create_app
    from inspector.demo.seed import seed_towns
    from inspector.extensions import db

    app = create_app({"SQLALCHEMY_DATABASE_URI": f"sqlite:///{folder / 'demo.sqlite3'}",
                      "EVIDENCE_DIR": str(folder / "evidence"), "SECRET_KEY": "screenshots-" * 4,
                      "PUBLIC_BASE_URL": "http://127.0.0.1", "RATELIMIT_ENABLED": False,
                      "SESSION_COOKIE_SECURE": False})
    with app.app_context():
        upgrade(directory=str(MIGRATIONS))
        seed_towns()
        db.session.commit()
    return app


def codes(app) -> dict[str, str]:
    """Passenger paths: a regular vehicle's code and an irregular one's (the demo has both)."""
    from sqlalchemy import select

    from inspector.extensions import db
    from inspector.models import Credential, Municipality

    out = {}
    client = app.test_client()
    with app.app_context():
        town = db.session.scalar(select(Municipality).filter_by(slug=TOWN))
        tokens = db.session.scalars(select(Credential.token)
                                    .filter_by(municipality_id=town.id)).all()
    for token in tokens:
        text = client.get(f"/v/{token}").get_data(as_text=True)
        key = "regular" if "REGULAR" in text and "IRREGULAR" not in text else "irregular"
        out.setdefault(key, f"/v/{token}")
        if len(out) == 2:
            break
    return out


def field_screens(page, out: Path, person: str, width: int, code_url: str | None) -> list[Path]:
    """The agent's card for an irregular vehicle's code (what fits the screen, as the agent sees
    it first), its checklist (whole page) and the summary of what is missing after "Salvar"."""
    if not code_url:
        return []
    page.wait_for_function("() => document.body.dataset.ready === '1'", timeout=30_000)
    page.wait_for_function("() => /Dados atualizados/.test("
                           "document.getElementById('freshness').textContent)", timeout=30_000)
    page.evaluate("(text) => window.fieldApp.handleCode(text)", code_url)
    page.wait_for_selector("#result .situation")
    saved = [out / f"{person}-campo-cartao-{width}.png"]
    page.screenshot(path=str(saved[-1]))
    page.click("#start-inspection")
    page.wait_for_selector("#checklist li.item")
    saved.append(out / f"{person}-campo-checklist-{width}.png")
    page.screenshot(path=str(saved[-1]), full_page=True)
    page.click("#inspection-save")
    page.wait_for_selector("#inspection-gaps:not([hidden])")   # "Faltam N itens: …"
    saved.append(out / f"{person}-campo-checklist-faltam-{width}.png")
    page.screenshot(path=str(saved[-1]))
    return saved


def shoot(base: str, out: Path, app) -> list[Path]:
    """Sign in as each person and save their screens at each width."""
    from playwright.sync_api import sync_playwright

    from inspector.config import DEMO_PASSWORD

    passenger = codes(app)
    people = {
        "passageiro": (None, [(f"verificacao-{k}", p) for k, p in passenger.items()]
                       + [("codigo-desconhecido", "/v/nao-reconhecido")]),
        "agente": (f"agente.{TOWN}", [("campo", "/campo")]),
        "supervisor": (f"supervisor.{TOWN}", [("inicio", "/inicio"), ("painel", "/painel"),
                                              ("revisao", "/revisao"),
                                              ("atos", "/revisao/atos"),
                                              ("conformidade", "/conformidade")]),
        "admin": (f"admin.{TOWN}", [("cadastro", "/cadastro/veiculos"),
                                    ("credenciais", "/credenciais"),
                                    ("importar", "/cadastro/importar")]),
        "publico": (None, [("entrar", "/entrar"), ("leis", "/leis"),
                           ("transparencia", "/transparencia/registro")]),
    }
    saved = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        for width, height in WIDTHS.items():
            for person, (username, screens) in people.items():
                context = browser.new_context(base_url=base, locale="pt-BR",
                                              viewport={"width": width, "height": height})
                page = context.new_page()
                if username:
                    page.goto("/entrar")
                    page.fill("#username", username)
                    page.fill("#password", DEMO_PASSWORD)
                    page.click("button[type=submit]")
                    page.wait_for_load_state("load")
                for name, path in screens:
                    page.goto(path)
                    page.wait_for_load_state("networkidle")
                    target = out / f"{person}-{name}-{width}.png"
                    page.screenshot(path=str(target), full_page=True)
                    saved.append(target)
                if person == "agente":
                    irregular = passenger.get("irregular")
                    saved += field_screens(page, out, person, width,
                                           irregular and base + irregular)
                context.close()
        browser.close()
    return saved


def main() -> None:
    """Parse --out; build, serve, shoot, print what was saved."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        app = build(Path(tmp))
        server = make_server("127.0.0.1", 0, app, threaded=True)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        base = f"http://127.0.0.1:{server.server_port}"
        app.config["PUBLIC_BASE_URL"] = base
        try:
            saved = shoot(base, args.out, app)
        finally:
            server.shutdown()
    for path in saved:
        print(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)
    print(f"{len(saved)} capturas em {args.out}")


if __name__ == "__main__":
    main()
