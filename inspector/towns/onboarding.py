"""Onboarding a town: its row (IBGE code, name, population with its source, fiscal unit),
checked against the law packs in force for its services, and its first admin account.

The caller commits (a command); every row written has its audit entry in the same
transaction. All problems of a request are reported together (ValidationFailed).
"""
from __future__ import annotations

import re
import secrets

from inspector import audit, rules
from inspector.accounts import create_user
from inspector.clock import DEFAULT_ZONE, zone
from inspector.errors import ValidationFailed
from inspector.extensions import db
from inspector.models import Municipality, Role, User

MATO_GROSSO = "51"                 # IBGE state code: every town served is in Mato Grosso
TIMEZONE = DEFAULT_ZONE            # Mato Grosso's clock (inspector/clock.py), the default
SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
FISCAL_UNIT = re.compile(r"[A-Z]{2,10}")


def ibge_check_digit(first_six: str) -> int:
    """The 7th digit of an IBGE municipality code: weights 1,2,1,2,1,2, the digits of each
    product summed, then what takes the sum to the next multiple of 10."""
    total = 0
    for i, ch in enumerate(first_six):
        p = int(ch) * (1 if i % 2 == 0 else 2)
        total += p // 10 + p % 10
    return (10 - total % 10) % 10


def _ibge_problem(code: str) -> str | None:
    if not re.fullmatch(r"\d{7}", code):
        return "o código IBGE do município tem 7 algarismos (ex.: 5108006)"
    if not code.startswith(MATO_GROSSO):
        return "o código IBGE não é de Mato Grosso (começa com 51)"
    if int(code[6]) != ibge_check_digit(code[:6]):
        return f"o dígito verificador não confere: o código seria {code[:6]}{ibge_check_digit(code[:6])}"
    if db.session.scalar(db.select(Municipality.id).filter_by(ibge_code=code)):
        return f"já existe um município com o código IBGE {code}"
    return None


def _population(raw, field: str, errors: dict) -> int | None:
    try:
        value = int(str(raw).strip())
    except (TypeError, ValueError):
        errors[field] = "informe um número inteiro de habitantes"
        return None
    if value < 0:
        errors[field] = "a população não pode ser negativa"
    return value


def _packs(slug: str, pack_ids: list[str], errors: dict) -> list:
    """The packs named, each of this town; at least one."""
    loaded = {p.id: p for p in rules.load_all()}
    if not pack_ids:
        mine = sorted(p.id for p in loaded.values() if p.town == slug)
        errors["packs"] = ("informe as leis em vigor (--pack): "
                           + (", ".join(mine) if mine else
                              f"não há pacote de regras do município '{slug}' carregado "
                              "(RULES_EXTRA_DIR, docs/adding-a-town.md)"))
        return []
    out = []
    for pid in pack_ids:
        pack = loaded.get(pid)
        if pack is None:
            errors["packs"] = (f"pacote de regras desconhecido: {pid!r} (veja `flask --app "
                               "inspector rules list`)")
        elif pack.town != slug:
            errors["packs"] = f"o pacote {pid} é do município '{pack.town}', não de '{slug}'"
        else:
            out.append(pack)
    return out


def create_town(*, ibge_code: str, name: str, slug: str, timezone: str, population_seat,
                population_interior, population_source: str, fiscal_unit_name: str,
                pack_ids: list[str], actor=None) -> Municipality:
    """Create a town from nothing (the caller commits). The packs named must be the town's
    own (their `town` is the slug); the fiscal unit must be the one they count fines in."""
    errors: dict[str, str] = {}
    ibge_code, name, slug = ibge_code.strip(), " ".join(name.split()), slug.strip().lower()
    if problem := _ibge_problem(ibge_code):
        errors["ibge"] = problem
    if not name:
        errors["name"] = "informe o nome do município"
    if not SLUG.fullmatch(slug) or len(slug) > 40:
        errors["slug"] = "use letras minúsculas sem acento, números e hífens (ex.: nova-santa-helena)"
    elif db.session.scalar(db.select(Municipality.id).filter_by(slug=slug)):
        errors["slug"] = f"o município '{slug}' já existe"
    timezone = (timezone or "").strip() or TIMEZONE
    try:
        zone(timezone)
    except ValueError:
        errors["timezone"] = (f"fuso horário desconhecido: {timezone[:60]!r} (use um nome IANA, "
                              f"ex.: {TIMEZONE}, America/Manaus, America/Noronha)")
    seat = _population(population_seat, "population_seat", errors)
    interior = _population(population_interior, "population_interior", errors)
    if not population_source.strip():
        errors["population_source"] = ("diga de onde vem a população (ex.: IBGE, Censo "
                                       "Demográfico 2022, população urbana e rural)")
    unit = fiscal_unit_name.strip().upper()
    if not FISCAL_UNIT.fullmatch(unit):
        errors["fiscal_unit"] = "a unidade fiscal é uma sigla (ex.: UFM, UFIM)"
    packs = _packs(slug, [p.strip() for p in pack_ids if p.strip()], errors)
    named = {p.fiscal_unit for p in packs if p.fiscal_unit}
    if named and unit not in named:
        errors["fiscal_unit"] = (f"a lei do município conta as multas em {', '.join(sorted(named))}, "
                                 f"não em {unit}")
    if errors:
        raise ValidationFailed(errors)
    town = Municipality(slug=slug, name=name, ibge_code=ibge_code, population_seat=seat,
                        population_interior=interior,
                        population_source=" ".join(population_source.split()),
                        fiscal_unit_name=unit, timezone=timezone)
    db.session.add(town)
    db.session.flush()
    after = audit.snapshot(town) | {"timezone": timezone, "packs": sorted(p.id for p in packs)}
    audit.record("municipality_created", "municipality", town.id, after=after, actor=actor,
                 municipality_id=town.id)
    return town


def create_first_admin(*, town_slug: str, username: str, name: str,
                       password: str | None = None, actor=None) -> tuple[User, str | None]:
    """The town's first admin (the caller commits): the password given, or a random one
    returned to be shown once. Refused when the town already has an active admin."""
    town = db.session.scalar(db.select(Municipality).filter_by(slug=town_slug.strip().lower()))
    if town is not None and db.session.scalar(db.select(User.id).filter_by(
            municipality_id=town.id, role=Role.ADMIN, active=True)):
        raise ValidationFailed({"town": f"{town.name} já tem administrador: crie as demais "
                                        "contas com `flask --app inspector users create`"})
    generated = None
    if password is None:
        generated = password = secrets.token_urlsafe(12)
    user = create_user(town_slug=town_slug, username=username, name=name, role="admin",
                       password=password, actor=actor)
    return user, generated
