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

    def as_dict(self) -> dict:
        """JSON-ready form."""
        return {"hours": self.hours, "days": self.days, "due": self.due.isoformat(),
                "text": self.text, "explain": self.explain, "citation": self.citation.as_dict()}


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
                "decided_by": self.decided_by, "notes": list(self.notes)}


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


def count_days(pack: RulePack, town: TownFacts, start: date, days: int):
    """`days` after the notice day `start`, counted as the pack's law counts them
    (`RulePack.counting`) over the town's calendar: a `rules.calendar.Deadline`."""
    return deadline_days(start, days, pack.counting.rule, town.calendar)


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


def _deadline(step: Step, safety: bool, on: date, pack: RulePack, town: TownFacts
              ) -> DeadlineInfo | None:
    general = [d for d in step.deadlines if d.only_if is None]
    relaxed = [d for d in step.deadlines if d.only_if == "not_affecting_safety"]
    chosen = relaxed[0] if (relaxed and not safety) else (general[0] if general else None)
    if chosen is None:
        return None
    if chosen.hours is not None:
        return DeadlineInfo(chosen.hours, None, on + timedelta(days=math.ceil(chosen.hours / 24)),
                            f"{chosen.hours} horas", chosen.citation)
    prefix = "até " if chosen.only_if else ""
    d = count_days(pack, town, on, chosen.days)
    return DeadlineInfo(None, chosen.days, d.last_day, f"{prefix}{chosen.days} dias",
                        chosen.citation, d.explain())


def _affects_safety(pack: RulePack, finding: Finding) -> bool:
    if finding.affects_safety is not None:
        return finding.affects_safety
    base = finding.rule_id.split(":", 1)[0]
    item = next((i for i in pack.checklist if i.id == base), None)
    return True if item is None else item.affects_safety  # unknown: treat as a safety matter


def propose_sanction(town: TownFacts, service: str, finding: Finding,
                     history: tuple[PriorSanction, ...] | list[PriorSanction], on: date,
                     packs: tuple[RulePack, ...] | None = None) -> Proposal:
    """The sanction the law in force on `on` proposes for this finding and offender."""
    pack = find_pack(town.slug, service, on, packs)
    occurrence = 1 + sum(1 for h in history if h.on <= on)
    for off in pack.offences:
        if off.span.covers(on) and finding.rule_id in off.findings:
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
    return _proposal(pack, finding, on, occurrence, in_force.index(step) + 1, step.id, None, ms,
                     _deadline(step, _affects_safety(pack, finding), on, pack, town), missed,
                     tuple(notes))


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
                 packs: tuple[RulePack, ...] | None = None) -> Proposal:
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
    return _proposal(pack, finding, on, occurrence, in_force.index(step) + 1, step.id, None, ms,
                     _deadline(step, _affects_safety(pack, finding), on, pack, town), missed,
                     (step.note,) if step.note else ())


def _proposal(pack, finding, on, occurrence, step_no, step_id, offence_id, ms, deadline, missed,
              notes) -> Proposal:
    appeal = next((m.appeal for m in ms if m.appeal is not None), None)
    decided_by = max((m.decided_by for m in ms), key=AUTHORITIES.index)
    return Proposal(pack.id, pack.law, finding.rule_id, on, occurrence, step_no, step_id,
                    offence_id, ms, deadline, missed, appeal, decided_by, tuple(notes))
