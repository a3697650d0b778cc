"""The sanction the law proposes for a finding, given the offender's history.

A finding the pack names in an offence gets that offence's measures; any other finding
climbs the ladder by the number of prior sanctions of the same offender. Amounts are
given in the law's unit and in BRL on the day, from the town's configured values; a
value nobody configured is "não definido", never guessed.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import ROUND_HALF_UP, Decimal

from inspector.rules.calendar import deadline_days
from inspector.rules.engine import find_pack, fmt_date, months_later
from inspector.rules.facts import Finding, PriorSanction, TownFacts, amount_on
from inspector.rules.model import AUTHORITIES, Amount, Appeal, Measure, RulePack, Step
from inspector.rules.results import Citation

UNDEFINED = "não definido"
UNIT_NAMES = {"UFM": "UFM", "UFIM": "UFIM", "minimum_wage": "salário(s) mínimo(s)", "BRL": "R$"}


def number_text(value: Decimal) -> str:
    """1.234,56: two decimals, as Brazilian documents write an amount."""
    q = value.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    return f"{q:,.2f}".replace(",", "_").replace(".", ",").replace("_", ".")


def brl(value: Decimal) -> str:
    """R$ 1.234,56."""
    return f"R$ {number_text(value)}"


@dataclass(frozen=True)
class Money:
    """A fine in the law's unit and, when the town has configured the unit, in BRL."""

    unit: str | None              # UFM | UFIM | minimum_wage | BRL (None: decree not set)
    amount: Decimal | None        # fixed amount in `unit`
    max: Decimal | None           # upper bound ("multa de até ...")
    per: str | None               # "day" for daily fines
    decree_key: str | None
    brl: Decimal | None           # amount (or max) in BRL on the day, None when unknown
    basis: str                    # where the BRL value comes from, or why it is unknown

    @property
    def defined(self) -> bool:
        """Whether the amount itself is known (a decree may not be set yet)."""
        return self.amount is not None or self.max is not None

    @property
    def bound_only(self) -> bool:
        """Whether only the law's upper bound is known ("multa de até 10 UFM"): once the
        authority fixes the amount within it (Nortelândia 030 Art. 16, II), that amount is
        the fine, not "até" it."""
        return self.max is not None and self.amount is None

    @property
    def brl_text(self) -> str:
        """The BRL amount as people read it, or "não definido"."""
        if self.brl is None:
            return UNDEFINED
        return ("até " if self.bound_only else "") + brl(self.brl) + \
            (" por dia" if self.per == "day" else "")

    @property
    def text(self) -> str:
        """The amount in the law's unit, or "não definido"."""
        if not self.defined:
            return UNDEFINED
        n = self.amount if self.amount is not None else self.max
        shown = f"{n.normalize():f}".replace(".", ",")
        unit = UNIT_NAMES.get(self.unit or "", self.unit or "")
        if self.unit == "minimum_wage":
            shown = f"{(n * 100).normalize():f}".replace(".", ",") + "% do salário mínimo"
            unit = ""
        elif self.unit == "BRL":
            return ("até " if self.bound_only else "") + brl(n) + \
                (" por dia" if self.per == "day" else "")
        return (("até " if self.bound_only else "") + f"{shown} {unit}".strip()
                + (" por dia" if self.per == "day" else ""))

    def as_dict(self) -> dict:
        """JSON-ready form."""
        return {"unit": self.unit, "amount": _num(self.amount), "max": _num(self.max),
                "per": self.per, "decree_key": self.decree_key, "text": self.text,
                "brl": None if self.brl is None else f"{self.brl:.2f}",
                "brl_text": self.brl_text, "basis": self.basis}


def _num(d: Decimal | None) -> str | None:
    return None if d is None else f"{d.normalize():f}"


@dataclass(frozen=True)
class AppealInfo:
    """Appeal window: days from notice, to whom, whether it suspends the sanction."""

    days: int | None
    to: str
    suspensive: bool | None
    citation: Citation
    until: date | None
    explain: str | None = None    # how `until` was counted (rules.calendar), from the day `on`

    def as_dict(self) -> dict:
        """JSON-ready form."""
        return {"days": self.days, "to": self.to, "suspensive": self.suspensive,
                "until": self.until.isoformat() if self.until else None,
                "explain": self.explain, "citation": self.citation.as_dict()}


@dataclass(frozen=True)
class DeadlineInfo:
    """Time to fix what the notice names."""

    hours: int | None
    days: int | None
    due: date
    text: str
    citation: Citation
    explain: str | None = None    # how `due` was counted (days: rules.calendar; hours: none)
    granted_by: str | None = None  # agent | supervisor: a discretionary grant (Grant)
    grant_reason: str | None = None

    def as_dict(self) -> dict:
        """JSON-ready form."""
        return {"hours": self.hours, "days": self.days, "due": self.due.isoformat(),
                "text": self.text, "explain": self.explain, "citation": self.citation.as_dict(),
                "granted_by": self.granted_by, "grant_reason": self.grant_reason}


@dataclass(frozen=True)
class ProposedMeasure:
    """One measure of the proposal, with its amount and appeal."""

    kind: str
    target: str
    label: str
    decided_by: str
    citation: Citation
    money: Money | None
    appeal: AppealInfo | None
    automatic: bool = False       # applied by the law itself (the tick), not proposed

    def as_dict(self) -> dict:
        """JSON-ready form."""
        return {"kind": self.kind, "target": self.target, "label": self.label,
                "decided_by": self.decided_by, "citation": self.citation.as_dict(),
                "money": self.money.as_dict() if self.money else None,
                "appeal": self.appeal.as_dict() if self.appeal else None,
                "automatic": self.automatic}


@dataclass(frozen=True)
class Proposal:
    """What the law proposes for a finding on a day."""

    pack_id: str
    law: str
    rule_id: str
    on: date
    occurrence: int                   # the offender's n-th sanction, this one included
    step: int | None                  # rung of the ladder (1-based); None for an offence
    step_id: str | None
    offence_id: str | None
    measures: tuple[ProposedMeasure, ...]
    deadline: DeadlineInfo | None
    on_missed_deadline: ProposedMeasure | None
    appeal: AppealInfo | None         # None: the law provides no appeal
    decided_by: str                   # highest authority among the measures
    notes: tuple[str, ...] = ()
    grant: GrantOption | None = None  # the discretionary deadline on offer (None: the law has none)

    def as_dict(self) -> dict:
        """JSON-ready form."""
        return {"pack": self.pack_id, "law": self.law, "rule_id": self.rule_id,
                "on": self.on.isoformat(), "occurrence": self.occurrence, "step": self.step,
                "step_id": self.step_id, "offence_id": self.offence_id,
                "measures": [m.as_dict() for m in self.measures],
                "deadline": self.deadline.as_dict() if self.deadline else None,
                "on_missed_deadline": self.on_missed_deadline.as_dict()
                if self.on_missed_deadline else None,
                "appeal": self.appeal.as_dict() if self.appeal else None,
                "decided_by": self.decided_by, "notes": list(self.notes),
                "grant": self.grant.as_dict() if self.grant else None}


class NoSanction(LookupError):
    """The pack has no sanction for this finding on this day."""


def foreign_unit(town: TownFacts, unit: str | None) -> bool:
    """Whether `unit` is a fiscal unit other than the town's own (another town's UFM or
    UFIM): it has no value in reais here, whatever the town registered."""
    return unit not in (None, "BRL", "minimum_wage") and bool(town.fiscal_unit) \
        and unit != town.fiscal_unit


def unit_value(town: TownFacts, unit: str, on: date) -> tuple[Decimal | None, str]:
    """BRL value of one `unit` on a day and where it comes from (or why unknown)."""
    if unit == "BRL":
        return Decimal(1), ""
    if unit == "minimum_wage":
        v = amount_on(town.minimum_wage_brl, on)
        return (None, "salário mínimo não cadastrado") if v is None else \
            (v.amount, f"salário mínimo de {fmt_date(v.valid_from)}: {brl(v.amount)}")
    if foreign_unit(town, unit):  # another town's unit has no value here
        return None, f"{unit} não é a unidade fiscal de {town.name or town.slug} " \
                     f"({town.fiscal_unit})"
    v = amount_on(town.fiscal_unit_brl, on) or town.decree_on("fiscal_unit.brl", on)
    if v is None:
        return None, f"valor da {unit} {UNDEFINED}"
    return v.amount, f"{unit} de {fmt_date(v.valid_from)}: {brl(v.amount)}"


def decree_label(pack: RulePack | None, key: str) -> str:
    """The words the pack gives a decree key (never the key itself)."""
    found = next((d.label for d in pack.decree if d.key == key), None) if pack else None
    return found or "valor fixado por decreto"


def money(amount: Amount, town: TownFacts, on: date, label: str = "") -> Money:
    """An Amount of a pack turned into unit and BRL on a day (decree values looked up);
    `label`: the pack's words for its decree key, used when the decree is not set."""
    unit, fixed, top = amount.unit, amount.amount, amount.max
    if amount.decree:
        dv = town.decree_on(amount.decree, on)
        if dv is None:
            return Money(None, None, None, amount.per, amount.decree, None,
                         f"valor {UNDEFINED}: decreto não cadastrado — "
                         f"{label or 'valor fixado por decreto'}")
        unit, fixed = dv.unit, dv.amount
    value, basis = unit_value(town, unit, on)
    n = fixed if fixed is not None else top
    total = None if value is None else (n * value).quantize(Decimal("0.01"),
                                                            rounding=ROUND_HALF_UP)
    if amount.decree:
        basis = f"decreto: {dv.source or amount.decree}" + (f"; {basis}" if basis else "")
    return Money(unit, fixed, top, amount.per, amount.decree, total, basis)


def count_days(pack: RulePack, town: TownFacts, start: date, days: int, *, moves: bool = True):
    """`days` after the notice day `start`, counted as the pack's law counts them
    (`RulePack.counting`) over the town's calendar: a `rules.calendar.Deadline`. `moves=False`
    for days to repair, which end when they end (see `calendar.deadline_days`)."""
    return deadline_days(start, days, pack.counting.rule, town.calendar, moves=moves)


def _appeal(a: Appeal | None, on: date, pack: RulePack, town: TownFacts) -> AppealInfo | None:
    if a is None:
        return None
    if a.days is None:
        return AppealInfo(a.days, a.to, a.suspensive, a.citation, None)
    d = count_days(pack, town, on, a.days)
    return AppealInfo(a.days, a.to, a.suspensive, a.citation, d.last_day, d.explain())


def _measure(m: Measure, pack: RulePack, town: TownFacts, on: date) -> ProposedMeasure:
    return ProposedMeasure(m.kind, m.target, m.label, m.decided_by, m.citation,
                           money(m.fine, town, on, decree_label(pack, m.fine.decree))
                           if m.fine else None,
                           _appeal(m.appeal or pack.appeal, on, pack, town), m.automatic)


def _deadline(step: Step, on: date, pack: RulePack, town: TownFacts,
              grant: Grant | None = None, option: GrantOption | None = None
              ) -> DeadlineInfo | None:
    """The law's own deadline (a granted one is never chosen here), or the one granted."""
    if grant is not None:
        return _granted(grant, option, on, pack, town)
    chosen = next((d for d in step.deadlines if d.grant is None), None)
    if chosen is None:
        return None
    if chosen.hours is not None:
        return DeadlineInfo(chosen.hours, None, on + timedelta(days=math.ceil(chosen.hours / 24)),
                            f"{chosen.hours} horas", chosen.citation)
    d = count_days(pack, town, on, chosen.days, moves=False)   # days to repair
    return DeadlineInfo(None, chosen.days, d.last_day, f"{chosen.days} dias",
                        chosen.citation, d.explain())


# --- a discretionary deadline (Tapurah 406 Art. 19, "A critério, poderá ser concedido") ---------
GRANTERS = {"agent": "pelo agente", "supervisor": "pelo supervisor"}
NOT_VEHICLE = "não é defeito do veículo"
NOT_REPAIRABLE = "não é defeito a reparar no prazo (o veículo não atende à lei)"
SAFETY_ITEM = "item de segurança"
GRANT_REASON_MIN, GRANT_REASON_MAX = 3, 500


@dataclass(frozen=True)
class Grant:
    """A deadline granted at the authority's discretion: how many days, by whom, why."""

    days: int
    reason: str
    by: str = "agent"             # agent | supervisor


@dataclass(frozen=True)
class GrantOption:
    """Whether a finding may get the law's discretionary deadline, and up to how long.
    `refusal` says why not ("item de segurança", "não é defeito do veículo")."""

    max_days: int
    citation: Citation
    eligible: bool
    refusal: str | None = None

    def as_dict(self) -> dict:
        """JSON-ready form (the field app reads it offline from the checklist)."""
        return {"max_days": self.max_days, "eligible": self.eligible, "refusal": self.refusal,
                "citation": self.citation.as_dict()}


class GrantRefused(ValueError):
    """A grant the law does not allow (`field`: the part of it at fault)."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field, self.message = field, message


def _grant_deadline(pack: RulePack, on: date, step: Step | None = None):
    steps = [step] if step is not None else [s for s in pack.ladder if s.span.covers(on)]
    return next((d for s in steps for d in s.deadlines if d.grant is not None), None)


def grant_option(pack: RulePack, rule_id: str, on: date, affects_safety: bool | None = None,
                 step: Step | None = None) -> GrantOption | None:
    """The discretionary deadline this finding may get on `on` (None: the law has none).
    Only a defect of the vehicle (`checks: vehicle`) that the pack marks as not affecting
    safety is eligible; rider, document, uniform and conduct items never are."""
    d = _grant_deadline(pack, on, step)
    if d is None:
        return None
    base = rule_id.split(":", 1)[0]
    item = next((i for i in pack.checklist if i.id == base), None)
    safety = affects_safety if affects_safety is not None else \
        (True if item is None else item.affects_safety)
    if item is None or item.checks != "vehicle":
        return GrantOption(d.days, d.citation, False, NOT_VEHICLE)
    if not item.repairable:
        return GrantOption(d.days, d.citation, False, NOT_REPAIRABLE)
    if safety:
        return GrantOption(d.days, d.citation, False, SAFETY_ITEM)
    return GrantOption(d.days, d.citation, True)


def check_grant(option: GrantOption | None, grant: Grant, law: str = "") -> None:
    """GrantRefused unless the law allows this grant (field names: days, reason, grant)."""
    if option is None:
        raise GrantRefused("grant", f"a {law or 'lei'} não prevê prazo concedido a critério "
                                    f"para esta medida")
    if not option.eligible:
        raise GrantRefused("grant", f"prazo do {option.citation.article} não pode ser "
                                    f"concedido: {option.refusal}")
    if grant.by not in GRANTERS:
        raise GrantRefused("grant", "só o agente ou o supervisor concedem o prazo")
    if not 1 <= grant.days <= option.max_days:
        raise GrantRefused("days", f"o prazo concedido vai de 1 a {option.max_days} dias "
                                   f"({option.citation.article})")
    if not GRANT_REASON_MIN <= len(grant.reason.strip()) <= GRANT_REASON_MAX:
        raise GrantRefused("reason", f"escreva o motivo da concessão ({GRANT_REASON_MIN} a "
                                     f"{GRANT_REASON_MAX} caracteres)")


def grant_text(days: int, by: str, article: str) -> str:
    """"10 dias, concedidos pelo agente (Art. 19)": fits sanctions.deadline_text (60)."""
    return f"{days} {'dia' if days == 1 else 'dias'}, " \
           f"{'concedido' if days == 1 else 'concedidos'} {GRANTERS[by]} ({article})"


def _granted(grant: Grant, option: GrantOption | None, on: date, pack: RulePack,
             town: TownFacts) -> DeadlineInfo:
    check_grant(option, grant, pack.law)
    d = count_days(pack, town, on, grant.days, moves=False)   # days to repair
    return DeadlineInfo(None, grant.days, d.last_day,
                        grant_text(grant.days, grant.by, option.citation.article),
                        option.citation, d.explain(), grant.by, grant.reason.strip())


def _affects_safety(pack: RulePack, finding: Finding) -> bool:
    if finding.affects_safety is not None:
        return finding.affects_safety
    base = finding.rule_id.split(":", 1)[0]
    item = next((i for i in pack.checklist if i.id == base), None)
    return True if item is None else item.affects_safety  # unknown: treat as a safety matter


def propose_sanction(town: TownFacts, service: str, finding: Finding,
                     history: tuple[PriorSanction, ...] | list[PriorSanction], on: date,
                     packs: tuple[RulePack, ...] | None = None,
                     grant: Grant | None = None) -> Proposal:
    """The sanction the law in force on `on` proposes for this finding and offender. The
    deadline is the law's own; a discretionary one only when `grant` asks for it and the law
    allows it (GrantRefused otherwise); `Proposal.grant` says whether it may be asked."""
    pack = find_pack(town.slug, service, on, packs)
    occurrence = 1 + sum(1 for h in history if h.on <= on)
    for off in pack.offences:
        if off.span.covers(on) and finding.rule_id in off.findings:
            if grant is not None:   # an offence's measures carry no deadline to extend
                check_grant(None, grant, pack.law)
            ms = tuple(_measure(m, pack, town, on) for m in off.measures)
            return _proposal(pack, finding, on, occurrence, None, None, off.id, ms, None, None,
                             (off.note,) if off.note else ())
    # a rung the law grades by gravity is the supervisor's choice, never reached by count; a
    # rung of reincidência holds only when an earlier final penalty makes this one a repeat
    provision = finding.provision or provision_of(pack, finding.rule_id)
    earlier = {s.id: reincidence_of(s, history, provision, on) for s in pack.ladder
               if s.reincidence is not None}
    steps = [s for s in pack.ladder if s.span.covers(on) and s.occurrence <= occurrence
             and not s.gravity and (s.reincidence is None or earlier[s.id] is not None)]
    if not steps:
        raise NoSanction(f"{pack.law} não prevê sanção para '{finding.rule_id}' em "
                         f"{fmt_date(on)}")
    step = max(steps, key=lambda s: (s.occurrence, s.reincidence is not None, s.span.start))
    in_force = [s for s in pack.ladder if s.span.covers(on)]
    ms = tuple(_measure(m, pack, town, on) for m in step.measures)
    missed = _measure(step.on_missed_deadline, pack, town, on) if step.on_missed_deadline \
        else None
    notes = [step.note] if step.note else []
    if step.reincidence is not None:
        prior = earlier[step.id]
        notes.insert(0, f"Reincidência: o mesmo dispositivo foi violado de novo dentro de "
                        f"{step.reincidence.within_months} meses depois que a penalidade de "
                        f"{fmt_date(prior.on)} se tornou definitiva ({fmt_date(prior.final_on)}).")
    option = grant_option(pack, finding.rule_id, on, _affects_safety(pack, finding), step)
    return _proposal(pack, finding, on, occurrence, in_force.index(step) + 1, step.id, None, ms,
                     _deadline(step, on, pack, town, grant, option), missed,
                     tuple(notes), option)


def provision_of(pack: RulePack, rule_id: str) -> str:
    """"<law slug>#<anchor>" of the provision a checklist finding breaks ("" when unknown)."""
    base = rule_id.split(":", 1)[0]
    item = next((i for i in pack.checklist if i.id == base), None)
    return f"{item.citation.law_slug}#{item.citation.anchor}" if item else ""


def reincidence_of(step: Step, history, provision: str, on: date) -> PriorSanction | None:
    """The earlier penalty that makes a finding on `on` a reincidência for this rung: the same
    provision, final (no appeal pending) on or before `on`, and `on` no later than
    `within_months` after it became final. None: not a reincidência."""
    r = step.reincidence
    if r is None or not provision:
        return None
    hits = [h for h in history if h.provision == provision and h.final_on is not None
            and h.final_on <= on <= months_later(h.final_on, r.within_months)]
    return max(hits, key=lambda h: h.final_on) if hits else None


def propose_step(town: TownFacts, service: str, step_id: str, finding: Finding,
                 history: tuple[PriorSanction, ...] | list[PriorSanction], on: date,
                 packs: tuple[RulePack, ...] | None = None,
                 grant: Grant | None = None) -> Proposal:
    """The measures of one rung the law grades by gravity (`Step.gravity`), chosen by the
    supervisor for this finding instead of the rung the offender's history reaches."""
    pack = find_pack(town.slug, service, on, packs)
    in_force = [s for s in pack.ladder if s.span.covers(on)]
    step = next((s for s in in_force if s.id == step_id and s.gravity), None)
    if step is None:
        raise NoSanction(f"{pack.law} não prevê a medida '{step_id}' por gravidade em "
                         f"{fmt_date(on)}")
    occurrence = 1 + sum(1 for h in history if h.on <= on)
    ms = tuple(_measure(m, pack, town, on) for m in step.measures)
    missed = _measure(step.on_missed_deadline, pack, town, on) if step.on_missed_deadline \
        else None
    option = grant_option(pack, finding.rule_id, on, _affects_safety(pack, finding), step)
    return _proposal(pack, finding, on, occurrence, in_force.index(step) + 1, step.id, None, ms,
                     _deadline(step, on, pack, town, grant, option), missed,
                     (step.note,) if step.note else (), option)


def _proposal(pack, finding, on, occurrence, step_no, step_id, offence_id, ms, deadline, missed,
              notes, option: GrantOption | None = None) -> Proposal:
    appeal = next((m.appeal for m in ms if m.appeal is not None), None)
    decided_by = max((m.decided_by for m in ms), key=AUTHORITIES.index)
    return Proposal(pack.id, pack.law, finding.rule_id, on, occurrence, step_no, step_id,
                    offence_id, ms, deadline, missed, appeal, decided_by, tuple(notes), option)
