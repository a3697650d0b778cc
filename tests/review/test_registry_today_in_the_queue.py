"""The review queue sees the registry: an all-"Conforme" inspection of a moto-taxi three years
past its legal age (Tapurah Lei 406/2001 Art. 13: 5 years of use) reads "Cadastro hoje:
IRREGULAR — nenhum ato proposto" in the queue, and its page says so at the top with the way to
propose a sanction (the form open, not folded at the bottom). The old column is named for what it
is: "Alterado desde o envio"."""
from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from sqlalchemy import select

from inspector.extensions import db
from inspector.models import Municipality, User, Vehicle
from inspector.rules.engine import checklist
from tests.support.enforcement import inspect


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def _all_ok(app, town, *, age: int) -> int:
    finished = datetime.now(UTC) - timedelta(hours=1)
    with app.app_context():
        vehicle = db.session.get(Vehicle, town["vehicle_id"])
        vehicle.year_of_manufacture = finished.year - age
        vehicle.manufactured_on = vehicle.first_licensed_on = None
        agent = db.session.scalar(select(User).filter_by(username=town["agent"]))
        tapurah = db.session.get(Municipality, vehicle.municipality_id)
        items = checklist(tapurah.slug, "mototaxi", finished.date(),
                                seat_population=tapurah.population_seat)
        insp = inspect(vehicle, agent, {i.id: "ok" for i in items}, finished)
        db.session.commit()
        return insp.id


def test_an_old_moto_all_conforme_reads_irregular_with_no_act(app, town):
    ident = _all_ok(app, town, age=8)
    c = app.test_client()
    assert c.login(town["supervisor"]).status_code == 302
    queue = c.get("/revisao?situacao=todas").get_data(as_text=True)
    head = _text(queue[queue.index("<thead>"):queue.index("</thead>")])
    assert "Cadastro hoje" in head and "Alterado desde o envio" in head
    row = _text(re.search(rf'/revisao/vistorias/{ident}".*?</tr>', queue, re.S).group(0))
    assert "IRREGULAR Irregular — nenhum ato proposto" in row
    page = c.get(f"/revisao/vistorias/{ident}").get_data(as_text=True)
    top = page[:page.index('class="card insp-facts"')]
    box = _text(re.search(r'<div class="card warn-box no-act".*?</div>', top, re.S).group(0))
    assert box.startswith(" Irregular — nenhum ato proposto.")
    assert "(Lei 406/2001, Art. 13)" in box
    assert 'href="#outras-sancoes">Propor uma sanção prevista em lei</a>' in top
    assert '<details class="choose" open>' in page


def test_a_regular_moto_reads_regular_and_no_box(app, town):
    ident = _all_ok(app, town, age=1)
    c = app.test_client()
    assert c.login(town["supervisor"]).status_code == 302
    queue = c.get("/revisao?situacao=todas").get_data(as_text=True)
    row = _text(re.search(rf'/revisao/vistorias/{ident}".*?</tr>', queue, re.S).group(0))
    assert "REGULAR" in row and "nenhum ato proposto" not in row
    assert "no-act" not in c.get(f"/revisao/vistorias/{ident}").get_data(as_text=True)
