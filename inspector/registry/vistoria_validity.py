"""A vistoria whose validity the inspector shortened, where the law in force allows it.

Nova Santa Helena Lei 535/2013 Art. 32 § 3º: "A juízo do responsável pela vistoria, poderá
o prazo de validade desta, ser reduzido, se o estado do veículo tornar necessária tal
providência." The rule pack says which law allows it (`periodicity.vistoria_may_be_shortened`,
with its citation); no town is named here. `Vehicle.vistoria_valid_until` is the last valid
day the inspector set: after the vistoria, not later than its normal end (vistoria +
`vistoria_months`). The engine (`rules.vistoria_end`) takes the earlier of the two.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from inspector import rules
from inspector.clock import default_day
from inspector.extensions import db
from inspector.models import Municipality, Vehicle
from inspector.rules import add_months, fmt_date

FIELD = "vistoria_valid_until"


def _where(c) -> str:
    return f"{c.law}, {c.article}" if c is not None else ""


def _rules(town_id: int, service: str, on: date) -> rules.Rules:
    return rules.resolve(db.session.get(Municipality, town_id).slug, service, on)


def town_allows(town_id: int, on: date | None = None) -> bool:
    """Whether any law of the town in force on the day lets the inspector shorten a vistoria
    (the registry form shows the field only then)."""
    on = on or default_day()
    for service in rules.SERVICES:
        try:
            r = _rules(town_id, service, on)
        except rules.RulesError:
            continue
        if r.value("periodicity.vistoria_may_be_shortened"):
            return True
    return False


def check(town_id: int, service: str | None, last: date | None, until: date) -> str | None:
    """Why `until` cannot be the vehicle's shortened vistoria validity (pt-BR), or None.

    The law is the one in force on the vistoria's day (the inspector judged then)."""
    if last is None:
        return "informe a data da última vistoria periódica: a validade reduzida é a de uma vistoria"
    if service is None:
        return None  # the service's own error is reported
    try:
        r = _rules(town_id, service, last)
    except rules.RulesError as e:
        return str(e)
    months = r.value("periodicity.vistoria_months")
    if not r.value("periodicity.vistoria_may_be_shortened") or not months:
        c = r.cite("periodicity.vistoria_months")
        period = f": a vistoria vale {months} meses ({_where(c)})" if months else ""
        return (f"a lei em vigor em {r.pack.town_name} ({r.pack.law}) não prevê reduzir a "
                f"validade da vistoria{period}; deixe o campo em branco")
    if until <= last:
        return f"a validade reduzida deve terminar depois da vistoria de {fmt_date(last)}"
    normal = add_months(last, months)
    if until > normal:
        return (f"a validade reduzida não pode passar de {fmt_date(normal)}: a vistoria de "
                f"{fmt_date(last)} vale {months} meses "
                f"({_where(r.cite('periodicity.vistoria_months'))})")
    return None


@dataclass(frozen=True)
class Validity:
    """A vehicle's vistoria on a day: its last valid day and why (the article)."""

    until: date
    shortened: bool
    citation: rules.Citation | None

    @property
    def where(self) -> str:
        """'Lei 535/2013, Art. 32, § 3º'."""
        return _where(self.citation)


def of(vehicle: Vehicle, on: date) -> Validity | None:
    """The vistoria's last valid day under the law in force on `on` (None: no vistoria, no
    law, or no periodicity)."""
    if vehicle.last_vistoria_on is None:
        return None
    try:
        r = _rules(vehicle.municipality_id, vehicle.service.value, on)
    except rules.RulesError:
        return None
    facts = rules.VehicleFacts(year_of_manufacture=vehicle.year_of_manufacture,
                               last_vistoria_on=vehicle.last_vistoria_on,
                               vistoria_valid_until=vehicle.vistoria_valid_until)
    until, citation, shortened = rules.vistoria_end(r, facts)
    return None if until is None else Validity(until, shortened, citation)
