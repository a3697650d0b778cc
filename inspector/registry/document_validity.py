"""A document may not be registered valid for longer than its law allows (the team's
DOMAIN.md, "Validity of documents"): Nortelândia Lei 030/1998 Art. 6 (the Alvará and
the authorisation it gives: 1 year), Sapezal Lei 060/1998 Art. 10 (the Alvará: the exercício,
until 31 December of its year), Nova Santa Helena Lei 535/2013 Art. 4 § 2º (the Alvará renewed
yearly), Nortelândia Lei 127/2009 Art. 8 (the driver's registration revalidated yearly).

The limits are rule-pack data (`periodicity.licence_months`, `licence_until_year_end`,
`permit_months`, `registration_months`; `rules.validity_limit`); the law is the one in force
on the document's first day. The registry form and the CSV import (both through
`registry.records`) refuse a longer validity naming the field; /conformidade flags records
already stored (`rules.town_report`).
"""
from __future__ import annotations

from datetime import date

from inspector import rules
from inspector.extensions import db
from inspector.models import Municipality


def refusal(town_id: int, service, document: str, start: date | None,
            until: date | None) -> str | None:
    """Why `until` is longer than the law lets a `document` starting on `start` be valid
    (pt-BR, with the article), or None (within, unknown, or no law sets a validity)."""
    if start is None or until is None or service is None:
        return None
    town = db.session.get(Municipality, town_id)
    try:
        r = rules.resolve(town.slug, getattr(service, "value", service), start)
    except rules.RulesError:
        return None   # no law in force that day: the service's own check says so
    limit = rules.validity_limit(r, document, start)
    if limit is None or until <= limit.last:
        return None
    where = f" ({limit.citation.law}, {limit.citation.article})" if limit.citation else ""
    return (f"validade maior do que a lei permite: {limit.words}{where}; use no máximo "
            f"{limit.last:%d/%m/%Y}")
