"""A suspended or revoked permit cites the article that provides that sanction for the
permit, where the law names one (`sanctions.suspension.permit_citation`); elsewhere it
cites the article that requires the permit, as before."""
from __future__ import annotations

from datetime import date

import pytest

from inspector import rules

DAY = date(2026, 3, 1)


def _vehicle(status: str, **kw) -> rules.VehicleFacts:
    return rules.VehicleFacts(
        year_of_manufacture=2024, engine_cc=1000, doors=4, last_vistoria_on=DAY,
        licence=rules.LicenceFacts("AL-1", date(2026, 1, 1), date(2026, 12, 31)),
        permit=rules.PermitFacts("TP-1", date(2025, 1, 1), status=status,
                             suspended_until=date(2026, 3, 30) if status == "suspended"
                             else None), **kw)


def _cited(town: str, service: str, status: str) -> dict:
    r = rules.resolve(town, service, DAY)
    [found] = [v for v in rules.vehicle_document_violations(r, _vehicle(status))
               if v.rule_id.startswith("permit.")]
    return found.citation.as_dict()


@pytest.mark.parametrize("status", ["suspended", "revoked"])
def test_nova_santa_helena_cites_art_25_iii_for_the_permit(status):
    c = _cited("nova-santa-helena", "taxi", status)
    assert (c["law"], c["article"], c["anchor"]) == ("Lei 535/2013", "Art. 25, III", "art-25-iii")
    assert c["quote"] == "Suspensão ou cassação do Termo de Permissão"


def test_nortelandia_030_cites_the_suspension_of_the_authorisation():
    c = _cited("nortelandia", "mototaxi", "suspended")
    assert (c["law"], c["article"]) == ("Lei 030/1998", "Art. 16, III")


def test_a_law_without_a_permit_sanction_keeps_citing_the_requirement():
    r = rules.resolve("nortelandia", "taxi", DAY)   # Lei 127/2009: the permit is only revoked
    assert r.pack.suspension.permit_citation is None
    assert _cited("nortelandia", "taxi", "suspended") == r.cite("requirements.permit").as_dict()
