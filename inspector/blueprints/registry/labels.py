"""Portuguese labels and display helpers for the registry screens."""
from __future__ import annotations

from datetime import date, datetime
from enum import Enum

from inspector import clock, registry
from inspector.identifiers import format_cnpj, format_cpf, format_phone, format_plate
from inspector.models import Status
from inspector.registry import changed_fields
from inspector.security import viewer_town

# The verb a button shows for a move to each status.
STATUS_ACTIONS = {Status.SUSPENDED: "Suspender", Status.REVOKED: "Cassar (revogar)",
                  Status.ACTIVE: "Reativar"}

# Where each town's law requires a moto-taxi's insurance (text in ../shared/laws/).
INSURANCE_BASIS = {
    "tapurah": "Lei 406/2001, Arts. 16 e 17: sem seguro não há serviço, e a apólice vencida "
               "sem renovação revoga a permissão",
    "nortelandia": "Lei 030/1998, Art. 11, parágrafo único: seguro de vida de autorizadas "
                   "e operadores",
}

# How audit actions read in a history list ("vehicle_created" -> "Cadastro").
AUDIT_VERBS = {"created": "Cadastro", "updated": "Alteração", "status_changed": "Mudança de "
               "situação", "photo_changed": "Nova foto", "imported": "Importação"}


def audit_action(action: str) -> str:
    """The Portuguese for an audit action; unknown ones are shown as recorded."""
    for suffix, text in AUDIT_VERBS.items():
        if action == suffix or action.endswith("_" + suffix):
            return text
    return action


def label(value) -> str:
    """The Portuguese name of an enum member ('' for None), as the services write it."""
    if value is None:
        return ""
    if isinstance(value, Enum):
        return registry.label(value)
    return str(value)


def sentence(message: str) -> str:
    """A service's reason as a sentence: capital first letter, final full stop."""
    message = (message or "").strip()
    if not message:
        return ""
    message = message[0].upper() + message[1:]
    return message if message[-1] in ".!?" else message + "."


def choices(enum_cls: type[Enum]) -> list[tuple[str, str]]:
    """(value, label) pairs for a select of an enum."""
    return [(m.value, label(m)) for m in enum_cls]


def fmt_date(value) -> str:
    """A date as Brazilians write it (dd/mm/aaaa); datetimes add the time on the clock of the
    signed-in user's town."""
    if value is None:
        return "—"
    if isinstance(value, datetime):
        return clock.town_text(viewer_town(), value)
    if isinstance(value, date):
        return value.strftime("%d/%m/%Y")
    return str(value)


def fmt_tax_id(value: str | None) -> str:
    """A CPF or CNPJ with its punctuation."""
    if not value:
        return "—"
    return format_cpf(value) if len(value) == 11 else format_cnpj(value)


def fmt_phone(value: str | None) -> str:
    """A telephone number as Brazilians write it: (66) 99999-1234."""
    return format_phone(value) if value else "—"


def fmt_plate(value: str | None) -> str:
    """A plate as written on the vehicle."""
    return format_plate(value) if value else "—"


def validity(valid_until: date | None, today: date | None = None) -> tuple[str, str]:
    """(badge class, text) for a validity end date: in force, ending soon or expired."""
    if valid_until is None:
        return "ok", "Sem prazo"
    today = today or clock.today(viewer_town())
    days = (valid_until - today).days
    if days < 0:
        return "bad", f"Venceu em {fmt_date(valid_until)}"
    if days <= 30:
        return "warn", f"Vence em {fmt_date(valid_until)}"
    return "ok", f"Até {fmt_date(valid_until)}"


# Names of columns that are not form fields, for the history's "what changed".
OTHER_FIELDS = {"holder_id": "Permissionário", "stand_id": "Ponto", "vehicle_id": "Veículo",
                "permit_id": "Permissão", "kind": "Tipo", "status": "Situação",
                "vehicle_plates": "Veículos", "photo_sha256": "Foto", "photo_mime": "Foto",
                "reason": "Motivo"}


def template_helpers() -> dict:
    """What every registry template may call."""
    return {"label": label, "fmt_date": fmt_date, "fmt_tax_id": fmt_tax_id,
            "fmt_phone": fmt_phone,
            "fmt_plate": fmt_plate, "validity": validity, "changed_fields": changed_fields,
            "audit_action": audit_action,
            "status_actions": STATUS_ACTIONS, "Status": Status, "sentence": sentence,
            "insurance_basis": INSURANCE_BASIS}
