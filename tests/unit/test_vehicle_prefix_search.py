"""The registry's vehicle search finds a moto-taxi by the company's number painted on it
(Tapurah Lei 406/2001 Art. 22 II), even when that number looks like the start of a plate
(TMT01, AMS03: what the demo towns use and the list shows in its PREFIXO column)."""
from __future__ import annotations

from inspector.services import registry as reg

from .test_registry_services import holder, moto, towns  # noqa: F401


def test_a_letter_prefix_shaped_like_a_plate_start_is_found(towns):  # noqa: F811
    t, _ = towns
    holder(t)
    for plate, prefix in [("QBX6R89", "TMT06"), ("RBC2L90", "TMT01"), ("QBX4P86", "AMS03"),
                          ("TMT1A23", "")]:
        reg.save_vehicle(t, moto(t, plate=plate, prefix=prefix), actor="teste")
    plates = lambda q: [v.plate for v in reg.search_vehicles(t, q)]  # noqa: E731
    assert plates("TMT01") == ["RBC2L90"]
    assert plates("ams03") == ["QBX4P86"]
    # A plate that starts with the letters comes first, then the prefixes, by plate.
    assert plates("TMT") == ["TMT1A23", "QBX6R89", "RBC2L90"]
    assert plates("tmt0") == ["QBX6R89", "RBC2L90"]
