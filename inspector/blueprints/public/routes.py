"""The passenger's pages: `/v/<token>` (verification) and its report form. No login.

Tiny on purpose: one small stylesheet, no JavaScript, no fonts, nothing from elsewhere.
"""
from __future__ import annotations

from flask import Blueprint, Response, abort, current_app, make_response, render_template, request
from itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer

from inspector import clock, credentials, passenger
from inspector.blueprints.vistorias.pages import certificate_check
from inspector.errors import ValidationFailed
from inspector.extensions import db, limiter
from inspector.models import Credential, ReportCategory
from inspector.security import config_limit, no_store, public

bp = Blueprint("public", __name__)

FORM_MAX_AGE = 2 * 3600  # a report form older than this asks to be reloaded


_verify_limit = config_limit("VERIFY_RATE_LIMIT", "60 per minute;600 per hour")


_report_limit = config_limit("REPORT_RATE_LIMIT", "5 per 10 minutes;20 per day")


def _page(token: str):
    """The page's verdict for a token, judged on the day of the code's town (a licence ends at
    its midnight): the one path the page, a driver's photo and the report form share."""
    return passenger.page_for(token, clock.today(passenger.town_zone(token)))


@bp.errorhandler(429)
def too_many(_e):
    """A small pt-BR page for a rate-limited passenger (not the signed-in app's layout)."""
    resp = make_response(render_template("public/message.html", title="Muitas tentativas",
                                         message="Aguarde alguns minutos e tente de novo."), 429)
    return no_store(resp)


@bp.get("/v/<token>")
@public
@limiter.limit(_verify_limit)
def verify(token: str):
    """The passenger's verification page: a live banner and what to match; a vistoria
    certificate's QR opens its own check (docs/vistoria.md)."""
    zone = passenger.town_zone(token)
    if credentials.claimed_kind(token) == "vistoria":
        return certificate_check(token, clock.today(zone))
    p = passenger.page_for(token, clock.today(zone))
    current_app.logger.info("credential checked", extra={"fields": {
        "outcome": p.outcome, "reason": p.reason, "credential_id": p.credential_id}})
    if p.outcome == "unavailable":   # the town's rule pack is missing: an operator must act
        current_app.logger.error("rule pack missing: passenger page unavailable", extra={
            "fields": {"town": p.view.town, "credential_id": p.credential_id}})
        resp = make_response(render_template("public/message.html", title=p.view.title,
                                             message=p.view.summary), 503)
        resp.headers["Retry-After"] = "300"
        return no_store(resp)
    now_text = clock.town_text(zone)
    body = passenger.page_html(p, now_text, lambda: render_template(
        "public/verify.html", view=p.view, token=token, now_text=now_text))
    return no_store(make_response(body, 200 if p.outcome != "unknown" else 404))


@bp.get("/v/<token>/foto/<int:driver_id>")
@public
@limiter.limit(_verify_limit)
def driver_photo(token: str, driver_id: int):
    """The photo of a driver shown on an active credential's page."""
    view = _page(token).view
    if view.state in ("unknown", "revoked", "expired") or driver_id not in {p.id for p in view.drivers}:
        abort(404)
    from inspector.models import Driver

    d = db.session.get(Driver, driver_id)
    if not d.photo:
        abort(404)
    resp = Response(d.photo, mimetype=d.photo_mime or "image/jpeg")
    resp.headers["Cache-Control"] = "private, max-age=300"
    return resp


def _serializer() -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(current_app.config["SECRET_KEY"], salt="passenger-report")


def _form_started_ok() -> str | None:
    """None when the form was opened long enough ago by a person, else a message."""
    try:
        _, started = _serializer().loads(request.form.get("t", ""), max_age=FORM_MAX_AGE,
                                         return_timestamp=True)
    except SignatureExpired:
        return "O formulário ficou aberto tempo demais. Confira os dados e envie de novo."
    except BadSignature:
        return "Formulário inválido. Recarregue a página e tente de novo."
    elapsed = (clock.now() - started).total_seconds()
    if elapsed < float(current_app.config.get("REPORT_MIN_FILL_SECONDS", 3)):
        return "Enviado rápido demais. Confira os dados e envie de novo."
    return None


def _form(view, token: str, errors: dict, values: dict, status: int = 200):
    forged = view.state == "unknown"
    categories = [ReportCategory.FORGED] if forged else [
        c for c in ReportCategory if c != ReportCategory.FORGED]
    resp = make_response(render_template(
        "public/report.html", view=view, token=token, errors=errors, values=values,
        categories=categories, forged=forged, stamp=_serializer().dumps("r")), status)
    return no_store(resp)


@bp.route("/v/<token>/denunciar", methods=["GET", "POST"])
@public
@limiter.limit(_verify_limit, methods=["GET"])
@limiter.limit(_report_limit, methods=["POST"])
def report(token: str):
    """Report a problem with this ride to the town's supervisors; for a code we did not
    issue, a report of a false code to the town it claims (none when no town can be read)."""
    p = _page(token)
    view = p.view
    claimed = passenger.claimed_municipality(token) if p.outcome == "unknown" else None
    if not view.can_report:
        abort(404)
    if request.method == "GET":
        return _form(view, token, {}, {})
    values = {k: request.form.get(k, "") for k in ("categoria", "texto", "contato")}
    if claimed is not None:
        values["categoria"] = ReportCategory.FORGED.value
    if request.form.get("website"):  # the honeypot: people never see it, bots fill it
        current_app.logger.info("report honeypot", extra={"fields": {}})
        return no_store(make_response(render_template("public/thanks.html", view=view,
                                                       token=token)))
    problem = _form_started_ok()
    if problem:
        return _form(view, token, {"form": problem}, values, 422)
    upload = request.files.get("foto")
    photo = upload.read() if upload and upload.filename else None
    try:
        if claimed is not None:
            passenger.create_forged_report(claimed.id, values["texto"], values["contato"],
                                            photo)
        else:
            passenger.create_report(db.session.get(Credential, p.credential_id), view.state,
                                    values["categoria"], values["texto"], values["contato"],
                                    photo)
    except ValidationFailed as e:  # the form again needs what this view read (view, values)
        db.session.rollback()
        return _form(view, token, e.errors, values, 422)
    db.session.commit()
    return no_store(make_response(render_template("public/thanks.html", view=view,
                                                   token=token), 201))
