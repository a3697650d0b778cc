"""The driver's identity card (RG) and its issuing body, as people write them.

Nortelândia Lei 127/2009 Art. 10 III puts both on the taxi driver's ID card. RG numbers
are not uniform across states ('12.345.678-9', '1234567-8', 'MG-12.345.678', '1234567X'),
so they are checked for shape only, never for a check digit, and kept as written (upper
case, no spaces). The issuing body is written 'SSP/MT': the body's initials, a slash and
the state.
"""
from __future__ import annotations

import re
import unicodedata

MAX_LEN = 20          # the column's size
MIN_ALNUM, MAX_ALNUM = 4, 14
UFS = frozenset("AC AL AP AM BA CE DF ES GO MA MT MS MG PA PB PR PE PI RJ RN RS RO RR SC SP SE TO"
                .split())
_RG_CHARS = re.compile(r"^[A-Z0-9][A-Z0-9.\-/]*$")
_ISSUER = re.compile(r"^([A-Z]{2,12})(?:/([A-Z]{2}))?$")


def _plain(raw: str) -> str:
    """Upper case, accents dropped, spaces removed."""
    text = unicodedata.normalize("NFKD", raw or "")
    text = "".join(c for c in text if not unicodedata.combining(c))
    return re.sub(r"\s+", "", text.upper())


def clean_rg(raw: str) -> tuple[str, str | None]:
    """(the RG as stored, None) or (what was typed, a reason in Portuguese)."""
    value = _plain(raw)
    if not value:
        return "", None
    if not _RG_CHARS.match(value):
        return value, "RG inválido: use algarismos e, se houver, letras, pontos, hífen ou barra"
    alnum = re.sub(r"[^A-Z0-9]", "", value)
    digits = sum(c.isdigit() for c in alnum)
    if len(alnum) < MIN_ALNUM or len(alnum) > MAX_ALNUM or len(value) > MAX_LEN:
        return value, (f"RG inválido: são de {MIN_ALNUM} a {MAX_ALNUM} algarismos ou letras "
                       "(confira o documento)")
    if digits < MIN_ALNUM or len(alnum) - digits > 3:
        return value, "RG inválido: o número é feito de algarismos (letras só a UF ou o X final)"
    return value, None


def clean_issuer(raw: str) -> tuple[str, str | None]:
    """(the issuing body as stored, 'SSP/MT', None) or (what was typed, a reason)."""
    text = unicodedata.normalize("NFKD", (raw or "").strip().upper())
    text = "".join(c for c in text if not unicodedata.combining(c)).replace(".", "")
    value = re.sub(r"[\s/\\\-]+", "/", text)  # 'SSP MT', 'SSP-MT', 'SSP / MT' -> 'SSP/MT'
    if not value:
        return "", None
    match = _ISSUER.match(value)
    if match is None or len(value) > MAX_LEN:
        return value, "órgão expedidor inválido: escreva a sigla e a UF, por exemplo SSP/MT"
    body, uf = match.groups()
    if uf is not None and uf not in UFS:
        return value, f"UF desconhecida no órgão expedidor: {uf!r} (por exemplo SSP/MT)"
    return body if uf is None else f"{body}/{uf}", None


def printed_rg(number: str, issuer: str) -> str:
    """How the ID card writes them: '12.345.678-9 · SSP/MT' ('' when there is no RG)."""
    if not number:
        return ""
    return f"{number} · {issuer}" if issuer else number
