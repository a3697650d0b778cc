"""The enlarged photo's own page (/revisao/fotos/<id>/ampliar, opened without htmx) has one
<h1> naming the item and the vehicle (axe: page-has-heading-one); the htmx panel, swapped
into the inspection's page that has its own <h1>, has none."""
from __future__ import annotations

import re

from tests.support.field_api import jpeg
from tests.support.review import BIG, inspection_ids, send_inspection
from tests.support.web import login


def test_the_zoom_page_has_one_heading_and_the_panel_none(app, town):
    iid = send_inspection(app, town["agent"], town["vehicle_id"], {"mirrors": [BIG],
                                                                   "uniform": [jpeg(3)]})
    _, _, photos = inspection_ids(app, iid)
    c = login(app, town["supervisor"])
    html = c.get(f"/revisao/fotos/{photos[0]}/ampliar").get_data(as_text=True)
    headings = re.findall(r"<h1[^>]*>(.*?)</h1>", html, re.S)
    assert len(headings) == 1
    assert headings[0].startswith("Foto do item “") and "· vistoria de " in headings[0]
    panel = c.get(f"/revisao/fotos/{photos[0]}/ampliar", headers={"HX-Request": "true"})
    assert "<h1" not in panel.get_data(as_text=True)
