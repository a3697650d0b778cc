"""Admin pages for QR credentials, the public keys for agents, and the supervisors'
queue of passenger reports. Admins change; supervisors look; other towns get 404."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from flask import (
    Blueprint,
    Response,
    abort,
    flash,
    g,
    jsonify,
    redirect,
    render_template,
    request,
    url_for,
)

from inspector import clock, credentials, enforcement, passenger
from inspector.blueprints.fragments import page_or_fragment
from inspector.errors import ValidationFailed, on_refusal
from inspector.extensions import db
from inspector.models import (
    Credential,
    Driver,
    PassengerReport,
    ReportCategory,
    ReportStatus,
    Role,
    Vehicle,
)
from inspector.security import (
    day_in_range,
    get_in_town,
    login_required,
    roles_required,
    town_id,
    whole_number,
)

bp = Blueprint("credentials", __name__)

VIEWERS = (Role.ADMIN, Role.SUPERVISOR)
SHEET_LABELS = {"vehicle": "Adesivos de veículos", "rider": "Crachás de colete (moto-táxi)",
                "card": "Carteiras de motorista de táxi"}
KIND_LABELS = {"vehicle": "Adesivo de veículo", "rider": "Crachá de colete (moto-táxi)",
               "card": "Carteira de motorista de táxi"}   # one credential of each sheet
STATUS_LABELS = {"active": "Ativa", "revoked": "Cancelada", "expired": "Vencida"}


def _sheet_arg() -> str | None:
    """The sheet asked for, if the town prints it (else the whole list: no button to issue
    a sheet the town does not offer)."""
    sheet = request.args.get("folha") or None
    return sheet if sheet in credentials.offered_sheets(town_id()) else None


def _town_sheets(tid: int) -> dict[str, str]:
    """The sheets a town prints (`credentials.offered_sheets`), with their labels."""
    offered = credentials.offered_sheets(tid)
    return {s: label for s, label in SHEET_LABELS.items() if s in offered}


PER_PAGE = 25


@dataclass(frozen=True)
class Results:
    """One page of credentials found, and whether another page follows."""

    rows: list[Credential]
    page: int
    has_next: bool

    @property
    def has_prev(self) -> bool:
        """Whether a page comes before this one."""
        return self.page > 1


def _page_number() -> int:
    try:
        return max(1, min(int(request.args.get("pagina", 1)), 10_000))
    except ValueError:
        return 1


def _list_context(sheet: str | None, errors: dict | None = None, q: str = "",
                  page: int = 1) -> dict:
    tid = town_id()
    rows = credentials.search(tid, q, sheet, limit=PER_PAGE + 1, offset=(page - 1) * PER_PAGE)
    sheets = _town_sheets(tid)
    missing = {s: credentials.missing_subjects(tid, s) for s in ([sheet] if sheet else sheets)}
    return {"results": Results(rows[:PER_PAGE], page, len(rows) > PER_PAGE), "q": q,
            "max_query": credentials.MAX_QUERY, "missing": missing, "sheet": sheet,
            "today": clock.today(g.user.municipality), "sheet_labels": sheets,
            "kind_labels": KIND_LABELS,
            "status_labels": STATUS_LABELS,
            "sheet_of": credentials.sheet_of, "subject_of": credentials.subject_of,
            "errors": errors or {}}


@bp.get("/credenciais")
@roles_required(*VIEWERS)
def index():
    """The town's credentials with their status, found by plate, prefix, name, registration
    or number (`q`), of one sheet (`folha`), a page (`pagina`) at a time; and who still has
    none. htmx gets the results alone (search as you type); without JS the form reloads."""
    q = (request.args.get("q") or "").strip()[:credentials.MAX_QUERY]
    return page_or_fragment("credentials/list.html", "credentials/_results.html",
                            **_list_context(_sheet_arg(), q=q, page=_page_number()))


@bp.post("/credenciais/emitir")
@roles_required(Role.ADMIN)
@on_refusal(lambda e: (render_template("credentials/list.html", **_list_context(None, e.errors)),
                       422))
def issue():
    """Issue one credential (vehicle_id or driver_id) or all that are missing on a sheet."""
    if "folha" in request.form:  # refused (422) when the town does not print that sheet
        made = credentials.issue_missing(town_id(), request.form["folha"], g.user)
        flash(f"{len(made)} credenciais emitidas.", "success")
    elif whole_number(request.form.get("vehicle_id")):
        credentials.issue(get_in_town(Vehicle, whole_number(request.form["vehicle_id"])),
                          g.user)
        flash("Credencial emitida.", "success")
    elif whole_number(request.form.get("driver_id")):
        credentials.issue(get_in_town(Driver, whole_number(request.form["driver_id"])),
                          g.user)
        flash("Credencial emitida.", "success")
    else:
        abort(400, "Diga para quem emitir a credencial.")
    db.session.commit()
    return redirect(url_for("credentials.index"))


@bp.get("/credenciais/<int:ident>")
@roles_required(*VIEWERS)
def detail(ident: int):
    """One credential: what it names, its status, its QR link; revoke and reissue forms."""
    c = get_in_town(Credential, ident)
    return _detail(c, {})


def _detail(c: Credential, errors: dict, status: int = 200, action: str | None = None,
            reason: str = ""):
    """The credential's page; after a refused cancel or reissue, that form shows its errors
    and keeps the reason typed (`action`: cancelar | reemitir)."""
    return render_template("credentials/detail.html", c=c, errors=errors,
                           today=clock.today(g.user.municipality),
                           subject=credentials.subject_of(c), url=credentials.public_url(c.token),
                           sheet=credentials.sheet_of(c), kind_labels=KIND_LABELS,
                           status_labels=STATUS_LABELS, action=action,
                           reason=reason), status


CONFIRM = {"cancelar": "marque “Confirmo” para cancelar: o QR deixa de valer na hora",
           "reemitir": "marque “Confirmo” para reemitir: esta credencial será cancelada"}


def _confirmed_reason(action: str) -> tuple[str, dict]:
    """The reason typed in one destructive form and what is missing: its own reason and its
    own “Confirmo” box. Nothing is changed unless both are there."""
    reason = (request.form.get("motivo") or "").strip()[:500]
    errors = {}
    if len(reason) < credentials.MIN_REASON:
        errors["motivo"] = f"diga o motivo (pelo menos {credentials.MIN_REASON} letras)"
    if request.form.get("confirmo") != "1":
        errors["confirmo"] = CONFIRM[action]
    return reason, errors


def _refused_form(action: str):
    """`on_refusal` of a destructive form: the credential's page, that form with its reasons
    and the reason typed kept."""
    def render(e: ValidationFailed):
        c = get_in_town(Credential, request.view_args["ident"])
        return _detail(c, e.errors, e.status, action, _confirmed_reason(action)[0])
    return render


@bp.post("/credenciais/<int:ident>/cancelar")
@roles_required(Role.ADMIN)
@on_refusal(_refused_form("cancelar"))   # 409: cancelled first
def revoke(ident: int):
    """Cancel a credential; a reason and an explicit confirmation are required."""
    c = get_in_town(Credential, ident)
    reason, errors = _confirmed_reason("cancelar")
    if errors:
        raise ValidationFailed(errors)
    credentials.revoke(c, reason, g.user)
    db.session.commit()
    flash("Credencial cancelada. O QR agora mostra CREDENCIAL CANCELADA.", "success")
    return redirect(url_for("credentials.detail", ident=c.id))


@bp.post("/credenciais/<int:ident>/reemitir")
@roles_required(Role.ADMIN)
@on_refusal(_refused_form("reemitir"))
def reissue(ident: int):
    """Cancel a credential and issue a new one to the same vehicle or driver (lost vest);
    its own reason and an explicit confirmation are required."""
    c = get_in_town(Credential, ident)
    reason, errors = _confirmed_reason("reemitir")
    if errors:
        raise ValidationFailed(errors)
    new = credentials.reissue(c, reason, g.user)
    db.session.commit()
    flash("Nova credencial emitida; a anterior foi cancelada. Imprima a nova.", "success")
    return redirect(url_for("credentials.detail", ident=new.id))


def _pdf(creds: list[Credential], sheet: str, name: str) -> Response:
    town = g.user.municipality
    pdf = credentials.render_pdf(credentials.printable(creds, sheet, clock.today(g.user.municipality)),
                                       town, sheet)
    resp = Response(pdf, mimetype="application/pdf")
    resp.headers["Content-Disposition"] = f'attachment; filename="{name}"'
    return resp


@bp.get("/credenciais/folha/<sheet>.pdf")
@roles_required(*VIEWERS)
def sheet_pdf(sheet: str):
    """The A4 sheet of all active credentials of one kind, ready to print."""
    offered = _town_sheets(town_id())
    if sheet not in credentials.SHEETS or sheet not in offered:
        abort(404)
    creds = credentials.for_town(town_id(), sheet, include_revoked=False)
    if not creds:  # a blank A4 page would print nothing and say nothing
        flash(f"Nenhuma credencial ativa em “{offered[sheet]}”: emita-as antes de imprimir.",
              "info")
        return redirect(url_for("credentials.index", folha=sheet), 303)
    return _pdf(creds, sheet, f"credenciais-{g.user.municipality.slug}-{sheet}.pdf")


@bp.get("/credenciais/<int:ident>/folha.pdf")
@roles_required(*VIEWERS)
def one_pdf(ident: int):
    """One credential on its sheet (to reprint a reissued badge)."""
    c = get_in_town(Credential, ident)
    if c.status_on(clock.today(g.user.municipality)) != "active":
        abort(404, "Só credenciais ativas podem ser impressas.")
    return _pdf([c], credentials.sheet_of(c), f"credencial-{c.id}.pdf")


@bp.get("/api/credential-keys")
@login_required
def keys():
    """Public keys for verifying credential QR codes offline (see docs/credentials.md)."""
    return jsonify({"format": "inspector-credential-v1", "keys": credentials.public_key_set()})


@bp.get("/denuncias")
@roles_required(*VIEWERS)
def reports():
    """The supervisors' queue: passenger reports of the town, open ones first; of one
    category (`tipo`) or state (`situacao`: new, done), received between two local days
    (`de`, `ate`: the dashboard's links)."""
    filters = {k: (request.args.get(k) or "")[:20] for k in ("tipo", "situacao", "de", "ate")}
    days = {}
    for k in ("de", "ate"):
        days[k] = day_in_range(filters[k]) if filters[k] else None
        if filters[k] and days[k] is None:
            abort(400, f"Data inválida em “{k}”: use AAAA-MM-DD.")
    category = filters["tipo"] if filters["tipo"] in {c.value for c in ReportCategory} else None
    status = filters["situacao"] if filters["situacao"] in {s.value for s in ReportStatus} else None
    rows = passenger.report_queue(
        town_id(), ReportStatus(status) if status else None,
        category=ReportCategory(category) if category else None,
        received_after=enforcement.end_of_day(town_id(), days["de"] - timedelta(days=1))
        if days["de"] else None,
        received_until=enforcement.end_of_day(town_id(), days["ate"]) if days["ate"] else None)
    rows.sort(key=lambda r: r.status != ReportStatus.NEW)
    return render_template("credentials/reports.html", rows=rows, filters=filters,
                           categories=ReportCategory, filtered=any(filters.values()))


@bp.get("/denuncias/<int:ident>")
@roles_required(*VIEWERS)
def report(ident: int):
    """One passenger report, with its photo."""
    return render_template("credentials/report.html", r=get_in_town(PassengerReport, ident),
                           errors={})


@bp.get("/denuncias/<int:ident>/foto")
@roles_required(*VIEWERS)
def report_photo(ident: int):
    """The photo sent with a report (re-encoded JPEG, no metadata)."""
    r = get_in_town(PassengerReport, ident)
    if not r.photo:
        abort(404)
    return Response(r.photo, mimetype=r.photo_mime or "image/jpeg")


@bp.post("/denuncias/<int:ident>/concluir")
@roles_required(*VIEWERS)
@on_refusal(lambda e: (render_template("credentials/report.html", errors=e.errors,
                                       r=get_in_town(PassengerReport, request.view_args["ident"])),
                       422))
def close_report(ident: int):
    """Mark a report handled, with a note of what was done."""
    r = get_in_town(PassengerReport, ident)
    passenger.close_report(r, request.form.get("nota", ""), g.user)
    db.session.commit()
    flash("Denúncia concluída.", "success")
    return redirect(url_for("credentials.reports"))
