"""Who is told what, hooked to the enforcement services' listeners.

- supervisors of the town: an inspection is ready for review;
- the agent: their inspection was reviewed;
- holders (people or companies) subscribed through one of their notices: a new notice was
  issued to them, its document was delivered (an office decision: time runs from then), and
  a notice's deadline is two days away.

Each `notify_*` function works in the caller's transaction and may be called directly; each
uses a dedupe key, so a trigger that fires twice notifies once. `register()` subscribes
them to `inspector.enforcement` (done when the notifications blueprint is
registered).
"""
from __future__ import annotations

from datetime import UTC, date, datetime

from flask import current_app
from sqlalchemy import bindparam, exists, select
from werkzeug.routing import BuildError

from inspector import clock, documents
from inspector.clock import utc
from inspector.enforcement import holder_of
from inspector.extensions import db
from inspector.models import (
    Holder,
    Inspection,
    Municipality,
    Notice,
    NoticeCompanyCopy,
    Notification,
    PushSubscription,
    Role,
    Sanction,
    TickState,
    User,
    Vehicle,
)
from inspector.notifications.push import notify_push

# The supervisor's review page (the review blueprint), when the app has it.
REVIEW_ENDPOINTS = ("review.inspection",)


def _count(n: int, one: str, many: str) -> str:
    """"1 ato proposto", "2 atos propostos": the number and its noun agree."""
    return f"{n} {one if n == 1 else many}"


def _path(endpoints, fallback: str, **values) -> str:
    """A path to the first endpoint the app has (no request context needed), or fallback."""
    adapter = current_app.url_map.bind("localhost")
    for endpoint in endpoints:
        if endpoint in current_app.view_functions:
            try:
                return adapter.build(endpoint, values)
            except BuildError:
                continue
    return fallback


def holder_page(notice: Notice) -> str:
    """The holder's page of a notice (asks for the printed access code)."""
    town = db.session.get(Municipality, notice.municipality_id)
    return f"/notificacoes/{town.slug}/{notice.number}"


def _local(moment: datetime | None, act: Sanction) -> str:
    """A moment on the clock of the act's town, and which clock that is: "05/12/2026 10:00
    (horário de MT)"."""
    if moment is None:
        return ""
    town = db.session.get(Municipality, act.municipality_id)
    return f"{clock.town_text(town, moment)} ({clock.zone_label(town)})"


def _moment(*candidates) -> datetime | None:
    for c in candidates:
        if c is not None:
            return c if c.tzinfo else c.replace(tzinfo=UTC)
    return None


def _tick_now() -> datetime | None:
    """The clock of the tick running in this transaction (None outside a tick)."""
    return db.session.scalar(select(TickState.last_now).where(TickState.id == 1))


def _plate(insp: Inspection) -> str:
    vehicle = insp.vehicle or db.session.get(Vehicle, insp.vehicle_id)
    return vehicle.plate if vehicle is not None else "?"


# a town's active supervisors and admins, in one statement built once
_OFFICE = (select(User).where(User.municipality_id == bindparam("town"), User.active.is_(True),
                              User.role.in_((Role.SUPERVISOR, Role.ADMIN))).order_by(User.id))


def _reviewers(town_id: int) -> list[User]:
    """The town's active supervisors; a town with no supervisor: its active admins."""
    office = db.session.scalars(_OFFICE, {"town": town_id}).all()
    return ([u for u in office if u.role == Role.SUPERVISOR]
            or [u for u in office if u.role == Role.ADMIN])


def notify_inspection_to_review(inspection: Inspection, acts=(), now: datetime | None = None):
    """Tell the town's supervisors that an inspection waits for their review."""
    now = _moment(now, inspection.completed_at, inspection.received_at)
    count = len(list(acts or ()))
    agent = inspection.agent.name if inspection.agent is not None else "agente"
    body = (f"Placa {_plate(inspection)} · "
            f"{_count(inspection.failed_items, 'item reprovado', 'itens reprovados')} · "
            f"{_count(count, 'ato proposto', 'atos propostos')} · {agent}")
    url = _path(REVIEW_ENDPOINTS, "/notificacoes", ident=inspection.id)
    return [note for user in _reviewers(inspection.municipality_id)
            if (note := notify_push(user, "inspection_to_review", "Vistoria para revisar", body, url,
                               {"inspection_id": inspection.id}, now=now,
                               dedupe_key=f"to_review:{inspection.id}:u{user.id}"))]


def notify_inspection_reviewed(inspection: Inspection, now: datetime | None = None):
    """Tell the agent that their inspection was reviewed (the app shows the result)."""
    agent = inspection.agent or db.session.get(User, inspection.agent_id)
    if agent is None or not agent.active:
        return None
    acts = db.session.scalars(select(Sanction.status).where(
        Sanction.inspection_id == inspection.id)).all()
    rejected = sum(1 for s in acts if s.value == "rejected")
    decided = len(acts) - rejected
    if not acts:
        body = f"Placa {_plate(inspection)}: nenhum ato a decidir"
    else:
        body = f"Placa {_plate(inspection)}: {_count(decided, 'ato confirmado', 'atos confirmados')}"
    if rejected:
        body += f", {_count(rejected, 'rejeitado', 'rejeitados')} — veja o motivo no aplicativo"
    return notify_push(agent, "inspection_reviewed", "Sua vistoria foi revisada", body + ".",
                  "/campo", {"inspection_id": inspection.id, "uuid": inspection.uuid},
                  now=_moment(now, inspection.reviewed_at),
                  dedupe_key=f"reviewed:{inspection.id}")


def _subscribed(holder: Holder | None) -> bool:
    return holder is not None and bool(db.session.scalar(select(exists().where(
        PushSubscription.holder_id == holder.id))))


def notify_notice_issued(notice: Notice, act: Sanction, now: datetime | None = None):
    """Tell a subscribed holder that a notice was issued to them (number and deadline only)."""
    holder = holder_of(act)
    if not _subscribed(holder):
        return None
    body = f"{act.kind_label} nº {notice.number}"
    if (cite := documents.copy_citation(act)) is not None:  # the law wants the company's copy
        rider = act.driver.name if act.driver is not None else "condutor"
        body = f"Cópia à empresa ({cite['law']}, {cite['article']}), condutor {rider}: {body}"
    if notice.deadline_at is not None:
        body += f", prazo até {_local(notice.deadline_at, act)}" + _why(act.deadline_explain)
    elif _waits_for_delivery(act):  # decided in the office: nothing runs before delivery
        body += ", o prazo começa a contar da entrega do documento"
    body += ". Use o código impresso no documento para ver os detalhes."
    return notify_push(holder, "notice_issued", "Nova notificação da fiscalização", body,
                  holder_page(notice), {"notice": notice.number},
                  now=_moment(now, notice.issued_at),
                  dedupe_key=f"notice_issued:{notice.id}:h{holder.id}")


def _why(explain: str | None) -> str:
    """How a date named in a push was counted (the legal calendar's line kept with the act:
    rule, span, days without office skipped), in brackets; "" for acts counted before it."""
    return f" [{explain}]" if explain else ""


def _waits_for_delivery(act: Sanction) -> bool:
    return bool(act.awaiting_delivery and (act.deadline_hours or act.deadline_days
                                           or act.appeal_days or act.suspension_days))


def notify_act_delivered(act: Sanction, now: datetime | None = None):
    """Tell a subscribed holder that the document of an act decided in the office was
    delivered: its deadline and appeal window now run, until the dates they end."""
    notice = act.notice
    holder = holder_of(act)
    if notice is None or not _subscribed(holder):
        return None
    body = (f"{act.kind_label} nº {notice.number}: entrega registrada em "
            f"{_local(act.notified_at, act)[:10]}")
    if act.deadline_at is not None:
        body += (f"; prazo para cumprir até {_local(act.deadline_at, act)}"
                 + _why(act.deadline_explain))
    if act.appeal_until is not None:
        body += f"; recurso até {act.appeal_until:%d/%m/%Y}" + _why(act.appeal_explain)
    body += ". Use o código impresso no documento para ver os detalhes."
    return notify_push(holder, "act_delivered", "Documento entregue: o prazo começou", body,
                  holder_page(notice), {"notice": notice.number},
                  now=_moment(now, act.delivery_recorded_at),
                  dedupe_key=f"act_delivered:{act.id}:h{holder.id}")


def notify_deadline_soon(act: Sanction, deadline_at: datetime, now: datetime | None = None):
    """Tell a subscribed holder that the deadline of their notice is two days away."""
    notice = act.notice
    holder = holder_of(act)
    if notice is None or not _subscribed(holder):
        return None
    deadline = _moment(deadline_at)
    body = (f"O prazo do documento nº {notice.number} termina em "
            f"{_local(deadline, act)}{_why(act.deadline_explain)}: "
            f"{act.required_action or 'veja o documento'}")
    return notify_push(holder, "deadline_soon", "Prazo vence em 2 dias", body[:600],
                  holder_page(notice), {"notice": notice.number,
                                        "deadline_at": deadline.isoformat()},
                  now=_moment(now, _tick_now()),
                  dedupe_key=f"deadline_soon:{act.id}:{deadline.isoformat()}:h{holder.id}")


def notify_deadline_moved(act: Sanction, changes: tuple[str, ...], closure_day: date,
                          now: datetime | None = None):
    """Tell a subscribed holder that a day without office entered after the notice moved its
    dates (deadlines.move_for_closure): the old and new day of each, and why."""
    notice = act.notice
    holder = holder_of(act)
    if notice is None or not _subscribed(holder):
        return None
    why = act.deadline_explain if any(c.startswith("prazo") for c in changes) \
        else act.appeal_explain
    body = (f"Documento nº {notice.number}: {'; '.join(changes)}, porque "
            f"{closure_day:%d/%m/%Y} passou a ser dia sem expediente na prefeitura"
            f"{_why(why)}.")
    return notify_push(holder, "deadline_moved", "Prazo prorrogado", body[:600],
                  holder_page(notice), {"notice": notice.number,
                                        "closure_day": closure_day.isoformat()},
                  now=_moment(now),
                  dedupe_key=f"deadline_moved:{act.id}:{closure_day.isoformat()}:h{holder.id}")


def notify_suspension_lifted(act: Sanction, restored: bool, now: datetime | None = None):
    """Tell a subscribed holder that a suspension's period is over (and whether the registry
    was restored: something else, e.g. a later revocation, may still hold it)."""
    notice = act.notice
    holder = holder_of(act)
    if notice is None or not _subscribed(holder):
        return None
    last = act.suspension_end.strftime("%d/%m/%Y") if act.suspension_end else "?"
    body = (f"Terminou em {last} a suspensão do documento nº {notice.number}. "
            + ("O cadastro voltou à situação anterior." if restored else
               "O cadastro continua com outra restrição: veja o documento."))
    return notify_push(holder, "suspension_lifted", "Fim da suspensão", body, holder_page(notice),
                  {"notice": notice.number, "restored": restored},
                  now=_moment(now, _tick_now()),
                  dedupe_key=f"suspension_lifted:{act.id}:h{holder.id}")


def remit_by_push(row: NoticeCompanyCopy, **_) -> bool:
    """When the company has push subscriptions, send it the notice (the holder's
    "notice issued" push, which then says it is the company's copy) and record the copy as
    remitted by "notificação no aplicativo"; False when it is not subscribed."""
    notice = db.session.get(Notice, row.notice_id)
    act = notice.sanction
    holder = holder_of(act)
    if holder is None or holder.id != row.holder_id or not _subscribed(holder):
        return False
    note = notify_notice_issued(notice, act)
    if note is None:  # the push listener made it first (dedupe key): find it
        note = db.session.scalar(select(Notification).where(
            Notification.dedupe_key == f"notice_issued:{notice.id}:h{holder.id}"))
    if note is None:
        return False
    sent = utc(note.created_at)
    town = db.session.get(Municipality, notice.municipality_id)
    return documents.mark_remitted(row, day=clock.town_day(town, sent), via="app",
                                   ref=f"notificação nº {note.id}", user=None, now=sent,
                                   notification_id=note.id)


# --- listeners -------------------------------------------------------------------------------------
def _on_to_review(inspection, acts=(), **_):
    notify_inspection_to_review(inspection, acts)


def _on_reviewed(inspection, **_):
    notify_inspection_reviewed(inspection)


def _on_notice(notice, act, **_):
    notify_notice_issued(notice, act)


def _on_delivered(act, **_):
    notify_act_delivered(act)


def _on_deadline(act, deadline_at, **_):
    notify_deadline_soon(act, deadline_at)


def _on_moved(act, changes, closure_day, now=None, **_):
    notify_deadline_moved(act, changes, closure_day, now)


def _on_lifted(act, restored, **_):
    notify_suspension_lifted(act, restored)


LISTENERS = {"inspection_to_review": _on_to_review, "inspection_reviewed": _on_reviewed,
             "notice_issued": _on_notice, "act_delivered": _on_delivered,
             "deadline_soon": _on_deadline, "deadline_moved": _on_moved,
             "suspension_lifted": _on_lifted, "company_copy_made": remit_by_push}


def register_triggers() -> bool:
    """Subscribe the triggers to the enforcement services (create_app calls it once)."""
    from inspector import enforcement
    for kind, fn in LISTENERS.items():
        enforcement.subscribe(kind, fn)
    return True


__all__ = ["LISTENERS", "holder_of", "holder_page", "notify_act_delivered", "notify_deadline_moved",
           "notify_deadline_soon",
           "notify_suspension_lifted",
           "notify_inspection_reviewed", "notify_inspection_to_review", "notify_notice_issued",
           "register_triggers"]
