"""What happens to a decided act: its deadline and appeal window, its document (notice
number and access code), its fine, its effect on the registry, and the daily fine a missed
deadline turns into. Every amount comes from the rule pack the act was proposed under."""
from __future__ import annotations

import hashlib
import math
import secrets
from datetime import datetime

from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError

from inspector import audit, laws, rules
from inspector.clock import aware, town_day, town_text, utc
from inspector.enforcement import deadlines, lifecycle, suspensions
from inspector.enforcement.common import (
    appeal_fields,
    event,
    measure_fields,
    money_fields,
    notify,
    pack_of,
    subject_of,
    town_of,
)
from inspector.enforcement.effects import EFFECTS, effect_subject, set_status
from inspector.extensions import db
from inspector.models import (
    Fine,
    Inspection,
    Municipality,
    Notice,
    Sanction,
    SanctionStatus,
    Status,
    StatusChange,
)
from inspector.passwords import password_hasher
from inspector.rules import (
    FINE_KINDS,
    ActKind,
    decree_label,
    money,
)
from inspector.statuses import KINDS

# Which document carries an act to the offender (oral warnings and requests to other
# authorities have none).
DOCUMENTS = {ActKind.NOTICE: "notice", ActKind.WRITTEN_WARNING: "warning",
             ActKind.FINE: "infraction_record", ActKind.DAILY_FINE: "infraction_record",
             ActKind.SUSPENSION: "decision", ActKind.REVOCATION: "decision",
             ActKind.SUSPENSION_OR_REVOCATION: "decision", ActKind.BAN: "decision"}
PREFIXES = {"notice": "NOT", "warning": "ADV", "infraction_record": "AI", "decision": "DEC"}
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I: read aloud over the phone


# --- deadline and appeal window -----------------------------------------------------------------
def schedule(act: Sanction, calendar: rules.TownCalendar | None = None) -> None:
    """Set the deadline and the last day to appeal from the moment the act was notified,
    counted by the legal calendar of the act's law and town (`deadlines.schedule`; `calendar`:
    the town's, when the caller has read it already)."""
    deadlines.schedule(act, calendar)


# --- the document ---------------------------------------------------------------------------------
def new_access_code() -> str:
    """A random code for the holder's page, printed on the notice: XXXXX-XXXXX."""
    raw = "".join(secrets.choice(CODE_ALPHABET) for _ in range(10))
    return f"{raw[:5]}-{raw[5:]}"


def normalise_code(code: str) -> str:
    """The code as typed (any case, spaces, dash or not) in its printed form."""
    raw = "".join(c for c in (code or "").upper() if c.isalnum())
    return f"{raw[:5]}-{raw[5:]}" if len(raw) == 10 else raw


def check_access_code(notice: Notice, code: str) -> bool:
    """Whether a typed code is the one printed on this notice."""
    try:
        return password_hasher().verify(notice.access_code_hash, normalise_code(code))
    except (VerificationError, InvalidHashError):
        return False


def reset_access_code(notice: Notice, *, actor) -> str:
    """A new code for a reprint (the old one stops working); returns the code to print."""
    code = new_access_code()
    notice.access_code_hash = password_hasher().hash(code)
    audit.record("notice_access_code_reset", "notice", notice.id, actor=actor,
                 municipality_id=notice.municipality_id, after={"number": notice.number})
    return code


def issue_notice(act: Sanction, now: datetime, *, actor=None) -> tuple[Notice | None, str | None]:
    """The written document of a decided act (numbered per town and year), and its code.

    The code is returned (and given to `notice_issued` listeners) once: only its hash is kept.
    """
    kind = DOCUMENTS.get(act.kind)
    if kind is None:
        return None, None
    existing = db.session.scalar(select(Notice).where(Notice.sanction_id == act.id))
    if existing is not None:
        return existing, None
    insp = db.session.get(Inspection, act.inspection_id) if act.inspection_id else None
    code = new_access_code()
    year = town_day(town_of(act), now).year
    notice = None
    for _ in range(8):  # two decisions at once may reach for the same number
        seq = 1 + (db.session.scalar(select(func.max(Notice.seq)).where(
            Notice.municipality_id == act.municipality_id, Notice.year == year)) or 0)
        notice = Notice(
            municipality_id=act.municipality_id, sanction_id=act.id, year=year, seq=seq,
            number=f"{PREFIXES[kind]}-{year}/{seq:06d}", document_kind=kind,
            issued_at=utc(now), deadline_at=aware(act.deadline_at),
            access_code_hash=password_hasher().hash(code),
            inspection_id=insp.id if insp else None, ack_name=insp.ack_name if insp else None,
            ack_at=aware(insp.finished_at) if insp and insp.ack_name else None,
            ack_signature_sha256=_signature_sha(insp))
        try:
            with db.session.begin_nested():
                db.session.add(notice)
                db.session.flush()
            break
        except IntegrityError:
            notice = None
    if notice is None:
        raise RuntimeError("could not number the notice")
    audit.record("notice_issued", "notice", notice.id, actor=actor or "enforcement-tick",
                 municipality_id=act.municipality_id,
                 after={"number": notice.number, "sanction_id": act.id,
                        "document_kind": kind, "deadline_at": notice.deadline_at})
    event("notice_issued", town_id=act.municipality_id, now=now, actor=actor, act=act,
          message=f"Documento {notice.number} emitido.", data={"number": notice.number})
    notify("notice_issued", notice=notice, act=act, access_code=code)
    return notice, code


def _signature_sha(insp: Inspection | None) -> str | None:
    if insp is None:
        return None
    sig = db.session.scalar(select(Inspection.ack_signature).where(Inspection.id == insp.id))
    return hashlib.sha256(sig).hexdigest() if sig else None


# --- the fine -------------------------------------------------------------------------------------
def open_fine(act: Sanction, now: datetime) -> Fine | None:
    """The Fine row of a decided fine or daily fine (amounts as decided, BRL on the day)."""
    if act.kind not in FINE_KINDS:
        return None
    found = db.session.scalar(select(Fine).where(Fine.sanction_id == act.id))
    if found is not None:
        return found
    fine = Fine(municipality_id=act.municipality_id, sanction_id=act.id, unit=act.amount_unit,
                amount=act.amount, amount_max=act.amount_max, per=act.amount_per,
                amount_brl=act.amount_brl, brl_basis=act.amount_basis,
                value_on=act.amount_on or town_day(town_of(act), now))
    if act.amount_per == "day":
        parent = db.session.get(Sanction, act.parent_id) if act.parent_id else None
        # a daily fine decided in the office runs from its delivery (delivery.py)
        fine.daily_start_at = aware(parent.deadline_at) if parent and parent.deadline_at \
            else aware(act.notified_at)
    db.session.add(fine)
    db.session.flush()
    accrue(fine, now)
    return fine


def accrue(fine: Fine, now: datetime) -> bool:
    """Bring a daily fine's days and total up to `now` (or to when it stopped); True if changed.

    Day n starts n-1 days after the deadline expired: a second after it, one day is due.
    """
    if fine.per != "day" or fine.daily_start_at is None:
        return False
    until = utc(now)
    if fine.stopped_at is not None:
        until = min(until, utc(fine.stopped_at))
    elapsed = (until - utc(fine.daily_start_at)).total_seconds()
    days = max(0, math.ceil(elapsed / 86400))
    total = None if fine.amount_brl is None else fine.amount_brl * days
    if days == fine.accrued_days and total == fine.accrued_brl:
        return False
    fine.accrued_days, fine.accrued_brl, fine.accrued_at = days, total, utc(now)
    return True


# --- effect on the registry -----------------------------------------------------------------------
def apply_effect(act: Sanction, now: datetime, *, actor=None) -> bool:
    """Suspend or revoke the driver's registration, the permit or the licence; True if done.

    A suspension runs for its period (`suspensions`): the row keeps its last day."""
    to = EFFECTS.get(act.kind)
    subject = effect_subject(act)
    if to is None or subject is None or act.effect_applied_at is not None:
        return False
    act.effect_applied_at = utc(now)
    suspensions.ensure_period(act, now)
    period = suspensions.period_text(act)
    if subject.status != to and subject.status != Status.REVOKED:
        cite = (_cite(act) or {}).get("article", "")
        change = set_status(subject, to, f"{act.kind_label} ({act.law}, {cite}): {act.label}. "
                             + (f"{period[0].upper()}{period[1:]}. " if period else "")
                             + f"Ato nº {act.id}.", actor, until=act.suspension_end, act=act)
        act.effect_change_id = change.id
    elif act.kind == ActKind.SUSPENSION:   # already suspended: by another act (extended) or by hand
        suspensions.refresh_until(subject, actor=actor, act=act)
    event("registry_effect", town_id=act.municipality_id, now=now, actor=actor, act=act,
          message=f"Cadastro atualizado: {act.kind_label.lower()} ({act.target}).",
          data={"target": act.target, "status": to.value, "subject_id": subject.id})
    return True


def revert_effect(act: Sanction, now: datetime, reason: str, *, actor=None) -> bool:
    """Undo a suspension or revocation this act made (its appeal was upheld)."""
    if act.kind == ActKind.SUSPENSION:
        return _end_suspension(act, now, reason, actor)
    subject = effect_subject(act)
    if act.effect_applied_at is None or subject is None or \
            subject.status != EFFECTS.get(act.kind):
        return False
    kind = KINDS[type(subject)]
    made_by_this_act = db.session.scalar(select(StatusChange.id).where(
        StatusChange.subject_type == kind, StatusChange.subject_id == subject.id,
        StatusChange.to_status == subject.status, StatusChange.sanction_id == act.id))
    if made_by_this_act is None:  # it was already so before this act: not ours to undo
        return False
    set_status(subject, Status.ACTIVE, reason, actor, act=act)
    event("registry_effect", town_id=act.municipality_id, now=now, actor=actor, act=act,
          message="Cadastro restabelecido: recurso provido.",
          data={"target": act.target, "status": "active", "subject_id": subject.id})
    return True


def _end_suspension(act: Sanction, now: datetime, reason: str, actor) -> bool:
    if act.effect_applied_at is None or act.effect_lifted_at is not None:
        return False
    restored, what = suspensions.end_period(act, now, reason[:1500], actor=actor)
    event("registry_effect", town_id=act.municipality_id, now=now, actor=actor, act=act,
          message=f"Suspensão desfeita: {what}.",
          data={"target": act.target, "restored": restored})
    return restored


def _cite(act: Sanction) -> dict | None:
    return act.citation


# --- missed deadline -> daily fine ----------------------------------------------------------------
def convert_missed(act: Sanction, now: datetime, *, actor=None) -> Sanction | None:
    """Turn a notice whose deadline passed into the daily fine its ladder step names.

    Idempotent: the daily fine's `origin_key` is unique; None when there is nothing to do.
    """
    key = f"daily:{act.id}"
    if act.deadline_at is None or act.step_id is None or \
            db.session.scalar(select(Sanction.id).where(Sanction.origin_key == key)):
        return None
    pack = pack_of(act)
    step = next((s for s in pack.ladder if s.id == act.step_id), None)
    if step is None or step.on_missed_deadline is None:
        return None
    m = step.on_missed_deadline
    town = db.session.get(Municipality, act.municipality_id)
    start = utc(act.deadline_at)
    day = town_day(town, start)                  # the minimum wage in force when it starts
    cash = money(m.fine, laws.town_facts(town), day,
                 decree_label(pack, m.fine.decree)) if m.fine else None
    appeal = m.appeal or pack.appeal
    # No delivery awaited (delivery.py): the notice "converter-se-á em multa diária" by the law
    # itself (Tapurah Lei 406/2001 Art. 29 § único), and the notice it comes from could only
    # miss its deadline after it was delivered (its deadline ran from that delivery).
    child = Sanction(
        **subject_of(act, "inspection_item_id", "measure_index", "permit_id", "licence_id",
                     "required_action"),
        **measure_fields(m), **appeal_fields(appeal), **money_fields(cash),
        origin_key=key, parent_id=act.id, offence_id=None, automatic=True,
        status=SanctionStatus.CONFIRMED, notified_at=utc(now), proposed_at=utc(now),
        decided_at=utc(now), updated_at=utc(now), amount_on=day if cash is not None else None)
    try:
        with db.session.begin_nested():
            db.session.add(child)
            db.session.flush()
    except IntegrityError:  # a concurrent tick converted it first
        return None
    schedule(child)
    converted = lifecycle.move(act, "convert", now=now, actor=actor)
    started = lifecycle.born(child, "start_daily", now=now, actor=actor)
    converted.record(f"Prazo vencido em {fmt_moment(town, start)}: {m.label} "
                     f"({cash.text if cash else ''}{', ' + cash.brl_text if cash else ''}).",
                     data={"daily_fine_id": child.id}, after={"daily_fine_id": child.id})
    started.record(after={"parent_id": act.id, "daily_start_at": start})
    converted.tell()
    open_fine(child, now)
    issue_notice(child, now, actor=actor)
    started.tell(parent=act)
    propose_removal(act, pack, start, now, actor=actor)
    return child


REMOVAL_AFTER = 3   # Tapurah Lei 406/2001 Art. 27 III: "após a terceira notificação"


def propose_removal(act: Sanction, pack: rules.RulePack, missed_at: datetime, now: datetime,
                    *, actor=None) -> Sanction | None:
    """A notice that is the rider's third or a later one passed its deadline without repair:
    the rider, notified three times, is still not complying, so the request to remove the
    rider is proposed (Tapurah Art. 27 III, as the product owner reads it; never together with
    the third notice itself). Only where the pack has a removal request; idempotent."""
    measure = next((m for s in pack.ladder for m in s.measures if m.kind == ActKind.REMOVAL_REQUEST),
                   None)
    key = f"removal:{act.id}"
    if measure is None or act.kind != ActKind.NOTICE or (act.occurrence or 1) < REMOVAL_AFTER or \
            db.session.scalar(select(Sanction.id).where(Sanction.origin_key == key)):
        return None
    number = act.notice.number if act.notice is not None else f"ato {act.id}"
    removal = Sanction(
        **subject_of(act, "amount_on"), **measure_fields(measure),
        origin_key=key, parent_id=act.id, offence_id=None, measure_index=0,
        required_action="", automatic=False,
        status=SanctionStatus.PROPOSED, proposed_at=utc(now), updated_at=utc(now),
        reason=f"A notificação {number}, {act.occurrence}ª do condutor, venceu em "
               f"{fmt_moment(town_of(act), missed_at)} sem cumprimento: depois da terceira notificação, o "
               f"condutor continua sem cumprir ({act.law}, {measure.citation.article}).")
    try:
        with db.session.begin_nested():
            db.session.add(removal)
            db.session.flush()
    except IntegrityError:   # a concurrent tick proposed it first
        return None
    lifecycle.born(removal, "propose", now=now, actor=actor).done(
        f"Proposto: {measure.label} ({act.law}, {measure.citation.article}). {removal.reason}",
        data={"notice": act.id, "occurrence": act.occurrence},
        after={"rule_id": removal.rule_id, "notice": act.id, "offender": act.offender,
               "occurrence": act.occurrence})
    return removal


def fmt_moment(town, moment: datetime) -> str:
    """dd/mm/aaaa hh:mm on the town's clock."""
    return town_text(town, moment)
