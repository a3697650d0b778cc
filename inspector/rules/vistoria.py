"""The law's vistorias, read from a pack on a day: which kinds it offers, what each checks,
how long an approved one holds, who performs it, and whether its validity may be shortened.
Pure: no Flask, no database (docs/vistoria.md)."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from inspector.rules.engine import Rules, add_months, checklist_of, fmt_date, resolve, rules_on
from inspector.rules.model import KIND_LABELS, ChecklistItem, RulePack, VistoriaKind
from inspector.rules.results import Citation

ROLE_LABELS = {"agent": "agente de fiscalização designado", "supervisor": "supervisão"}


def where(c: Citation | None) -> str:
    """'Lei 060/1998, Art. 11, § 1º' (empty without a citation)."""
    return f"{c.law}, {c.article}" if c is not None else ""


@dataclass(frozen=True)
class VistoriaPlan:
    """One kind of vistoria under the law in force on a day."""

    kind: str
    label: str
    citation: Citation
    items: tuple[ChecklistItem, ...]
    months: int
    months_citation: Citation | None
    performed_by: str
    performed_by_citation: Citation | None
    may_shorten: bool
    shorten_citation: Citation | None

    def normal_until(self, performed_on: date) -> date:
        """The last valid day of a vistoria approved on `performed_on` (same day N months on,
        as rules.vistoria_end counts it)."""
        return add_months(performed_on, self.months)

    def shortening_problem(self, performed_on: date, until: date) -> str | None:
        """Why `until` cannot be this vistoria's shortened validity (pt-BR), or None."""
        if not self.may_shorten:
            return (f"a lei ({where(self.months_citation)}) não prevê reduzir a validade da "
                    f"vistoria: ela vale {self.months} meses")
        if until <= performed_on:
            return f"a validade reduzida deve terminar depois de {fmt_date(performed_on)}"
        normal = self.normal_until(performed_on)
        if until >= normal:
            return (f"a validade reduzida deve terminar antes de {fmt_date(normal)}, o fim "
                    f"normal ({self.months} meses, {where(self.months_citation)})")
        return None

    def as_dict(self) -> dict:
        """JSON-ready (the phone's snapshot, the CLI)."""
        return {"kind": self.kind, "label": self.label, "citation": self.citation.as_dict(),
                "item_ids": [i.id for i in self.items], "months": self.months,
                "months_citation": self.months_citation.as_dict() if self.months_citation
                else None, "performed_by": self.performed_by,
                "performed_by_citation": self.performed_by_citation.as_dict()
                if self.performed_by_citation else None,
                "may_shorten": self.may_shorten,
                "shorten_citation": self.shorten_citation.as_dict() if self.shorten_citation
                else None}


def _plan(r: Rules, k: VistoriaKind, items: list[ChecklistItem]) -> VistoriaPlan:
    pack = r.pack
    months = k.months if k.months is not None else r.value("periodicity.vistoria_months")
    cite = k.months_citation if k.months is not None else r.cite("periodicity.vistoria_months")
    shorten = bool(r.value("periodicity.vistoria_may_be_shortened"))
    return VistoriaPlan(
        kind=k.kind, label=KIND_LABELS[k.kind], citation=k.citation,
        items=tuple(i for i in items if k.covers(i)), months=months, months_citation=cite,
        performed_by=pack.vistoria.performed_by or "agent",
        performed_by_citation=pack.vistoria.performed_by_citation, may_shorten=shorten,
        shorten_citation=r.cite("periodicity.vistoria_may_be_shortened") if shorten else None)


def plans_of(pack: RulePack, on: date, seat_population: int | None = None,
             decrees: frozenset[str] | set[str] | None = None) -> list[VistoriaPlan]:
    """The vistorias a pack offers on a day (in the pack's order; [] where the law sets none:
    `pack.vistoria.none` says why)."""
    r = rules_on(pack, on)
    items = checklist_of(pack, on, seat_population, decrees)
    out = []
    for k in pack.vistoria.kinds:
        months = k.months if k.months is not None else r.value("periodicity.vistoria_months")
        if months:  # a period ended by a later version of the law ends the kind with it
            out.append(_plan(r, k, items))
    return out


def vistoria_plan(town: str, service: str, kind: str, on: date, seat_population: int | None = None,
         decrees: frozenset[str] | set[str] | None = None) -> VistoriaPlan | None:
    """One kind of vistoria under the law in force (None: the law does not offer it)."""
    pack = resolve(town, service, on).pack
    return next((p for p in plans_of(pack, on, seat_population, decrees) if p.kind == kind),
                None)


def why_none(town: str, service: str, kind: str, on: date) -> str:
    """pt-BR: why this kind is not offered under the law in force (for a refusal)."""
    pack = resolve(town, service, on).pack
    if pack.vistoria.none:
        return pack.vistoria.none
    return (f"a {pack.law} de {pack.town_name} não prevê {KIND_LABELS[kind].lower()}; "
            f"ela prevê: {', '.join(KIND_LABELS[k.kind].lower() for k in pack.vistoria.kinds)}")
