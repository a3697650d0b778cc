"""The law's caps on the number of vehicles, enforced when a form or an import saves.

A cap is a number the law fixes: the town's fleet (Nortelândia 127 Art. 3; Sapezal 060
Art. 14), its quota per inhabitants (Nova Santa Helena 535 Art. 3 § 3º; Tapurah 406 Art. 5),
a company's share (Nova Santa Helena Art. 5: "Não poderá haver outorga ... além do limite de
um terço"; Sapezal Art. 3 § ú: "nunca superior a 20%") and a stand's number of cars (the
stand's legal basis: Sapezal Art. 14). A save that makes one of them pass its limit, or go
further past it, is refused with the article, and nothing is written. Where the law itself
lets the town pass a cap (Sapezal Art. 18: "poderá, através de Decreto ... ampliar o número
de táxis"), the pack says so (`override` on the parameter, with that article) and the save
goes through only with the decree and a reason, recorded in the town's audit log.

A cap already passed before the save (a registry that predates the product, a population
figure revised down) is not the save's doing: it stays a warning of the compliance page, and
the save is refused only when it adds to it. The figures are the compliance run's (the same
numbers /conformidade shows), before and after the save, in the save's transaction.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from sqlalchemy import func, select

from inspector import audit, clock, laws, rules
from inspector.errors import ValidationFailed
from inspector.extensions import db
from inspector.models import Municipality, Vehicle
from inspector.rules import Citation, Violation

CAP_RULES = ("town.fleet_cap", "town.quota", "town.company_share", "town.stand_capacity")
# The pack parameters behind each cap, whose `override` says whether the town may pass it.
_PARAMETERS = {
    "town.fleet_cap": ("limits.town.fleet_cap",),
    "town.quota": ("limits.town.inhabitants_per_vehicle", "limits.town.inhabitants_per_vehicle_seat",
                   "limits.town.inhabitants_per_vehicle_interior"),
    "town.company_share": ("limits.town.company_max_share",),
}
REASON_MIN, REASON_MAX = 10, 500
CAPS_REASON_FIELD = "acima_do_limite_motivo"   # the forms' and the import page's field


def where(c: Citation | None) -> str:
    """'Lei 060/1998, Art. 14' ('' without a citation)."""
    return f"{c.law}, {c.article}" if c is not None else ""


@dataclass(frozen=True)
class Breach:
    """A cap a save passes: the compliance finding, the count before and after, and the
    article by which the town may pass it (None: the law allows no exception)."""

    violation: Violation
    service: str
    before: int
    after: int
    override: rules.Override | None

    @property
    def overridable(self) -> bool:
        return self.override is not None

    def text(self) -> str:
        """The refusal in pt-BR, with the article of the cap and, where the town may pass
        it, the article that lets it."""
        v = self.violation
        cited = f" ({where(v.citation)})" if v.citation is not None else ""
        out = f"{v.message.rstrip('.')}{cited}."
        if self.override is not None:
            return (out + f" A lei deixa o município ampliar este limite por decreto "
                    f"({where(self.override.citation)}): para gravar assim mesmo, informe o "
                    "decreto e o motivo.")
        return out + " A lei não admite exceção: nada foi gravado."

    def as_dict(self) -> dict:
        return {"rule_id": self.violation.rule_id, "service": self.service,
                "message": self.violation.message, "before": self.before, "after": self.after,
                "citation": self.violation.citation.as_dict() if self.violation.citation
                else None,
                "override": None if self.override is None else
                {"by": self.override.by, "citation": self.override.citation.as_dict()}}


@dataclass(frozen=True)
class Use:
    """How much of each cap a town uses: (rule, service, subject) -> vehicles."""

    counts: dict[tuple[str, str, str], int]


class CapExceeded(ValidationFailed):
    """A save would pass a cap of the law (HTTP 422, nothing written)."""

    def __init__(self, breaches: list[Breach], reason_given: bool = False):
        self.breaches = breaches
        message = " ".join(b.text() for b in breaches)
        if reason_given and self.overridable:
            message += (f" O motivo precisa ter de {REASON_MIN} a {REASON_MAX} caracteres "
                        "(o número do decreto e por quê).")
        super().__init__({"_": message})

    @property
    def overridable(self) -> bool:
        """Whether every cap passed is one the town may pass by decree."""
        return all(b.overridable for b in self.breaches)


def _stand_counts(town_id: int) -> dict[int, int]:
    return dict(db.session.execute(
        select(Vehicle.stand_id, func.count(Vehicle.id))
        .where(Vehicle.municipality_id == town_id, Vehicle.stand_id.is_not(None))
        .group_by(Vehicle.stand_id)).all())


def caps_in_use(town: Municipality, run: laws.TownCompliance | None = None,
        on: date | None = None) -> Use:
    """The town's use of every cap now (from `run`, or the town's compliance run today)."""
    run = run or laws.town_compliance(town, on or clock.today(town))
    counts: dict[tuple[str, str, str], int] = {}
    for report in run.reports:
        for q in report.quotas:
            counts[(q.rule_id, report.service, "town")] = q.used
        for s in report.company_shares:
            counts[("town.company_share", report.service, f"holder:{s.holder_id}")] = s.vehicles
    for stand_id, n in _stand_counts(town.id).items():
        for service in rules.SERVICES:
            counts[("town.stand_capacity", service, f"stand:{stand_id}")] = n
    return Use(counts)


def _override(report, rule_id: str) -> rules.Override | None:
    for path in _PARAMETERS.get(rule_id, ()):
        p = report.pack.param(path)
        if p is not None and p.override is not None:
            return p.override
    return None


def caps_breached(town: Municipality, before: Use, run: laws.TownCompliance) -> list[Breach]:
    """The caps `run` (after the save, not committed) finds passed and that the save added
    to: a count above its limit that is higher than it was before."""
    after = caps_in_use(town, run)
    out = []
    for report in run.reports:
        for v in report.violations:
            if v.rule_id not in CAP_RULES:
                continue
            key = (v.rule_id, report.service, v.subject or "town")
            now, then = after.counts.get(key, 0), before.counts.get(key, 0)
            if now > then:
                out.append(Breach(v, report.service, then, now, _override(report, v.rule_id)))
    return out


def clean_caps_reason(reason: str | None) -> str:
    """The override's reason as given, blank when missing or outside its length."""
    reason = " ".join((reason or "").split())
    return reason if REASON_MIN <= len(reason) <= REASON_MAX else ""


def check_caps(town: Municipality, before: Use, *, reason: str | None = None, actor=None,
          run: laws.TownCompliance | None = None, what: str = "") -> list[Breach]:
    """Refuse (CapExceeded) a save that passes a cap, unless every cap passed is one the law
    lets the town pass and a reason is given: then each is recorded in the audit log
    (`registry.cap_override`) in the save's transaction, and returned."""
    if run is None:
        db.session.flush()
        run = laws.town_compliance(town, clock.today(town), reuse=False)
    found = caps_breached(town, before, run)
    if not found:
        return []
    given = clean_caps_reason(reason)
    if not given or not all(b.overridable for b in found):
        raise CapExceeded(found, reason_given=bool((reason or "").strip()))
    for b in found:
        audit.record("registry.cap_override", "municipality", town.id, actor=actor,
                     municipality_id=town.id,
                     after={**b.as_dict(), "reason": given, "record": what})
    return found
