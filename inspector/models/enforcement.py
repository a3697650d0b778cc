"""From finding to legal act: sanctions, the notices that carry them, fines, appeals, history.

A `Sanction` is one measure of the law (warning, notice, fine, daily fine, suspension,
revocation, removal request...) proposed for one failed item of an inspection, or
applied by the law itself (a daily fine after a missed deadline, a registration not
revalidated, a lapsed insurance). It keeps what it was proposed and decided with, as
recorded that day: the rule id, the citations (JSON), the amounts in the law's unit and
in BRL, the deadline and the appeal window. Decided acts that reach the offender in
writing get a `Notice` (document number, hashed access code, the driver's "ciente");
fines get a `Fine`; appeals are `Appeal` rows; every step is an `EnforcementEvent`
(also the feed that documents and push notifications read).
"""
from __future__ import annotations

import enum
from datetime import date, datetime
from decimal import Decimal

from sqlalchemy import (
    Boolean,
    CheckConstraint,
    Date,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    Numeric,
    String,
    Text,
    UniqueConstraint,
    and_,
)
from sqlalchemy import text as sql_text
from sqlalchemy.ext.hybrid import hybrid_property
from sqlalchemy.orm import Mapped, deferred, mapped_column, relationship

from inspector.extensions import db
from inspector.models.registry import JSON_VALUE, TownScoped, _enum
from inspector.rules import ActKind


class SanctionStatus(str, enum.Enum):
    PROPOSED = "proposed"                  # the engine's proposal, nobody decided yet
    CONFIRMED = "confirmed"                # decided as proposed
    AMENDED = "amended"                    # decided with another measure or amount, within the law
    REJECTED = "rejected"                  # not applied (with a reason)
    COMPLIED = "complied"                  # the notice was complied with (re-inspection: ok)
    CONVERTED_TO_DAILY_FINE = "converted_to_daily_fine"  # deadline missed: a daily fine runs
    APPEALED = "appealed"                  # an admitted appeal waits for its decision
    APPEAL_ACCEPTED = "appeal_accepted"    # the appeal was upheld: the act is void
    APPEAL_REFUSED = "appeal_refused"      # the appeal was dismissed: the act stands
    CLOSED = "closed"                      # final: appeal window over, nothing left to follow

    @property
    def label(self) -> str:
        """pt-BR name shown to supervisors, agents and holders."""
        return STATUS_LABELS[self.value]


STATUS_LABELS = {
    "proposed": "Proposto", "confirmed": "Confirmado", "amended": "Alterado e confirmado",
    "rejected": "Rejeitado", "complied": "Cumprido", "converted_to_daily_fine":
    "Convertido em multa diária", "appealed": "Em recurso", "appeal_accepted":
    "Recurso provido", "appeal_refused": "Recurso negado", "closed": "Encerrado",
}
# --- the named sets of an act's statuses: the one definition of each. Which status may follow
# which is declared once too, in enforcement.lifecycle (TRANSITIONS).
_S = SanctionStatus
# nobody decided yet
PENDING = (_S.PROPOSED,)
# decided (as proposed or amended) and nothing has happened since: the document may still wait
# for its delivery (`awaiting_delivery`)
DECIDED = (_S.CONFIRMED, _S.AMENDED)
AWAITS_DELIVERY = DECIDED
# decided and standing with no appeal pending: its deadline runs, and missing it converts the act
ENFORCEABLE = (_S.CONFIRMED, _S.AMENDED, _S.APPEAL_REFUSED)
# may still be converted into a daily fine (an admitted appeal holds the deadline)
CONVERTIBLE = ENFORCEABLE + (_S.APPEALED,)
# decided and standing: a deadline may still run, a notice still be complied with
OPEN = CONVERTIBLE + (_S.CONVERTED_TO_DAILY_FINE,)
# followed by the tick: deadlines, appeal windows, effects
LIVE = OPEN + (_S.COMPLIED,)
# with effect: counts in the offender's history
EFFECTIVE = LIVE + (_S.CLOSED,)
# nothing to pay, no effect: never decided, rejected, or voided by an appeal
VOID = (_S.PROPOSED, _S.REJECTED, _S.APPEAL_ACCEPTED)
# no way out: the act has no effect, for good
TERMINAL = (_S.REJECTED, _S.APPEAL_ACCEPTED)
ANY_LIVE = tuple(s for s in _S if s not in TERMINAL)
# an appeal may be recorded against it
APPEALABLE = DECIDED + (_S.COMPLIED, _S.CONVERTED_TO_DAILY_FINE, _S.CLOSED)
# the tick closes it once its appeal window is over and nothing is left to follow
CLOSABLE = ENFORCEABLE + (_S.COMPLIED,)
# its time to comply is over: complied with, or closed
COMPLIANCE_OVER = (_S.COMPLIED, _S.CLOSED)
# a missed deadline brings nothing more: complied with, converted, void or closed
SETTLED = (_S.COMPLIED, _S.CONVERTED_TO_DAILY_FINE) + TERMINAL + (_S.CLOSED,)
# rejected, closed or with its appeal decided: the lists' and the dashboard's "other" column
CONCLUDED = TERMINAL + (_S.APPEAL_REFUSED, _S.CLOSED)
# How a decided act reached the offender (time runs from then: Nova Santa Helena Lei
# 535/2013 Art. 27 § único "Após o recebimento"; Nortelândia Lei 030/1998 Art. 16 § 2º
# "contados a partir da intimação"). "street": signed on the street (Tapurah Art. 27 I).
DELIVERY_MEANS = {"hand": "entregue em mãos", "mail_ar": "correio com AR", "email": "e-mail",
                  "edital": "edital", "street": "assinatura na rua (ciente)"}
# Who decides: the three roles of the product, and "law" for what the law applies by itself.
AUTHORITY_LABELS = {"agent": "Agente de fiscalização", "supervisor": "Supervisor(a) / Secretaria",
                    "mayor": "Prefeito(a) (Chefe do Poder Executivo)",
                    "law": "Automático, por força da lei"}
# the act kinds' pt-BR names by stored value (a filter, a GROUP BY row)
KIND_LABELS = {k.value: k.label for k in ActKind}


class Sanction(TownScoped, db.Model):
    """One legal act (a measure of the rule pack) for one finding, with its whole life."""

    __tablename__ = "sanctions"
    __table_args__ = (Index("ix_sanctions_town_status", "municipality_id", "status"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    # Idempotency: "item:<inspection item id>:<measure n>", "daily:<notice act id>",
    # "registration:<driver id>:<expiry>", "insurance:<vehicle id>:<last policy end>".
    origin_key: Mapped[str] = mapped_column(String(120), unique=True)
    inspection_id: Mapped[int | None] = mapped_column(ForeignKey("inspections.id"), index=True)
    inspection_item_id: Mapped[int | None] = mapped_column(ForeignKey("inspection_items.id"),
                                                           index=True)
    parent_id: Mapped[int | None] = mapped_column(ForeignKey("sanctions.id"), index=True)
    # the law, as the proposal read it on the day
    pack_id: Mapped[str] = mapped_column(String(60))
    law: Mapped[str] = mapped_column(String(60))                 # "Lei 406/2001"
    rule_id: Mapped[str] = mapped_column(String(120))            # checklist id or engine rule id
    step_id: Mapped[str | None] = mapped_column(String(60))      # ladder rung
    offence_id: Mapped[str | None] = mapped_column(String(60))   # or the offence
    occurrence: Mapped[int] = mapped_column(Integer, default=1)  # n-th act of the offender
    measure_index: Mapped[int] = mapped_column(Integer, default=0)
    kind: Mapped[ActKind] = mapped_column(_enum(ActKind))       # the pack measure's kind
    target: Mapped[str] = mapped_column(String(20))              # driver | holder | permit ...
    label: Mapped[str] = mapped_column(Text)
    # the offender(s)
    offender: Mapped[str] = mapped_column(String(40), index=True)  # "driver:3" whose history counted
    holder_id: Mapped[int | None] = mapped_column(ForeignKey("holders.id"), index=True)
    driver_id: Mapped[int | None] = mapped_column(ForeignKey("drivers.id"), index=True)
    vehicle_id: Mapped[int | None] = mapped_column(ForeignKey("vehicles.id"), index=True)
    permit_id: Mapped[int | None] = mapped_column(ForeignKey("permits.id"))
    licence_id: Mapped[int | None] = mapped_column(ForeignKey("licences.id"))
    # citations as recorded (law, article, anchor, law_slug, quote)
    breach_citation: Mapped[dict | None] = mapped_column(JSON_VALUE)    # the article broken
    citation: Mapped[dict] = mapped_column(JSON_VALUE)           # the article giving the measure
    required_action: Mapped[str] = mapped_column(Text, default="")  # what must be done
    # amount: in the law's unit and in BRL on `amount_on` (None: "não definido")
    amount_unit: Mapped[str | None] = mapped_column(String(20))  # UFM | UFIM | minimum_wage | BRL
    amount: Mapped[Decimal | None] = mapped_column(Numeric(14, 4))      # fixed, or as decided
    amount_max: Mapped[Decimal | None] = mapped_column(Numeric(14, 4))  # "até ..." bound
    amount_per: Mapped[str | None] = mapped_column(String(10))          # "day"
    amount_decree_key: Mapped[str | None] = mapped_column(String(120))
    amount_brl: Mapped[Decimal | None] = mapped_column(Numeric(14, 2))
    amount_basis: Mapped[str] = mapped_column(Text, default="")
    amount_on: Mapped[date | None] = mapped_column(Date)
    # deadline to comply (notices)
    deadline_hours: Mapped[int | None] = mapped_column(Integer)
    deadline_days: Mapped[int | None] = mapped_column(Integer)
    deadline_text: Mapped[str | None] = mapped_column(String(60))
    deadline_citation: Mapped[dict | None] = mapped_column(JSON_VALUE)
    deadline_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), index=True)
    on_missed: Mapped[dict | None] = mapped_column(JSON_VALUE)  # the measure a missed deadline brings
    # how the deadline was counted, as issued (rules.calendar explain(): rule, span, days
    # skipped and why); kept with the date, which a later calendar change does not move
    deadline_explain: Mapped[str | None] = mapped_column(Text)
    # a deadline granted at discretion (Tapurah 406 Art. 19): by "agent" or "supervisor", with
    # the reason written; null: the law's own deadline (migration 0024)
    deadline_granted_by: Mapped[str | None] = mapped_column(String(20))
    deadline_grant_reason: Mapped[str | None] = mapped_column(Text)
    # appeal
    appeal_days: Mapped[int | None] = mapped_column(Integer)
    appeal_to: Mapped[str | None] = mapped_column(String(20))
    appeal_suspensive: Mapped[bool | None] = mapped_column(Boolean)  # None: the law does not say
    appeal_citation: Mapped[dict | None] = mapped_column(JSON_VALUE)
    appeal_until: Mapped[date | None] = mapped_column(Date)   # last day (local) to file
    appeal_explain: Mapped[str | None] = mapped_column(Text)  # how appeal_until was counted
    appeal_closed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    # decision
    decided_by: Mapped[str] = mapped_column(String(20))       # agent | supervisor | mayor | law
    automatic: Mapped[bool] = mapped_column(default=False)
    status: Mapped[SanctionStatus] = mapped_column(_enum(SanctionStatus))
    awaiting_mayor: Mapped[bool] = mapped_column(default=False)  # "aguarda decisão do prefeito"
    suspended: Mapped[bool] = mapped_column(default=False)       # by a suspensive appeal
    # the moment time starts (deadline, appeal window, suspension): the street "ciente", or
    # the delivery a supervisor records (None: decided, waiting for delivery)
    notified_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    delivered_via: Mapped[str | None] = mapped_column(String(20))    # DELIVERY_MEANS key
    delivery_ref: Mapped[str | None] = mapped_column(String(200))    # AR nº, who received it...
    delivery_recorded_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    delivery_recorded_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    proposed_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    decided_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    decided_by_user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    decision_ref: Mapped[str] = mapped_column(String(200), default="")  # the mayor's act
    reason: Mapped[str] = mapped_column(Text, default="")   # why rejected / amended
    comment: Mapped[str] = mapped_column(Text, default="")  # to the agent
    effect_applied_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    # the registry change this act made (None: the row was already so)
    effect_change_id: Mapped[int | None] = mapped_column(ForeignKey("status_changes.id"))
    # a suspension is a period of local days (the pack bounds its length; the laws give none)
    suspension_days: Mapped[int | None] = mapped_column(Integer)
    suspension_start: Mapped[date | None] = mapped_column(Date)   # first day
    suspension_end: Mapped[date | None] = mapped_column(Date, index=True)  # last day, inclusive
    effect_lifted_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    closed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))

    inspection = relationship("Inspection")
    inspection_item = relationship("InspectionItem")
    parent: Mapped[Sanction | None] = relationship(remote_side=[id])
    holder = relationship("Holder")
    driver = relationship("Driver")
    vehicle = relationship("Vehicle")
    licence = relationship("Licence")
    decided_by_user = relationship("User", foreign_keys=[decided_by_user_id])
    delivery_recorded_by = relationship("User", foreign_keys=[delivery_recorded_by_id])
    notice: Mapped[Notice | None] = relationship(back_populates="sanction", uselist=False)
    fine: Mapped[Fine | None] = relationship(back_populates="sanction", uselist=False)
    appeals: Mapped[list[Appeal]] = relationship(back_populates="sanction",
                                                 order_by="Appeal.id")

    @property
    def status_label(self) -> str:
        """The status in pt-BR, "aguarda decisão do prefeito" when it does."""
        if self.status == SanctionStatus.PROPOSED and self.awaiting_mayor:
            return "Aguarda decisão do prefeito"
        return self.status.label

    @hybrid_property
    def awaiting_delivery(self) -> bool:
        """Decided, its document issued, but not yet delivered: no time runs ("Aguardando
        entrega"). Also a SQL condition (`Sanction.awaiting_delivery`) for lists and filters."""
        return self.notified_at is None and self.decided_at is not None and \
            self.status in AWAITS_DELIVERY

    @awaiting_delivery.inplace.expression
    @classmethod
    def _awaiting_delivery_sql(cls):
        return and_(cls.notified_at.is_(None), cls.decided_at.is_not(None),
                    cls.status.in_(AWAITS_DELIVERY))

    @property
    def delivered_via_label(self) -> str:
        """How the act reached the offender, in pt-BR ("" when not recorded)."""
        return DELIVERY_MEANS.get(self.delivered_via or "", self.delivered_via or "")

    @property
    def kind_label(self) -> str:
        """The kind of act in pt-BR."""
        return ActKind(self.kind).label

    @property
    def authority_label(self) -> str:
        """Who must decide, in pt-BR (an act the law applies by itself names the law: the
        daily fine a missed notice turns into, an automatic revocation)."""
        if self.automatic:
            return AUTHORITY_LABELS["law"]
        who = AUTHORITY_LABELS.get(self.decided_by, self.decided_by)
        # The pack names who applies the measure (Tapurah 406 Art. 27: "Os agentes de
        # fiscalização ... poderão: I - advertir ... II - multar"); in this product the
        # supervision still confirms, amends or rejects it in the review, so say who did what.
        if self.decided_by == "agent":
            return who + {SanctionStatus.PROPOSED: " (aguarda confirmação da supervisão)",
                          SanctionStatus.REJECTED: " (rejeitado pela supervisão)",
                          SanctionStatus.AMENDED: " (alterado pela supervisão)"}.get(
                self.status, " (confirmado pela supervisão)" if self.decided_at else "")
        if self.decided_by == "mayor" and self.awaiting_mayor:
            return who + " (encaminhado pela supervisão)"
        return who


class Notice(TownScoped, db.Model):
    """The written document that carries a decided act to the offender (notificação, auto)."""

    __tablename__ = "notices"
    __table_args__ = (UniqueConstraint("municipality_id", "number"),
                      UniqueConstraint("municipality_id", "year", "seq"))

    id: Mapped[int] = mapped_column(primary_key=True)
    sanction_id: Mapped[int] = mapped_column(ForeignKey("sanctions.id"), unique=True)
    number: Mapped[str] = mapped_column(String(30))        # "NT-2026/000123"
    year: Mapped[int] = mapped_column(Integer)
    seq: Mapped[int] = mapped_column(Integer)
    document_kind: Mapped[str] = mapped_column(String(30))  # notice | warning | infraction_record | decision
    issued_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    deadline_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    access_code_hash: Mapped[str] = mapped_column(String(200))  # Argon2 of the printed code
    inspection_id: Mapped[int | None] = mapped_column(ForeignKey("inspections.id"))
    ack_name: Mapped[str | None] = mapped_column(String(200))   # the driver's "ciente"
    ack_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    ack_signature_sha256: Mapped[str | None] = mapped_column(String(64))
    complied_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    complied_inspection_id: Mapped[int | None] = mapped_column(ForeignKey("inspections.id"))

    sanction: Mapped[Sanction] = relationship(back_populates="notice")


# How a company's copy of a notice went out (Tapurah Lei 406/2001 Art. 27 I).
COPY_MEANS = {"hand": "entregue em mãos", "mail": "correio", "email": "e-mail",
              "app": "notificação no aplicativo",
              "ciente": "ciente do próprio titular na rua (mesmo CPF)"}


class NoticeCompanyCopy(TownScoped, db.Model):
    """The company's copy of a notice the law wants sent to it ("remessa de cópia da
    notificação à empresa"): the PDF made at issuance, marked as a copy, and its remittance
    (day, means, who recorded it; "app" when the company's subscription was pushed)."""

    __tablename__ = "notice_company_copies"
    __table_args__ = (
        Index("ix_notice_company_copies_town_pending", "municipality_id", "remitted_on"),
        CheckConstraint("(remitted_on IS NULL) = (remitted_via IS NULL)",
                        name="remittance_complete"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    notice_id: Mapped[int] = mapped_column(ForeignKey("notices.id"), unique=True)
    holder_id: Mapped[int | None] = mapped_column(ForeignKey("holders.id"))
    company_name: Mapped[str] = mapped_column(String(200))   # as on the day of issue
    citation: Mapped[dict] = mapped_column(JSON_VALUE)       # the article asking for it
    sha256: Mapped[str] = mapped_column(String(64), index=True)
    size: Mapped[int] = mapped_column(Integer)
    pdf: Mapped[bytes] = deferred(mapped_column(LargeBinary, nullable=False))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    remitted_on: Mapped[date | None] = mapped_column(Date)         # the day it went out
    remitted_via: Mapped[str | None] = mapped_column(String(20))   # COPY_MEANS key
    remittance_ref: Mapped[str] = mapped_column(String(200), default="")  # AR, e-mail...
    recorded_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    recorded_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    notification_id: Mapped[int | None] = mapped_column(ForeignKey("notifications.id"))

    notice: Mapped[Notice] = relationship()
    holder = relationship("Holder")
    recorded_by = relationship("User")

    @property
    def via_label(self) -> str:
        """The means in pt-BR ("correio", "notificação no aplicativo"...)."""
        return COPY_MEANS.get(self.remitted_via or "", self.remitted_via or "")


class Fine(TownScoped, db.Model):
    """The money of a decided fine or daily fine: unit amount, BRL on the day, accrual."""

    __tablename__ = "fines"

    id: Mapped[int] = mapped_column(primary_key=True)
    sanction_id: Mapped[int] = mapped_column(ForeignKey("sanctions.id"), unique=True)
    unit: Mapped[str | None] = mapped_column(String(20))
    amount: Mapped[Decimal | None] = mapped_column(Numeric(14, 4))
    amount_max: Mapped[Decimal | None] = mapped_column(Numeric(14, 4))
    per: Mapped[str | None] = mapped_column(String(10))           # "day" for a daily fine
    amount_brl: Mapped[Decimal | None] = mapped_column(Numeric(14, 2))  # per day when daily
    brl_basis: Mapped[str] = mapped_column(Text, default="")
    value_on: Mapped[date] = mapped_column(Date)                  # the day the BRL value is from
    daily_start_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    stopped_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    accrued_days: Mapped[int] = mapped_column(Integer, default=0)
    accrued_brl: Mapped[Decimal | None] = mapped_column(Numeric(14, 2))
    accrued_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))

    sanction: Mapped[Sanction] = relationship(back_populates="fine")
    payments: Mapped[list[FinePayment]] = relationship(back_populates="fine",
                                                       order_by="FinePayment.id")


class FinePayment(TownScoped, db.Model):
    """A payment of a fine as the town's treasury reports it (DAM or receipt number).

    Never deleted or edited: a mistaken one is reversed (estorno) with who, when and why,
    stops counting, and its DAM/receipt number may be recorded again."""

    __tablename__ = "fine_payments"
    __table_args__ = (
        Index("ux_fine_payments_live_receipt", "municipality_id", "receipt", unique=True,
              sqlite_where=sql_text("reversed_at IS NULL"),
              postgresql_where=sql_text("reversed_at IS NULL")),
        CheckConstraint("(reversed_at IS NULL) = (reversal_reason IS NULL)",
                        name="reversal_complete"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    fine_id: Mapped[int] = mapped_column(ForeignKey("fines.id"), index=True)
    paid_on: Mapped[date] = mapped_column(Date)                  # the day it was paid
    amount_brl: Mapped[Decimal] = mapped_column(Numeric(14, 2))
    receipt: Mapped[str] = mapped_column(String(40))             # DAM / receipt number
    recorded_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    recorded_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    reversed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    reversed_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    reversal_reason: Mapped[str | None] = mapped_column(Text)

    fine: Mapped[Fine] = relationship(back_populates="payments")
    recorded_by = relationship("User", foreign_keys=[recorded_by_id])
    reversed_by = relationship("User", foreign_keys=[reversed_by_id])

    @property
    def reversed(self) -> bool:
        """Whether the payment was reversed (estornado) and no longer counts."""
        return self.reversed_at is not None


class AppealStatus(str, enum.Enum):
    PENDING = "pending"
    ACCEPTED = "accepted"          # provido
    REFUSED = "refused"            # negado
    NOT_ADMITTED = "not_admitted"  # filed after the window: not admitted

    @property
    def label(self) -> str:
        """pt-BR name."""
        return {"pending": "Aguardando decisão", "accepted": "Provido", "refused": "Negado",
                "not_admitted": "Não admitido (fora do prazo)"}[self.value]


class Appeal(TownScoped, db.Model):
    """An appeal against an act: when and by whom it was filed, and its decision."""

    __tablename__ = "appeals"

    id: Mapped[int] = mapped_column(primary_key=True)
    sanction_id: Mapped[int] = mapped_column(ForeignKey("sanctions.id"), index=True)
    filed_on: Mapped[date] = mapped_column(Date)          # the day it was filed (protocol)
    recorded_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    filed_by: Mapped[str] = mapped_column(String(200))
    filed_by_role: Mapped[str] = mapped_column(String(20))  # holder | driver | company | other
    text: Mapped[str] = mapped_column(Text)
    recorded_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    window_until: Mapped[date | None] = mapped_column(Date)
    admitted: Mapped[bool] = mapped_column(default=True)
    suspensive: Mapped[bool | None] = mapped_column(Boolean)
    to: Mapped[str] = mapped_column(String(20))            # supervisor | mayor
    status: Mapped[AppealStatus] = mapped_column(_enum(AppealStatus))
    decided_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    decided_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    decision_text: Mapped[str] = mapped_column(Text, default="")
    decision_ref: Mapped[str] = mapped_column(String(200), default="")

    sanction: Mapped[Sanction] = relationship(back_populates="appeals")


class EnforcementEvent(TownScoped, db.Model):
    """One step in the life of an inspection's acts; also the feed for documents and push.

    `kind`: proposed, confirmed, amended, rejected, forwarded_to_mayor, notice_issued,
    comment, complied, converted, fine_accrued, appeal_filed, appeal_not_admitted,
    appeal_decided, appeal_window_closed, deadline_soon, registry_effect, closed,
    inspection_reviewed, no_proposal. `dedupe_key` makes a once-only event once only.
    """

    __tablename__ = "enforcement_events"

    id: Mapped[int] = mapped_column(primary_key=True)
    sanction_id: Mapped[int | None] = mapped_column(ForeignKey("sanctions.id"), index=True)
    inspection_id: Mapped[int | None] = mapped_column(ForeignKey("inspections.id"), index=True)
    kind: Mapped[str] = mapped_column(String(40))
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))        # the clock of the act
    recorded_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    actor_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    actor: Mapped[str] = mapped_column(String(120))
    text: Mapped[str] = mapped_column(Text, default="")     # a pt-BR sentence
    data: Mapped[dict | None] = mapped_column(JSON_VALUE)
    dedupe_key: Mapped[str | None] = mapped_column(String(160), unique=True)


class TickState(db.Model):
    """The one row every `enforcement tick` locks first, so that two ticks take turns."""

    __tablename__ = "enforcement_tick_state"

    id: Mapped[int] = mapped_column(primary_key=True)
    runs: Mapped[int] = mapped_column(Integer, default=0)
    last_now: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    last_started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    last_finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    last_changes: Mapped[int] = mapped_column(Integer, default=0)
