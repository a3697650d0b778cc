"""One standing for every demo vehicle, whoever looks: the demo seeded and its enforcement tick
run (Tapurah's company permit AUT-002 falls with a lapsed policy, Lei 406/2001 Art. 17;
Nortelândia cancels a lapsed auxiliary's registration, Lei 127/2009 Art. 8 § ú). For each
vehicle sticker the passenger's page, the registry's list and page, the field snapshot and the
registry export (CSV) say
the same REGULAR / IRREGULAR / SUSPENSO with the same articles, and each document's line (the
permit, the Alvará) reads the same words and article on every screen."""
from __future__ import annotations

import csv
import html as htmllib
import io
import re
from datetime import timedelta

import pytest
from sqlalchemy import select

from inspector.demo.data import DEMO_PASSWORD
from inspector.extensions import db, limiter
from inspector.models import (
    Credential,
    CredentialKind,
    Driver,
    Holder,
    InsurancePolicy,
    Municipality,
    Vehicle,
)
from tests.support.credentials import banner

ARTICLE = re.compile(r"\((Lei [^,()]+), (Art\. [^()]+)\)")


def _text(fragment: str) -> str:
    return " ".join(htmllib.unescape(re.sub(r"<[^>]+>", "", fragment)).split())


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _articles(lines: list[str]) -> set[tuple[str, str]]:
    return {m for line in lines for m in ARTICLE.findall(line)}


def _passenger(html: str) -> dict:
    head = html.split("</section>")[0]
    docs = {dt: _cap(_text(dd)) for dt, dd in
            re.findall(r"<dt>(Permissão|Alvará)</dt><dd>(.*?)</dd>", html)}
    return {"word": banner(html).split()[0],
            "articles": _articles([_text(li) for li in re.findall(r"<li>(.*?)</li>", head, re.S)]),
            "docs": docs, "instruction": _text(m.group(1)) if (m := re.search(
                r'<p class="instruction">(.*?)</p>', head, re.S)) else ""}


def _listed(html: str, vehicle_id: int) -> dict:
    row = re.search(rf'href="/cadastro/veiculos/{vehicle_id}".*?</tr>', html, re.S).group(0)
    word = re.search(r'data-label="Hoje"><span class="badge[^"]*">([^<]+)</span>', row).group(1)
    cell = re.search(r'<td data-label="Alvará">(.*?)</td>', row, re.S).group(1)
    return {"word": word, "licence": _text(cell)}


def _page(html: str) -> dict:
    word = re.search(r'<span class="badge-label">Hoje:</span> <span class="badge[^"]*">([^<]+)'
                     r'</span>', html).group(1)
    box = re.search(r'<ul class="verdict-reasons">(.*?)</ul>', html, re.S)
    reasons = [_text(li) for li in re.findall(r"<li>(.*?)</li>", box.group(1), re.S)] if box else []
    docs = {}
    for kind, li in re.findall(r'<li data-kind="(\w+)">(.*?)</li>', html, re.S):
        name, _, rest = _text(li).partition(": ")
        docs.setdefault(kind, (name, rest))
    return {"word": word, "reasons": reasons, "articles": _articles(reasons), "docs": docs}


WORDS = {"regular": "REGULAR", "irregular": "IRREGULAR", "suspended": "SUSPENSO"}


@pytest.fixture
def unlimited():
    """The passenger page's rate limit off: one client opens every sticker of the demo."""
    was = limiter.enabled
    limiter.enabled = False
    yield
    limiter.enabled = was


def test_every_demo_vehicle_has_one_standing_on_every_screen(app, runner, client, unlimited):
    assert runner.invoke(args=["demo", "seed"]).exit_code == 0
    tick = runner.invoke(args=["enforcement", "tick"])
    assert tick.exit_code == 0, tick.output
    with app.app_context():
        towns = {t.id: t.slug for t in db.session.scalars(select(Municipality))}
        stickers = [(c.token, c.vehicle_id, c.municipality_id, c.vehicle.plate)
                    for c in db.session.scalars(select(Credential).where(
                        Credential.kind == CredentialKind.VEHICLE,
                        Credential.revoked_at.is_(None)))]
        cravari = {v.plate for v in db.session.scalars(
            select(Vehicle).join(Holder).where(Holder.name == "Moto Táxi Cravari ME"))}
        db.session.remove()
    assert len(stickers) > 40 and len(cravari) == 6
    seen: dict[str, int] = {}
    screens: dict[str, dict] = {}
    for town_id, slug in towns.items():
        admin, agent = app.test_client(), app.test_client()
        assert admin.login(f"admin.{slug}", DEMO_PASSWORD).status_code == 302
        assert agent.login(f"agente.{slug}", DEMO_PASSWORD).status_code == 302
        snapshot = agent.get("/api/field/snapshot").json
        field = {s["vehicle_id"]: s for s in snapshot["standing"]}
        export = list(csv.reader(io.StringIO(
            admin.get("/painel/exportar/cadastro.csv").get_data(as_text=True).lstrip("\ufeff"),
        ), delimiter=";"))
        col = {name: i for i, name in enumerate(export[0])}
        exported = {r[col["Placa"]]: r for r in export[1:]}
        for token, vehicle_id, vehicle_town, plate in stickers:
            if vehicle_town != town_id:
                continue
            passenger = _passenger(client.get(f"/v/{token}").get_data(as_text=True))
            listed = _listed(admin.get(f"/cadastro/veiculos?q={plate}").get_data(as_text=True),
                             vehicle_id)
            page = _page(admin.get(f"/cadastro/veiculos/{vehicle_id}").get_data(as_text=True))
            phone = field[vehicle_id]
            phone_articles = {(r["citation"]["law"], r["citation"]["article"])
                              for r in phone["reasons"] if r.get("citation")}
            word = passenger["word"]
            # one verdict
            assert (listed["word"], page["word"], WORDS[phone["status"]]) == (word,) * 3, plate
            # the same articles behind it
            assert passenger["articles"] == page["articles"] == phone_articles, plate
            # each document line reads the same on the passenger's page, the list and the page
            name, licence = page["docs"]["licence"]
            assert passenger["docs"]["Alvará"] == licence == listed["licence"], plate
            if "permit" in page["docs"] and page["docs"]["permit"][0] != "Permissão":
                assert passenger["docs"]["Permissão"] == page["docs"]["permit"][1], plate
            # the registry export (CSV): the same verdict, Alvará, permit and articles
            row = exported[plate]
            assert row[col["Situação hoje"]] == {"REGULAR": "regular", "IRREGULAR": "irregular",
                                                 "SUSPENSO": "suspenso"}[word], plate
            assert _cap(row[col["Situação do alvará"]]) == licence, plate
            if "permit" in page["docs"]:
                assert _cap(row[col["Situação da permissão"]]) == page["docs"]["permit"][1], plate
            assert _articles(row[col["Motivos (artigo)"]].split("; ")) == page["articles"], plate
            # a red page says what to do and why, in the banner
            if word != "REGULAR":
                assert passenger["instruction"].startswith("NÃO EMBARQUE — "), plate
            # never "válido" beside a verdict that a document does not hold
            if any(r.startswith(("Permissão", "Alvará")) for r in page["reasons"]):
                assert not licence.startswith("Válido"), plate
            screens[plate] = {"passenger": passenger, "page": page, "listed": listed}
            seen[word] = seen.get(word, 0) + 1
    assert set(seen) == {"REGULAR", "IRREGULAR", "SUSPENSO"}, seen

    # Tapurah SAF9Q98: the company's permit fell because the policy lapsed (Lei 406/2001 Art.
    # 17): the verdict cites Art. 17, not Art. 6; its Alvará is without effect, never "válido"
    saf = screens["SAF9Q98"]
    assert ("Lei 406/2001", "Art. 17") in saf["page"]["articles"]
    assert ("Lei 406/2001", "Art. 6") not in saf["page"]["articles"]
    assert saf["page"]["docs"]["licence"][1] == "Sem efeito: permissão cassada (Lei 406/2001, Art. 17)"
    # ... from the day the law says, the day after the policy ended, not the tick's day
    with app.app_context():
        ended = max(db.session.scalars(select(InsurancePolicy.valid_until).join(Vehicle).where(
            Vehicle.plate == "SAF9Q98")))
        db.session.remove()
    assert saf["page"]["docs"]["permit"][1].startswith(
        f"Cassada em {ended + timedelta(days=1):%d/%m/%Y}"), saf["page"]["docs"]["permit"]
    assert saf["passenger"]["docs"]["Permissão"].endswith("vencido) (Lei 406/2001, Art. 17)")
    assert saf["passenger"]["instruction"] == ("NÃO EMBARQUE — a permissão da empresa deste "
                                               "moto-táxi foi cassada: nenhum moto-táxi da "
                                               "empresa pode circular.")
    # the cause shared by the six motos of the company is named on each one's screens
    for plate in cravari:
        reason = next(r for r in screens[plate]["page"]["reasons"] if r.startswith("Permissão"))
        assert re.fullmatch(r"Permissão AUT-002 da empresa Moto Táxi Cravari ME cassada em "
                            r"\d\d/\d\d/\d{4} \(seguro do moto-táxi SAF9Q98 vencido\): nenhum "
                            r"moto-táxi da empresa pode circular\. \(Lei 406/2001, Art\. 17\)",
                            reason), (plate, reason)
        assert screens[plate]["passenger"]["instruction"] == saf["passenger"]["instruction"]


def test_a_cancelled_auxiliary_is_one_line_with_its_article(app, runner):
    """Nortelândia SBE3M73: the auxiliary whose registration the law cancelled (Lei 127/2009
    Art. 8 § ú) reads "cancelado" once, with that article, never "CASSADO" beside it."""
    assert runner.invoke(args=["demo", "seed"]).exit_code == 0
    assert runner.invoke(args=["enforcement", "tick"]).exit_code == 0
    admin = app.test_client()
    assert admin.login("admin.nortelandia", DEMO_PASSWORD).status_code == 302
    with app.app_context():
        v = db.session.scalar(select(Vehicle).filter_by(plate="SBE3M73"))
        vehicle_id, aux = v.id, next(d.id for d in v.drivers if d.status.value == "revoked")
        db.session.remove()
    html = admin.get(f"/cadastro/veiculos/{vehicle_id}").get_data(as_text=True)
    lines = [_text(li) for li in re.findall(r'<li data-kind="registration">(.*?)</li>', html, re.S)]
    cancelled = [line for line in lines if "ancelado" in line]
    assert len(cancelled) == 1, lines
    assert cancelled[0].endswith("(Lei 127/2009, Art. 8, parágrafo único)")
    assert "assado" not in cancelled[0]
    # the driver's own page: one reason, the cancellation with its article
    driver_html = admin.get(f"/cadastro/condutores/{aux}").get_data(as_text=True)
    head = _text(driver_html[:driver_html.index("</section>")])
    # cancelled by the law the day after its 30 days of grace (Art. 8 § ú), not the tick's day
    with app.app_context():
        expiry = db.session.get(Driver, aux).registration_expiry
        db.session.remove()
    assert f"Registro: Cancelado em {expiry + timedelta(days=31):%d/%m/%Y}" in head, head
    assert "assado" not in head
    driver = _page(driver_html)
    assert len(driver["reasons"]) == 1, driver["reasons"]
    assert driver["reasons"][0].startswith("Registro do condutor cancelado em ")
    assert driver["articles"] == {("Lei 127/2009", "Art. 8, parágrafo único")}
