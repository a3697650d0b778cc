"""Read the text values a form or a spreadsheet gives, collecting one reason per bad field.

Every value arrives as a string (or is missing). `Fields` turns them into Python values
and remembers, for each field, the first thing wrong with it in Portuguese, so a
service can report every bad field at once.
"""
from __future__ import annotations

import enum
import re
import unicodedata
from collections.abc import Mapping
from datetime import date
from typing import Any

from inspector.models import (
    DriverCategory,
    HolderKind,
    LicenceKind,
    PermitKind,
    Service,
    Status,
    VehicleKind,
)
from inspector.statuses import STATUS_LABELS

REQUIRED = "obrigatório"

# What people write in a form or a spreadsheet, for each value the code stores.
LABELS: dict[enum.Enum, str] = {
    HolderKind.PERSON: "Pessoa física", HolderKind.COMPANY: "Empresa",
    Service.TAXI: "Táxi", Service.MOTOTAXI: "Moto-táxi",
    VehicleKind.CAR: "Automóvel", VehicleKind.MOTORCYCLE: "Motocicleta",
    DriverCategory.AUTONOMO: "Autônomo", DriverCategory.AUXILIAR: "Auxiliar",
    DriverCategory.MOTOTAXISTA: "Mototaxista",
    PermitKind.PERMISSAO: "Termo de Permissão", PermitKind.AUTORIZACAO: "Autorização",
    LicenceKind.ALVARA_LICENCA: "Alvará de Licença",
    LicenceKind.ALVARA_ESTACIONAMENTO: "Alvará de Estacionamento",
    LicenceKind.ALVARA_MOTOTAXI: "Alvará de Moto-táxi",
    **STATUS_LABELS,
}

_ALIASES: dict[enum.Enum, tuple[str, ...]] = {
    HolderKind.PERSON: ("pessoa", "pf", "cpf", "fisica"),
    HolderKind.COMPANY: ("pj", "cnpj", "pessoa juridica", "juridica"),
    Service.MOTOTAXI: ("moto taxi",),
    DriverCategory.MOTOTAXISTA: ("moto taxista",),
    PermitKind.PERMISSAO: ("permissao",),
    PermitKind.AUTORIZACAO: ("autorizacao",),
    LicenceKind.ALVARA_LICENCA: ("licenca",),
    LicenceKind.ALVARA_ESTACIONAMENTO: ("estacionamento",),
    LicenceKind.ALVARA_MOTOTAXI: ("alvara moto taxi", "mototaxi"),
    Status.ACTIVE: ("ativa", "ativo"),
    Status.SUSPENDED: ("suspensa", "suspenso"),
    Status.REVOKED: ("cassada", "cassado", "revogada", "revogado"),
}

_ISO_DATE = re.compile(r"^(?P<y>\d{4})-(?P<m>\d{1,2})-(?P<d>\d{1,2})$")
_BR_DATE = re.compile(r"^(?P<d>\d{1,2})[/.-](?P<m>\d{1,2})[/.-](?P<y>\d{4})$")
_TRUE = {"sim", "s", "x", "1", "true", "verdadeiro", "yes", "y", "on"}
_FALSE = {"nao", "n", "0", "false", "falso", "no", "off", ""}


def fold(value: str) -> str:
    """Lower case, no accents, letters and digits only: 'Moto-Táxi' -> 'mototaxi'."""
    plain = unicodedata.normalize("NFKD", value or "").encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]", "", plain.lower())


def label(value: enum.Enum | None) -> str:
    """The Portuguese name of a stored value ('' for none)."""
    return "" if value is None else LABELS.get(value, str(value.value))


def parse_choice(cls: type[enum.Enum], raw: str) -> enum.Enum | None:
    """The member of `cls` that a person's text names (value, label or alias), or None."""
    key = fold(raw)
    for member in cls:
        names = (member.value, LABELS.get(member, ""), *_ALIASES.get(member, ()))
        if key and key in {fold(n) for n in names}:
            return member
    return None


def parse_date(raw: str) -> date | None:
    """A date written YYYY-MM-DD or DD/MM/YYYY, or None when it is not one."""
    raw = (raw or "").strip()
    match = _ISO_DATE.match(raw) or _BR_DATE.match(raw)
    if match is None:
        return None
    parts = {k: int(v) for k, v in match.groupdict().items()}
    try:
        return date(parts["y"], parts["m"], parts["d"])
    except ValueError:
        return None


def text_of(value: Any) -> str:
    """How a stored value is written back into a form (the inverse of the parsers)."""
    if value is None:
        return ""
    if isinstance(value, enum.Enum):
        return str(value.value)
    if isinstance(value, bool):
        return "sim" if value else "não"
    if isinstance(value, date):
        return value.isoformat()
    return str(value)


class Fields:
    """Typed reads of a form's or row's text values, keeping the first error per field."""

    def __init__(self, data: Mapping[str, Any]):
        self.data = data
        self.errors: dict[str, str] = {}

    def raw(self, name: str) -> str:
        """The value as given, stripped ('' when missing)."""
        value = self.data.get(name)
        return "" if value is None else str(value).strip()

    def fail(self, name: str, reason: str) -> None:
        """Note a reason; the first one for a field wins."""
        self.errors.setdefault(name, reason)

    def ok(self, *names: str) -> bool:
        """Whether none of these fields has an error so far."""
        return not any(n in self.errors for n in names)

    def text(self, name: str, *, required: bool = True, max_len: int = 200) -> str:
        """A trimmed text with inner whitespace collapsed."""
        value = re.sub(r"\s+", " ", self.raw(name))
        if required and not value:
            self.fail(name, REQUIRED)
        elif len(value) > max_len:
            self.fail(name, f"longo demais (máximo {max_len} caracteres)")
        return value

    def integer(self, name: str, *, required: bool = True, lo: int | None = None,
                hi: int | None = None, what: str = "número") -> int | None:
        """A whole number within [lo, hi]."""
        raw = self.raw(name)
        if not raw:
            if required:
                self.fail(name, REQUIRED)
            return None
        if not re.fullmatch(r"-?[0-9]+", raw):
            self.fail(name, f"{what} inválido: use só algarismos")
            return None
        if len(raw.lstrip("-0")) > 18:  # int() of thousands of digits raises; no field holds them
            self.fail(name, f"{what} fora do intervalo ({lo} a {hi})")
            return None
        value = int(raw)
        if lo is not None and value < lo or hi is not None and value > hi:
            self.fail(name, f"{what} fora do intervalo ({lo} a {hi})")
            return None
        return value

    def date(self, name: str, *, required: bool = True) -> date | None:
        """A date in YYYY-MM-DD or DD/MM/YYYY."""
        raw = self.raw(name)
        if not raw:
            if required:
                self.fail(name, REQUIRED)
            return None
        value = parse_date(raw)
        if value is None:
            self.fail(name, f"data inválida: {raw[:40]!r} (use DD/MM/AAAA ou AAAA-MM-DD)")
        elif not 1900 <= value.year <= 2200:
            self.fail(name, f"data improvável: {raw[:40]!r}")
            return None
        return value

    def boolean(self, name: str) -> bool:
        """Yes or no ('sim'/'não', 'x', '1'/'0', 'true'/'false'); blank is no."""
        key = fold(self.raw(name))
        if key in _TRUE:
            return True
        if key not in _FALSE:
            self.fail(name, "use sim ou não")
        return False

    def choice(self, name: str, cls: type[enum.Enum], *, required: bool = True,
               default: enum.Enum | None = None) -> Any:
        """One of an enum's values, by its code, its Portuguese label or a common alias."""
        raw = self.raw(name)
        if not raw:
            if required and default is None:
                self.fail(name, REQUIRED)
            return default
        value = parse_choice(cls, raw)
        if value is None:
            options = ", ".join(label(m) for m in cls)
            self.fail(name, f"valor desconhecido: {raw[:40]!r} (use {options})")
        return value
