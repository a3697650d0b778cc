"""What the engine is asked about: plain frozen dataclasses, never ORM rows.

`inspector/laws/compliance.py` builds these from the database; tests and the CLI
build them by hand.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from typing import Any

from inspector.rules.calendar import TownCalendar


@dataclass(frozen=True)
class DatedAmount:
    """A BRL amount (or a decree value in its unit) that holds from `valid_from`."""

    valid_from: date
    amount: Decimal
    unit: str = "BRL"
    source: str = ""


def amount_on(values: tuple[DatedAmount, ...], day: date) -> DatedAmount | None:
    """The value in force on `day`: the latest one starting on or before it."""
    current = None
    for v in sorted(values, key=lambda v: v.valid_from):
        if v.valid_from <= day:
            current = v
    return current


@dataclass(frozen=True)
class TownFacts:
    """A town: its population and the money values it has configured."""

    slug: str
    name: str = ""
    population_seat: int | None = None
    population_interior: int | None = None
    fiscal_unit_brl: tuple[DatedAmount, ...] = ()     # value of one UFM/UFIM in BRL
    minimum_wage_brl: tuple[DatedAmount, ...] = ()
    decree_values: dict[str, tuple[DatedAmount, ...]] = field(default_factory=dict)
    fiscal_unit: str | None = None    # the town's own unit (UFM | UFIM); None: not checked
    # the town's own closures and the years it entered (None: none known, every year flagged
    # as without a town calendar where a deadline is counted)
    calendar: TownCalendar | None = None

    def decree_on(self, key: str, day: date) -> DatedAmount | None:
        """The decree value configured for `key` on `day`, or None ("não definido")."""
        return amount_on(self.decree_values.get(key, ()), day)


@dataclass(frozen=True)
class StatusCause:
    """Why a licence, permit or driver registration is suspended, revoked or cancelled: the
    act that did it (its day, its article, its cause in a few plain words). A standing cites
    the article of the cause (Tapurah Art. 17: insurance not renewed), not the article that
    requires the document."""

    words: str                        # "seguro do moto-táxi SAF9Q98 vencido"
    on: date                          # the day the status changed
    citation: Any = None              # results.Citation of the act's article
    cancelled: bool = False           # lapsed by law ("cancelada"), not revoked ("cassada")


@dataclass(frozen=True)
class LicenceFacts:
    """An alvará: number, validity and status (active | suspended | revoked)."""

    number: str
    valid_from: date
    valid_until: date
    status: str = "active"
    suspended_until: date | None = None   # last day of a suspension in force
    cause: StatusCause | None = None      # the act behind a suspension or revocation


@dataclass(frozen=True)
class PermitFacts:
    """A Termo de Permissão / autorização: number, validity and status."""

    number: str
    valid_from: date
    valid_until: date | None = None
    status: str = "active"
    suspended_until: date | None = None   # last day of a suspension in force
    cause: StatusCause | None = None      # the act behind a suspension or revocation
    company: str = ""                     # the holder's name when it is a company: the
    # permit covers every vehicle of the company, so its fall is said as such


@dataclass(frozen=True)
class InsuranceFacts:
    """An insurance policy's validity."""

    valid_from: date
    valid_until: date
    policy_number: str = ""


@dataclass(frozen=True)
class VehicleFacts:
    """A vehicle as the law sees it. Unknown values are None and are not judged."""

    year_of_manufacture: int
    id: int | None = None
    plate: str = ""
    manufactured_on: date | None = None     # the exact day, when known (CRLV)
    first_licensed_on: date | None = None   # first licensing: start of "anos de uso"
    engine_cc: int | None = None
    is_trail: bool = False
    doors: int | None = None
    holder_id: int | None = None
    last_vistoria_on: date | None = None
    vistoria_valid_until: date | None = None   # shortened by the inspector, where the law allows
    licence: LicenceFacts | None = None
    permit: PermitFacts | None = None
    insurance: tuple[InsuranceFacts, ...] = ()
    auxiliaries: int = 0          # auxiliary drivers registered to this vehicle

    @property
    def subject(self) -> str:
        """How violations name this vehicle."""
        return f"vehicle:{self.id}" if self.id is not None else "vehicle"


@dataclass(frozen=True)
class DriverFacts:
    """A registered driver (condutor)."""

    id: int | None = None
    name: str = ""
    category: str = "autonomo"        # autonomo | auxiliar | mototaxista
    holder_id: int | None = None
    cnh_category: str | None = None
    cnh_expiry: date | None = None
    registration_number: str = ""
    registration_expiry: date | None = None
    status: str = "active"
    suspended_until: date | None = None   # last day of a suspension in force
    cause: StatusCause | None = None      # the act behind a suspension or revocation

    @property
    def subject(self) -> str:
        """How violations name this driver."""
        return f"driver:{self.id}" if self.id is not None else "driver"


@dataclass(frozen=True)
class HolderFacts:
    """A permit holder: a person (self-employed driver) or a company."""

    id: int
    kind: str = "person"               # person | company
    name: str = ""


@dataclass(frozen=True)
class Registry:
    """A town's fleet for one service: what `town_report` checks."""

    town: TownFacts
    service: str
    holders: tuple[HolderFacts, ...] = ()
    vehicles: tuple[VehicleFacts, ...] = ()
    drivers: tuple[DriverFacts, ...] = ()


@dataclass(frozen=True)
class Finding:
    """Something an agent found: a checklist item failed, or a rule id the engine reported."""

    rule_id: str
    affects_safety: bool | None = None   # None: take it from the checklist item
    provision: str | None = None   # "<law slug>#<anchor>" broken; None: the checklist item's


@dataclass(frozen=True)
class PriorSanction:
    """A sanction the same offender already received (for the ladder)."""

    on: date
    rule_id: str = ""
    kind: str = ""
    # the provision it punished ("<law slug>#<anchor>" of the article broken) and the day the
    # penalty became final (window closed with no appeal, or appeal refused); None: not final
    # yet (window open, appeal pending, not delivered) or unknown - never a reincidência
    provision: str = ""
    final_on: date | None = None
