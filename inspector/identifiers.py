"""Brazilian identifiers: CPF, CNPJ, vehicle plates, telephone numbers. Validation and
normalisation."""
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
    """A CPF with its punctuation (123.456.789-09); anything else as given."""
    d = digits(value)
    return f"{d[:3]}.{d[3:6]}.{d[6:9]}-{d[9:]}" if len(d) == 11 else value


def format_cnpj(value: str) -> str:
    """A CNPJ with its punctuation (12.345.678/0001-95); anything else as given."""
    d = digits(value)
    return f"{d[:2]}.{d[2:5]}.{d[5:8]}/{d[8:12]}-{d[12:]}" if len(d) == 14 else value


# --- telephone numbers ---------------------------------------------------------------------------
_PHONE_PUNCTUATION = re.compile(r"[\s.()\-]")


def _phone(value: str) -> tuple[str | None, str | None]:
    """(the 10 or 11 digits, None) of a Brazilian telephone number, or (None, why not in
    pt-BR). Spaces, dots, dashes, parentheses and a leading +55 are dropped."""
    text = _PHONE_PUNCTUATION.sub("", value or "")
    if text.startswith("+55"):
        text = text[3:]
    example = "por exemplo (66) 99999-1234"
    if not (text.isascii() and text.isdigit()):  # "²" is a digit to str.isdigit
        return None, f"telefone inválido: use só algarismos, com o DDD, {example}"
    if len(text) not in (10, 11):
        return None, (f"telefone inválido: são 10 ou 11 algarismos com o DDD (foram "
                      f"{len(text)}), {example}")
    if len(text) == 11 and text[2] != "9":
        return None, "telefone inválido: um celular de 11 algarismos começa com 9 depois do DDD"
    # DDDs run from 11 to 99; no landline or mobile number starts with 0 or 1
    if text[0] == "0" or text[1] == "0" or (len(text) == 10 and text[2] in "01"):
        return None, f"telefone inválido: confira o DDD e o número, {example}"
    return text, None


def normalise_phone(value: str) -> str | None:
    """A Brazilian telephone number as its 10 or 11 digits (DDD + number), or None when it is
    not one: '+55 (66) 99999-1234' -> '66999991234'. Eleven digits are a mobile (9 after the
    DDD)."""
    return _phone(value)[0]


def phone_problem(value: str) -> str | None:
    """Why a typed telephone number is not a Brazilian one (pt-BR), or None when it is."""
    return _phone(value)[1]


def format_phone(value: str) -> str:
    """A telephone number as Brazilians write it: (66) 99999-1234 or (66) 3566-1234; anything
    that is not one is shown as given."""
    d = normalise_phone(value)
    if d is None:
        return value
    return f"({d[:2]}) {d[2:-4]}-{d[-4:]}"
