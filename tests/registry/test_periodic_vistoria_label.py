"""The registry's vistoria (Vehicle.last_vistoria_on: the periodic check the town's law asks
for every `periodicity.vistoria_months`) is labelled "vistoria periódica" on the staff pages,
so it is not read as the street inspection whose sanctions the same vehicle page lists."""
from __future__ import annotations

import re
from datetime import date

from tests import factories


def test_the_vehicle_page_and_form_say_periodic_vistoria(app, client, make):
    v = make(factories.vehicle, "tapurah", "mototaxi", last_vistoria_on=date(2026, 1, 26))
    make(factories.user, "admin", "tapurah", username="admin.t")
    client.login("admin.t")
    page = client.get(f"/cadastro/veiculos/{v.id}").get_data(as_text=True)
    assert "<dt>Última vistoria periódica</dt><dd>26/01/2026</dd>" in page
    assert not re.search(r"Última vistoria\s*<", page)            # never the bare words
    form = client.get(f"/cadastro/veiculos/{v.id}/editar").get_data(as_text=True)
    label = re.search(r'<label[^>]*for="f-last_vistoria_on"[^>]*>(.*?)</label>', form, re.S)
    assert label and label.group(1).strip().startswith("Última vistoria periódica")
    assert "não a fiscalização na rua" in form
