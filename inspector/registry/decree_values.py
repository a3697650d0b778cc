"""Set a value a law leaves to a decree (a fine amount, the UFM in reais) for one town.

Only keys the town's rule packs declare can be set; the value holds from its date until
the next one of the same key. Setting the same key and date again corrects it. Every
change is written to the audit log in the same transaction.
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from decimal import Decimal, InvalidOperation

from sqlalchemy import select

from inspector import audit, laws, rules
from inspector.errors import ValidationFailed
from inspector.extensions import db
from inspector.models import DecreeValue, Municipality
from inspector.registry.values import Fields
from inspector.rules import UNITS

UNIT_LABELS = {"BRL": "R$ (reais)", "UFM": "UFM", "UFIM": "UFIM",
               "minimum_wage": "salários mínimos"}
MAX_AMOUNT = Decimal("999999999999.99")  # Numeric(14, 2)
FISCAL_UNIT_KEY = "fiscal_unit.brl"  # the engine reads this key as reais per UFM/UFIM


@dataclass(frozen=True)
class DecreeKeyChoice:
    """A key the form offers: the pack's key, its label, its unit and the law's start."""

    key: str
    label: str
    unit: str
    law: str
    law_start: date


def key_choices(municipality: Municipality) -> list[DecreeKeyChoice]:
    """The decree keys of every law of the town (one entry per key, the oldest law's)."""
    out: dict[str, DecreeKeyChoice] = {}
    for pack in sorted(rules.packs_for_town(municipality.slug), key=lambda p: p.span.start):
        for d in pack.decree:
            out.setdefault(d.key, DecreeKeyChoice(d.key, d.label, d.unit, pack.law,
                                                  pack.span.start))
    return list(out.values())


def accepted_units(municipality: Municipality) -> dict[str, str]:
    """The units a decree value of this town may be given in: reais and the town's own
    fiscal unit (another town's UFM/UFIM has no value here)."""
    own = laws.fiscal_unit_of(municipality)
    return {"BRL": UNIT_LABELS["BRL"], own: UNIT_LABELS.get(own, own)}


def parse_amount(raw: str) -> Decimal | None:
    """'1.234,56', '1234,56' or '1234.56' -> Decimal; None when it is not a number."""
    raw = (raw or "").strip().replace(" ", "").removeprefix("R$")
    if not re.fullmatch(r"\d{1,3}(\.\d{3})+(,\d+)?|\d+([.,]\d+)?", raw):
        return None
    if "," in raw:
        raw = raw.replace(".", "").replace(",", ".")
    elif re.fullmatch(r"\d{1,3}(\.\d{3})+", raw):
        raw = raw.replace(".", "")  # 1.000 is a thousand in Brazil, not one
    try:
        return Decimal(raw)
    except InvalidOperation:
        return None


def set_value(municipality: Municipality, data: Mapping[str, str], actor) -> DecreeValue:
    """Validate and store one decree value (create, or correct the same key and date)."""
    f = Fields(data)
    choices = {c.key: c for c in key_choices(municipality)}
    key = f.text("key", max_len=120)
    choice = choices.get(key)
    if key and choice is None:
        f.fail("key", "escolha um dos valores que as leis do município deixam a decreto")
    amount_raw = f.text("amount", max_len=40)
    amount = parse_amount(amount_raw) if amount_raw else None
    if amount_raw and amount is None:
        f.fail("amount", f"valor inválido: {amount_raw!r} (use por exemplo 150,00)")
    elif amount is not None and amount <= 0:
        f.fail("amount", "o valor deve ser maior que zero")
    elif amount is not None and amount > MAX_AMOUNT:
        f.fail("amount", "valor alto demais: confira os dígitos (o máximo é "
                         "999.999.999.999,99)")
    elif amount is not None and amount != amount.quantize(Decimal("0.01")):
        f.fail("amount", "use no máximo duas casas decimais")
    unit = f.text("unit", max_len=20)
    accepted = accepted_units(municipality)
    if unit and unit not in UNITS:
        f.fail("unit", "unidade desconhecida (use " + " ou ".join(accepted.values()) + ")")
    elif unit and unit not in accepted:
        why = f" (a {unit} não é a unidade fiscal do município)" if unit in ("UFM", "UFIM") \
            else ""
        f.fail("unit", f"unidade não aceita em {municipality.name}: use "
                       + " ou ".join(accepted.values()) + why)
    elif key == FISCAL_UNIT_KEY and unit and unit != "BRL":
        f.fail("unit", "o valor da unidade fiscal é dado em reais (R$)")
    valid_from = f.date("valid_from")
    if valid_from and choice and valid_from < choice.law_start:
        f.fail("valid_from", f"antes da lei: a {choice.law} vigora desde "
                             f"{choice.law_start.strftime('%d/%m/%Y')}")
    source = f.text("source", max_len=300)
    if f.errors:
        raise ValidationFailed(f.errors)
    row = db.session.scalar(select(DecreeValue).where(
        DecreeValue.municipality_id == municipality.id, DecreeValue.key == key,
        DecreeValue.valid_from == valid_from))
    before = audit.snapshot(row, exclude=("set_at",)) if row is not None else None
    if row is None:
        row = DecreeValue(municipality_id=municipality.id, key=key, valid_from=valid_from)
        db.session.add(row)
    row.amount, row.unit, row.source = amount.quantize(Decimal("0.01")), unit, source
    row.set_by_id = getattr(actor, "id", None)
    db.session.flush()
    audit.record("decree_value_corrected" if before else "decree_value_set", "decree_value",
                 row.id, before=before, after=audit.snapshot(row, exclude=("set_at",)),
                 actor=actor, municipality_id=municipality.id)
    return row
