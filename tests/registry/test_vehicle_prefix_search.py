"""The registry's vehicle search finds a moto-taxi by the company's number painted on it
(Tapurah Lei 406/2001 Art. 22 II), even when that number looks like the start of a plate
(TMT01, AMS03: what the demo towns use and the list shows in its PREFIXO column)."""
from __future__ import annotations

from inspector.registry import records
from tests.support.registry import moto_fields, saved_holder


def test_a_letter_prefix_shaped_like_a_plate_start_is_found(towns):  # noqa: F811
    t, _ = towns
    saved_holder(t)
    for plate, prefix in [("QBX6R89", "TMT06"), ("RBC2L90", "TMT01"), ("QBX4P86", "AMS03"),
                          ("TMT1A23", "")]:
        records.save_vehicle(t, moto_fields(t, plate=plate, prefix=prefix), actor="teste")
    plates = lambda q: [v.plate for v in records.search_vehicles(t, q)]  # noqa: E731
    assert plates("TMT01") == ["RBC2L90"]
    assert plates("ams03") == ["QBX4P86"]
    # A plate that starts with the letters comes first, then the prefixes, by prefix (TMT01
    # before TMT06, though its plate sorts after), as the field app lists them.
    assert plates("TMT") == ["TMT1A23", "RBC2L90", "QBX6R89"]
    assert plates("tmt0") == ["RBC2L90", "QBX6R89"]


def test_prefix_matches_are_listed_in_the_field_app_s_natural_order_page_by_page(towns):  # noqa: F811
    """The same fleet as the field app's test (tests/browser/field/test_search_prefix_order.py):
    plates running the other way round from the prefixes. TMT06 before TMT10, TX09 before
    TX010 and TX091, as the web list and the phone both show them."""
    t, _ = towns
    saved_holder(t)
    for plate, prefix in [("QBA1A01", "TMT06"), ("QBA1A02", "TMT03"), ("QBA1A03", "TMT10"),
                          ("QBA1A04", "TMT01")]:
        records.save_vehicle(t, moto_fields(t, plate=plate, prefix=prefix), actor="teste")
    for plate, prefix in [("NJK1A01", "TX091"), ("NJK1A02", "TX09"), ("NJK1A03", "TX010"),
                          ("NJK1A04", "TX02")]:  # Nortelândia has taxis too (Lei 127/2009)
        records.save_vehicle(t, moto_fields(t, plate=plate, prefix=prefix, service="taxi", engine_cc="",
                                 doors="4"), actor="teste")
    prefixes = lambda q, **kw: [v.prefix for v in records.search_vehicles(t, q, **kw)]  # noqa: E731
    assert prefixes("TMT0") == ["TMT01", "TMT03", "TMT06"]
    assert prefixes("tmt") == ["TMT01", "TMT03", "TMT06", "TMT10"]
    assert prefixes("TX0") == ["TX02", "TX09", "TX010", "TX091"]
    assert prefixes("TX09") == ["TX09", "TX091"]
    assert prefixes("qba1a0") == ["TMT06", "TMT03", "TMT10", "TMT01"]  # a plate: by plate
    assert [prefixes("tmt", limit=1, offset=i) for i in range(5)] == [
        ["TMT01"], ["TMT03"], ["TMT06"], ["TMT10"], []]


def test_like_wildcards_typed_in_a_search_are_taken_literally(towns):  # noqa: F811
    """'_' and '%' in what the admin types match those characters, not any character: the
    search's LIKE patterns are bound values with their own escaping."""
    t, _ = towns
    saved_holder(t)
    for plate, model in [("QBA1A01", "Honda CG_160 Fan"), ("QBA1A02", "Honda CGX160 Fan"),
                         ("QBA1A03", "Yamaha 100% Flex"), ("QBA1A04", "Yamaha 1000 Flex")]:
        records.save_vehicle(t, moto_fields(t, plate=plate, make_model=model), actor="teste")
    plates = lambda q: [v.plate for v in records.search_vehicles(t, q)]  # noqa: E731
    assert plates("cg_160 fan") == ["QBA1A01"]
    assert plates("100% flex") == ["QBA1A03"]
    assert plates("honda cg") == ["QBA1A01", "QBA1A02"]
