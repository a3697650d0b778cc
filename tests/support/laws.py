"""The decree-value form's fields."""
from __future__ import annotations


def decree_form(**kw) -> dict:
    return {"key": "fine.amount", "amount": "1.250,50", "unit": "BRL",
            "valid_from": "2024-03-10", "source": "Decreto nº 12/2024, de 10/03/2024", **kw}
