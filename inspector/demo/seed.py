"""Demo data: `flask --app inspector demo seed`.

Creates the four towns (Censo 2022 populations; where each figure comes from is in
`demo_data`), the national minimum wage by date, the stands the laws name, a plausible
fleet per town and service with holders, drivers (with generated ID photos), permits,
licences and moto-taxi insurance, a few records that break a rule on purpose, and an
agent, a supervisor and an admin per town (password `DEMO_PASSWORD`).

Registry rows go through `inspector.registry` (the same validation and audit entries as
the admin screens), towns and dated values are written here with one audit entry each,
and every entry names the actor "demo-seed". Idempotent: each row is looked up by its
natural key first, so a second run writes nothing and takes well under a second.
"""
from __future__ import annotations

import hashlib
from collections import Counter
from datetime import date
from io import BytesIO

from PIL import Image, ImageDraw, ImageFont

from inspector import audit, clock, credentials, registry
from inspector.config import DEMO_PASSWORD
from inspector.demo import vistorias
from inspector.demo.data import MINIMUM_WAGE, ROLES, TOWNS, TownFacts
from inspector.demo.plan import TownPlan, plan_all
from inspector.extensions import db
from inspector.models import (
    DatedValue,
    Driver,
    Holder,
    Licence,
    Municipality,
    Permit,
    Stand,
    User,
    Vehicle,
)

ACTOR = "demo-seed"


# Staff of each town: (agent, supervisor, admin) names.
STAFF = {
    "nortelandia": ("Joana Batista Cuiabano", "Ricardo Amorim Leite", "Sônia Ferraz Pinheiro"),
    "nova-santa-helena": ("Tiago Lorca Bianchi", "Helena Moraes Zanetti", "Irineu Botonili"),
    "sapezal": ("Everton Maggi Rauber", "Priscila Dal Maso", "Augusto Schneider Moro"),
    "tapurah": ("Mirela Sette Barella", "Osmar Tenuta Leão", "Vilmar Capeletti Ruaro"),
}


def id_photo(name: str) -> bytes:
    """A small portrait JPEG: the person's initials on a colour taken from the name."""
    digest = hashlib.sha256(name.encode()).digest()
    colour = tuple(60 + b % 140 for b in digest[:3])
    img = Image.new("RGB", (120, 160), colour)
    draw = ImageDraw.Draw(img)
    initials = "".join(w[0] for w in name.split() if w[0].isupper())[:2]
    try:
        font = ImageFont.load_default(size=48)
    except (TypeError, OSError):  # Pillow without FreeType: the small bitmap font
        font = ImageFont.load_default()
    box = draw.textbbox((0, 0), initials, font=font)
    draw.text(((120 - (box[2] - box[0])) / 2 - box[0], (160 - (box[3] - box[1])) / 2 - box[1]),
              initials, fill="white", font=font)
    out = BytesIO()
    img.save(out, "JPEG", quality=80)
    return out.getvalue()


class Seeder:
    """Writes the planned rows that are not there yet, counting what it created."""

    def __init__(self, today: date):
        self.today = today
        self.created: Counter[str] = Counter()

    # -------------------------------------------------------------- town-level rows
    def town(self, facts: TownFacts) -> Municipality:
        """The town, created with its population and fiscal unit if missing."""
        town = db.session.scalar(db.select(Municipality).filter_by(slug=facts.slug))
        if town is None:
            town = Municipality(slug=facts.slug, name=facts.name, ibge_code=facts.ibge_code,
                                population_seat=facts.population_seat,
                                population_interior=facts.population_interior,
                                population_source=facts.population_source,
                                fiscal_unit_name=facts.fiscal_unit_name)
            self._add(town, "municipality", town_id=None)
        existing = {(v.kind, v.valid_from) for v in town.dated_values}
        for valid_from, value, source in MINIMUM_WAGE:
            if ("minimum_wage", valid_from) not in existing:
                row = DatedValue(municipality_id=town.id, kind="minimum_wage",
                                 valid_from=valid_from, value_brl=value, source=source)
                self._add(row, "dated_value", town_id=town.id)
        return town

    def _add(self, row, entity: str, *, town_id: int | None) -> None:
        db.session.add(row)
        db.session.flush()
        audit.record(f"{entity}_created", entity, row.id, after=audit.snapshot(row),
                     actor=ACTOR, municipality_id=town_id if town_id is not None else row.id)
        self.created[entity] += 1

    def staff(self, facts: TownFacts, town: Municipality) -> None:
        """An agent, a supervisor and an admin, created through the accounts service."""
        from inspector.accounts import create_user

        for (role, word), name in zip(ROLES, STAFF[facts.slug]):
            username = f"{word}.{facts.slug}"
            if db.session.scalar(db.select(User.id).filter_by(username=username)) is None:
                badge = f"AF-{facts.ibge_code[-4:]}-01" if role == "agent" else ""
                create_user(town_slug=facts.slug, username=username, name=name, role=role,
                            password=DEMO_PASSWORD, badge_number=badge, actor=ACTOR,
                            must_change_password=False)   # the README's demo logins
                self.created["user"] += 1

    # ------------------------------------------------------------------- registry
    def registry(self, town: Municipality, plan: TownPlan) -> None:
        """Stands, holders, vehicles, drivers, permits, licences and insurance of a town."""
        look = registry.Lookup(town.id)
        look.prime(Holder, "tax_id", [h.tax_id for h in plan.holders])
        look.prime(Vehicle, "plate", [v.plate for v in plan.vehicles])
        look.prime(Driver, "cpf", [d.cpf for d in plan.drivers])
        look.prime(Permit, "number", [p.number for p in plan.permits])
        look.prime(Licence, "number", [lic.number for lic in plan.licences])

        savers = {"stand": registry.save_stand, "holder": registry.save_holder,
                  "vehicle": registry.save_vehicle, "permit": registry.save_permit,
                  "licence": registry.save_licence, "insurance": registry.save_insurance}

        def save(kind: str, exists, data: dict):
            if exists is not None:
                return exists
            row = savers[kind](town.id, data, actor=ACTOR, lookup=look)
            self.created[kind] += 1
            return row

        for code, place, capacity, service, basis in plan.stands:
            save("stand", look.get(Stand, "code", code),
                 {"code": code, "place": place, "capacity": str(capacity), "service": service,
                  "legal_basis": basis})
        for h in plan.holders:
            save("holder", look.get(Holder, "tax_id", h.tax_id),
                 {"kind": h.kind, "name": h.name, "tax_id": h.tax_id, "address": h.address,
                  "phone": h.phone, "email": h.email})
        for v in plan.vehicles:
            save("vehicle", look.get(Vehicle, "plate", v.plate),
                 {"holder_tax_id": v.holder_tax_id, "service": v.service, "plate": v.plate,
                  "make_model": v.make_model, "year_of_manufacture": str(v.year_of_manufacture),
                  "engine_cc": str(v.engine_cc), "colour": v.colour,
                  "doors": "" if v.doors is None else str(v.doors), "prefix": v.prefix,
                  "is_trail": "sim" if v.is_trail else "não",
                  "last_vistoria_on": v.last_vistoria_on.isoformat(),
                  # a vistoria before the app is an audited correction (docs/vistoria.md)
                  "vistoria_correction_reason": "Vistoria anterior ao sistema, registrada em "
                                                "papel",
                  "stand_code": v.stand_code or ""})
        plates_of = {}
        for v in plan.vehicles:
            for cpf in v.driver_cpfs:
                plates_of.setdefault(cpf, []).append(v.plate)
        for d in plan.drivers:
            self._driver(town, look, d, plates_of.get(d.cpf, []))
        for p in plan.permits:
            save("permit", look.get(Permit, "number", p.number),
                 {"holder_tax_id": p.holder_tax_id, "kind": p.kind, "service": p.service,
                  "number": p.number, "valid_from": p.valid_from.isoformat()})
        for spec in plan.licences:
            found = look.get(Licence, "number", spec.number)
            licence = save("licence", found,
                           {"vehicle_plate": spec.plate, "permit_number": spec.permit_number or "",
                            "kind": spec.kind, "number": spec.number,
                            "valid_from": spec.valid_from.isoformat(),
                            "valid_until": spec.valid_until.isoformat()})
            if found is None and spec.status != "active":
                registry.change_status(licence, spec.status, spec.status_reason, actor=ACTOR)
                self.created["status_change"] += 1
        for ins in plan.insurances:
            vehicle = look.get(Vehicle, "plate", ins.plate)
            found = next((p for p in vehicle.insurance_policies
                          if p.policy_number == ins.policy_number), None)
            save("insurance", found,
                 {"vehicle_plate": ins.plate, "insurer": ins.insurer,
                  "policy_number": ins.policy_number, "valid_from": ins.valid_from.isoformat(),
                  "valid_until": ins.valid_until.isoformat()})

    def _photo(self, driver: Driver) -> None:
        """Give a new driver a generated ID photo, recorded like any photo change."""
        driver.photo, driver.photo_mime = id_photo(driver.name), "image/jpeg"
        db.session.flush()
        audit.record("photo_changed", "driver", driver.id, actor=ACTOR,
                     municipality_id=driver.municipality_id,
                     after={"photo_sha256": hashlib.sha256(driver.photo).hexdigest(),
                            "photo_mime": driver.photo_mime})

    def _driver(self, town: Municipality, look, d, plates: list[str]) -> None:
        """A driver with an ID photo, linked to the vehicles it drives."""
        driver = look.get(Driver, "cpf", d.cpf)
        if driver is None:
            driver = registry.save_driver(town.id, {
                "holder_tax_id": d.holder_tax_id, "category": d.category, "name": d.name,
                "cpf": d.cpf, "cnh_number": d.cnh_number, "cnh_category": d.cnh_category,
                "cnh_expiry": d.cnh_expiry.isoformat(),
                "registration_number": d.registration_number,
                "registration_expiry": d.registration_expiry.isoformat(),
                "rg_number": d.rg_number, "rg_issuer": d.rg_issuer,
                "vehicle_plate": ",".join(plates)}, actor=ACTOR, lookup=look)
            self._photo(driver)
            self.created["driver"] += 1
            return
        missing = [p for p in plates if p not in {v.plate for v in driver.vehicles}]
        if missing:
            registry.save_driver(town.id, {"vehicle_plate": ",".join(missing)}, actor=ACTOR,
                                 driver=driver, lookup=look)
            self.created["driver_link"] += len(missing)


def seed_towns(today: date | None = None) -> tuple[Counter, list[tuple[str, str]]]:
    """Create whatever demo rows are missing (the caller commits); what was created, and
    the records that break a rule on purpose."""
    # one day for the whole demo, taken before any town row exists (the seeder creates them)
    seeder = Seeder(today or clock.default_day())
    plans = {p.facts.slug: p for p in plan_all(seeder.today)}
    irregular = []
    for facts in TOWNS:
        town = seeder.town(facts)
        seeder.staff(facts, town)
        seeder.registry(town, plans[facts.slug])
        db.session.flush()
        for sheet in credentials.offered_sheets(town.id):  # every sticker, vest and card
            issued = credentials.issue_missing(town.id, sheet, actor="demo-seed")
            if issued:
                seeder.created["credential"] += len(issued)
        irregular += [(facts.name, note) for note in plans[facts.slug].irregular]
    db.session.flush()
    vistorias.seed(seeder.created)  # Tapurah's agenda and vistorias (docs/vistoria.md)
    return seeder.created, irregular
