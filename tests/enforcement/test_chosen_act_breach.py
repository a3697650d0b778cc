"""A sanction the supervision chooses on the review names no checklist item: it is for the
whole inspection, so its "Dispositivo infringido" is every article the failed items broke,
not only the first item's (Nova Santa Helena Lei 535/2013: Art. 13, III the fire extinguisher
and Art. 13, VII the seat belts; Art. 25, III the permit's suspension the supervisor chose,
the mayor's to decide, Art. 27)."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta

from inspector import enforcement
from inspector.documents.content import build_sheet
from inspector.extensions import db
from inspector.models import Notice, Sanction
from tests import factories
from tests.support.enforcement import chosen_permit_suspension, fleet, inspect

REASON = "Extintor vencido e cintos soltos, terceira vez neste mês."


def _two_failed_items():
    f = fleet("nova-santa-helena", "taxi")
    users = {r: factories.user(r, "nova-santa-helena") for r in ("agent", "supervisor", "admin")}
    db.session.commit()
    insp = inspect(f["vehicle"], users["agent"], {"extinguisher": "fail", "seat-belts": "fail"},
                   datetime.now(UTC) - timedelta(hours=2))
    db.session.commit()
    return insp, users


def test_a_chosen_act_cites_every_failed_items_article_on_the_notice_and_the_act_page(app):
    with app.app_context():
        insp, users = _two_failed_items()
        act = chosen_permit_suspension(insp, users["supervisor"], REASON, confirmed=True)
        enforcement.record_mayor_decision(act, users["admin"],
                                          datetime.now(UTC) - timedelta(minutes=10),
                                          decision="confirm", ref="Decreto nº 5/2026")
        db.session.commit()
        act = db.session.get(Sanction, act.id)
        notice = db.session.scalar(db.select(Notice).where(Notice.sanction_id == act.id))
        sheet = build_sheet(notice, url="https://x.example/d", access_code=None)
        breach = next(s for s in sheet.sections if s.title == "Dispositivo infringido")
        printed = [b.citation for b in breach.blocks]
        username, act_id = users["supervisor"].username, act.id
    assert printed == ["Lei 535/2013, Art. 13, III", "Lei 535/2013, Art. 13, VII"]
    c = app.test_client()
    assert c.login(username).status_code == 302
    html = c.get(f"/revisao/atos/{act_id}").get_data(as_text=True)
    cited = html.split("Dispositivo infringido", 1)[1].split("</dl>", 1)[0]
    assert "Art. 13, III" in cited and "Art. 13, VII" in cited


def test_a_chosen_act_on_one_failed_item_cites_that_item_alone(app):
    with app.app_context():
        f = fleet("nova-santa-helena", "taxi")
        sup, agent = (factories.user(r, "nova-santa-helena") for r in ("supervisor", "agent"))
        db.session.commit()
        insp = inspect(f["vehicle"], agent, {"extinguisher": "ok", "seat-belts": "fail"},
                       datetime.now(UTC) - timedelta(hours=2))
        db.session.commit()
        act = chosen_permit_suspension(insp, sup, REASON)
        breach = act.breach_citation
    assert breach["article"] == "Art. 13, VII" and "also" not in breach
