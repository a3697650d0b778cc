"""Why the fleet is not regular, and what falls due soon: the dashboard's "por quê".

- `irregular_by_cause`: today's irregular and suspended vehicles counted by the cause of
  their standing (the rules engine's finding: "seguro obrigatório vencido", "permissão
  cassada"), from the same standing the field app and the passenger page read
  (`fleet.standing_today`). A vehicle with two causes counts under each.
- `expiring`: documents in force whose last day falls within 30, 60 or 90 days (cumulative),
  counting only a vehicle's or holder's latest document of a kind, so a renewal already
  registered is not counted as falling due.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import date, timedelta

from sqlalchemy import select

from inspector.extensions import db
from inspector.models import Driver, Holder, InsurancePolicy, Licence, Permit, Status, Vehicle
from inspector.stats.fleet import SERVICE_LABELS, standing_today

# Each cause as an admin reads it in a list: the document and what is wrong with it.
CAUSE_LABELS = {
    "permit.revoked": "Permissão cassada", "permit.suspended": "Permissão suspensa",
    "permit.expired": "Permissão vencida", "permit.not_yet_valid": "Permissão ainda sem vigor",
    "permit.missing": "Sem permissão",
    "licence.revoked": "Alvará cassado", "licence.suspended": "Alvará suspenso",
    "licence.expired": "Alvará vencido", "licence.missing": "Sem alvará",
    "licence.not_yet_valid": "Alvará ainda sem vigor",
    "insurance.lapsed": "Seguro obrigatório vencido", "insurance.missing": "Sem seguro obrigatório",
    "vistoria.overdue": "Vistoria vencida", "vistoria.missing": "Sem vistoria registrada",
    "vehicle.age": "Acima da idade máxima", "vehicle.cc.min": "Cilindrada abaixo do mínimo",
    "vehicle.cc.max": "Cilindrada acima do máximo", "vehicle.trail": "Moto do tipo trail",
    "vehicle.doors": "Número de portas fora da lei",
    "driver.registration.revoked": "Registro de condutor cassado",
    "driver.registration.suspended": "Registro de condutor suspenso",
    "driver.registration.expired": "Registro de condutor vencido",
    "driver.registration.cancelled": "Registro de condutor cancelado",
    "driver.cnh.expired": "CNH de condutor vencida",
    "driver.cnh.category": "CNH de condutor sem a categoria exigida",
    "law.none": "Sem lei em vigor para o serviço",
}
WINDOWS = (30, 60, 90)
DOCUMENTS = {"alvara": "Alvarás", "permissao": "Permissões", "seguro": "Seguros obrigatórios",
             "registro": "Registros de condutor", "cnh": "CNHs de condutores"}


def cause_label(rule_id: str) -> str:
    """A cause in pt-BR ("Alvará vencido"); an unknown one by its id."""
    return CAUSE_LABELS.get(rule_id, rule_id)


@dataclass(frozen=True)
class Cause:
    """One cause of irregular standing in one service today, and how many vehicles it holds."""

    service: str
    rule_id: str
    vehicles: int
    article: str            # "Lei 406/2001, Art. 17": the article of the cause, as cited

    @property
    def label(self) -> str:
        return cause_label(self.rule_id)

    @property
    def service_label(self) -> str:
        return SERVICE_LABELS.get(self.service, self.service)


def _article(reason: dict) -> str:
    c = reason.get("citation") or {}
    return f"{c.get('law', '')}, {c.get('article')}" if c.get("article") else ""


def irregular_by_cause(town_id: int, day: date) -> list[Cause]:
    """Today's irregular and suspended vehicles by cause, most vehicles first."""
    entries, services = standing_today(town_id, day)
    counts: Counter = Counter()
    articles: dict[tuple[str, str], Counter] = defaultdict(Counter)
    for vid, service in services.items():
        entry = entries.get(vid, {})
        if entry.get("status", "irregular") == "regular":
            continue
        seen = set()
        for r in entry.get("reasons", []):
            rule = r.get("rule_id", "")
            if rule and rule not in seen:
                seen.add(rule)
                counts[(service, rule)] += 1
                articles[(service, rule)][_article(r)] += 1
    out = [Cause(s, rule, n, articles[(s, rule)].most_common(1)[0][0])
           for (s, rule), n in counts.items()]
    return sorted(out, key=lambda c: (-c.vehicles, c.service, c.label))


@dataclass(frozen=True)
class Due:
    """A document in force falling due: what it is, whose, and its last day."""

    document: str       # a key of DOCUMENTS
    number: str
    last_day: date
    vehicle: Vehicle | None
    driver: Driver | None
    holder: Holder | None


def _latest(rows, key) -> list:
    """Of rows grouped by `key`, the one that lasts longest in each group."""
    best: dict = {}
    for row in rows:
        k = key(row)
        if k not in best or row.valid_until > best[k].valid_until:
            best[k] = row
    return list(best.values())


def falling_due(town_id: int, day: date, within: int = 90,
                document: str | None = None) -> list[Due]:
    """Documents in force whose last day is from `day` to `day + within` days, soonest first."""
    end = day + timedelta(days=within)
    out: list[Due] = []
    if document in (None, "alvara"):
        licences = db.session.scalars(select(Licence).where(
            Licence.municipality_id == town_id, Licence.status == Status.ACTIVE))
        out += [Due("alvara", lic.number, lic.valid_until, lic.vehicle, None, None)
                for lic in _latest(licences, lambda x: x.vehicle_id)
                if day <= lic.valid_until <= end]
    if document in (None, "permissao"):
        permits = db.session.scalars(select(Permit).where(
            Permit.municipality_id == town_id, Permit.status == Status.ACTIVE,
            Permit.valid_until.is_not(None)))
        out += [Due("permissao", p.number, p.valid_until, None, None, p.holder)
                for p in _latest(permits, lambda x: (x.holder_id, x.service))
                if day <= p.valid_until <= end]
    if document in (None, "seguro"):
        policies = db.session.scalars(select(InsurancePolicy).where(
            InsurancePolicy.municipality_id == town_id))
        out += [Due("seguro", p.policy_number, p.valid_until, p.vehicle, None, None)
                for p in _latest(policies, lambda x: x.vehicle_id)
                if day <= p.valid_until <= end]
    if document in (None, "registro", "cnh"):
        drivers = db.session.scalars(select(Driver).where(
            Driver.municipality_id == town_id, Driver.status == Status.ACTIVE))
        for d in drivers:
            if document in (None, "registro") and day <= d.registration_expiry <= end:
                out.append(Due("registro", d.registration_number or "", d.registration_expiry,
                               None, d, None))
            if document in (None, "cnh") and day <= d.cnh_expiry <= end:
                out.append(Due("cnh", d.cnh_number or "", d.cnh_expiry, None, d, None))
    return sorted(out, key=lambda x: (x.last_day, x.document, x.number))


def expiring(town_id: int, day: date) -> list[tuple[str, str, list[int]]]:
    """(document key, label, [due within 30, 60, 90 days]) for each kind of document with any
    due within 90 days."""
    by_kind: dict[str, list[int]] = {}
    for due in falling_due(town_id, day, WINDOWS[-1]):
        days = (due.last_day - day).days
        counts = by_kind.setdefault(due.document, [0] * len(WINDOWS))
        for i, w in enumerate(WINDOWS):
            if days <= w:
                counts[i] += 1
    return [(k, DOCUMENTS[k], by_kind[k]) for k in DOCUMENTS if k in by_kind]
