"""Brazilian identifiers: CPF, CNPJ, vehicle plates. Validation and normalisation."""
from __future__ import annotations

import re

_OLD_PLATE = re.compile(r"^[A-Z]{3}[0-9]{4}$")       # ABC1234 (before 2018)
_MERCOSUL_PLATE = re.compile(r"^[A-Z]{3}[0-9][A-Z][0-9]{2}$")  # ABC1D23


def digits(value: str) -> str:
    """Only the digits of a formatted number ('123.456.789-09' -> '12345678909')."""
    return re.sub(r"\D", "", value or "")


def _cpf_check(base: str) -> str:
    for size in (9, 10):
        total = sum(int(d) * w for d, w in zip(base[:size], range(size + 1, 1, -1)))
        rest = (total * 10) % 11
        base = base[:size] + str(0 if rest == 10 else rest) + base[size + 1:]
    return base[9:11]


def is_cpf(value: str) -> bool:
    """Whether a CPF (11 digits, formatted or not) has valid check digits."""
    d = digits(value)
    if len(d) != 11 or d == d[0] * 11:
        return False
    return _cpf_check(d) == d[9:]


def make_cpf(base9: str) -> str:
    """A valid CPF from its first nine digits (for demo data and tests)."""
    base = base9.zfill(9)[:9] + "00"
    return base[:9] + _cpf_check(base)


def _cnpj_digit(base: str) -> str:
    weights = [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2][-len(base):]
    rest = sum(int(d) * w for d, w in zip(base, weights)) % 11
    return "0" if rest < 2 else str(11 - rest)


def is_cnpj(value: str) -> bool:
    """Whether a CNPJ (14 digits, formatted or not) has valid check digits."""
    d = digits(value)
    if len(d) != 14 or d == d[0] * 14:
        return False
    first = _cnpj_digit(d[:12])
    return d[12:] == first + _cnpj_digit(d[:12] + first)


def make_cnpj(base12: str) -> str:
    """A valid CNPJ from its first twelve digits (for demo data and tests)."""
    base = base12.zfill(12)[:12]
    first = _cnpj_digit(base)
    return base + first + _cnpj_digit(base + first)


def normalise_plate(value: str) -> str:
    """Upper case, no dash or spaces: 'abc-1d23' -> 'ABC1D23'."""
    return re.sub(r"[\s\-]", "", value or "").upper()


def is_plate(value: str) -> bool:
    """Whether a plate is in the old (ABC1234) or the Mercosul (ABC1D23) format."""
    p = normalise_plate(value)
    return bool(_OLD_PLATE.match(p) or _MERCOSUL_PLATE.match(p))


def format_plate(plate: str) -> str:
    """How a plate is written for people: ABC-1234 (old) or ABC1D23 (Mercosul)."""
    return f"{plate[:3]}-{plate[3:]}" if _OLD_PLATE.match(plate) else plate


def format_cpf(value: str) -> str:
    d = digits(value)
    return f"{d[:3]}.{d[3:6]}.{d[6:9]}-{d[9:]}" if len(d) == 11 else value


def format_cnpj(value: str) -> str:
    d = digits(value)
    return f"{d[:2]}.{d[2:5]}.{d[5:8]}/{d[8:12]}-{d[12:]}" if len(d) == 14 else value
