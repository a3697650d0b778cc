"""A rule pack in memory: one law of one town for one service, every entry with its citation."""
from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from fractions import Fraction
from typing import Any

from inspector.rules.results import Citation

AUTHORITIES = ("agent", "supervisor", "mayor")  # who may decide, lowest first


class ActKind(str, enum.Enum):
    """What a measure of the law does, and so the kind of the legal act that applies it."""

    ORAL_WARNING = "oral_warning"
    WRITTEN_WARNING = "written_warning"
    NOTICE = "notice"                      # a notice to fix something within a deadline
    FINE = "fine"
    DAILY_FINE = "daily_fine"              # runs each day a notice stays unmet
    SUSPENSION = "suspension"
    REVOCATION = "revocation"
    SUSPENSION_OR_REVOCATION = "suspension_or_revocation"  # the decider chooses which
    REMOVAL_REQUEST = "removal_request"    # asks the holder to remove the driver
    SEIZURE_REQUEST = "seizure_request"
    BAN = "ban"                            # barred from the activity
    RECORD_ENTRY = "record_entry"          # an entry in the registry, no other effect

    def __str__(self) -> str:  # a pack, a CSV, a template read the value
        return self.value

    @property
    def label(self) -> str:
        """pt-BR name of the act."""
        return ACT_KIND_LABELS[self]


ACT_KIND_LABELS = {
    ActKind.ORAL_WARNING: "Advertência oral", ActKind.WRITTEN_WARNING: "Advertência escrita",
    ActKind.NOTICE: "Notificação", ActKind.FINE: "Multa", ActKind.DAILY_FINE: "Multa diária",
    ActKind.SUSPENSION: "Suspensão", ActKind.REVOCATION: "Cassação / revogação",
    ActKind.SUSPENSION_OR_REVOCATION: "Suspensão ou cassação",
    ActKind.REMOVAL_REQUEST: "Pedido de afastamento do condutor",
    ActKind.SEIZURE_REQUEST: "Pedido de apreensão do veículo",
    ActKind.BAN: "Proibição de exercer a atividade", ActKind.RECORD_ENTRY: "Registro no cadastro",
}


# Acts that charge money, and acts that stop the activity for a while
FINE_KINDS = (ActKind.FINE, ActKind.DAILY_FINE)
SUSPENSION_KINDS = (ActKind.SUSPENSION, ActKind.SUSPENSION_OR_REVOCATION)


@dataclass(frozen=True)
class Version:
    """A value holding from `start` until the next version; `ended` means the rule stops."""

    start: date
    value: Any
    citation: Citation | None
    ended: bool = False


# Who may let the registry pass a cap of the law, and how (a pack's `override.by`).
OVERRIDES = ("decree",)


@dataclass(frozen=True)
class Override:
    """The article by which the town may pass a cap (Sapezal 060 Art. 18: a decree may enlarge
    the fleet). A cap without one is refused outright."""

    by: str                 # "decree"
    citation: Citation


@dataclass(frozen=True)
class Parameter:
    """A dated legal parameter (OpenFisca style): the value in force on a day."""

    path: str
    versions: tuple[Version, ...]
    message: str | None = None
    note: str | None = None
    override: Override | None = None   # a cap the town may pass, and the article that lets it

    def at(self, day: date) -> Version | None:
        """The version in force on `day`, or None before the first one or after a null."""
        current = None
        for v in self.versions:
            if v.start <= day:
                current = v
            else:
                break
        return None if current is None or current.ended else current

    def value(self, day: date, default: Any = None) -> Any:
        """The value in force on `day`, or `default`."""
        v = self.at(day)
        return default if v is None else v.value


@dataclass(frozen=True)
class Span:
    """The days an entry holds: from `start` to `last` (both included; None = open)."""

    start: date
    last: date | None = None

    def covers(self, day: date) -> bool:
        """Whether the entry is in force on `day`."""
        return self.start <= day and (self.last is None or day <= self.last)


def finding_matches(pattern: str, rule_id: str) -> bool:
    """A pack's name of a registry finding against the rule id of one: an exact id
    ("insurance.lapsed"), or a family ending in "." ("driver.registration.") that holds its
    members and its own bare name (the phone's name for a registration status it does not
    know). static/js/field/inspection.js findingMatches reads it the same way."""
    if pattern.endswith("."):
        return rule_id == pattern[:-1] or rule_id.startswith(pattern)
    return rule_id == pattern


@dataclass(frozen=True)
class ChecklistItem:
    """One thing the agent checks during a vistoria or a street check."""

    id: str
    label: str
    help: str
    checks: str                 # vehicle | equipment | document | driver | passenger | conduct
    photo_required_on_failure: bool
    affects_safety: bool
    citation: Citation
    span: Span
    seat_population_over: int | None = None  # only applies above this seat population
    note: str | None = None
    # only applies while the town has a value for this decree key (Nortelândia Lei 127/2009
    # Art. 14 X: the fare table "quando seu uso for expressamente autorizado")
    applies_if_decree: str | None = None
    # The registry's findings this item checks on the street (engine rule ids, or a family
    # ending in "."): the phone pre-marks the item "Não conforme" when the registry already
    # holds one, and the review flags a "Conforme" beside one.
    registry_findings: tuple[str, ...] = ()
    # False: what fails is not a defect the holder can repair within a granted deadline (the
    # engine's size, a trail bike: Tapurah Art. 19 is for "defeitos no veículo")
    repairable: bool = True

    def checks_finding(self, rule_id: str) -> bool:
        """Whether a registry finding of this kind is what this item checks."""
        return any(finding_matches(f, rule_id) for f in self.registry_findings)

    def as_dict(self) -> dict:
        """JSON-ready form (the CLI's `rules checklist --json`, the phone's snapshot)."""
        out = {"id": self.id, "label": self.label, "help": self.help, "checks": self.checks,
               "photo_required_on_failure": self.photo_required_on_failure,
               "affects_safety": self.affects_safety, "citation": self.citation.as_dict(),
               "registry_findings": list(self.registry_findings)}
        if self.seat_population_over is not None:
            out["condition"] = {"seat_population_over": self.seat_population_over}
        if self.applies_if_decree is not None:
            out["condition"] = out.get("condition", {}) | {"decree": self.applies_if_decree}
        return out


@dataclass(frozen=True)
class Amount:
    """A fine: a fixed amount, an upper bound ("até"), or a value left to a decree."""

    unit: str | None                 # UFM | UFIM | minimum_wage | BRL (None: the decree's own)
    amount: Decimal | None = None
    max: Decimal | None = None
    decree: str | None = None        # decree key when the law leaves the amount to a decree
    per: str | None = None           # "day" for a daily fine


@dataclass(frozen=True)
class Appeal:
    """The right to appeal a sanction: within how many days, to whom, suspensive or not."""

    days: int | None
    to: str
    suspensive: bool | None          # None: the law does not say
    citation: Citation


@dataclass(frozen=True)
class SuspensionBounds:
    """How long a suspension may last, in days: no law here sets it, so the pack does
    (docs/rule-packs.md, "Suspension lengths"); the deciding authority picks within it."""

    default_days: int
    max_days: int
    citation: Citation               # the article that provides the suspension
    min_days: int = 1
    note: str | None = None
    permit_citation: Citation | None = None  # the permit's, where the law names it apart


@dataclass(frozen=True)
class Measure:
    """One thing a sanction does: warn, notify, fine, suspend, revoke, request removal..."""

    kind: ActKind
    target: str          # driver | holder | permit | licence | registration | vehicle
    label: str
    decided_by: str      # agent | supervisor | mayor
    citation: Citation
    fine: Amount | None = None
    appeal: Appeal | None = None     # overrides the pack's appeal for this measure
    automatic: bool = False          # the law applies it by itself ("automaticamente")
    # the law asks for a copy of the written act to go to the company (Tapurah Art. 27 I)
    copy_to_company: Citation | None = None
    # the law allows it only on a repeat: it is never offered before its rung's occurrence
    # (Nortelândia 030 Art. 16 II "em caso de reincidência"; Tapurah Art. 27 III "após a
    # terceira notificação")
    repeat_only: bool = False
    # the law applies its effect on the registry at the decision, before the document reaches
    # the offender (Nova Santa Helena 535 Art. 19 "Será cassado, imediatamente"); the time to
    # appeal still runs from the delivery
    immediate: bool = False


@dataclass(frozen=True)
class Deadline:
    """Time to fix what a notice names. With `grant` it is never applied by itself: it is the
    longest time the authority MAY grant, on the findings the condition names (Tapurah 406
    Art. 19 "A critério, poderá ser concedido prazo máximo de 10 dias": `grant:
    vehicle_not_affecting_safety`, a defect of the vehicle the pack marks as not a safety matter)."""

    citation: Citation
    hours: int | None = None
    days: int | None = None
    grant: str | None = None


@dataclass(frozen=True)
class Reincidence:
    """A rung that holds only on a reincidência (Nortelândia 030 Art. 16 II, as the product
    owner reads it): the same provision broken again by the same offender within
    `within_months` after an earlier penalty became final (no appeal pending)."""

    within_months: int
    citation: Citation
    note: str | None = None


@dataclass(frozen=True)
class Step:
    """A rung of the ladder: what is proposed on the offender's n-th finding."""

    id: str
    occurrence: int
    measures: tuple[Measure, ...]
    deadlines: tuple[Deadline, ...]
    on_missed_deadline: Measure | None
    span: Span
    note: str | None = None
    # the law grades it by gravity, not by count (Nortelândia 127 Art. 26 "conforme a
    # gravidade da falta"): never proposed from the offender's history; offered to the
    # supervisor instead of the proposal, who writes the gravity in the decision's reason
    gravity: bool = False
    reincidence: Reincidence | None = None   # holds only on a reincidência


@dataclass(frozen=True)
class Offence:
    """A finding the law gives its own sanction (e.g. a second passenger on a moto-taxi)."""

    id: str
    label: str
    findings: tuple[str, ...]        # rule ids / checklist ids that constitute it
    measures: tuple[Measure, ...]
    span: Span
    note: str | None = None


@dataclass(frozen=True)
class DecreeKey:
    """A value the law leaves to a decree; each town sets it, else "não definido"."""

    key: str
    label: str
    unit: str
    citation: Citation


# The counting every pack gets unless its law sets its own (../shared/DOMAIN.md, "Counting
# days"): Lei 9.784/1999 Art. 66, applied to municipalities without a procedure law of their own
# (STJ Súmula 633). Not a citation of the pack's law (none of the five sets a rule): a basis.
DEFAULT_COUNTING_BASIS = ("Lei 9.784/1999, art. 66 (aplicada aos municípios sem lei própria de "
                          "processo administrativo, STJ Súmula 633)")


@dataclass(frozen=True)
class Counting:
    """How the law counts its deadlines in days: `continuous` (Lei 9.784/1999 Art. 66, the
    default) or `business` (CPC Arts. 219 and 224, where the law refers to the CPC)."""

    rule: str = "continuous"
    citation: Citation | None = None   # the pack law's own words, when it sets a rule
    note: str | None = None

    @property
    def basis(self) -> str:
        """pt-BR: where the counting comes from ("Lei 030/1998, Art. 16, § 2º (CPC, art. 219)")."""
        if self.citation is None:
            return DEFAULT_COUNTING_BASIS
        cpc = " (CPC, arts. 219 e 224)" if self.rule == "business" else ""
        return f"{self.citation.law}, {self.citation.article}{cpc}"

    def as_dict(self) -> dict:
        """JSON-ready form."""
        return {"rule": self.rule, "basis": self.basis,
                "citation": self.citation.as_dict() if self.citation else None}


DEFAULT_COUNTING = Counting()

# The kinds of inspection: the street check every pack has, and the vistorias a law sets
# (docs/vistoria.md). Labels are what the app shows.
INSPECTION_KINDS = ("street", "prior", "periodic")
KIND_LABELS = {"street": "Fiscalização", "prior": "Vistoria prévia",
               "periodic": "Vistoria periódica"}


@dataclass(frozen=True)
class VistoriaKind:
    """One kind of vistoria the law sets: why (`citation`), the checklist sections it checks
    (`checks`: the vehicle's whole state, documents included), and, where the law gives the
    vistoria no period of its own, how long its certificate holds (`months`, `months_citation`;
    else the pack's `periodicity.vistoria_months`)."""

    kind: str                         # prior | periodic
    citation: Citation
    checks: tuple[str, ...]
    months: int | None = None
    months_citation: Citation | None = None
    note: str | None = None
    left_out: tuple[str, ...] = ()    # items of those sections it does not check (`except`)

    def covers(self, item: ChecklistItem) -> bool:
        """Whether this vistoria checks the item (by its section, less `except`)."""
        return item.checks in self.checks and item.id not in self.left_out


@dataclass(frozen=True)
class VistoriaRules:
    """What the law says of its vistorias: the kinds offered, who performs them (`performed_by`,
    a role of AUTHORITIES, with its article), or why none is offered (`none`)."""

    kinds: tuple[VistoriaKind, ...] = ()
    performed_by: str | None = None
    performed_by_citation: Citation | None = None
    none: str | None = None           # pt-BR: why this law offers no vistoria of its own
    note: str | None = None

    def kind(self, name: str) -> VistoriaKind | None:
        """The kind by name ("prior", "periodic"), or None when the law does not set it."""
        return next((k for k in self.kinds if k.kind == name), None)


NO_VISTORIA = VistoriaRules(none="Esta lei não prevê vistoria: só a fiscalização é feita.")


@dataclass(frozen=True)
class RulePack:
    """One law of one town for one service, as data."""

    id: str
    town: str
    town_name: str
    service: str
    law: str                 # "Lei 406/2001"
    law_slug: str
    title: str
    source: str              # file name of the law text
    span: Span
    in_force_citation: Citation
    fiscal_unit: str | None
    checklist: tuple[ChecklistItem, ...]
    parameters: dict[str, Parameter]
    ladder: tuple[Step, ...]
    offences: tuple[Offence, ...]
    appeal: Appeal | None
    decree: tuple[DecreeKey, ...]
    path: str                # where the pack was loaded from
    suspension: SuspensionBounds | None = None   # length of a suspension (pack data, not law)
    counting: Counting = DEFAULT_COUNTING        # how its deadlines in days are counted
    vistoria: VistoriaRules = NO_VISTORIA        # the law's vistorias (docs/vistoria.md)

    def param(self, path: str) -> Parameter | None:
        """A parameter by dotted path ("limits.vehicle.max_age_years"), or None."""
        return self.parameters.get(path)

    def value(self, path: str, day: date, default: Any = None) -> Any:
        """A parameter's value on a day, or `default` when absent or not in force."""
        p = self.parameters.get(path)
        return default if p is None else p.value(day, default)

    def summary(self) -> dict:
        """JSON-ready summary (the CLI's `rules list --json`)."""
        return {"id": self.id, "town": self.town, "town_name": self.town_name,
                "service": self.service, "law": self.law, "law_slug": self.law_slug,
                "title": self.title, "from": self.span.start.isoformat(),
                "to": self.span.last.isoformat() if self.span.last else None}


def as_fraction(value: Any) -> Fraction:
    """A share from the pack ("1/3", 0.2) as an exact fraction."""
    return Fraction(str(value))
