"""What the demo data holds, decided without touching the database.

Everything that identifies a row (tax numbers, plates, licence and permit numbers,
registration numbers) comes from a random generator seeded per town and service, so every
run plans the same rows and a second `demo seed` finds them all already there. Only the
dates move: they are counted from the day of the run, so the demo stays meaningful.

Most of the fleet is regular; a few records break a rule on purpose (`TownPlan.irregular`
says which and why).
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import date, timedelta

from inspector.demo.data import (
    CAR_COLOURS,
    CARS,
    COMPANIES,
    DISTRICTS,
    FEMALE,
    INSURERS,
    MALE,
    MERCOSUL_PLATE_PREFIXES,
    MOTO_COLOURS,
    MOTOS,
    NORTELANDIA_BASIS,
    NORTELANDIA_STANDS,
    OLD_PLATE_PREFIXES,
    SAPEZAL_BASIS,
    SAPEZAL_STANDS,
    STREETS,
    SURNAMES,
    TOWNS,
    TRAIL,
    TownFacts,
)
from inspector.identifiers import make_cnpj, make_cpf


@dataclass
class HolderSpec:
    kind: str  # person | company
    name: str
    tax_id: str
    address: str
    phone: str
    email: str = ""


@dataclass
class DriverSpec:
    holder_tax_id: str
    category: str  # autonomo | auxiliar | mototaxista
    name: str
    cpf: str
    cnh_number: str
    cnh_category: str
    cnh_expiry: date
    registration_number: str
    registration_expiry: date
    rg_number: str = ""
    rg_issuer: str = ""


def demo_rg(cpf: str) -> tuple[str, str]:
    """A plausible RG and issuing body, drawn from the CPF so the planned sequence of
    everything else stays as it was: mostly Mato Grosso's SSP, some from neighbours."""
    rng = random.Random(f"rg-{cpf}")
    issuer = rng.choice(("SSP/MT",) * 7 + ("SESP/MT", "SSP/PR", "SSP/GO", "SSP/MS"))
    number = rng.randrange(1_000_000, 29_999_999)
    return f"{number:,}".replace(",", ".") + f"-{rng.randrange(10)}", issuer


@dataclass
class VehicleSpec:
    holder_tax_id: str
    service: str
    plate: str
    make_model: str
    year_of_manufacture: int
    engine_cc: int
    colour: str
    doors: int | None
    prefix: str
    is_trail: bool
    last_vistoria_on: date
    stand_code: str | None
    driver_cpfs: list[str] = field(default_factory=list)


@dataclass
class PermitSpec:
    holder_tax_id: str
    kind: str  # permissao | autorizacao
    service: str
    number: str
    valid_from: date


@dataclass
class LicenceSpec:
    plate: str
    permit_number: str | None
    kind: str
    number: str
    valid_from: date
    valid_until: date
    status: str = "active"
    status_reason: str = ""  # why it is suspended, for the status history


@dataclass
class InsuranceSpec:
    plate: str
    insurer: str
    policy_number: str
    valid_from: date
    valid_until: date


@dataclass
class TownPlan:
    """Everything the demo creates in one town."""

    facts: TownFacts
    stands: list[tuple[str, str, int, str, str]] = field(default_factory=list)
    holders: list[HolderSpec] = field(default_factory=list)
    drivers: list[DriverSpec] = field(default_factory=list)
    vehicles: list[VehicleSpec] = field(default_factory=list)
    permits: list[PermitSpec] = field(default_factory=list)
    licences: list[LicenceSpec] = field(default_factory=list)
    insurances: list[InsuranceSpec] = field(default_factory=list)
    irregular: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class FleetRules:
    """How one town licenses one service, as its law says."""

    service: str
    count: int               # vehicles in the demo (never above the legal cap)
    persons: int             # of which held by self-employed drivers
    permit_kind: str | None  # None: the law grants only a licence (Sapezal)
    licence_kind: str
    max_age: int             # years of manufacture the regular fleet stays within
    white_only: bool = False
    prefix: str = "TX"


def taxi_cap(facts: TownFacts) -> int | None:
    """The most taxis a town's law allows, where it fixes a number."""
    if facts.slug == "nortelandia":
        return 6                                  # Lei 127/2009 Art. 3
    if facts.slug == "nova-santa-helena":
        return facts.population_total // 750      # Lei 535/2013 Art. 3 §3
    return None


def mototaxi_cap(facts: TownFacts) -> int | None:
    """The most moto-taxis a town's law allows, where it fixes a number."""
    if facts.slug == "tapurah":                   # Lei 406/2001 Art. 5 I and II
        return facts.population_seat // 1000 + facts.population_interior // 500
    return None


RULES = {
    ("nortelandia", "taxi"): FleetRules("taxi", 6, 6, "permissao", "alvara_estacionamento", 6),
    ("nortelandia", "mototaxi"): FleetRules("mototaxi", 20, 0, "autorizacao",
                                            "alvara_mototaxi", 6, prefix="MT"),
    ("nova-santa-helena", "taxi"): FleetRules("taxi", 5, 4, "permissao", "alvara_licenca", 4,
                                              white_only=True),
    ("sapezal", "taxi"): FleetRules("taxi", 15, 10, None, "alvara_licenca", 4),
    ("tapurah", "mototaxi"): FleetRules("mototaxi", 18, 0, "autorizacao", "alvara_mototaxi",
                                        4, prefix="MT"),
}


class _Planner:
    """Draws one town's people, vehicles and documents from its own seeded generator."""

    def __init__(self, facts: TownFacts, today: date):
        self.facts, self.today = facts, today
        self.plan = TownPlan(facts)
        self.rng = random.Random(f"inspector-demo:{facts.slug}")
        self.used: set[str] = set()
        self.seq: dict[str, int] = {}

    def next(self, key: str) -> int:
        self.seq[key] = self.seq.get(key, 0) + 1
        return self.seq[key]

    def unique(self, make) -> str:
        while (value := make()) in self.used:
            pass
        self.used.add(value)
        return value

    def days(self, low: int, high: int) -> int:
        return self.rng.randint(low, high)

    def person_name(self) -> str:
        def draw() -> str:
            first = self.rng.choice(MALE if self.rng.random() < 0.8 else FEMALE)
            a, b = self.rng.sample(SURNAMES, 2)
            return f"{first} {a} {b}"
        return self.unique(draw)

    def cpf(self) -> str:
        return self.unique(lambda: make_cpf(str(self.rng.randrange(100_000_000, 999_999_999))))

    def address(self) -> str:
        return (f"{self.rng.choice(STREETS)}, {self.rng.randint(10, 2900)}, "
                f"{self.rng.choice(DISTRICTS)}, {self.facts.name} - MT")

    def phone(self) -> str:
        return (f"({self.facts.area_code}) 9{self.rng.randint(8100, 9999)}-"
                f"{self.rng.randint(0, 9999):04d}")

    def plate(self, mercosul: bool) -> str:
        if mercosul:
            return self.unique(lambda: f"{self.rng.choice(MERCOSUL_PLATE_PREFIXES)}"
                                       f"{self.rng.randint(0, 9)}{chr(65 + self.rng.randrange(26))}"
                                       f"{self.rng.randint(0, 99):02d}")
        return self.unique(lambda: f"{self.rng.choice(OLD_PLATE_PREFIXES)}"
                                   f"{self.rng.randint(1000, 9999)}")

    def person_holder(self) -> HolderSpec:
        name, cpf = self.person_name(), self.cpf()
        holder = HolderSpec("person", name, cpf, self.address(), self.phone())
        self.plan.holders.append(holder)
        return holder

    def company_holder(self, name: str) -> HolderSpec:
        cnpj = self.unique(lambda: make_cnpj(f"{self.rng.randrange(10_000_000, 99_999_999)}0001"))
        slug = name.split()[0].lower().replace("á", "a").replace("ã", "a")
        holder = HolderSpec("company", name, cnpj, self.address(), self.phone(),
                            f"contato@{slug}{cnpj[:4]}.com.br")
        self.plan.holders.append(holder)
        return holder

    def driver(self, holder: HolderSpec, category: str, name: str | None = None,
               cpf: str | None = None) -> DriverSpec:
        code = "MT" if category == "mototaxista" else "TX"
        spec = DriverSpec(
            holder_tax_id=holder.tax_id, category=category, name=name or self.person_name(),
            cpf=cpf or self.cpf(),
            cnh_number=self.unique(lambda: str(self.rng.randrange(10**10, 10**11))),
            cnh_category="A" if category == "mototaxista" else self.rng.choice(("B", "AB")),
            cnh_expiry=self.today + timedelta(days=self.days(120, 1500)),
            registration_number=f"{code}-{self.next('reg-' + code):04d}",
            registration_expiry=self.today + timedelta(days=self.days(30, 330)))
        spec.rg_number, spec.rg_issuer = demo_rg(spec.cpf)
        self.plan.drivers.append(spec)
        return spec

    def vehicle(self, rules: FleetRules, holder: HolderSpec, order: int, code: str,
                stand: str | None, trail: bool = False) -> VehicleSpec:
        moto = rules.service == "mototaxi"
        age = self.rng.randint(0, rules.max_age)
        model, cc = TRAIL if trail else self.rng.choice(MOTOS if moto else CARS)
        if self.facts.slug == "nova-santa-helena":
            prefix = f"{order:02d}00"  # Art. 13 IX: order of the first licence + stand (none)
        else:
            prefix = f"{code}{order:02d}"  # company code (vest, Art. 10 IV / 22 II) + number
        spec = VehicleSpec(
            holder_tax_id=holder.tax_id, service=rules.service,
            plate=self.plate(mercosul=age <= 4 or self.rng.random() < 0.4), make_model=model,
            year_of_manufacture=self.today.year - age, engine_cc=cc,
            colour="Branca" if rules.white_only else self.rng.choice(
                MOTO_COLOURS if moto else CAR_COLOURS),
            doors=None if moto else 4, prefix=prefix, is_trail=trail,
            last_vistoria_on=self.today - timedelta(days=self.days(5, 150)), stand_code=stand)
        self.plan.vehicles.append(spec)
        return spec

    def permit(self, rules: FleetRules, holder: HolderSpec) -> PermitSpec | None:
        if rules.permit_kind is None:
            return None
        for p in self.plan.permits:
            if p.holder_tax_id == holder.tax_id and p.service == rules.service:
                return p
        code = "TP" if rules.permit_kind == "permissao" else "AUT"
        spec = PermitSpec(holder.tax_id, rules.permit_kind, rules.service,
                          f"{code}-{self.next('permit-' + code):03d}",
                          self.today - timedelta(days=self.days(400, 4000)))
        self.plan.permits.append(spec)
        return spec

    def licence(self, rules: FleetRules, vehicle: VehicleSpec, permit: PermitSpec | None):
        code = {"alvara_estacionamento": "AE", "alvara_licenca": "AL",
                "alvara_mototaxi": "AM"}[rules.licence_kind]
        start = self.today - timedelta(days=self.days(15, 300))
        spec = LicenceSpec(vehicle.plate, permit.number if permit else None, rules.licence_kind,
                           f"{code}-{self.next('licence-' + code):04d}", start,
                           self.licence_end(rules.service, start, start + timedelta(days=364)))
        self.plan.licences.append(spec)
        return spec

    def licence_end(self, service: str, start: date, wanted: date) -> date:
        """`wanted`, or the last day the town's law lets an Alvará starting on `start` be
        valid if that is earlier (Sapezal Lei 060/1998 Art. 10: the exercício)."""
        from inspector.rules import RulesError, resolve, validity_limit

        try:
            limit = validity_limit(resolve(self.facts.slug, service, start), "licence", start)
        except RulesError:
            return wanted
        return min(wanted, limit.last) if limit is not None else wanted

    def insurance(self, vehicle: VehicleSpec) -> InsuranceSpec:
        start = self.today - timedelta(days=self.days(10, 300))
        spec = InsuranceSpec(vehicle.plate, self.rng.choice(INSURERS),
                             self.unique(lambda: f"{self.rng.randint(10**9, 10**10 - 1)}"),
                             start, start + timedelta(days=365))
        self.plan.insurances.append(spec)
        return spec


def _stand_slots(stands) -> list[str]:
    """One entry per parking place: ('01', '01', '01', '01', '02', ...)."""
    return [code for code, _place, capacity in stands for _ in range(capacity)]


def _fleet(p: _Planner, rules: FleetRules) -> list[tuple[VehicleSpec, LicenceSpec]]:
    """Holders, drivers, vehicles and documents of one service in one town."""
    slug = p.facts.slug
    companies = COMPANIES.get((slug, rules.service), ())
    owners: list[tuple[HolderSpec, str, bool]] = []
    for name, code, n in companies:
        holder = p.company_holder(name)
        owners += [(holder, code, False)] * n
    owners += [(p.person_holder(), rules.prefix, True) for _ in range(rules.persons)]
    assert len(owners) == rules.count, f"{slug} {rules.service}: owners do not add up"
    slots = (_stand_slots(SAPEZAL_STANDS) if slug == "sapezal" else
             ["01"] * 4 + ["02"] * 2 if (slug, rules.service) == ("nortelandia", "taxi") else [])
    made, order_in = [], {}
    for i, (holder, code, person) in enumerate(owners):
        order_in[code] = order_in.get(code, 0) + 1
        order = order_in[code] if not person else i + 1
        # One trail bike in Nortelândia, whose law (030/1998) does not bar them; Tapurah's does.
        trail = (slug, rules.service, i) == ("nortelandia", "mototaxi", 2)
        v = p.vehicle(rules, holder, order, code, slots[i] if slots else None, trail)
        if rules.service == "mototaxi":
            riders = 2 if p.rng.random() < 0.2 else 1
            v.driver_cpfs += [p.driver(holder, "mototaxista").cpf for _ in range(riders)]
        else:
            if person:
                v.driver_cpfs.append(p.driver(holder, "autonomo", holder.name, holder.tax_id).cpf)
            auxiliaries = p.rng.choice((0, 1, 1, 2)) if person else p.rng.choice((1, 2))
            v.driver_cpfs += [p.driver(holder, "auxiliar").cpf for _ in range(auxiliaries)]
        licence = p.licence(rules, v, p.permit(rules, holder))
        if rules.service == "mototaxi":
            p.insurance(v)
        made.append((v, licence))
    return made


def _break_rules(p: _Planner, fleets: dict[str, list[tuple[VehicleSpec, LicenceSpec]]]) -> None:
    """Make a few records irregular on purpose, each with the rule it breaks."""
    t, slug, note = p.today, p.facts.slug, p.plan.irregular.append
    if slug == "nortelandia":
        v, _ = fleets["taxi"][1]
        holder = next(h for h in p.plan.holders if h.tax_id == v.holder_tax_id)
        aux = [c for c in v.driver_cpfs
               if next(d for d in p.plan.drivers if d.cpf == c).category == "auxiliar"]
        while len(aux) < 3:
            aux.append(p.driver(holder, "auxiliar").cpf)
            v.driver_cpfs.append(aux[-1])
        # Art. 9 limits whom the Secretaria admits ("Serão admitidos até 02"), not the Alvará:
        # a registry fault for /conformidade; the taxi stays REGULAR (docs/rule-packs.md).
        note(f"táxi {v.plate}: 3 motoristas auxiliares, o limite é 2 (Lei 127/2009 Art. 9): "
             "falha do cadastro, listada em /conformidade; o táxi segue REGULAR para o "
             "passageiro (o limite é de admissão de auxiliares, não invalida o alvará)")
        v, _ = fleets["taxi"][3]
        holder = next(h for h in p.plan.holders if h.tax_id == v.holder_tax_id)
        aux = [d for d in p.plan.drivers if d.cpf in v.driver_cpfs and d.category == "auxiliar"]
        d = aux[0] if aux else p.driver(holder, "auxiliar")
        d.registration_expiry = t - timedelta(days=45)
        if d.cpf not in v.driver_cpfs:
            v.driver_cpfs.append(d.cpf)
        note(f"condutor {d.registration_number} ({d.name}), táxi {v.plate}: inscrição vencida "
             "há 45 dias, cancelada após 30 (Lei 127/2009 Art. 8 §ú)")
    elif slug == "nova-santa-helena":
        v, _ = fleets["taxi"][4]
        v.year_of_manufacture = t.year - 7
        note(f"táxi {v.plate}: fabricado em {v.year_of_manufacture}, devia ser substituído aos "
             "5 anos (Lei 535/2013 Art. 14)")
    elif slug == "sapezal":
        v, lic = fleets["taxi"][6]
        expired = t - timedelta(days=35)   # an Alvará of the exercício (Art. 10) run out
        lic.valid_from, lic.valid_until = max(date(expired.year, 1, 1),
                                              expired - timedelta(days=300)), expired
        note(f"táxi {v.plate}: alvará {lic.number} vencido há 35 dias (Lei 060/1998 Art. 10)")
        v, lic = fleets["taxi"][8]
        lic.status = "suspended"
        lic.status_reason = ("Suspensão do alvará por 30 dias: caixa luminosa ausente "
                             "(Lei 060/1998 Art. 12 I; sanção do Art. 20 IV)")
        note(f"táxi {v.plate}: alvará {lic.number} suspenso (Lei 060/1998 Art. 20 IV)")
    elif slug == "tapurah":
        v, _ = fleets["mototaxi"][5]
        v.year_of_manufacture = t.year - 8
        note(f"moto-táxi {v.plate}: fabricada em {v.year_of_manufacture}, máximo 5 anos de uso "
             "(Lei 406/2001 Art. 13)")
        v, _ = fleets["mototaxi"][11]
        ins = next(i for i in p.plan.insurances if i.plate == v.plate)
        ins.valid_from, ins.valid_until = t - timedelta(days=385), t - timedelta(days=20)
        note(f"moto-táxi {v.plate}: seguro {ins.policy_number} vencido há 20 dias, a permissão "
             "cai automaticamente (Lei 406/2001 Arts. 16-17)")


def plan_town(facts: TownFacts, today: date) -> TownPlan:
    """The demo records of one town, as of `today`."""
    p = _Planner(facts, today)
    if facts.slug == "sapezal":
        p.plan.stands = [(c, place, cap, "taxi", SAPEZAL_BASIS) for c, place, cap in SAPEZAL_STANDS]
    elif facts.slug == "nortelandia":
        p.plan.stands = [(c, place, cap, "taxi", NORTELANDIA_BASIS)
                         for c, place, cap in NORTELANDIA_STANDS]
    fleets = {}
    for service, cap in (("taxi", taxi_cap(facts)), ("mototaxi", mototaxi_cap(facts))):
        rules = RULES.get((facts.slug, service))
        if rules is None:
            continue
        assert cap is None or rules.count <= cap, f"{facts.slug}: {rules.count} > cap {cap}"
        fleets[service] = _fleet(p, rules)
    _break_rules(p, fleets)
    return p.plan


def plan_all(today: date) -> list[TownPlan]:
    """The demo records of every town."""
    return [plan_town(facts, today) for facts in TOWNS]
