"""A fine's amount when its act is decided: from the law and the values the town has
registered by then (decree values, fiscal unit, minimum wage), in force on the day of the
infraction (`amount_on`).

A proposal is priced when it is made; a decree value registered later (between the
supervisor's amendment and the mayor's decision, say) is picked up here, before the
document is issued. A fine the law leaves to a decree cannot be decided while that value
is missing (Nova Santa Helena 535 Art. 25, II, a; Art. 27 § ú: the offender is notified
"da infração apontada com multa" and appeals against it): the decision is refused with
what to register and where, and nothing is issued.
"""
from __future__ import annotations

from sqlalchemy import select

from inspector import laws
from inspector.enforcement.acts import pack_of
from inspector.errors import ValidationFailed
from inspector.extensions import db
from inspector.models import DecreeValue, Municipality, Sanction, SanctionStatus
from inspector.rules import Amount, Money, TownFacts, decree_label, fmt_date, foreign_unit, money, unit_value

WHERE = "Conformidade › Decretos"


def _facts(act: Sanction) -> TownFacts:
    return laws.town_facts(db.session.get(Municipality, act.municipality_id))


def label_of(act: Sanction) -> str:
    """The pack's words for the act's decree value (e.g. "Valor da multa (Decreto ...)")."""
    return decree_label(pack_of(act), act.amount_decree_key)


def price(act: Sanction, facts: TownFacts | None = None) -> Money:
    """The act's fine as the law and the values registered now give it on `amount_on`."""
    facts = facts or _facts(act)
    if act.amount_decree_key:
        return money(Amount(None, decree=act.amount_decree_key, per=act.amount_per), facts,
                     act.amount_on, label_of(act))
    if act.amount is None and act.amount_max is None:
        return Money(act.amount_unit, None, None, act.amount_per, None, None,
                     unit_value(facts, act.amount_unit, act.amount_on)[1])
    # as the proposal priced it (rules.sanctions.money, its rounding included)
    return money(Amount(act.amount_unit, act.amount, act.amount_max, per=act.amount_per),
                 facts, act.amount_on)


def shown(act: Sanction) -> Money:
    """What the review pages show: a proposal whose amount a decree fixes is priced with the
    values registered now (so a value set after the proposal is seen before deciding);
    anything decided shows what was decided and printed."""
    stored = Money(act.amount_unit, act.amount, act.amount_max, act.amount_per,
                   act.amount_decree_key, act.amount_brl, act.amount_basis or "")
    if act.status != SanctionStatus.PROPOSED or not act.amount_decree_key \
            or act.amount_on is None:
        return stored
    return price(act)


def _missing(act: Sanction, doing: str) -> str:
    later = db.session.scalar(select(DecreeValue.valid_from).where(
        DecreeValue.municipality_id == act.municipality_id,
        DecreeValue.key == act.amount_decree_key, DecreeValue.valid_from > act.amount_on)
        .order_by(DecreeValue.valid_from))
    why = (f" (o valor cadastrado vigora só a partir de {fmt_date(later)}, depois da infração, e "
           "não se aplica a fato anterior)") if later else ""
    return (f"O valor desta multa é fixado por decreto e não está cadastrado para "
            f"{fmt_date(act.amount_on)}, dia da infração{why}. Um(a) administrador(a) deve "
            f"cadastrar o “{label_of(act)}” em {WHERE} antes de {doing}. "
            "Nenhum documento foi emitido.")


def reprice_for_decision(act: Sanction, doing: str) -> None:
    """Compute the act's fine again before it is decided (`doing`: "confirmar", ...);
    refuse, naming what to register, when a decree value it needs is missing or unusable."""
    if act.amount_unit is None and act.amount_decree_key is None:
        return
    if act.amount_on is None:
        return
    facts = _facts(act)
    cash = price(act, facts)
    if act.amount_decree_key:
        if not cash.defined:
            raise ValidationFailed({"decree": _missing(act, doing)})
        if cash.brl is None and foreign_unit(facts, cash.unit):
            raise ValidationFailed({"decree": (
                f"O “{label_of(act)}” está cadastrado em {cash.unit}, que não é a unidade "
                f"fiscal de {facts.name or facts.slug} ({facts.fiscal_unit}). Um(a) "
                f"administrador(a) deve corrigi-lo em {WHERE} (em R$ ou {facts.fiscal_unit}) "
                f"antes de {doing}. Nenhum documento foi emitido.")})
        act.amount_unit, act.amount, act.amount_max = cash.unit, cash.amount, cash.max
    act.amount_brl, act.amount_basis = cash.brl, cash.basis


__all__ = ["label_of", "price", "reprice_for_decision", "shown"]
