"""Typed errors of the rules engine; their messages are pt-BR, fit for a CLI line or a page."""
from __future__ import annotations

from datetime import date


class RulesError(LookupError):
    """Base: the question cannot be answered by any pack."""


class UnknownTown(RulesError):
    """No pack for this town at all."""

    def __init__(self, town: str, known: list[str]):
        self.town = town
        super().__init__(f"cidade desconhecida: '{town}' (conhecidas: {', '.join(known)})")


class UnknownService(RulesError):
    """A service other than taxi / mototaxi."""

    def __init__(self, service: str):
        self.service = service
        super().__init__(f"serviço desconhecido: '{service}' (use taxi ou mototaxi)")


class LawNotInForce(RulesError):
    """No law of this town and service holds on that day (before it took effect, say)."""

    def __init__(self, town: str, service: str, on: date, detail: str):
        self.town, self.service, self.on = town, service, on
        name = "moto-táxi" if service == "mototaxi" else "táxi"
        super().__init__(f"nenhuma lei de {name} em vigor em {town} em {on.isoformat()}"
                         + (f" ({detail})" if detail else ""))
