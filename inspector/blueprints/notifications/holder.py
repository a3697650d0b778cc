"""The holder's page of a notice: reached from the QR printed on it (`/notificacoes/<number>`),
opened with the access code printed beside it; shows that notice's status and lets the
holder subscribe this phone to push notifications about their notices.

Holders have no login: a right code puts the notice in the (signed) session cookie for
two hours. Every answer to a code takes at least `HOLDER_CODE_MIN_SECONDS`, right or
wrong, known number or not, and the form is rate-limited per address.
"""
from __future__ import annotations

import time
from datetime import UTC, date, datetime

from argon2 import PasswordHasher
from flask import (
    Response,
    current_app,
    jsonify,
    make_response,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from inspector import bodies, clock, documents, enforcement, notifications, vistorias
from inspector.documents import APPEAL_TO
from inspector.enforcement import deadline_rule
from inspector.errors import ValidationFailed, on_refusal
from inspector.extensions import db, limiter
from inspector.models import (
    SETTLED,
    Municipality,
    Notice,
)
from inspector.rules import (
    FINE_KINDS,
    UNDEFINED,
    Money,
)
from inspector.security import config_limit, no_store, public

ACCESS_KEY = "notice_access"
ACCESS_SECONDS = 2 * 3600
MAX_REMEMBERED = 10
DOCUMENT_LABELS = {"notice": "Notificação", "warning": "Advertência escrita",
                   "infraction_record": "Auto de infração", "decision": "Decisão"}
WRONG = ("Número do documento ou código de acesso não confere. Confira o código impresso no "
         "documento (10 letras e números) e tente de novo.")
# The hash of a random code nobody knows, with the parameters notices are hashed with: an
# unknown number costs the same verification as a known one.
DUMMY_HASH = "$argon2id$v=19$m=65536,t=3,p=4$dwWqMkHLLrAFxxbR6DtD6w$B+m7yaf4UUSoPTwHRbZ/JO93O27XaAg15blrCT9Zf6o"  # noqa: E501


_code_limit = config_limit("HOLDER_CODE_RATE_LIMIT", "10 per minute;40 per hour")


_page_limit = config_limit("HOLDER_PAGE_RATE_LIMIT", "60 per minute")


def too_many(_e):
    """Rate-limited: JSON for the API, a small pt-BR page for the holder."""
    message = "Muitas tentativas. Aguarde alguns minutos e tente de novo."
    if request.path.startswith("/api/"):
        return jsonify({"error": message, "status": 429}), 429
    return _form(None, message, 429)


def _form(path: str | None, error: str | None = None, status: int = 200) -> Response:
    """The page asking for the access code (and the number, when `path` is None)."""
    return no_store(make_response(render_template(
        "notifications/holder.html", view=None, number=path,
        shown=split(path)[1] if path else None, error=error), status))


# --- access --------------------------------------------------------------------------------------
def split(path: str) -> tuple[str | None, str]:
    """"tapurah/NOT-2026/000001" -> ("tapurah", "NOT-2026/000001"); a bare number (numbers
    repeat across towns, the code then tells them apart) -> (None, number)."""
    path = (path or "").strip()[:80]
    head, sep, rest = path.partition("/")
    if sep and rest and head == head.lower() and not any(c.isdigit() for c in head):
        return head, rest
    return None, path


def _notices(path: str, *extra):
    town, number = split(path)
    q = select(Notice).where(Notice.number == number, *extra)
    if town is not None:
        q = q.join(Municipality, Municipality.id == Notice.municipality_id) \
            .where(Municipality.slug == town)
    return q.order_by(Notice.id)


def page_path(notice: Notice) -> str:
    """The holder page's `number` argument: the town's slug and the notice number."""
    town = db.session.get(Municipality, notice.municipality_id)
    return f"{town.slug}/{notice.number}"


def _granted(path: str) -> Notice | None:
    """The notice at this path that this browser opened with its code (not expired)."""
    access = session.get(ACCESS_KEY) or {}
    now = clock.now().timestamp()
    ids = [int(k) for k, until in access.items() if until > now]
    if not ids or not path:
        return None
    return db.session.scalars(_notices(path, Notice.id.in_(ids))).first()


def _grant(notice: Notice) -> None:
    now = clock.now().timestamp()
    access = {k: v for k, v in (session.get(ACCESS_KEY) or {}).items() if v > now}
    access[str(notice.id)] = now + ACCESS_SECONDS
    session[ACCESS_KEY] = dict(sorted(access.items(), key=lambda kv: kv[1])[-MAX_REMEMBERED:])


def _match(path: str, code: str) -> Notice | None:
    """The notice at this path with this code (without a town, the code tells same-numbered
    notices apart). An unknown number still costs one Argon2 verification."""
    from inspector.enforcement import check_access_code

    found = db.session.scalars(_notices(path)).all() if path else []
    match = None
    for notice in found:
        if check_access_code(notice, code) and match is None:
            match = notice
    if not found:
        try:
            PasswordHasher().verify(DUMMY_HASH, (code or "")[:40])
        except Exception:  # noqa: BLE001 - a wrong code is the expected outcome here
            pass
    return match


def _pad(started: float) -> None:
    """Answer no sooner than the configured floor, whatever the outcome."""
    left = float(current_app.config.get("HOLDER_CODE_MIN_SECONDS", 0.5)) - \
        (time.monotonic() - started)
    if left > 0:
        time.sleep(left)


def _check(path: str, code: str, *, typed: bool = False):
    started = time.monotonic()
    notice = _match(path, code)
    if notice is not None:
        _grant(notice)
        target = url_for("notifications.holder_notice", number=page_path(notice))
    _pad(started)
    if notice is None:
        return _form(None if typed else path, WRONG, 403)
    return redirect(target, 303)


# --- what the holder sees ----------------------------------------------------------------------------
def _local(moment: datetime | None, town) -> str | None:
    """A moment on the clock of the notice's town, "dd/mm/aaaa às hh:mm"."""
    if moment is None:
        return None
    return clock.town_moment(town, moment).strftime("%d/%m/%Y às %H:%M")


def _amount(act) -> str | None:
    """A fine as the law counts it (UFM, UFIM, salário mínimo or R$), then in reais on its day;
    "valor em reais não definido" when the unit's value is not registered (a fine of 100 UFIM,
    Tapurah 406 Art. 14 § ú, is 100 UFIM whatever the page knows of the UFIM)."""
    if act.kind not in FINE_KINDS and act.amount_unit is None:
        return None
    m = Money(act.amount_unit, act.amount, act.amount_max, act.amount_per,
              act.amount_decree_key, act.amount_brl, act.amount_basis or "")
    if not m.defined or act.amount_unit == "BRL":
        return m.text
    if act.amount_brl is None:
        return f"{m.text} (valor em reais {UNDEFINED})"
    on = f" em {act.amount_on:%d/%m/%Y}" if act.amount_on else ""
    return f"{m.text} — {m.brl_text}{on}"


def holder_view(notice: Notice) -> dict:
    """What the holder's page shows: what is printed on the document, and its status now."""
    act = notice.sanction
    town = db.session.get(Municipality, notice.municipality_id)
    cite = act.citation or {}
    deadline = notice.deadline_at or act.deadline_at
    if deadline is not None and deadline.tzinfo is None:
        deadline = deadline.replace(tzinfo=UTC)
    appeal: date | None = act.appeal_until
    return {
        "number": notice.number, "path": page_path(notice), "town": town.name if town else "",
        "document": DOCUMENT_LABELS.get(notice.document_kind, "Documento"),
        "act": act.label or act.kind_label,
        # the very words of the document's public page for the same act (one mapping,
        # documents.issuing.public_status): never "Confirmado" here and "Em vigor" there
        "status": documents.public_status(notice),
        "if_not_done": _if_not_done(notice),
        "appeal_how": _appeal_how(act, town),
        "has_pdf": documents.current_document(notice) is not None,
        "issued": _local(notice.issued_at, town), "deadline": _local(deadline, town),
        "zone": clock.zone_label(town),
        "deadline_passed": deadline is not None and deadline < clock.now(),
        "complied": _local(notice.complied_at, town), "required_action": act.required_action,
        "amount": _amount(act),
        "law": cite.get("law"), "article": cite.get("article"),
        "appeal_until": appeal.strftime("%d/%m/%Y") if appeal else None,
        # how each date was counted (rule, span, days without office skipped and why): the
        # legal calendar's line kept with the date when it was issued (enforcement.deadlines)
        "appeal_explain": act.appeal_explain if appeal else None,
        # the rule and its article first ("72 horas (Art. 29, parágrafo único)", or the days
        # granted with their reason, Tapurah Art. 19), then the count
        "deadline_explain": " · ".join(filter(None, (deadline_rule(act), act.deadline_explain)))
        if deadline is not None else None,
        # decided in the office, not yet delivered: no date runs yet (enforcement/
        # delivery.py; Nova Santa Helena Art. 27 § único "Após o recebimento")
        "awaiting_delivery": act.awaiting_delivery and bool(
            act.deadline_hours or act.deadline_days or act.appeal_days or act.suspension_days),
        "appeal": _appeal_outcome(act),
        "can_subscribe": enforcement.holder_of(act) is not None,
        **_suspension_and_fine(act),
    }




def _if_not_done(notice: Notice) -> dict | None:
    """What the law brings if the notice is not complied with in time, in the words and
    amount the printed notice gives (documents.content): e.g. Tapurah Lei 406/2001 Art. 29
    § único, a daily fine of 60% of the minimum wage, with its value in reais. None when the
    act brings nothing on a missed deadline or is already settled."""
    act = notice.sanction
    missed = act.on_missed
    if not missed or notice.complied_at is not None or act.status in SETTLED:
        return None
    cash = missed.get("money") or {}
    brl = cash.get("brl_text")
    cite = missed.get("citation") or {}
    return {"label": (missed.get("label") or "").rstrip("."),
            "amount": cash.get("text") or UNDEFINED,
            "brl": brl if brl and brl != UNDEFINED else None,
            "basis": cash.get("basis") or "",
            "minimum_wage": cash.get("unit") == "minimum_wage",
            "law": cite.get("law"), "article": cite.get("article")}


def _appeal_how(act, town) -> dict | None:
    """How and until when to appeal, as the printed notice says it: the last day the
    enforcement layer counted (act.appeal_until), to whom, in writing at the town hall, and
    whether the appeal suspends the act. None when the law gives no appeal."""
    if act.appeal_days is None and act.appeal_until is None:
        return None
    last = act.appeal_until
    return {"last_day": last.strftime("%d/%m/%Y") if last else None,
            "open": last is None or clock.today(town) <= last,
            "days": act.appeal_days,
            "to": APPEAL_TO.get(act.appeal_to or "", act.appeal_to or ""),
            "where": f"Prefeitura Municipal de {town.name}" if town else "Prefeitura",
            "suspensive": act.appeal_suspensive}


def _appeal_outcome(act) -> str | None:
    """The last appeal against the act as the holder should read it: pending since the day it
    was filed, or decided (provido / negado / não admitido) on a day, with its grounds."""
    appeals = sorted(act.appeals, key=lambda a: (a.filed_on, a.id))
    if not appeals:
        return None
    last = appeals[-1]
    filed = last.filed_on.strftime("%d/%m/%Y")
    if last.decided_at is None:
        return f"protocolado em {filed}, aguardando decisão"
    town = db.session.get(Municipality, act.municipality_id)
    decided = _local(last.decided_at, town).split(" às ")[0]
    grounds = f": {last.decision_text}" if last.decision_text else ""
    return f"protocolado em {filed}; {last.status.label.lower()} em {decided}{grounds}"


def _suspension_and_fine(act) -> dict:
    """The suspension's period and the fine's payment state, when the act has them."""
    balance = enforcement.balance_of(act)
    return {"suspension": enforcement.situation_text(act),
            "fine": balance.text if balance else None,
            "fine_note": balance.note if balance else ""}


@public
@limiter.limit(_page_limit)
def holder_notice(number: str):
    """The notice's status once its code was given here; else the form asking for it."""
    notice = _granted(number)
    if notice is None:
        return _form(number)
    return _page(notice, number)


def _page(notice: Notice, number: str, vistoria_error: str | None = None, status: int = 200,
          values: dict | None = None) -> Response:
    holder = enforcement.holder_of(notice.sanction)
    return no_store(make_response(render_template(
        "notifications/holder.html", view=holder_view(notice), number=number,
        shown=notice.number, error=None,
        proof=None if notice.complied_at is not None or notice.sanction.status in SETTLED
        else vistorias.proof_for(notice.sanction, holder),
        vistorias=vistorias.holder_vistorias(holder) if holder is not None else None,
        vistoria_error=vistoria_error, vistoria_values=values or {}), status))


@public
@limiter.limit(_code_limit)
def holder_book_vistoria(number: str):
    """Book or move the vistoria of one of the holder's own vehicles (docs/vistoria.md)."""
    notice = _granted(number)
    if notice is None:
        return _form(number, "Digite de novo o código de acesso impresso no documento.", 403)
    holder = enforcement.holder_of(notice.sanction)
    values = {"veiculo": request.form.get("veiculo", ""), "horario": request.form.get("horario", "")}
    if holder is None:
        return _page(notice, number, "Este documento não está ligado a um permissionário.", 422)
    try:
        vistorias.book_for_holder(holder, values["veiculo"], values["horario"])
        db.session.commit()
    except ValidationFailed as e:  # the holder's page again, with the notice this view read
        db.session.rollback()
        message = next(iter(e.errors.values()))
        return _page(notice, number, message[:1].upper() + message[1:] + ".", 422, values)
    except IntegrityError:
        db.session.rollback()
        return _page(notice, number, "Este horário acabou de ser reservado por outra pessoa. "
                                     "Escolha outro.", 409, values)
    return redirect(url_for("notifications.holder_notice", number=number, _anchor="vistoria"), 303)


@public
@limiter.limit(_page_limit)
def holder_pdf(number: str):
    """The notice's PDF as issued, for the browser that gave its code here (the code is
    printed on it); without the code, the form asking for it."""
    notice = _granted(number)
    doc = documents.current_document(notice) if notice is not None else None
    if doc is None:
        return _form(number, None, 403 if notice is None else 404)
    resp = Response(doc.pdf, mimetype="application/pdf")
    resp.headers["Content-Disposition"] = \
        f'inline; filename="{notice.number.replace("/", "-")}.pdf"'
    resp.headers["X-Content-SHA256"] = doc.sha256
    return no_store(resp)


@public
@limiter.limit(_code_limit)
def holder_code(number: str):
    """Check the access code printed on the notice."""
    return _check(number, request.form.get("codigo", ""))


@public
@limiter.limit(_code_limit)
def holder_lookup():
    """The same check with the number typed by hand (no QR reader at hand)."""
    return _check(request.form.get("numero", "").strip().upper(), request.form.get("codigo", ""),
                  typed=True)


def lookup_form():
    """The form for someone not signed in: document number and access code."""
    return _form(None)


# --- the holder's push subscription ------------------------------------------------------------------
def _holder_request(schema):
    """The body checked against `schema`, the notice opened with its code and its holder; or
    the error answer (422 malformed, 403 code not given in this session, 422 no holder)."""
    try:
        body = bodies.parse(schema, request.get_data(cache=False))
    except ValidationFailed as e:  # a helper's answer, not a view's: its own words
        return None, None, (jsonify({"error": "Pedido recusado: " + "; ".join(e.errors.values()),
                                     "status": 422, "fields": e.errors}), 422)
    notice = _granted(body.notice)
    if notice is None:
        return body, None, (jsonify({"error": "Digite de novo o código de acesso impresso no "
                                              "documento.", "status": 403}), 403)
    holder = enforcement.holder_of(notice.sanction)
    if holder is None:
        return body, None, (jsonify({"error": "Este documento não está ligado a um "
                                              "permissionário.", "status": 422}), 422)
    return body, (notice, holder), None


@public
@limiter.limit(_page_limit)
@on_refusal(says="Inscrição recusada")
def holder_subscribe():
    """Subscribe this phone to pushes about the holder of a notice opened with its code."""
    body, found, error = _holder_request(notifications.NoticeSubscribe)
    if error:
        return error
    notice, holder = found
    try:
        row, created = notifications.save_subscription(body.subscription.model_dump(), holder=holder,
                                               notice=notice,
                                               user_agent=request.user_agent.string or "")
        db.session.commit()
    except IntegrityError:
        db.session.rollback()
        return jsonify({"error": "Tente de novo.", "status": 409}), 409
    return jsonify({"id": row.id, "created": created}), 201 if created else 200


@public
@limiter.limit(_page_limit)
def holder_unsubscribe():
    """Stop pushes to this phone about the holder of the notice."""
    body, found, error = _holder_request(notifications.NoticeUnsubscribe)
    if error:
        return error
    if not notifications.remove_subscription(body.subscription.endpoint, holder_ids=[found[1].id]):
        return jsonify({"error": "Este celular não está inscrito.", "status": 404}), 404
    db.session.commit()
    return Response(status=204)
