"""Where an appeal goes, in Portuguese: "recorrer ao Prefeito", "à Secretaria" (the
preposition contracted with the article), on the public law pages and on the act a
supervisor reviews."""
from __future__ import annotations

import re
from html import unescape

from tests.support.field_api import jpeg
from tests.support.review import inspection_ids, send_inspection
from tests.support.web import login


def _text(r) -> str:
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", r.get_data(as_text=True))))


def test_the_law_page_says_to_whom_one_appeals_with_the_contraction(client):
    page = _text(client.get("/leis/nova-santa-helena-lei-535-2013-taxi"))
    assert "10 dias para recorrer ao Prefeito" in page
    assert "10 dias para recorrer à Secretaria (supervisão)" in page
    assert "recorrer a Prefeito" not in page and "recorrer a Secretaria" not in page


def test_the_reviewed_act_says_the_appeal_goes_to_the_secretaria(app, town):  # noqa: F811
    iid = send_inspection(app, town["agent"], town["vehicle_id"], {"mirrors": [jpeg(1)]})
    insp_id, _, _ = inspection_ids(app, iid)
    page = _text(login(app, town["supervisor"]).get(f"/revisao/vistorias/{insp_id}"))
    assert re.search(r"Recurso 8 dias, até \d\d/\d\d/\d{4}, à Secretaria \(supervisão\);", page)
    assert ", a Secretaria" not in page
