"""The review puts the registry's reason beside the items the inspection's rule pack says check
that fact (`registry_findings`), the same items the phone pre-marks: a "Conforme"
there is flagged as contradicting the registry; a reason no item of that law checks is listed
once above the answers. Runs on SQLite and PostgreSQL (DATABASE_URL)."""
from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from inspector import audit
from inspector.clock import default_day
from inspector.extensions import db
from inspector.models import Status
from tests import factories
from tests.support.enforcement import fleet, inspect


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def _section(html: str, item_id: int) -> str:
    start = html.index(f'id="item-{item_id}"')
    return _text(html[start:html.index("</section>", start)])


def _above_the_answers(html: str) -> str:
    return _text(html[html.index('id="cadastro"'):html.index("Itens verificados")])


def _review(app, town: str, service: str, results: dict, change, *, tell_driver=False):
    """A fleet of `town`, changed by `change(fleet)`, inspected two hours ago with `results`
    (the driver named by the agent when `tell_driver`); the supervisor's page and the items'
    row ids."""
    finished = datetime.now(UTC) - timedelta(hours=2)
    with app.app_context():
        f = fleet(town, service)
        change(f)
        agent = factories.user("agent", town)
        supervisor = factories.user("supervisor", town)
        insp = inspect(f["vehicle"], agent, results, finished)
        if tell_driver:  # as the phone's body carries "quem conduzia" (docs/sync.md §2)
            body = audit.canonical({"driver": {"id": f["driver"].id, "name": f["driver"].name}})
            insp.body = body
        db.session.commit()
        ident, items, who = insp.id, {i.item_id: i.id for i in insp.items}, supervisor.username
    c = app.test_client()
    assert c.login(who).status_code == 302
    return c.get(f"/revisao/vistorias/{ident}").get_data(as_text=True), items


def test_nortelandia_an_expired_alvara_contradicts_the_displayed_documents(app):
    """Nortelândia Lei 127/2009 Art. 14 X asks the Alvará de Estacionamento displayed; Art. 17
    makes it what authorises the vehicle: with the registry's Alvará expired, "Conforme" on
    `displayed-documents` is flagged; the stripe, which checks nothing of the registry, is not."""
    def expire(f):
        f["licence"].valid_from = default_day() - timedelta(days=400)
        f["licence"].valid_until = default_day() - timedelta(days=20)

    html, items = _review(app, "nortelandia", "taxi", {"displayed-documents": "ok", "stripe": "ok"},
                          expire)
    flag = _section(html, items["displayed-documents"])
    assert re.search(r"Contradiz o cadastro: Alvará \S+ vencido em \d\d/\d\d/\d{4} "
                     r"\( Lei 127/2009, Art\. 17 \)", flag), flag
    assert "Contradiz" not in _section(html, items["stripe"])
    assert "1 resposta contradiz o cadastro" in _text(html)


def test_tapurah_a_revoked_rider_contradicts_both_cards_that_carry_his_inscription(app):
    """Tapurah Lei 406/2001 Art. 22 IV (the carteira) and Art. 15 II (the vest's card) carry
    the rider's inscription with the Secretaria (Art. 3 § 3º): the agent named the rider, whose
    registration is revoked, and answered both "Conforme": both are flagged; the insurance in
    force is not."""
    def revoke(f):
        f["driver"].status = Status.REVOKED

    html, items = _review(app, "tapurah", "mototaxi",
                          {"id-card": "ok", "vest-id": "ok", "insurance": "ok"}, revoke,
                          tell_driver=True)
    for item in ("id-card", "vest-id"):
        assert "Contradiz o cadastro: Registro do condutor cassado" in _section(html, items[item])
    assert "Contradiz" not in _section(html, items["insurance"])
    assert "2 respostas contradizem o cadastro" in _text(html)


def test_nova_santa_helena_a_lapsed_registration_is_not_put_on_the_id_card(app):
    """Nova Santa Helena Lei 535/2013 Art. 13 IV asks a card identifying the owner or the
    driver, which the law does not tie to the inscription (Art. 12): the lapsed registration
    of the driver the agent named is listed above the answers, and `id-cards` is not flagged."""
    def lapse(f):
        f["driver"].registration_expiry = default_day() - timedelta(days=10)

    html, items = _review(app, "nova-santa-helena", "taxi", {"id-cards": "ok"}, lapse,
                          tell_driver=True)
    assert "Contradiz" not in _section(html, items["id-cards"])
    assert "Inscrição do condutor vencida em" in _above_the_answers(html)
