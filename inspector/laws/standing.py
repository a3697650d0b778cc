"""One standing for a vehicle on a town's day: its verdict, and each document's *effective*
standing, which already accounts for the others.

Every screen and export reads it from here (the passenger page, the registry's list and page,
the review, the dashboard, open data, CSV/XLSX); the field app computes the same from the
snapshot's rows and the law's requirements (static/js/field/standing.js, tested against this
module case by case). Judged by the compliance engine (`rules.vehicle_check`,
`rules.driver_rule_violations`): a document's words come from the engine's finding about it,
so a row never says "válido" beside a verdict that says otherwise:

- a licence under a permit that does not hold reads "sem efeito: permissão cassada" with the
  permit's article, never "válido até …";
- a permit, licence or registration an act suspended or revoked cites the act's article (the
  cause's: Tapurah Art. 17, a lapsed insurance policy), with the day and the cause in words;
- a revoked or cancelled registration is one line, not "CASSADO" and "CANCELADO" side by side.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta

from sqlalchemy import select
from sqlalchemy.orm import selectinload

from inspector import rules
from inspector.extensions import db
from inspector.laws.causes import preloaded_causes
from inspector.laws.compliance import driver_facts, judge_vehicle, rules_for_driver
from inspector.laws.verdict import Reason, Verdict, reason_of, verdict_of_standing
from inspector.models import Driver, Holder, Licence, Vehicle
from inspector.rules import fmt_date

KINDS = ("permit", "licence", "insurance", "vistoria", "registration", "cnh")
NAMES = {"permit": "Permissão", "licence": "Alvará", "insurance": "Seguro",
         "vistoria": "Vistoria", "registration": "Registro", "cnh": "CNH"}
GENDER = {"permit": "f", "licence": "m", "insurance": "m", "vistoria": "f", "registration": "m",
          "cnh": "f"}
BAD = ("bad", "void")


@dataclass(frozen=True)
class DocumentStanding:
    """What is true of one document today, in words, with the article behind it.

    `state`: ok (in force), due (in force, ends within 30 days), bad (does not hold: expired,
    suspended, revoked, missing), void (in force by its own dates but without effect because
    another document does not hold), none (not registered, where the law only warns)."""

    kind: str
    name: str                  # "Permissão AUT-002", "Alvará AL-0012", "Registro"
    state: str
    words: str                 # "cassada em 06/12/2026 (seguro …)", "sem efeito: permissão cassada"
    law: str = ""
    article: str = ""
    href: str = ""
    owner: str = ""            # the driver, for a registration or a CNH

    @property
    def text(self) -> str:
        """"válido até 24/10/2027", or the words with their article "(Lei 406/2001, Art. 17)"."""
        return f"{self.words} ({self.law}, {self.article})" if self.article else self.words

    @property
    def holds(self) -> bool:
        """True when the document is in force and has effect today."""
        return self.state in ("ok", "due")

    def as_dict(self) -> dict:
        """JSON-ready form (open data, exports, the comparison with the phone)."""
        return {"kind": self.kind, "name": self.name, "state": self.state, "words": self.words,
                "law": self.law, "article": self.article, "owner": self.owner}


@dataclass(frozen=True)
class VehicleStanding:
    """A vehicle's verdict and its documents' effective standing on one day."""

    verdict: Verdict
    documents: list[DocumentStanding] = field(default_factory=list)
    on: date | None = None

    def document(self, kind: str, owner: str = "") -> DocumentStanding | None:
        """The first document of a kind (of one driver, for a registration or a CNH)."""
        return next((d for d in self.documents if d.kind == kind
                     and (not owner or d.owner == owner)), None)

    @property
    def cause(self) -> Reason | None:
        """The reason most others follow from (`first_reason`)."""
        return first_reason(self.verdict.reasons)


def _cite(doc: dict, finding) -> dict:
    r = reason_of(finding) if finding is not None else None
    if r is None or not r.article:
        return doc
    return doc | {"law": r.law, "article": r.article, "href": r.href}


def _find(findings: list, prefix: str):
    return next((f for f in findings if f.rule_id.startswith(prefix)), None)


def _ended(cause, gender: str) -> str:
    word = "cancelad" if cause is not None and cause.cancelled else "cassad"
    words = word + ("a" if gender == "f" else "o")
    return f"{words} em {fmt_date(cause.on)} ({cause.words})" if cause is not None else words


def _until(day: date | None) -> str:
    return f" até {fmt_date(day)}" if day else ""


def _valid(gender: str) -> str:
    return "válida" if gender == "f" else "válido"


def _row_words(kind: str, row, finding, until: date | None, on: date) -> tuple[str, str]:
    """(state, words) of a licence or permit row from the engine's finding about it."""
    g = GENDER[kind]
    suffix = finding.rule_id.split(".", 1)[1] if finding is not None else ""
    if suffix == "revoked":
        return "bad", _ended(row.cause, g)
    if suffix == "suspended":
        why = f" ({row.cause.words})" if row.cause is not None else ""
        return "bad", f"suspens{'a' if g == 'f' else 'o'}{_until(row.suspended_until)}{why}"
    if suffix == "expired":
        return "bad", f"vencid{'a' if g == 'f' else 'o'} em {fmt_date(until)}"
    if suffix == "not_yet_valid":
        return "bad", f"{_valid(g)} a partir de {fmt_date(row.valid_from)}"
    if suffix == "due":
        return "due", f"vence em {fmt_date(until)}"
    return "ok", f"{_valid(g)} até {fmt_date(until)}" if until else "em vigor"


def _registered(kind: str, name: str, row, finding, on: date, missing: str, missing_words: str) -> dict:
    """A numbered registry document (permit, licence): its standing on `on`, or `missing` with
    `missing_words` when none is registered."""
    if row is None:
        return _cite({"kind": kind, "name": name, "state": missing, "words": missing_words}, finding)
    state, words = _row_words(kind, row, finding, row.valid_until, on)
    return _cite({"kind": kind, "name": f"{name} {row.number}", "state": state, "words": words},
                 finding)


def vehicle_documents(r: rules.Rules | None, facts: rules.VehicleFacts,
                      findings: list) -> list[DocumentStanding]:
    """The vehicle's own documents (permit, licence, insurance, vistoria) from the engine's
    findings (violations and warnings) on `r.on`; a licence under a permit that does not hold
    is "sem efeito" with the permit's article."""
    if r is None:
        return []
    on, out = r.on, []
    permit = None
    if r.value("requirements.permit"):
        permit = _registered("permit", "Permissão", facts.permit, _find(findings, "permit."), on,
                             "none", "não registrada")
        out.append(permit)
    if r.value("requirements.licence"):
        doc = _registered("licence", "Alvará", facts.licence, _find(findings, "licence."), on,
                          "bad", "não registrado")
        if doc["state"] in ("ok", "due") and permit is not None and permit["state"] == "bad":
            # the Alvará is issued under the permit: without it, it has no effect
            head = permit["words"].split(" em ")[0].split(" (")[0]
            doc = {**doc, "state": "void", "words": f"sem efeito: permissão {head}",
                   "law": permit.get("law", ""), "article": permit.get("article", ""),
                   "href": permit.get("href", "")}
        out.append(doc)
    if r.value("requirements.insurance"):
        f = _find(findings, "insurance.")
        covering = [p.valid_until for p in facts.insurance if p.valid_from <= on <= p.valid_until]
        if f is not None and f.rule_id == "insurance.lapsed":
            doc = {"state": "bad", "words": f"vencido em {fmt_date(f.due_on)}"}
        elif f is not None and f.rule_id == "insurance.missing":
            doc = {"state": "bad", "words": "sem seguro em vigor"}
        elif f is not None and f.rule_id == "insurance.due":
            doc = {"state": "due", "words": f"vence em {fmt_date(f.due_on)}"}
        else:
            doc = {"state": "ok", "words": f"válido até {fmt_date(max(covering))}"}
        out.append(_cite({"kind": "insurance", "name": "Seguro"} | doc, f))
    if r.value("periodicity.vistoria_months") or r.pack.vistoria.kind("prior") is not None:
        f = _find(findings, "vistoria.")
        end, _, _ = rules.vistoria_end(r, facts)
        if f is not None and f.rule_id == "vistoria.missing":
            # where the law licenses only after a vistoria, none on record is not in order
            doc = {"state": "bad" if f.severity == "violation" else "none",
                   "words": "nenhuma registrada"}
        elif f is not None and f.rule_id == "vistoria.overdue":
            doc = {"state": "bad", "words": f"vencida desde {fmt_date(f.due_on)}"}
        elif f is not None and f.rule_id == "vistoria.due":
            doc = {"state": "due", "words": f"vence em {fmt_date(f.due_on)}"}
        elif end is None:  # a vistoria the law gives no period of its own (Nortelândia 030)
            doc = {"state": "ok", "words": f"feita em {fmt_date(facts.last_vistoria_on)}"}
        else:
            doc = {"state": "ok", "words": f"válida até {fmt_date(end)}"}
        out.append(_cite({"kind": "vistoria", "name": "Vistoria"} | doc, f))
    return [DocumentStanding(**d) for d in out]


def driver_documents(r: rules.Rules | None, d: rules.DriverFacts,
                     findings: list) -> list[DocumentStanding]:
    """A driver's registration and CNH from the engine's findings about them."""
    if r is None:
        return []
    out = []
    owner = d.name
    if r.value("requirements.driver_registration"):
        f = _find(findings, "driver.registration.")
        suffix = f.rule_id.rsplit(".", 1)[1] if f is not None else ""
        expiry = d.registration_expiry
        if suffix == "revoked":
            doc = {"state": "bad", "words": _ended(d.cause, "m")}
        elif suffix == "suspended":
            why = f" ({d.cause.words})" if d.cause is not None else ""
            doc = {"state": "bad", "words": f"suspenso{_until(d.suspended_until)}{why}"}
        elif suffix == "cancelled":
            doc = {"state": "bad", "words": f"cancelado em {fmt_date(f.due_on + timedelta(days=1))}"}
        elif suffix == "expired":
            doc = {"state": "bad", "words": f"vencido em {fmt_date(expiry)}"}
        elif suffix == "due":
            doc = {"state": "due", "words": f"vence em {fmt_date(expiry)}"}
        elif expiry is not None:
            doc = {"state": "ok", "words": f"válido até {fmt_date(expiry)}"}
        else:
            doc = {"state": "ok", "words": "ativo"}
        out.append(_cite({"kind": "registration", "name": "Registro", "owner": owner} | doc, f))
    if r.value("requirements.cnh") and d.cnh_expiry is not None:
        f = next((x for x in findings if x.rule_id in ("driver.cnh.expired", "driver.cnh.due")),
                 None)
        cat = next((x for x in findings if x.rule_id == "driver.cnh.category"), None)
        if f is not None and f.rule_id == "driver.cnh.expired":
            doc = {"state": "bad", "words": f"vencida em {fmt_date(d.cnh_expiry)}"}
        elif cat is not None:
            f, doc = cat, {"state": "bad", "words": f"categoria {d.cnh_category}: não serve "
                                                     f"para este serviço"}
        elif f is not None:
            doc = {"state": "due", "words": f"vence em {fmt_date(d.cnh_expiry)}"}
        else:
            doc = {"state": "ok", "words": f"válida até {fmt_date(d.cnh_expiry)}"}
        out.append(_cite({"kind": "cnh", "name": "CNH", "owner": owner} | doc, f))
    return [DocumentStanding(**x) for x in out]


def standing_of(vehicle: Vehicle, on: date, *, drivers: bool = True) -> VehicleStanding:
    """The vehicle's verdict and every document's effective standing on `on` (its drivers'
    registration and CNH too, unless `drivers` is False)."""
    standing, facts, r = judge_vehicle(vehicle, on)
    docs = vehicle_documents(r, facts, standing.reasons + standing.warnings)
    if drivers:
        for d in sorted(vehicle.drivers, key=lambda d: d.name):
            docs.extend(driver_documents_of(d, on))
    return VehicleStanding(verdict_of_standing(standing), docs, on)


def town_standings(town_id: int, on: date, *, drivers: bool = False) -> dict[int, VehicleStanding]:
    """Every vehicle of a town with its standing on `on` (exports, open data), read in a few
    queries whatever the fleet's size."""
    vehicles = list(db.session.scalars(
        select(Vehicle).where(Vehicle.municipality_id == town_id).order_by(Vehicle.id).options(
            selectinload(Vehicle.licences).selectinload(Licence.permit),
            selectinload(Vehicle.insurance_policies), selectinload(Vehicle.drivers),
            selectinload(Vehicle.holder).selectinload(Holder.permits))))
    rows = {"licence": [lic for v in vehicles for lic in v.licences],
            "permit": [p for v in vehicles if v.holder is not None for p in v.holder.permits],
            "driver": [d for v in vehicles for d in v.drivers]}
    with preloaded_causes(rows):
        return {v.id: standing_of(v, on, drivers=drivers) for v in vehicles}


def driver_documents_of(driver: Driver, on: date) -> list[DocumentStanding]:
    """A driver's registration and CNH on `on`, judged by the law of the driver's service."""
    r = rules_for_driver(driver, on)
    if r is None:
        return []
    facts = driver_facts(driver)
    return driver_documents(r, facts, rules.driver_rule_violations(r, facts))


# --- in a passenger's words ---------------------------------------------------------------------
# What the passenger page says, one plain sentence per reason (the article still follows it):
# no engine wording ("só o ano é conhecido: completou com certeza …"), no document numbers.
PLAIN = {
    "permit.revoked": "a permissão deste {noun} foi cassada",
    "permit.suspended": "a permissão deste {noun} está suspensa",
    "permit.expired": "a permissão deste {noun} venceu{day}",
    "permit.not_yet_valid": "a permissão deste {noun} ainda não vale",
    "licence.revoked": "o alvará deste {noun} foi cassado",
    "licence.suspended": "o alvará deste {noun} está suspenso",
    "licence.expired": "o alvará deste {noun} venceu{day}",
    "licence.missing": "este {noun} não tem alvará da prefeitura",
    "licence.not_yet_valid": "o alvará deste {noun} ainda não vale",
    "insurance.lapsed": "o seguro obrigatório deste {noun} venceu{day}",
    "insurance.missing": "este {noun} não tem o seguro obrigatório",
    "vistoria.overdue": "a vistoria deste {noun} venceu{day}",
    "vehicle.age": "este {noun} passou da idade máxima que a lei permite",
    "vehicle.cc.min": "esta moto é mais fraca do que a lei exige",
    "vehicle.cc.max": "esta moto é mais potente do que a lei permite",
    "vehicle.trail": "a lei não permite moto do tipo trail neste serviço",
    "vehicle.doors": "este táxi não tem o número de portas que a lei exige",
    "driver.registration.revoked": "o registro deste condutor foi cassado",
    "driver.registration.suspended": "o registro deste condutor está suspenso",
    "driver.registration.expired": "o registro deste condutor venceu{day}",
    "driver.registration.cancelled": "o registro deste condutor foi cancelado",
    "driver.cnh.expired": "a CNH deste condutor venceu{day}",
    "driver.cnh.category": "a CNH deste condutor não é da categoria que a lei exige",
    "law.none": "a prefeitura não tem lei em vigor para este serviço",
}
COMPANY = ": nenhum {noun} da empresa pode circular"


def plain_reason(reason: Reason, noun: str) -> str:
    """One reason as a passenger reads it, without its article ("a permissão deste moto-táxi
    foi cassada"); `noun`: "moto-táxi" or "táxi"."""
    rule = reason.rule_id
    text = PLAIN.get(rule, "não está em dia com a lei municipal")
    if rule == "driver.registration.revoked" and " cancelado " in reason.message:
        text = PLAIN["driver.registration.cancelled"]
    day = f" em {fmt_date(reason.day)}" if reason.day and rule.endswith(
        (".expired", ".lapsed", ".overdue")) else ""
    text = text.format(noun=noun, day=day)
    if rule == "vistoria.overdue" and "validade reduzida" in reason.message:
        text += " (validade reduzida na vistoria)"
    if rule.startswith("permit.") and " da empresa " in reason.message:
        text = text.replace("deste", "da empresa deste", 1) + COMPANY.format(noun=noun)
    return text


def first_reason(reasons: list[Reason]) -> Reason | None:
    """The reason a passenger reads first: the one most others follow from (a permit, then a
    licence, then the engine's order)."""
    for prefix in ("permit.", "licence."):
        hit = next((r for r in reasons if r.rule_id.startswith(prefix)), None)
        if hit is not None:
            return hit
    return reasons[0] if reasons else None
