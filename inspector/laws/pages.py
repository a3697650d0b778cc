"""What the public law pages show: the five laws, each law's text as nested anchored units,
and, per article, the rule-pack entries that cite it (what the product enforces from it).

Pure: reads the shipped law texts and packs only (no Flask, no database), so the pages
are the same for everyone and can be cached. The index and each law's outline are computed
once per process.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from datetime import date
from fractions import Fraction
from typing import Any

from inspector import rules
from inspector.rules import Citation, LawText, Measure, Parameter, RulePack

SERVICE_LABELS = {"taxi": "Táxi", "mototaxi": "Moto-táxi"}
AUTHORITY_LABELS = {"agent": "o agente", "supervisor": "a Secretaria (supervisão)",
                    "mayor": "o Prefeito"}
CHECKS_LABELS = {"vehicle": "Veículo", "equipment": "Equipamento", "document": "Documento",
                 "driver": "Condutor", "passenger": "Passageiro", "conduct": "Conduta"}

# label, how the value reads ({v} is the value as text)
PARAMETER_LABELS: dict[str, tuple[str, str]] = {
    "limits.vehicle.max_age_years": ("Idade máxima do veículo", "{v} anos"),
    "limits.vehicle.replace_at_age_years": ("Substituição do veículo", "aos {v} anos"),
    "limits.vehicle.min_cc": ("Cilindrada mínima", "{v} cc"),
    "limits.vehicle.max_cc": ("Cilindrada máxima", "{v} cc"),
    "limits.vehicle.trail_banned": ("Motocicleta trail", "{v}"),
    "limits.vehicle.age_counts_use": ("Idade contada em anos de uso (desde o primeiro "
                                      "licenciamento)", "{v}"),
    "limits.vehicle.allowed_doors": ("Número de portas", "{v}"),
    "limits.driver.max_auxiliaries_per_vehicle": ("Motoristas auxiliares por veículo",
                                                  "até {v}"),
    "limits.driver.cnh_category": ("Categoria da CNH", "{v}"),
    "limits.town.fleet_cap": ("Número máximo de veículos no município", "{v}"),
    "limits.town.inhabitants_per_vehicle": ("Cota por população",
                                            "1 veículo a cada {v} habitantes"),
    "limits.town.inhabitants_per_vehicle_seat": ("Cota por população na sede",
                                                 "1 veículo a cada {v} habitantes"),
    "limits.town.inhabitants_per_vehicle_interior": ("Cota por população no interior",
                                                     "1 veículo a cada {v} habitantes"),
    "limits.town.company_max_share": ("Participação máxima de uma empresa na frota", "{v}"),
    "limits.town.max_vehicles_per_person": ("Veículos por motorista autônomo", "até {v}"),
    "periodicity.vistoria_months": ("Vistoria", "a cada {v} meses"),
    "periodicity.vistoria_may_be_shortened": ("Vistoria com validade reduzida pelo "
                                              "responsável, se o estado do veículo exigir",
                                              "{v}"),
    "periodicity.licence_months": ("Validade do alvará", "{v} meses"),
    "periodicity.licence_until_year_end": ("Alvará válido só durante o exercício (até 31/12)",
                                           "{v}"),
    "periodicity.permit_months": ("Validade da permissão ou autorização", "{v} meses"),
    "periodicity.registration_months": ("Revalidação da inscrição", "a cada {v} meses"),
    "periodicity.registration_grace_days": ("Prazo para revalidar a inscrição vencida",
                                            "{v} dias"),
    "requirements.licence": ("Alvará", "obrigatório"),
    "requirements.permit": ("Permissão ou autorização", "obrigatória"),
    "requirements.driver_registration": ("Inscrição do condutor", "obrigatória"),
    "requirements.cnh": ("CNH do condutor", "obrigatória"),
    "requirements.insurance": ("Seguro", "obrigatório"),
    "requirements.no_debt_for_licence": ("Alvará não expedido nem transferido a quem deve "
                                         "multa do veículo", "até comprovar o pagamento "
                                         "(Arts. {v})"),
}
KIND_LABELS = {"in_force": "Vigência", "checklist": "Checklist", "limits": "Limite",
               "periodicity": "Prazo periódico", "requirements": "Exigência",
               "sanction": "Sanção", "deadline": "Prazo para corrigir", "appeal": "Recurso",
               "offence": "Infração com sanção própria", "decree": "Valor fixado por decreto"}
_ARTICLE_OF = re.compile(r"^art-(\d+)")


def fmt_date(day: date) -> str:
    """31/12/2026."""
    return day.strftime("%d/%m/%Y")


def _span_text(start: date, last: date | None, law_start: date) -> str:
    parts = []
    if start != law_start:
        parts.append(f"desde {fmt_date(start)}")
    if last is not None:
        parts.append(f"até {fmt_date(last)}")
    return " ".join(parts)


# --- the index -------------------------------------------------------------------------------

@dataclass(frozen=True)
class LawSummary:
    """One law as the index lists it."""

    slug: str
    town: str
    town_name: str
    service: str
    service_label: str
    law: str
    title: str
    start: date | None
    last: date | None
    packs: tuple[str, ...] = ()


# bench/caches.py: /leis 1.8x (20 vehicles) to 9.9x (500) slower without it
@functools.lru_cache(maxsize=1)
def law_index() -> tuple[LawSummary, ...]:
    """Every shipped law with its town, service, number, title and dates (from its packs)."""
    packs = rules.load_all()
    out = []
    for slug in rules.law_texts():
        mine = sorted((p for p in packs if p.law_slug == slug), key=lambda p: p.span.start)
        if not mine:
            out.append(LawSummary(slug, "", "", "", "", slug, "", None, None))
            continue
        first, last = mine[0], mine[-1]
        out.append(LawSummary(slug, first.town, first.town_name, first.service,
                              SERVICE_LABELS.get(first.service, first.service), first.law,
                              first.title, first.span.start, last.span.last,
                              tuple(p.id for p in mine)))
    return tuple(sorted(out, key=lambda s: (s.town_name, s.service, s.law)))


def law_summary(slug: str) -> LawSummary | None:
    """The index entry of one law, or None."""
    return next((s for s in law_index() if s.slug == slug), None)


# --- the text as nested units ----------------------------------------------------------------

@dataclass
class Node:
    """A block to render: preamble, heading, closing, or a unit with its nested units."""

    kind: str
    text: str
    anchor: str | None = None
    marker: str | None = None
    label: str | None = None
    children: list[Node] = field(default_factory=list)
    cited: list[Cited] = field(default_factory=list)   # articles only


def _parents(law: LawText) -> dict[str, str | None]:
    out: dict[str, str | None] = {}

    def walk(unit, parent):
        out[unit.anchor] = parent
        for c in unit.children:
            walk(c, unit.anchor)
    for art in law.articles:
        walk(art, None)
    return out


# bench/caches.py: /sw.js's source is kept while these objects are (field routes'
# _worker_inputs); without it /sw.js renders every law page again (see docs/figures.md)
@functools.lru_cache(maxsize=16)
def outline(slug: str) -> tuple[Node, ...] | None:
    """The law's blocks in reading order, each unit nested inside its article/paragraph/item,
    each article carrying the pack entries that cite it; None for an unknown law."""
    law = rules.law_text(slug)
    if law is None:
        return None
    parents = _parents(law)
    by_article = cited_by_article(slug)
    top: list[Node] = []
    stack: list[Node] = []
    for b in law.blocks():
        if b.anchor is None:
            stack.clear()
            top.append(Node(b.kind, b.text))
            continue
        node = Node(b.kind, b.text, b.anchor, b.marker, b.label)
        parent = parents.get(b.anchor)
        while stack and stack[-1].anchor != parent:
            stack.pop()
        if stack:
            stack[-1].children.append(node)
        else:
            top.append(node)
            if b.kind == "article":
                m = _ARTICLE_OF.match(b.anchor)
                node.cited = by_article.get(int(m.group(1)), []) if m else []
        stack.append(node)
    return tuple(top)


def anchors(slug: str) -> set[str]:
    """Every anchor the law page carries (for tests and link checks)."""
    law = rules.law_text(slug)
    return set() if law is None else {u.anchor for u in law.units()}


# --- what the packs take from each article ---------------------------------------------------

@dataclass(frozen=True)
class Cited:
    """One rule-pack entry that cites a unit of a law."""

    kind: str
    kind_label: str
    text: str
    citation: Citation
    pack_id: str
    when: str = ""       # "desde 01/01/2027" when it does not hold for the whole law


def _value_text(path: str, value: Any) -> str:
    if isinstance(value, bool):
        if path == "limits.vehicle.trail_banned":
            return "proibida" if value else "permitida"
        return "sim" if value else "não"
    if isinstance(value, int):
        return f"{value:,}".replace(",", ".")
    if isinstance(value, Fraction):
        return f"{value.numerator}/{value.denominator} ({float(value) * 100:.1f}%)".replace(
            ".", ",")
    if isinstance(value, tuple):  # doors: 2 ou 4; articles: 23 e 34
        return (" e " if path == "requirements.no_debt_for_licence" else " ou ").join(
            str(x) for x in value)
    return str(value)


def _parameter_entries(pack: RulePack, param: Parameter) -> list[Cited]:
    label, shape = PARAMETER_LABELS.get(param.path, (param.path, "{v}"))
    section = param.path.split(".", 1)[0]
    out = []
    versions = list(param.versions)
    for i, v in enumerate(versions):
        if v.ended or v.citation is None:
            continue
        nxt = versions[i + 1].start if i + 1 < len(versions) else None
        last = None if nxt is None else date.fromordinal(nxt.toordinal() - 1)
        shown = shape.format(v=_value_text(param.path, v.value))
        if section == "requirements" and v.value is False:
            shown = "não exigido"
        out.append(Cited(section, KIND_LABELS[section], f"{label}: {shown}",
                         v.citation, pack.id, _span_text(v.start, last, pack.span.start)))
    return out


def _measure_text(m: Measure) -> str:
    return f"{m.label} (decide {AUTHORITY_LABELS.get(m.decided_by, m.decided_by)})"


def _appeal_text(a) -> str:
    to = AUTHORITY_LABELS.get(a.to, a.to)
    days = f"{a.days} dias para recorrer" if a.days is not None else "Direito de recorrer"
    effect = {True: ", com efeito suspensivo", False: ", sem efeito suspensivo"}.get(
        a.suspensive, "")
    return f"{days} {_to(to)}{effect}"


def _to(who: str) -> str:
    """"a" before an authority, contracted with its article: "ao Prefeito", "à Secretaria"."""
    if who.startswith("o "):
        return "ao " + who[2:]
    if who.startswith("a "):
        return "à " + who[2:]
    return "a " + who


def pack_entries(pack: RulePack) -> list[Cited]:
    """Every entry of a pack with its citation, in the pack's order."""
    start = pack.span.start
    out = [Cited("in_force", KIND_LABELS["in_force"], f"{pack.law} em vigor desde "
                 f"{fmt_date(start)}" + (f" até {fmt_date(pack.span.last)}"
                                         if pack.span.last else ""),
                 pack.in_force_citation, pack.id)]
    for it in pack.checklist:
        out.append(Cited("checklist", KIND_LABELS["checklist"], it.label, it.citation, pack.id,
                         _span_text(it.span.start, it.span.last, start)))
    for param in pack.parameters.values():
        out.extend(_parameter_entries(pack, param))
    for step in pack.ladder:
        when = _span_text(step.span.start, step.span.last, start)
        for m in step.measures:
            out.append(Cited("sanction", KIND_LABELS["sanction"],
                             f"{step.occurrence}ª ocorrência: {_measure_text(m)}",
                             m.citation, pack.id, when))
            if m.appeal:
                out.append(Cited("appeal", KIND_LABELS["appeal"], _appeal_text(m.appeal),
                                 m.appeal.citation, pack.id, when))
        for d in step.deadlines:
            text = f"{d.hours} horas" if d.hours is not None else f"{d.days} dias"
            if d.grant == "vehicle_not_affecting_safety":
                text = (f"até {d.days} dias, a critério do agente ou do supervisor, para defeitos "
                        f"do veículo que não afetam a segurança")
            out.append(Cited("deadline", KIND_LABELS["deadline"], text, d.citation, pack.id,
                             when))
        if step.on_missed_deadline:
            m = step.on_missed_deadline
            out.append(Cited("sanction", KIND_LABELS["sanction"],
                             f"Prazo não cumprido: {_measure_text(m)}", m.citation, pack.id,
                             when))
    for off in pack.offences:
        when = _span_text(off.span.start, off.span.last, start)
        for m in off.measures:
            out.append(Cited("offence", KIND_LABELS["offence"],
                             f"{off.label}: {_measure_text(m)}", m.citation, pack.id, when))
    if pack.appeal:
        out.append(Cited("appeal", KIND_LABELS["appeal"], _appeal_text(pack.appeal),
                         pack.appeal.citation, pack.id))
    for d in pack.decree:
        out.append(Cited("decree", KIND_LABELS["decree"], d.label, d.citation, pack.id))
    return out


def cited_by_article(slug: str) -> dict[int, list[Cited]]:
    """Entries of every shipped pack that cite this law, by article number, without repeats."""
    out: dict[int, list[Cited]] = {}
    seen = set()
    for pack in rules.load_all():
        for e in pack_entries(pack):
            c = e.citation
            if c.law_slug != slug:
                continue
            key = (e.kind, e.text, c.anchor, e.when)
            if key in seen:
                continue
            seen.add(key)
            m = _ARTICLE_OF.match(c.anchor)
            if m:
                out.setdefault(int(m.group(1)), []).append(e)
    return out


def all_citations() -> list[Citation]:
    """Every citation in every shipped pack (the law-page link test walks them)."""
    return [e.citation for p in rules.load_all() for e in pack_entries(p)]


# --- the checklist page ----------------------------------------------------------------------

class NoChecklist(LookupError):
    """No pack of this law is in force on that day (the message says when it is)."""


def checklist_for(slug: str, on: date) -> tuple[RulePack, list]:
    """The pack of this law in force on `on` and its checklist items that day."""
    mine = sorted((p for p in rules.load_all() if p.law_slug == slug),
                  key=lambda p: p.span.start)
    for p in mine:
        if p.span.covers(on):
            return p, rules.checklist_of(p, on)
    spans = "; ".join(f"a {p.law} vigora de {fmt_date(p.span.start)}"
                      + (f" a {fmt_date(p.span.last)}" if p.span.last else " em diante")
                      for p in mine)
    raise NoChecklist(f"Não há checklist desta lei em {fmt_date(on)}: {spans}.")
