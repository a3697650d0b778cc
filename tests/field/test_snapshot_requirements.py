"""What the law requires, in the snapshot (`checklists[].requirements`): every dated requirement
of a vehicle and its drivers with its article, so the phone judges the rows' dates on its own
day. Full and delta snapshots alike (checklists are replaced by every delta). Runs on SQLite and
PostgreSQL (DATABASE_URL)."""
from __future__ import annotations

from inspector.clock import default_day


def _tapurah(checklists: list[dict]) -> dict:
    [found] = [c for c in checklists if c["service"] == "mototaxi"]
    return found["requirements"]


def test_the_snapshot_says_what_the_law_requires_and_where(api, moto):
    moto()
    full = api.get("/api/field/snapshot").json
    req = _tapurah(full["checklists"])
    law = {"law": "Lei 406/2001", "law_slug": "tapurah-lei-406-2001-mototaxi"}

    def cited(name):
        c = req[name]["citation"]
        return {"law": c["law"], "law_slug": c["law_slug"], "article": c["article"]}

    assert cited("licence") == {**law, "article": "Art. 4"}
    assert cited("permit") == {**law, "article": "Art. 6"}
    assert cited("insurance") == {**law, "article": "Art. 17"}
    assert cited("cnh") == {**law, "article": "Art. 20, I"}
    assert req["vistoria"]["months"] == 6
    assert req["vistoria"]["citation"]["article"].startswith("Art. 23")
    # "no máximo 5 anos de uso": irregular from the year it is 6 years old
    assert req["vehicle_age"]["irregular_at_age"] == 6
    assert req["vehicle_age"]["limit_years"] == 5
    assert cited("vehicle_age") == {**law, "article": "Art. 13"}
    assert req["cnh_category"]["category"] == "A"
    assert cited("cnh_category") == {**law, "article": "Art. 20, I"}
    assert req["driver_registration"]["citation"]["article"].startswith("Art. 3")
    assert req["registration_grace"] is None  # Tapurah's law gives no days to revalidate
    # a delta carries them too: the phone holding an older list gets them on its next sync
    delta = api.get(f"/api/field/snapshot?since={full['version']}").json
    assert delta["full"] is False and _tapurah(delta["checklists"]) == req


def test_a_requirement_the_law_does_not_make_is_null(app):
    """Nortelândia's taxi law asks no insurance and no vistoria period: null, never a guess."""

    from inspector import rules
    from inspector.field.snapshot import requirements_of

    req = requirements_of(rules.resolve("nortelandia", "taxi", default_day()))
    assert req["insurance"] is None and req["vistoria"] is None and req["cnh_category"] is None
    # Art. 8 § único: 30 days to revalidate an expired registration, then cancelled
    assert req["registration_grace"]["days"] == 30
    assert req["registration_grace"]["citation"]["article"] == "Art. 8, parágrafo único"
    assert req["licence"]["citation"]["article"] == "Art. 17"
    assert req["vehicle_age"]["irregular_at_age"] == 11


def test_an_alvara_finding_cites_what_the_engine_cites(app):
    """Sapezal 060/1998: Art. 1 requires the Alvará, Art. 10 sets its validity, Art. 20 IV
    suspends it; the phone judging offline must cite as the server does."""

    from inspector import rules
    from inspector.field.snapshot import requirements_of

    lic = requirements_of(rules.resolve("sapezal", "taxi", default_day()))["licence"]
    assert lic["citation"]["article"] == "Art. 1"
    assert lic["validity_citation"]["article"] == "Art. 10"
    assert lic["sanction_citation"]["article"] == "Art. 20, IV"



def test_a_permit_sanction_cites_what_the_engine_cites(app):
    """A suspended or revoked permit cites the sanction's article where the law names one for
    the permit (Nova Santa Helena 535 Art. 25, III; Nortelândia 030 Art. 16, III), as the
    engine does; elsewhere none is sent and the phone cites the requiring article."""

    from inspector import rules
    from inspector.field.snapshot import requirements_of

    def permit(town, service):
        return requirements_of(rules.resolve(town, service, default_day()))["permit"]

    nsh = permit("nova-santa-helena", "taxi")
    assert nsh["citation"]["article"] == "Art. 4"
    assert (nsh["sanction_citation"]["law"], nsh["sanction_citation"]["article"],
            nsh["sanction_citation"]["law_slug"], nsh["sanction_citation"]["anchor"]) == (
        "Lei 535/2013", "Art. 25, III", "nova-santa-helena-lei-535-2013-taxi", "art-25-iii")
    assert permit("nortelandia", "mototaxi")["sanction_citation"]["article"] == "Art. 16, III"
    assert permit("nortelandia", "taxi")["sanction_citation"] is None  # Lei 127/2009 names none
