"""The town's lists as rows for a spreadsheet: inspections (one row per
checklist answer, with its law and article), acts, fines, payments, the registry and the
credentials. Each dataset takes the filters of the screen it mirrors (the review queue, the
acts list, the dashboard's period) and yields its rows from a server-side cursor, a batch at
a time. Nothing personal beyond what a supervisor reads on those screens: no CPF of a
driver, no address, no access code, no token."""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from sqlalchemy import case, func, select
from sqlalchemy.orm import aliased

from inspector import clock, laws
from inspector.enforcement import LIST_GROUPS, paid_so_far
from inspector.extensions import db
from inspector.identifiers import format_cnpj, format_cpf
from inspector.models import (
    DECIDED,
    KIND_LABELS,
    STATUS_LABELS,
    VOID,
    Credential,
    Driver,
    Fine,
    FinePayment,
    Holder,
    Inspection,
    InspectionItem,
    InspectionStatus,
    ItemResult,
    Licence,
    Municipality,
    Notice,
    Permit,
    Sanction,
    SanctionStatus,
    Stand,
    User,
    Vehicle,
    Vistoria,
    vehicle_drivers,
)
from inspector.stats.period import Period
from inspector.stats.sql import within

BATCH = 1000
RESULTS = {"ok": "conforme", "fail": "não conforme", "na": "não se aplica"}
SERVICES = {"taxi": "táxi", "mototaxi": "mototáxi"}
TARGETS = {"driver": "Condutor", "registration": "Registro do condutor", "holder": "Titular",
           "company": "Empresa", "permit": "Permissão / autorização", "licence": "Alvará",
           "vehicle": "Veículo"}


@dataclass
class ExportFilters:
    """What the screens filter by: the period (de/ate), an agent, a status, a kind, an item."""

    period: Period | None = None
    agent_id: int | None = None
    status: str = ""
    kind: str = ""
    item: str = ""
    holder_id: int | None = None
    driver_id: int | None = None
    extra: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Dataset:
    """A sheet: its name, header and rows."""

    name: str
    header: list[str]
    rows: Iterator[list]


def _v(value):
    """An enum's value, or the value."""
    return getattr(value, "value", value)


def _cited(value: dict | None) -> tuple[str, str]:
    if not isinstance(value, dict):
        return "", ""
    return str(value.get("law") or ""), str(value.get("article") or "")


def _range(column, period: Period | None, town_id: int) -> list:
    return [] if period is None else within(column, period, town_id)


def _stream(query) -> Iterator:
    return db.session.execute(query.execution_options(yield_per=BATCH))


def _tax_id(value: str) -> str:
    return format_cpf(value) if len(value or "") == 11 else format_cnpj(value) if value else ""


# --- inspections ---------------------------------------------------------------------------------
def inspections(town_id: int, f: ExportFilters) -> Dataset:
    """One row per checklist answer of the inspections the review queue lists for the same
    filters (finishing day, agent, status, a failed item), oldest first."""
    q = (select(Inspection.id, Inspection.finished_at, User.name, Vehicle.prefix, Vehicle.plate,
                Inspection.service, Inspection.status, InspectionItem.position,
                InspectionItem.item_id, InspectionItem.label, InspectionItem.result,
                InspectionItem.note, InspectionItem.citation)
         .join(InspectionItem, InspectionItem.inspection_id == Inspection.id)
         .join(User, User.id == Inspection.agent_id)
         .join(Vehicle, Vehicle.id == Inspection.vehicle_id)
         .where(Inspection.municipality_id == town_id, *_range(Inspection.finished_at, f.period, town_id)))
    if f.agent_id:
        q = q.where(Inspection.agent_id == f.agent_id)
    if f.status in {s.value for s in InspectionStatus}:
        q = q.where(Inspection.status == InspectionStatus(f.status))
    if f.item:
        failed = aliased(InspectionItem)
        q = q.where(Inspection.failed_items > 0, select(failed.id).where(
            failed.inspection_id == Inspection.id, failed.result == ItemResult.FAIL,
            failed.item_id == f.item).exists())
    q = q.order_by(Inspection.finished_at, Inspection.id, InspectionItem.position)
    header = ["Vistoria nº", "Concluída em", "Agente", "Prefixo", "Placa", "Serviço",
              "Situação da vistoria", "Item", "Descrição do item", "Resultado", "Observação",
              "Lei", "Artigo"]

    def rows():
        for r in _stream(q):
            law, article = _cited(r.citation)
            yield [r.id, r.finished_at, r.name, r.prefix, r.plate, SERVICES.get(_v(r.service)),
                   InspectionStatus(_v(r.status)).label, r.item_id, r.label or "",
                   RESULTS.get(_v(r.result), _v(r.result)), r.note, law, article]
    return Dataset("Vistorias", header, rows())


# --- acts ----------------------------------------------------------------------------------------
def acts_filter(q, f: ExportFilters, town_id: int):
    """The acts list's filters (/revisao/atos): status or group, kind, holder, driver, day
    proposed."""
    if f.status == "awaiting_delivery":
        q = q.where(Sanction.awaiting_delivery)
    elif f.status == "awaiting_mayor":
        q = q.where(Sanction.status == SanctionStatus.PROPOSED, Sanction.awaiting_mayor.is_(True))
    elif f.status in LIST_GROUPS:
        q = q.where(Sanction.status.in_(LIST_GROUPS[f.status][1]))
    elif f.status in {s.value for s in SanctionStatus}:
        q = q.where(Sanction.status == SanctionStatus(f.status))
    if f.kind in KIND_LABELS:
        q = q.where(Sanction.kind == f.kind)
    if f.holder_id is not None:
        q = q.where(Sanction.holder_id == f.holder_id)
    if f.driver_id is not None:
        q = q.where(Sanction.driver_id == f.driver_id)
    return q.where(*_range(Sanction.proposed_at, f.period, town_id))


def acts(town_id: int, f: ExportFilters) -> Dataset:
    """One row per act the acts list shows for the same filters, oldest first."""
    q = acts_filter(
        select(Sanction.id, Notice.number, Sanction.kind, Sanction.status, Sanction.awaiting_mayor,
               Sanction.notified_at, Sanction.decided_at, Sanction.law, Sanction.label,
               Sanction.breach_citation, Sanction.citation, Sanction.target, Holder.name,
               Driver.name.label("driver"), Vehicle.plate, Vehicle.prefix, Sanction.amount_brl,
               Sanction.proposed_at, Sanction.deadline_at, Sanction.appeal_until)
        .outerjoin(Notice, Notice.sanction_id == Sanction.id)
        .outerjoin(Holder, Holder.id == Sanction.holder_id)
        .outerjoin(Driver, Driver.id == Sanction.driver_id)
        .outerjoin(Vehicle, Vehicle.id == Sanction.vehicle_id)
        .where(Sanction.municipality_id == town_id), f, town_id).order_by(Sanction.id)
    header = ["Ato nº", "Documento", "Tipo", "Situação", "Aguardando entrega", "Lei", "Artigo",
              "Descrição", "Contra", "Nome", "Placa", "Prefixo", "Valor (R$)", "Proposto em",
              "Decidido em", "Entregue em", "Prazo", "Recurso até"]

    def rows():
        for r in _stream(q):
            status = SanctionStatus(_v(r.status))
            law, article = _cited(r.breach_citation or r.citation)
            who = r.driver if r.target in ("driver", "registration") else \
                r.name if r.target in ("holder", "company", "permit") else r.plate
            waits = r.notified_at is None and r.decided_at is not None and \
                status in DECIDED
            label = "Aguarda decisão do prefeito" if status == SanctionStatus.PROPOSED and \
                r.awaiting_mayor else STATUS_LABELS[status.value]
            yield [r.id, r.number or "", KIND_LABELS.get(r.kind, r.kind), label, waits,
                   r.law or law, article, r.label, TARGETS.get(r.target, r.target), who or "",
                   r.plate or "", r.prefix or "", r.amount_brl, r.proposed_at, r.decided_at,
                   r.notified_at, r.deadline_at, r.appeal_until]
    return Dataset("Atos", header, rows())


# --- fines and payments --------------------------------------------------------------------------
def fines(town_id: int, f: ExportFilters) -> Dataset:
    """One row per fine or daily fine of the acts proposed in the period: due, paid (not
    reversed), balance and state, as the act's page shows them."""
    paid = paid_so_far()
    due = case((Fine.per == "day", Fine.accrued_brl), else_=Fine.amount_brl)
    q = (select(Sanction.id, Notice.number, Sanction.kind, Sanction.status, Sanction.proposed_at,
                Sanction.decided_at, Fine.value_on, Fine.per, Fine.accrued_days, due.label("due"),
                paid.label("paid"), Vehicle.plate, Holder.name)
         .join(Sanction, Sanction.id == Fine.sanction_id)
         .outerjoin(Notice, Notice.sanction_id == Sanction.id)
         .outerjoin(Vehicle, Vehicle.id == Sanction.vehicle_id)
         .outerjoin(Holder, Holder.id == Sanction.holder_id)
         .where(Fine.municipality_id == town_id, *_range(Sanction.proposed_at, f.period, town_id))
         .order_by(Sanction.id))
    header = ["Ato nº", "Documento", "Tipo", "Situação do ato", "Proposto em", "Decidido em",
              "Valor do dia", "Dias corridos (diária)", "Devido (R$)", "Pago (R$)",
              "Saldo (R$)", "Situação do pagamento", "Placa", "Titular"]

    def rows():
        from inspector.enforcement import PAYMENT_STATES, payment_state

        for r in _stream(q):
            status = SanctionStatus(_v(r.status))
            due_v, paid_v = r.due, r.paid or 0
            state = "void" if status in VOID else payment_state(due_v, paid_v)
            balance = None if due_v is None else max(due_v - paid_v, 0)
            yield [r.id, r.number or "", KIND_LABELS.get(r.kind, r.kind),
                   STATUS_LABELS[status.value], r.proposed_at, r.decided_at, r.value_on,
                   r.accrued_days if r.per == "day" else None, _dec(due_v), _dec(paid_v),
                   _dec(balance), PAYMENT_STATES[state], r.plate or "", r.name or ""]
    return Dataset("Multas", header, rows())


def _dec(value):
    from decimal import Decimal

    return None if value is None else Decimal(str(value)).quantize(Decimal("0.01"))


def payments(town_id: int, f: ExportFilters) -> Dataset:
    """One row per payment recorded for a day of the period (reversed ones too, marked),
    newest first, as /painel/pagamentos lists the ones that count."""
    q = (select(FinePayment.paid_on, FinePayment.amount_brl, FinePayment.receipt,
                FinePayment.recorded_at, FinePayment.reversed_at, FinePayment.reversal_reason,
                Sanction.id, Notice.number, Sanction.kind)
         .join(Fine, Fine.id == FinePayment.fine_id)
         .join(Sanction, Sanction.id == Fine.sanction_id)
         .outerjoin(Notice, Notice.sanction_id == Sanction.id)
         .where(FinePayment.municipality_id == town_id))
    if f.period is not None:
        q = q.where(FinePayment.paid_on >= f.period.first, FinePayment.paid_on <= f.period.last)
    q = q.order_by(FinePayment.paid_on.desc(), FinePayment.id.desc())
    header = ["Pago em", "Valor (R$)", "DAM / recibo", "Ato nº", "Documento", "Tipo",
              "Registrado em", "Estornado em", "Motivo do estorno"]

    def rows():
        for r in _stream(q):
            yield [r.paid_on, r.amount_brl, r.receipt, r.id, r.number or "",
                   KIND_LABELS.get(r.kind, r.kind), r.recorded_at, r.reversed_at,
                   r.reversal_reason or ""]
    return Dataset("Pagamentos", header, rows())


# --- registry and credentials --------------------------------------------------------------------
STATUS_WORDS = {"active": "ativo", "suspended": "suspenso", "revoked": "cassado"}

def registry(town_id: int, f: ExportFilters) -> Dataset:
    """One row per vehicle as the registry shows it today: holder, permit, newest licence,
    drivers (names), stand; `standing` (vehicle id -> status) adds today's situation."""
    newest = (select(func.max(Licence.id)).where(Licence.vehicle_id == Vehicle.id)
              .correlate(Vehicle).scalar_subquery())
    q = (select(Vehicle.id, Vehicle.prefix, Vehicle.plate, Vehicle.service, Vehicle.make_model,
                Vehicle.year_of_manufacture, Vehicle.manufactured_on, Vehicle.first_licensed_on,
                Vehicle.colour, Vehicle.last_vistoria_on, Holder.name, Holder.tax_id, Stand.code,
                Licence.number, Licence.valid_until, Licence.status, Permit.number.label("permit"))
         .join(Holder, Holder.id == Vehicle.holder_id)
         .outerjoin(Stand, Stand.id == Vehicle.stand_id)
         .outerjoin(Licence, Licence.id == newest)
         .outerjoin(Permit, Permit.id == Licence.permit_id)
         .where(Vehicle.municipality_id == town_id).order_by(Vehicle.prefix, Vehicle.plate))
    standing = f.extra.get("standing", {})
    # each document as it stands today, with the article of its cause (laws.standing): an
    # Alvará under a fallen permit is "sem efeito: permissão cassada (…, Art. 17)", not "active"
    today = f.extra.get("today") or clock.today(db.session.get(Municipality, town_id))
    documents = laws.town_standings(town_id, today)
    labels = {"regular": "regular", "irregular": "irregular", "suspended": "suspenso"}
    header = ["Prefixo", "Placa", "Serviço", "Marca/modelo", "Ano", "Data de fabricação",
              "1º licenciamento", "Cor", "Última vistoria",
              "Titular", "CPF/CNPJ do titular", "Permissão", "Situação da permissão", "Alvará",
              "Alvará válido até", "Situação do alvará", "Ponto", "Condutores", "Situação hoje",
              "Motivos (artigo)"]

    def doc(vehicle_id: int, kind: str, fallback: str = "") -> str:
        held = documents.get(vehicle_id)
        found = held.document(kind) if held is not None else None
        return found.text if found is not None else fallback

    def why(vehicle_id: int) -> str:
        held = documents.get(vehicle_id)
        if held is None:
            return ""
        return "; ".join(f"{r.message.rstrip('.')} ({r.law}, {r.article})" if r.article
                         else r.message.rstrip(".") for r in held.verdict.reasons)

    def rows():
        drivers: dict[int, list[str]] = {}
        for vid, name in db.session.execute(
                select(vehicle_drivers.c.vehicle_id, Driver.name)
                .join(Driver, Driver.id == vehicle_drivers.c.driver_id)
                .where(Driver.municipality_id == town_id).order_by(Driver.name)):
            drivers.setdefault(vid, []).append(name)
        for r in _stream(q):
            names = drivers.get(r.id, [])
            yield [r.prefix, r.plate, SERVICES.get(_v(r.service)), r.make_model,
                   r.year_of_manufacture, r.manufactured_on, r.first_licensed_on, r.colour,
                   r.last_vistoria_on, r.name, _tax_id(r.tax_id),
                   r.permit or "", doc(r.id, "permit"), r.number or "", r.valid_until,
                   doc(r.id, "licence", STATUS_WORDS.get(_v(r.status), "")),
                   r.code or "", ", ".join(names),
                   labels.get(standing.get(r.id, {}).get("status", ""), ""), why(r.id)]
    return Dataset("Cadastro", header, rows())


def credentials(town_id: int, f: ExportFilters) -> Dataset:
    """One row per QR credential issued: what it names, when issued, until when, its state
    today (the token itself is left out)."""
    q = (select(Credential.id, Credential.kind, Vehicle.prefix, Vehicle.plate,
                Driver.name, Credential.issued_at, Credential.expires_on, Credential.revoked_at,
                Credential.revoked_reason)
         .outerjoin(Vehicle, Vehicle.id == Credential.vehicle_id)
         .outerjoin(Driver, Driver.id == Credential.driver_id)
         .where(Credential.municipality_id == town_id).order_by(Credential.id))
    today = f.extra.get("today") or clock.today(db.session.get(Municipality, town_id))
    header = ["Credencial nº", "Tipo", "Prefixo", "Placa", "Condutor", "Emitida em",
              "Válida até", "Situação hoje", "Cancelada em", "Motivo do cancelamento"]

    def rows():
        for r in _stream(q):
            state = "cancelada" if r.revoked_at else "vencida" if today > r.expires_on else "ativa"
            yield [r.id, "veículo" if _v(r.kind) == "vehicle" else "condutor", r.prefix or "",
                   r.plate or "", r.name or "", r.issued_at, r.expires_on, state, r.revoked_at,
                   r.revoked_reason or ""]
    return Dataset("Credenciais", header, rows())


def law_vistorias(town_id: int, f: ExportFilters) -> Dataset:
    """One row per prior or periodic vistoria decided in the period (docs/vistoria.md): its
    result, validity or return day, what to fix with the articles, its certificate."""
    q = (select(Vistoria.id, Vistoria.kind, Vistoria.performed_on, User.name, Vehicle.prefix,
                Vehicle.plate, Vehicle.service, Vistoria.result, Vistoria.valid_until,
                Vistoria.shortened_reason, Vistoria.return_on, Vistoria.to_fix, Vistoria.law,
                Vistoria.article, Vistoria.certificate_number, Vistoria.revoked_at)
         .join(User, User.id == Vistoria.agent_id)
         .join(Vehicle, Vehicle.id == Vistoria.vehicle_id)
         .where(Vistoria.municipality_id == town_id))
    if f.period is not None:
        q = q.where(Vistoria.performed_on >= f.period.first, Vistoria.performed_on <= f.period.last)
    q = q.order_by(Vistoria.performed_on, Vistoria.id)
    header = ["Nº", "Tipo", "Realizada em", "Agente", "Prefixo", "Placa", "Serviço", "Resultado",
              "Válida até", "Motivo da validade reduzida", "Retorno até", "Corrigir (artigo)",
              "Lei", "Artigo", "Certificado nº", "Certificado cancelado em"]
    kinds = {"prior": "vistoria prévia", "periodic": "vistoria periódica"}
    results = {"approved": "aprovada", "rejected": "reprovada"}

    def rows():
        for r in _stream(q):
            fix = r.to_fix if isinstance(r.to_fix, list) else []  # a JSON column
            fixes = "; ".join(f"{x.get('label', '')} ({x.get('law', '')}, {x.get('article', '')})"
                              if x.get("article") else x.get("label", "") for x in fix)
            yield [r.id, kinds.get(_v(r.kind), _v(r.kind)), r.performed_on, r.name, r.prefix,
                   r.plate, SERVICES.get(_v(r.service)), results.get(_v(r.result), _v(r.result)),
                   r.valid_until, r.shortened_reason or "", r.return_on, fixes, r.law, r.article,
                   r.certificate_number or "", r.revoked_at]
    return Dataset("Vistorias prévias e periódicas", header, rows())


EXPORT_DATASETS = {"vistorias": inspections, "atos": acts, "multas": fines, "pagamentos": payments,
            "cadastro": registry, "credenciais": credentials,
            "vistorias-lei": law_vistorias}
__all__ = ["EXPORT_DATASETS", "Dataset", "ExportFilters", "acts_filter"]
