"""Which article a finding about the Alvará cites: the one that requires it (missing), the one
that sets its validity (expired, due), the one that provides its suspension or revocation
(suspended, revoked). Each quote is checked against the law's text by the loader."""
from __future__ import annotations

from datetime import date, timedelta

import pytest

from inspector import rules
from inspector.rules.engine import vehicle_document_violations
from inspector.rules.facts import LicenceFacts, VehicleFacts

ON = date(2026, 12, 1)

# pack: (missing, expired, suspended/revoked) as printed; None where the pack has no licence
EXPECTED = {
    ("sapezal", "taxi"): ("Art. 1", "Art. 10", "Art. 20, IV"),
    ("nova-santa-helena", "taxi"): ("Art. 4", "Art. 4, § 2º", "Art. 25, IV"),
    ("nortelandia", "mototaxi"): ("Art. 6", "Art. 6", "Art. 16, III"),
    ("nortelandia", "taxi"): ("Art. 17", "Art. 17", "Art. 26"),
    ("tapurah", "mototaxi"): ("Art. 4", "Art. 4", "Art. 4"),
}


def _cited(town, service, licence):
    r = rules.resolve(town, service, ON)
    v = VehicleFacts(year_of_manufacture=ON.year - 1, licence=licence)
    found = {x.rule_id: x.citation for x in vehicle_document_violations(r, v)}
    return found


@pytest.mark.parametrize(("town", "service"), sorted(EXPECTED))
def test_each_alvara_finding_cites_the_article_that_says_so(town, service):
    missing, expired, sanction = EXPECTED[(town, service)]
    assert _cited(town, service, None)["licence.missing"].article == missing
    old = LicenceFacts("AL-1", ON - timedelta(400), ON - timedelta(35))
    assert _cited(town, service, old)["licence.expired"].article == expired
    for status in ("suspended", "revoked"):
        lic = LicenceFacts("AL-2", ON - timedelta(30), ON + timedelta(300), status=status)
        assert _cited(town, service, lic)[f"licence.{status}"].article == sanction


def test_sapezal_quotes_the_laws_own_words():
    old = LicenceFacts("AL-0007", ON - timedelta(400), ON - timedelta(35))
    assert _cited("sapezal", "taxi", old)["licence.expired"].quote == \
        "O Alvará de Licença terá validade durante o exercício"
    lic = LicenceFacts("AL-0009", ON - timedelta(30), ON + timedelta(300), status="suspended")
    assert _cited("sapezal", "taxi", lic)["licence.suspended"].quote == \
        "suspensão ou cassação do alvará de licença"
