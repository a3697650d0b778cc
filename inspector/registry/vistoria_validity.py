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

from inspector import audit, clock, rules
from inspector.extensions import db
from inspector.models import Municipality, Vehicle
from inspector.rules import add_months, fmt_date

FIELD = "vistoria_valid_until"


def _where(c) -> str:
    return f"{c.law}, {c.article}" if c is not None else ""


def _rules(town_id: int, service: str, on: date) -> rules.Rules:
    return rules.resolve(db.session.get(Municipality, town_id).slug, service, on)


def vistoria_may_be_shortened(town_id: int, on: date | None = None) -> bool:
    """Whether any law of the town in force on the day lets the inspector shorten a vistoria
    (the registry form shows the field only then)."""
    on = on or clock.today(db.session.get(Municipality, town_id))
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


def vistoria_valid_until(vehicle: Vehicle, on: date) -> Validity | None:
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


# --- the one writer of a vehicle's vistoria facts ---------------------------------------------
# `last_vistoria_on` and `vistoria_valid_until` change only here: from a decided vistoria
# (inspector/vistorias), or as an audited correction with a reason (the registry form).
MIN_REASON = 10


def _facts(vehicle: Vehicle) -> dict:
    return {"last_vistoria_on": vehicle.last_vistoria_on.isoformat()
            if vehicle.last_vistoria_on else None,
            "vistoria_valid_until": vehicle.vistoria_valid_until.isoformat()
            if vehicle.vistoria_valid_until else None}


def record_vistoria(vehicle: Vehicle, performed_on: date, shortened_until: date | None, *, actor,
           why: dict, action: str = "vehicle_vistoria_recorded") -> None:
    """Set the vehicle's last vistoria (and its shortened last day, or none) and audit it
    with `why` (the vistoria that decided it, or a correction's reason), in the caller's
    transaction."""
    before = _facts(vehicle)
    vehicle.last_vistoria_on = performed_on
    vehicle.vistoria_valid_until = shortened_until
    db.session.flush()
    audit.record(action, "vehicle", vehicle.id, before=before, after=_facts(vehicle) | why,
                 actor=actor, municipality_id=vehicle.municipality_id)


def shorten(vehicle: Vehicle, until: date, *, actor, why: dict) -> None:
    """Shorten the validity of the vehicle's current vistoria (where the law allows it:
    `check` first), audited."""
    record_vistoria(vehicle, vehicle.last_vistoria_on, until, actor=actor, why=why,
           action="vehicle_vistoria_shortened")


def correct(vehicle: Vehicle, last: date | None, until: date | None, reason: str, *,
            actor) -> dict[str, str]:
    """An admin's correction of the vehicle's vistoria dates (a typing error, a vistoria made
    before the app): the reason is required, the law's limits apply. Returns the field errors
    (pt-BR); writes nothing when there is one."""
    errors: dict[str, str] = {}
    reason = (reason or "").strip()
    if len(reason) < MIN_REASON:
        errors["vistoria_correction_reason"] = ("escreva o motivo da correção (no mínimo "
                                                f"{MIN_REASON} caracteres): ela fica registrada")
    today = clock.today(db.session.get(Municipality, vehicle.municipality_id))
    if last is not None and last > today:
        errors["last_vistoria_on"] = (f"a data não pode ser futura (hoje é {fmt_date(today)})")
    if until is not None:
        why = check(vehicle.municipality_id, vehicle.service.value, last, until)
        if why:
            errors[FIELD] = why
    if errors:
        return errors
    if (last, until) == (vehicle.last_vistoria_on, vehicle.vistoria_valid_until):
        return {}
    before = _facts(vehicle)
    vehicle.last_vistoria_on, vehicle.vistoria_valid_until = last, until
    db.session.flush()
    audit.record("vehicle_vistoria_corrected", "vehicle", vehicle.id, before=before,
                 after=_facts(vehicle) | {"reason": reason}, actor=actor,
                 municipality_id=vehicle.municipality_id)
    return {}
