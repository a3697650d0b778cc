"""Payments of fines, as the town's treasury reports them (the treasury is outside the app):
the day, the amount in BRL and the DAM or receipt number, recorded by a supervisor or an
admin. A fine is "quitada", "paga parcialmente" or "em aberto" against what is due: the
fixed amount in BRL on its day, or, for a daily fine, what accrued until now (or until the
re-inspection that found the defect fixed). A payment does not stop a daily fine: only the
fix does (Tapurah Art. 29 § ú: "caso não sejam cumpridas as providências").

A payment is never deleted or edited: one recorded by mistake is reversed ("estorno") by a
supervisor or an admin of the town, with a reason; it stays in the fine's history, no longer
counts, and its DAM/receipt number may be recorded again.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal, InvalidOperation

from sqlalchemy import and_, case, func, or_, select, update
from sqlalchemy.orm import selectinload

from inspector import audit
from inspector.clock import town_day, utc
from inspector.enforcement import lifecycle
from inspector.enforcement.common import NotAllowed, clean_text, event, require_role, town_of
from inspector.errors import ValidationFailed
from inspector.extensions import db, insert_once
from inspector.models import (
    VOID,
    Fine,
    FinePayment,
    Role,
    Sanction,
)
from inspector.rules import brl, fmt_date

PAYMENT_STATES = {"open": "em aberto", "partial": "paga parcialmente", "paid": "quitada",
          "void": "anulada", "undefined": "valor em reais não definido",
          "none": "nada a pagar"}
RUNNING_NOTE = ("A multa diária continua correndo, dia a dia, até que nova vistoria constate "
                "o reparo; registrar um pagamento não interrompe a contagem.")
_RECEIPT = re.compile(r"^[A-Z0-9][A-Z0-9./\-]{2,39}$")
_THOUSANDS = re.compile(r"^\d{1,3}(\.\d{3})+(,\d+)?$")
CENT = Decimal("0.01")
MAX_BRL = Decimal("999999999999.99")


@dataclass(frozen=True)
class Balance:
    """What is due on a fine, what was paid, and its state in pt-BR."""

    fine: Fine
    act: Sanction
    due: Decimal | None        # BRL due now; None: "não definido"
    paid: Decimal
    state: str                 # open | partial | paid | void | undefined | none
    running: bool              # a daily fine still accruing

    @property
    def label(self) -> str:
        """"quitada", "paga parcialmente", "em aberto"..."""
        return PAYMENT_STATES[self.state]

    @property
    def note(self) -> str:
        """What a payment does not do to a daily fine still running (else "")."""
        return RUNNING_NOTE if self.running else ""

    @property
    def outstanding(self) -> Decimal | None:
        """What is still to pay (None when the amount due is not defined)."""
        if self.due is None:
            return None
        return max(self.due - self.paid, Decimal("0.00"))

    @property
    def text(self) -> str:
        """One pt-BR line: state, paid and due."""
        if self.state == "void":
            return "anulada" + (f" (pagos {brl(self.paid)}: a restituir pela Fazenda)"
                                if self.paid else "")
        if self.due is None:
            return (f"valor em reais não definido; pagos {brl(self.paid)}" if self.paid
                    else "em aberto (valor em reais não definido)")
        if self.state == "paid":
            return f"quitada ({brl(self.paid)} de {brl(self.due)})"
        if self.state == "partial":
            return (f"paga parcialmente: {brl(self.paid)} de {brl(self.due)}, "
                    f"faltam {brl(self.outstanding)}")
        if self.state == "none":
            return "nada a pagar"
        return f"em aberto: {brl(self.due)}"


def due_of(per: str | None, amount_brl: Decimal | None,
           accrued_brl: Decimal | None) -> Decimal | None:
    """What a fine asks: the accrued total of a daily fine, else its amount (None: not set)."""
    return accrued_brl if per == "day" else amount_brl


def payment_state(due: Decimal | None, paid: Decimal) -> str:
    """What a fine's payments say, its act not void: undefined (no value in reais), none (nothing
    to pay), paid, partial or open."""
    if due is None:
        return "undefined"
    if due <= 0:
        return "none"
    if paid >= due:
        return "paid"
    return "partial" if paid > 0 else "open"


def _due(fine: Fine) -> Decimal | None:
    return due_of(fine.per, fine.amount_brl, fine.accrued_brl)


def balance(fine: Fine, paid: Decimal | None = None) -> Balance:
    """The balance of a fine (`paid`: the sum of its payments when already known)."""
    act = fine.sanction
    if paid is None:
        paid = sum((p.amount_brl for p in fine.payments if p.reversed_at is None),
                   Decimal("0"))
    paid = Decimal(str(paid)).quantize(CENT)
    due = _due(fine)
    running = fine.per == "day" and fine.stopped_at is None and act.status not in VOID
    state = "void" if act.status in VOID else payment_state(due, paid)
    return Balance(fine, act, due, paid, state, running)


def balance_of(act: Sanction) -> Balance | None:
    """The balance of an act's fine (None when it has no fine)."""
    return balance(act.fine) if act.fine is not None else None


# --- parsing what was typed -------------------------------------------------------------------
def parse_brl(raw) -> Decimal:
    """"1.234,56", "1234,56" or "1234.56" as a Decimal; ValueError with a pt-BR reason."""
    if isinstance(raw, Decimal):
        text = str(raw)
    else:
        text = str(raw or "").strip().replace("R$", "").replace(" ", "")
    if not text:
        raise ValueError("Informe o valor pago, em reais.")
    if text.startswith("-"):
        raise ValueError("O valor pago não pode ser negativo.")
    if "," in text or _THOUSANDS.match(text):
        text = text.replace(".", "").replace(",", ".")
    try:
        value = Decimal(text)
    except InvalidOperation:
        raise ValueError("Valor inválido: use números, por exemplo 1.234,56.") from None
    if not value.is_finite():
        raise ValueError("Valor inválido: use números, por exemplo 1.234,56.")
    if value <= 0:
        raise ValueError("O valor pago deve ser maior que zero.")
    if value != value.quantize(CENT):
        raise ValueError("Use no máximo dois decimais (centavos).")
    if value > MAX_BRL:
        raise ValueError("Valor alto demais: confira o número.")
    return value.quantize(CENT)


def parse_day(raw) -> date:
    """2026-03-05 (form date field) or 05/03/2026; ValueError with a pt-BR reason."""
    if isinstance(raw, date):
        return raw
    text = str(raw or "").strip()
    if not text:
        raise ValueError("Informe a data do pagamento.")
    try:
        if re.fullmatch(r"\d{2}/\d{2}/\d{4}", text):
            d, m, y = text.split("/")
            return date(int(y), int(m), int(d))
        return date.fromisoformat(text)
    except ValueError:
        raise ValueError("Data inválida: use dd/mm/aaaa.") from None


def _receipt(raw) -> str:
    text = re.sub(r"\s+", "", str(raw or "")).upper()
    if not text:
        raise ValueError("Informe o número do DAM ou do recibo.")
    if not _RECEIPT.match(text):
        raise ValueError("Número do DAM/recibo inválido: de 3 a 40 letras ou números "
                         "(pode ter ponto, barra e hífen).")
    return text



# --- what counts as paid ---------------------------------------------------------------------
NOT_REVERSED = FinePayment.reversed_at.is_(None)  # a payment counts until it is reversed


def paid_so_far():
    """What the fine's payments add up to, not counting reversed ones: a scalar subquery
    correlated to Fine (0 when nothing was paid)."""
    return (select(func.coalesce(func.sum(FinePayment.amount_brl), 0))
            .where(FinePayment.fine_id == Fine.id, NOT_REVERSED)
            .correlate(Fine).scalar_subquery())


# --- recording a payment ----------------------------------------------------------------------
def _first_day(act: Sanction, fine: Fine) -> date:
    """The first day a payment can be for: the day the fine was decided (or started)."""
    moments = [m for m in (fine.daily_start_at, act.decided_at, act.notified_at) if m]
    return min(town_day(town_of(act), m) for m in moments) if moments else fine.value_on


def record_payment(act: Sanction, user, now: datetime, *, paid_on, amount,
                   receipt) -> FinePayment:
    """Record a payment of the act's fine (supervisor or admin); ValidationFailed naming each
    field that will not do, and nothing written."""
    require_role(user, Role.SUPERVISOR, Role.ADMIN,
                 message="Só a supervisão ou a administração registram pagamentos de multas.")
    if act.fine is None:
        raise ValidationFailed({"status": "Este ato não tem multa a pagar."})
    # one payment at a time per fine (SQLite too: the lock is an UPDATE), read after the others
    lifecycle.lock(act.fine)
    fine = db.session.scalar(select(Fine).where(Fine.id == act.fine.id)
                             .with_for_update().execution_options(populate_existing=True))
    db.session.refresh(act, ["status"])
    if act.status in VOID:
        raise ValidationFailed({"status": f"Não há o que pagar: a multa está "
                                          f"“{act.status_label.lower()}”."})
    errors: dict[str, str] = {}
    values = {}
    for field, parse, raw in (("paid_on", parse_day, paid_on), ("amount", parse_brl, amount),
                              ("receipt", _receipt, receipt)):
        try:
            values[field] = parse(raw)
        except ValueError as e:
            errors[field] = str(e)
    today, first = town_day(town_of(act), now), _first_day(act, fine)
    day = values.get("paid_on")
    if day is not None and day > today:
        errors["paid_on"] = "A data do pagamento não pode ser futura."
    elif day is not None and day < first:
        errors["paid_on"] = (f"A data do pagamento não pode ser anterior à multa "
                             f"({fmt_date(first)}).")
    before = balance(fine)
    value = values.get("amount")
    if before.state == "paid":
        errors["amount"] = f"Esta multa já está quitada ({brl(before.paid)} pagos)."
    elif value is not None and before.outstanding is not None and value > before.outstanding:
        errors["amount"] = (f"O valor passa do saldo devedor ({brl(before.outstanding)}). "
                            "Juros ou correção cobrados pela Fazenda não entram aqui: "
                            "registre só o valor da multa.")
    number = values.get("receipt")
    if number is not None:
        other = db.session.scalar(select(Sanction.id).join(Fine, Fine.sanction_id == Sanction.id)
                                  .join(FinePayment, FinePayment.fine_id == Fine.id)
                                  .where(FinePayment.municipality_id == act.municipality_id,
                                         FinePayment.receipt == number,
                                         NOT_REVERSED))
        if other is not None:
            errors["receipt"] = f"O DAM/recibo {number} já foi registrado (ato nº {other})."
    if errors:
        raise ValidationFailed(errors)
    payment = FinePayment(municipality_id=act.municipality_id, fine_id=fine.id, paid_on=day,
                          amount_brl=value, receipt=number, recorded_at=utc(now),
                          recorded_by_id=user.id)
    if not insert_once(payment):  # the same DAM recorded at the same moment by someone else
        raise ValidationFailed({"receipt": f"O DAM/recibo {number} já foi registrado."}) from None
    db.session.expire(fine, ["payments"])
    after = balance(fine)
    audit.record("fine_payment_recorded", "fine", fine.id, actor=user,
                 municipality_id=act.municipality_id,
                 before={"paid_brl": before.paid, "state": before.state},
                 after={"payment_id": payment.id, "sanction_id": act.id, "paid_on": day,
                        "amount_brl": value, "receipt": number, "paid_brl": after.paid,
                        "due_brl": after.due, "state": after.state})
    event("payment_recorded", town_id=act.municipality_id, now=now, actor=user, act=act,
          message=f"Pagamento registrado: {brl(value)} em {fmt_date(day)} (DAM/recibo {number}). "
                  f"Multa {after.text}.",
          data={"payment_id": payment.id, "state": after.state})
    return payment


# --- reversing a payment recorded by mistake ----------------------------------------------------
class AlreadyReversed(ValidationFailed):
    """The payment was reversed before: nothing to do (HTTP 409)."""


def reversal_text(payment: FinePayment) -> str:
    """"estornado em dd/mm/aaaa por Nome: motivo" ("" when the payment stands)."""
    if payment.reversed_at is None:
        return ""
    who = payment.reversed_by.name if payment.reversed_by is not None else "?"
    return (f"estornado em {fmt_date(town_day(town_of(payment), payment.reversed_at))} por {who}: "
            f"{payment.reversal_reason}")


def reverse_payment(payment: FinePayment, user, now: datetime, *, reason) -> FinePayment:
    """Reverse (estornar) a payment recorded by mistake (supervisor or admin of its town, with
    a reason): it stays in the history and stops counting; the fine's state is recomputed.
    NotAllowed, AlreadyReversed or ValidationFailed with nothing written."""
    require_role(user, Role.SUPERVISOR, Role.ADMIN,
                 message="Só a supervisão ou a administração estornam pagamentos de multas.")
    if getattr(user, "municipality_id", None) != payment.municipality_id:
        raise NotAllowed({"role": "Este pagamento é de outro município."})
    lifecycle.lock(payment.fine)
    fine = db.session.scalar(select(Fine).where(Fine.id == payment.fine_id)
                             .with_for_update().execution_options(populate_existing=True))
    db.session.refresh(payment)
    if payment.reversed_at is not None:
        raise AlreadyReversed({"status": f"Este pagamento já foi "
                                          f"{reversal_text(payment).rstrip('.')}."})
    why = clean_text(reason, "reason", minimum=5, maximum=1000, what="o motivo do estorno")
    act = fine.sanction
    before = balance(fine)
    moment = utc(now)
    done = db.session.execute(
        update(FinePayment).where(FinePayment.id == payment.id, NOT_REVERSED)
        .values(reversed_at=moment, reversed_by_id=user.id, reversal_reason=why)
        .execution_options(synchronize_session=False))
    if done.rowcount != 1:   # reversed by someone else at the same moment
        raise AlreadyReversed({"status": "Este pagamento já foi estornado."})
    db.session.refresh(payment)
    db.session.expire(fine, ["payments"])
    after = balance(fine)
    day, value, number = payment.paid_on, payment.amount_brl, payment.receipt
    audit.record("fine_payment_reversed", "fine", fine.id, actor=user,
                 municipality_id=payment.municipality_id,
                 before={"payment_id": payment.id, "paid_brl": before.paid,
                         "state": before.state},
                 after={"payment_id": payment.id, "sanction_id": act.id, "paid_on": day,
                        "amount_brl": value, "receipt": number, "reversed_at": moment,
                        "reason": why, "paid_brl": after.paid, "due_brl": after.due,
                        "state": after.state})
    event("payment_reversed", town_id=payment.municipality_id, now=now, actor=user, act=act,
          message=f"Pagamento estornado: {brl(value)} em {fmt_date(day)} (DAM/recibo {number}). "
                  f"Motivo: {why.rstrip('.')}. Multa {after.text}.",
          data={"payment_id": payment.id, "state": after.state})
    return payment


# --- the supervisor's list ------------------------------------------------------------------
def open_fines(town_id: int, *, page: int = 1, per_page: int = 50
               ) -> tuple[list[Balance], bool]:
    """The town's fines not yet paid in full (em aberto, paga parcialmente, or with no BRL
    value), oldest first, a page at a time."""
    paid = paid_so_far()
    due = case((Fine.per == "day", Fine.accrued_brl), else_=Fine.amount_brl)
    q = (select(Fine, paid.label("paid")).join(Sanction, Sanction.id == Fine.sanction_id)
         .where(Fine.municipality_id == town_id, Sanction.status.not_in(VOID),
                or_(due.is_(None), and_(due > 0, paid < due)))
         .options(selectinload(Fine.sanction).selectinload(Sanction.notice),
                  selectinload(Fine.sanction).selectinload(Sanction.vehicle),
                  selectinload(Fine.sanction).selectinload(Sanction.holder))
         .order_by(Fine.value_on, Fine.id)
         .limit(per_page + 1).offset((max(page, 1) - 1) * per_page))
    rows = db.session.execute(q).all()
    return [balance(f, p) for f, p in rows[:per_page]], len(rows) > per_page


__all__ = ["AlreadyReversed", "Balance", "RUNNING_NOTE", "PAYMENT_STATES", "balance", "balance_of",
           "open_fines", "parse_brl", "parse_day", "record_payment", "reversal_text",
           "reverse_payment"]
