"""The company's copy of a rider's notice, where the law asks for one.

Tapurah Lei 406/2001 Art. 27 I: the agent notifies the rider in writing "com o respectivo
ciente e conseqüente remessa de cópia da notificação à empresa". Which acts need a copy is
read from the rule pack (`copy_to_company` on the measure, with its citation), never from
the town's name. When such a notice is issued, `make_copy` (called by the documents
listener, the only moment the access code exists in clear) renders the same notice with
"CÓPIA — remetida à empresa <nome>" on every page and keeps it. The remittance is then
recorded by a supervisor (`record_remittance`: day, means, reference) or, when the company
has push subscriptions, at once as "notificação no aplicativo" (`notifications.triggers.remit_by_push`).
When the rider who signed the ciente on the street is the holder himself (the same CPF), the
holder was notified in person: the copy is recorded remitted by that ciente, at once
(`owner_signed`); an auxiliary's or employee's ciente is not the holder's.
No Flask request here; see docs/documents.md.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import date, datetime

from sqlalchemy import select, update

from inspector import audit
from inspector.clock import town_day, utc
from inspector.documents.drawing import render_notice_pdf
from inspector.enforcement import holder_of, notify, pack_measure
from inspector.errors import ValidationFailed
from inspector.extensions import db
from inspector.models import COPY_MEANS, Municipality, Notice, NoticeCompanyCopy, Role, Sanction
from inspector.rules import fmt_date

# What a supervisor may record by hand; "app" is recorded only when the push was made.
MANUAL_MEANS = ("hand", "mail", "email")
NO_COMPANY = "(empresa não identificada no cadastro)"


class AlreadyRemitted(ValidationFailed):
    """The copy's remittance was recorded before (HTTP 409)."""


class CopyNotAllowed(ValidationFailed):
    """Not a supervisor or admin of the copy's town (HTTP 403)."""


# --- does the law ask for it? -----------------------------------------------------------------
def copy_citation(act: Sanction) -> dict | None:
    """The citation of the article asking for a copy to the company (JSON form), or None:
    the act's measure in its rule pack carries `copy_to_company` (same kind as decided)."""
    measure = pack_measure(act)
    if measure is None or measure.copy_to_company is None:
        return None  # amended into another measure, or the law asks for no copy
    return measure.copy_to_company.as_dict()


def company_of(act: Sanction):
    """The company (permit holder) the rider's act concerns, or None."""
    return holder_of(act)


# --- making the copy ----------------------------------------------------------------------------
def copy_of(notice: Notice) -> NoticeCompanyCopy | None:
    """The company's copy of a notice, or None."""
    return db.session.scalar(select(NoticeCompanyCopy)
                             .where(NoticeCompanyCopy.notice_id == notice.id))


def copy_mark(company_name: str) -> str:
    """What is printed on every page of the company's copy."""
    return f"CÓPIA — remetida à empresa {company_name}"


def make_copy(notice: Notice, access_code: str | None, *, actor=None,
              now: datetime | None = None, sheet=None) -> NoticeCompanyCopy | None:
    """Make and keep the company's copy when the law asks for one (idempotent), then remit
    it by push when the company is subscribed; None when no copy is due.

    `sheet`: the notice's content as read for the original (`drawing.notice_sheet`,
    same access code); the copy is then drawn from it without reading the database again.

    The copy prints `audit.head(town)`, as every stored document does: "na emissão deste
    documento, o registro terminava na entrada nº N", the last entry committed when it was
    made. Made in the original's transaction, that is the original's anchor too; the records
    of both issues are chained after it when the transaction commits."""
    act = notice.sanction
    cite = copy_citation(act)
    if cite is None:
        return None
    found = copy_of(notice)
    if found is not None:
        return found
    holder = company_of(act)
    name = holder.name if holder is not None else NO_COMPANY
    pdf = render_notice_pdf(notice, access_code, audit.head(notice.municipality_id),
                            copy_mark=copy_mark(name), sheet=sheet)
    row = NoticeCompanyCopy(
        municipality_id=notice.municipality_id, notice_id=notice.id,
        holder_id=holder.id if holder is not None else None, company_name=name[:200],
        citation=cite,
        sha256=hashlib.sha256(pdf).hexdigest(), size=len(pdf), pdf=pdf,
        created_at=utc(now or notice.issued_at), remittance_ref="")
    db.session.add(row)
    db.session.flush()
    audit.record("notice_company_copy_made", "notice", notice.id,
                 actor=actor or act.decided_by_user or "enforcement-tick",
                 municipality_id=notice.municipality_id,
                 after={"number": notice.number, "company": row.company_name,
                        "holder_id": row.holder_id, "sha256": row.sha256, "size": row.size,
                        "citation": cite.get("article")})
    if owner_signed(act, notice):   # the holder signed the ciente himself: delivered
        mark_remitted(row, day=town_day(db.session.get(Municipality, notice.municipality_id),
                                        notice.ack_at), via="ciente", ref=OWNER_CIENTE,
                      user=None, now=now or notice.issued_at, actor="sistema")
    notify("company_copy_made", row=row)  # a subscribed company gets it by push
    return row


OWNER_CIENTE = "ciente assinado pelo próprio titular (mesmo CPF)"


def _digits(value: str | None) -> str:
    return "".join(c for c in (value or "") if c.isdigit())


def owner_signed(act: Sanction, notice: Notice) -> bool:
    """Whether the ciente on the street was signed by the holder himself: the rider the act
    names has the holder's CPF (product owner, December 2026: the holder was notified in
    person, delivery is complete). An auxiliary's or employee's ciente is not the holder's."""
    if not notice.ack_name or notice.ack_at is None or act.driver is None:
        return False
    holder = company_of(act)
    cpf = _digits(getattr(act.driver, "cpf", None))
    return holder is not None and bool(cpf) and cpf == _digits(holder.tax_id)


# --- remittance ---------------------------------------------------------------------------------
def mark_remitted(row: NoticeCompanyCopy, *, day: date, via: str, ref: str, user,
              now: datetime, notification_id: int | None = None,
              actor: str | None = None) -> bool:
    """Record the remittance if nobody did (conditional UPDATE); False when already done."""
    done = db.session.execute(
        update(NoticeCompanyCopy).where(NoticeCompanyCopy.id == row.id,
                                        NoticeCompanyCopy.remitted_on.is_(None))
        .values(remitted_on=day, remitted_via=via, remittance_ref=ref,
                recorded_at=utc(now), recorded_by_id=getattr(user, "id", None),
                notification_id=notification_id)
        .execution_options(synchronize_session=False))
    if done.rowcount != 1:
        return False
    db.session.refresh(row)
    notice = db.session.get(Notice, row.notice_id)
    actor = user or actor or "notificacao-aplicativo"
    audit.record("notice_copy_remitted", "notice", notice.id, actor=actor,
                 municipality_id=row.municipality_id,
                 after={"number": notice.number, "company": row.company_name,
                        "remitted_on": day.isoformat(), "via": via, "ref": ref,
                        "notification_id": notification_id})
    from inspector.enforcement import event
    event("company_copy_remitted", town_id=row.municipality_id, now=now, actor=actor,
          act=notice.sanction,
          message=f"Cópia do documento {notice.number} remetida à empresa {row.company_name} "
                  f"em {fmt_date(day)} ({COPY_MEANS[via]}).",
          data={"number": notice.number, "via": via, "remitted_on": day.isoformat()})
    return True


def record_remittance(row: NoticeCompanyCopy, user, now: datetime, *, day, via,
                      ref="") -> NoticeCompanyCopy:
    """A supervisor or admin of the town records how and when the copy went to the company.

    CopyNotAllowed (403), AlreadyRemitted (409) or ValidationFailed (422), nothing written."""
    if getattr(user, "role", None) not in (Role.SUPERVISOR, Role.ADMIN):
        raise CopyNotAllowed({"role": "Só a supervisão ou a administração registram a remessa "
                                  "da cópia à empresa."})
    if getattr(user, "municipality_id", None) != row.municipality_id:
        raise CopyNotAllowed({"role": "Esta cópia é de outro município."})
    db.session.refresh(row)
    if row.remitted_on is not None:
        raise AlreadyRemitted({"status": f"A remessa desta cópia já foi registrada: "
                                         f"{remittance_text(row)}."})
    errors = {}
    via = (via or "").strip()
    if via not in MANUAL_MEANS:
        errors["via"] = ("Escolha como a cópia foi remetida: entregue em mãos, correio ou "
                         "e-mail.")
    text = (day or "").strip()
    notice = db.session.get(Notice, row.notice_id)
    town = db.session.get(Municipality, notice.municipality_id)
    issued = town_day(town, notice.issued_at)
    today = town_day(town, now)
    when = None
    try:
        when = date.fromisoformat(text) if text else None
    except ValueError:
        pass
    if when is None:
        errors["day"] = "Informe a data da remessa (dia/mês/ano)."
    elif when > today:
        errors["day"] = f"A data da remessa não pode ser futura (hoje é {fmt_date(today)})."
    elif when < issued:
        errors["day"] = (f"A data da remessa não pode ser anterior à emissão do documento "
                         f"({fmt_date(issued)}).")
    ref = " ".join((ref or "").split())
    if len(ref) > 200:
        errors["ref"] = "A referência (nº do AR, endereço de e-mail...) tem no máximo 200 letras."
    if errors:
        raise ValidationFailed(errors)
    if not mark_remitted(row, day=when, via=via, ref=ref, user=user, now=now):
        db.session.refresh(row)
        raise AlreadyRemitted({"status": f"A remessa desta cópia já foi registrada: "
                                         f"{remittance_text(row)}."})
    return row


# --- what pages show ----------------------------------------------------------------------------
def remittance_text(row: NoticeCompanyCopy) -> str:
    """"pendente" or "remetida em dd/mm/aaaa por Nome (meio)"."""
    if row.remitted_on is None:
        return "pendente"
    who = f"por {row.recorded_by.name}" if row.recorded_by is not None else "pelo sistema"
    text = f"remetida em {fmt_date(row.remitted_on)} {who} ({row.via_label})"
    return text + (f" — {row.remittance_ref}" if row.remittance_ref else "")


@dataclass(frozen=True)
class CopyView:
    """The act page's line about the company's copy."""

    copy: NoticeCompanyCopy
    company: str
    pending: bool
    text: str
    article: str        # "Lei 406/2001, Art. 27, I"
    citation: dict


def copy_view(act: Sanction) -> CopyView | None:
    """What the act page shows about the company's copy (None: no copy is due)."""
    if act.notice is None:
        return None
    row = copy_of(act.notice)
    if row is None:
        return None
    cite = row.citation
    return CopyView(copy=row, company=row.company_name, pending=row.remitted_on is None,
                    text=remittance_text(row), article=f"{cite['law']}, {cite['article']}",
                    citation=cite)


def pending_copies(town_id: int, limit: int = 200) -> list[NoticeCompanyCopy]:
    """The town's company copies not yet remitted, oldest first."""
    return list(db.session.scalars(
        select(NoticeCompanyCopy).where(NoticeCompanyCopy.municipality_id == town_id,
                                        NoticeCompanyCopy.remitted_on.is_(None))
        .order_by(NoticeCompanyCopy.created_at, NoticeCompanyCopy.id).limit(limit)).all())
