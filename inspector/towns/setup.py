"""What a town's setup still lacks: the "Configuração do município" page.

Each step says whether it is done, what is missing in one sentence, what stays incomplete
while it is missing (`blocks`: agents may well be working already, so the page never says
they cannot), and where it is fixed (an endpoint of the web, or a command where there is no
page). Money is written as Brazilian reais (R$ 1.621,00, `rules.brl`). Readings:
- the fiscal unit's value and the minimum wage are needed when a law of the town counts a
  fine in them; the minimum wage changes every 1 January, so a value from an earlier year
  is shown as missing for this one;
- decree values: every key the town's packs leave to a decree;
- stands: where the town has a taxi law (taxi laws place each car at a stand: "alvará de
  estacionamento"); a moto-taxi law does not;
- the town's own closures (holidays and "ponto facultativo" by decree): this year must be
  entered on the town calendar page (/conformidade/calendario, migration 0021);
- credentials: every vehicle, rider and driver of an offered sheet has one in force;
- accounts: at least one active agent and one supervisor (admins sign in here already),
  created on /municipio/contas (or `flask users create`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal

from sqlalchemy import func, select

from inspector import audit, credentials, rules
from inspector.clock import town_day
from inspector.errors import ValidationFailed
from inspector.extensions import db
from inspector.laws import fiscal_unit_of
from inspector.models import (
    DatedValue,
    DecreeValue,
    Municipality,
    Role,
    Stand,
    TownCalendarYear,
    User,
    Vehicle,
)
from inspector.registry import FISCAL_UNIT_KEY, Fields, parse_amount
from inspector.rules import brl

DATED_KINDS = {"fiscal_unit": "valor da unidade fiscal em R$", "minimum_wage": "salário mínimo"}
ROLE_WORDS = {Role.AGENT: "agente", Role.SUPERVISOR: "supervisor(a)", Role.ADMIN: "administrador(a)"}


@dataclass(frozen=True)
class Step:
    """One thing the town needs, done or not, and where it is fixed."""

    key: str
    title: str
    done: bool
    detail: str
    fix: str | None = None          # endpoint of the page that fixes it
    anchor: str = ""                # a section of that page
    command: str | None = None      # where no page does it: the command to run
    needed: bool = True             # False: this town's laws do not ask for it
    blocks: str = ""                # while not done: what stays incomplete without it


@dataclass
class Setup:
    """The town's steps, in the order an admin would do them."""

    town: Municipality
    on: date
    steps: list[Step] = field(default_factory=list)

    @property
    def missing(self) -> list[Step]:
        """The steps still to do."""
        return [s for s in self.steps if s.needed and not s.done]


def _measures(pack):
    for step in pack.ladder:
        yield from step.measures
        if step.on_missed_deadline:
            yield step.on_missed_deadline
    for offence in pack.offences:
        yield from offence.measures


def _units_used(packs) -> set[str]:
    """The units the town's laws count fines or decree values in."""
    out = {m.fine.unit for p in packs for m in _measures(p) if m.fine and m.fine.unit}
    return out | {d.unit for p in packs for d in p.decree}


def _laws_step(town, packs, on) -> Step:
    if not packs:
        return Step("laws", "Leis do município", False,
                    f"Nenhum pacote de regras do município '{town.slug}' está carregado: sem "
                    "ele não há checklist nem sanção, e os QR dos passageiros mostram "
                    "\"Verificação indisponível\". Restaure a pasta de leis (RULES_EXTRA_DIR) "
                    "do backup ou veja docs/adding-a-town.md.",
                    command="flask --app inspector rules validate PASTA",
                    blocks="sem as regras, o aplicativo de campo não tem checklist e nenhuma "
                           "sanção é proposta")
    in_force = [p for p in packs if p.span.covers(on)]
    text = "; ".join(f"{p.law} ({'táxi' if p.service == 'taxi' else 'moto-táxi'})"
                     for p in in_force)
    return Step("laws", "Leis do município", bool(in_force),
                f"Em vigor hoje: {text}." if in_force else
                "Nenhuma das leis carregadas está em vigor hoje.", fix="laws.index",
                blocks="sem lei em vigor hoje, não há checklist nem sanção para hoje")


def _dated_step(town, kind, unit, packs, on) -> Step:
    label = DATED_KINDS[kind]
    title = f"Valor da {unit} em reais" if kind == "fiscal_unit" else "Salário mínimo"
    if unit not in _units_used(packs):
        return Step(kind, title, True, "As leis do município não contam valores nesta unidade.",
                    needed=False)
    rows = [v for v in town.dated_values if v.kind == kind and v.valid_from <= on]
    decree = kind == "fiscal_unit" and db.session.scalar(
        select(func.count(DecreeValue.id)).where(DecreeValue.municipality_id == town.id,
                                                 DecreeValue.key == FISCAL_UNIT_KEY,
                                                 DecreeValue.valid_from <= on))
    if decree:
        return Step(kind, title, True, "Fixado por decreto (Conformidade).", fix="laws.compliance",
                    anchor="decretos")
    by_decree = kind == "fiscal_unit" and any(d.key == FISCAL_UNIT_KEY
                                               for p in packs for d in p.decree)
    counted = "em salários mínimos" if kind == "minimum_wage" else f"em {unit}"
    if not rows:
        return Step(kind, title, False, f"Sem {label}: as multas contadas {counted} ficam "
                    "\"não definidas\" até que seja informado"
                    + (" (a lei o deixa a decreto)." if by_decree else "."),
                    fix="laws.compliance" if by_decree else "towns.setup",
                    anchor="decretos" if by_decree else "valores",
                    blocks=f"as multas contadas {counted} ficam sem valor em reais")
    last = rows[-1]
    if kind == "minimum_wage" and last.valid_from.year < on.year:
        return Step(kind, title, False, f"O último valor é de {last.valid_from:%d/%m/%Y} "
                    f"({brl(last.value_brl)}): informe o de {on.year}.", fix="towns.setup",
                    anchor="valores",
                    blocks=f"as multas contadas {counted} usam o valor de "
                           f"{last.valid_from.year}")
    return Step(kind, title, True, f"{brl(last.value_brl)} desde {last.valid_from:%d/%m/%Y} "
                f"({last.source or 'sem fonte'}).", fix="towns.setup", anchor="valores")


def _decree_step(town, packs) -> Step:
    keys = {d.key: d.label for p in packs for d in p.decree if d.key != FISCAL_UNIT_KEY}
    if not keys:
        return Step("decree", "Valores fixados por decreto", True,
                    "As leis do município não deixam valores a decreto.", needed=False)
    set_keys = set(db.session.scalars(select(DecreeValue.key).where(
        DecreeValue.municipality_id == town.id)))
    missing = [label for key, label in sorted(keys.items()) if key not in set_keys]
    return Step("decree", "Valores fixados por decreto", not missing,
                ("Faltam: " + "; ".join(missing) + ".") if missing else
                f"Os {len(keys)} valores estão fixados.", fix="laws.compliance",
                anchor="decretos",
                blocks="as sanções que dependem desses valores ficam \"não definidas\"")


def _stands_step(town, packs) -> Step:
    if not any(p.service == "taxi" for p in packs):
        return Step("stands", "Pontos de estacionamento", True,
                    "Só a lei de táxi distribui os carros por pontos.", needed=False)
    n = db.session.scalar(select(func.count(Stand.id)).where(Stand.municipality_id == town.id))
    return Step("stands", "Pontos de estacionamento", n > 0,
                f"{n} ponto(s) cadastrado(s)." if n else
                "Nenhum ponto cadastrado: a lei de táxi fixa os pontos e o alvará de "
                "estacionamento indica o de cada carro.", fix="registry.stand_new",
                blocks="os alvarás de estacionamento não podem indicar o ponto de cada carro")


def _calendar_step(town, on) -> Step:
    title = "Calendário de feriados e pontos facultativos do município"
    entered = db.session.scalar(select(func.count(TownCalendarYear.id)).where(
        TownCalendarYear.municipality_id == town.id, TownCalendarYear.year == on.year))
    return Step("calendar", title, bool(entered),
                f"O ano de {on.year} está registrado." if entered else
                f"O ano de {on.year} não foi registrado: sem os feriados municipais e os pontos "
                "facultativos por decreto, um prazo que cai num deles não é contado com "
                "certeza.", fix="laws.calendar",
                blocks="um prazo que passa por um feriado ou ponto facultativo do município "
                       "não é contado com certeza")


def _registry_step(town) -> Step:
    n = db.session.scalar(select(func.count(Vehicle.id)).where(Vehicle.municipality_id == town.id))
    return Step("registry", "Cadastro da frota", n > 0,
                f"{n} veículo(s) cadastrado(s)." if n else
                "Nenhum veículo cadastrado: importe a planilha ou cadastre um a um.",
                fix="imports.upload",
                blocks="as vistorias não encontram os veículos nem os condutores no cadastro")


def _credentials_step(town) -> Step:
    lacking, total = 0, 0
    for sheet in credentials.offered_sheets(town.id):
        total += len(credentials.eligible_subjects(town.id, sheet))
        lacking += len(credentials.missing_subjects(town.id, sheet))
    return Step("credentials", "Credenciais QR", total > 0 and lacking == 0,
                "Nada a credenciar ainda: cadastre a frota primeiro." if total == 0 else
                f"{lacking} de {total} sem credencial em vigor." if lacking else
                f"Todos os {total} têm credencial em vigor.", fix="credentials.index",
                blocks="não há credencial QR a conferir na rua" if total == 0 else
                f"{lacking} de {total} não podem ser conferidos pelo QR na rua")


def _accounts_step(town) -> Step:
    rows = dict(db.session.execute(select(User.role, func.count(User.id)).where(
        User.municipality_id == town.id, User.active.is_(True)).group_by(User.role)).all())
    counts = "; ".join(f"{ROLE_WORDS[r]}: {rows.get(r, 0)}" for r in Role)
    lacking = [ROLE_WORDS[r] for r in (Role.AGENT, Role.SUPERVISOR) if not rows.get(r)]
    without = {Role.AGENT: "ninguém fiscaliza com o aplicativo de campo",
               Role.SUPERVISOR: "a revisão dos atos propostos fica só com a administração"}
    return Step("accounts", "Contas por perfil", not lacking,
                f"{counts}." + (f" Falta ao menos um(a) {' e um(a) '.join(lacking)}."
                                if lacking else ""),
                fix="towns.accounts",
                command=f"flask --app inspector users create --town {town.slug} --role agent "
                        "--username NOME --name 'Nome Completo'",
                blocks="; ".join(text for r, text in without.items() if not rows.get(r)))


def setup_of(town: Municipality, on: date | None = None) -> Setup:
    """Every step of the town's setup on a day (today on the town's clock by default)."""
    on = on or town_day(town)
    packs = rules.packs_for_town(town.slug)
    unit = fiscal_unit_of(town)
    return Setup(town, on, [
        _laws_step(town, packs, on),
        _dated_step(town, "fiscal_unit", unit, packs, on),
        _dated_step(town, "minimum_wage", "minimum_wage", packs, on),
        _decree_step(town, packs),
        _stands_step(town, packs),
        _calendar_step(town, on),
        _registry_step(town),
        _credentials_step(town),
        _accounts_step(town),
    ])


def set_dated_value(town: Municipality, data, actor) -> DatedValue:
    """Record the fiscal unit's value or the minimum wage from a date, with its source (the
    caller commits); the same kind and date again corrects it. Audited."""
    f = Fields(data)
    kind = f.text("kind", max_len=20)
    if kind and kind not in DATED_KINDS:
        f.fail("kind", "escolha unidade fiscal ou salário mínimo")
    raw = f.text("value", max_len=40)
    value = parse_amount(raw) if raw else None
    if raw and (value is None or value <= 0 or value >= Decimal("10000000000")):
        f.fail("value", f"valor inválido: {raw!r} (use por exemplo 1.621,00)")
    elif value is not None and value != value.quantize(Decimal("0.01")):
        f.fail("value", "use no máximo duas casas decimais")
    valid_from = f.date("valid_from")
    source = f.text("source", max_len=300)
    if f.errors:
        raise ValidationFailed(f.errors)
    row = db.session.scalar(select(DatedValue).where(
        DatedValue.municipality_id == town.id, DatedValue.kind == kind,
        DatedValue.valid_from == valid_from))
    before = audit.snapshot(row) if row is not None else None
    if row is None:
        row = DatedValue(municipality_id=town.id, kind=kind, valid_from=valid_from)
        db.session.add(row)
    row.value_brl, row.source = value.quantize(Decimal("0.01")), source
    db.session.flush()
    db.session.refresh(town, ["dated_values"])
    audit.record("dated_value_corrected" if before else "dated_value_created", "dated_value",
                 row.id, before=before, after=audit.snapshot(row), actor=actor,
                 municipality_id=town.id)
    return row


# The longest side a photo is kept at on the phone (None: the camera's bytes, untouched), and
# the JPEG quality bounds. 1600 px at quality 85 is the measured default (docs/figures.md,
# bench/photo_size.py): the smallest choice at which a plate photographed with the whole
# vehicle keeps its characters at least 20 px tall and a 1 mm crack keeps half its contrast.
PHOTO_SIDES = {1280: "1280 px", 1600: "1600 px (padrão)", 2048: "2048 px",
               None: "original (sem redução)"}
DEFAULT_PHOTO_SIDE, DEFAULT_PHOTO_QUALITY = 1600, 85
PHOTO_QUALITY_MIN, PHOTO_QUALITY_MAX = 50, 95


def photo_setting(town: Municipality) -> dict:
    """What the phone needs to keep a photo at the town's size (the snapshot's town.photo)."""
    return {"max_side": town.photo_max_side, "quality": town.photo_quality}


def set_photo_size(town: Municipality, data, actor) -> None:
    """Set the size and JPEG quality the field app keeps photos at (the caller commits).
    Audited; the audit entry also moves the town's snapshot version, so phones get it at
    their next refresh."""
    f = Fields(data)
    raw = f.raw("max_side")
    # isascii: "²" is a digit to str.isdigit but not to int()
    side = None if raw == "original" else (
        int(raw) if raw.isascii() and raw.isdigit() and len(raw) < 6 else -1)
    if side not in PHOTO_SIDES:
        f.fail("max_side", "escolha 1280, 1600, 2048 px ou original")
    quality = f.integer("quality", lo=PHOTO_QUALITY_MIN, hi=PHOTO_QUALITY_MAX,
                        what="qualidade JPEG")
    if f.errors:
        raise ValidationFailed(f.errors)
    before = photo_setting(town)
    town.photo_max_side, town.photo_quality = side, quality
    db.session.flush()
    audit.record("photo_size_set", "municipality", town.id, before=before,
                 after=photo_setting(town), actor=actor, municipality_id=town.id)
