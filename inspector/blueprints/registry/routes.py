"""Registry admin (/cadastro): search, create, edit and change the status of the fleet's records.

One template answers both kinds of request: an htmx request gets the partial, a plain
one the full page that includes it (so everything works without JavaScript). Admins
write; supervisors read; agents are refused; another town's rows are 404.
"""
from __future__ import annotations

from flask import (
    Blueprint,
    Response,
    abort,
    flash,
    g,
    make_response,
    redirect,
    render_template,
    request,
    url_for,
)

from inspector import registry
from inspector.blueprints.fragments import page_or_fragment, wants_fragment
from inspector.blueprints.registry import details, forms, queries
from inspector.blueprints.registry.kinds import KINDS, LISTED, Kind
from inspector.blueprints.registry.labels import OTHER_FIELDS, label
from inspector.errors import ValidationFailed, on_refusal
from inspector.extensions import db, htmx
from inspector.models import Municipality, Role
from inspector.security import get_in_town, roles_required, town_id

bp = Blueprint("registry", __name__, url_prefix="/cadastro")

# Record pages that show the law's limits themselves (an insurance policy shows on its vehicle's)
LIMITS_ON_PAGE = ("vehicle", "licence", "stand", "insurance")
READ = roles_required(Role.ADMIN, Role.SUPERVISOR)
WRITE = roles_required(Role.ADMIN)
MAX_QUERY = 100


@bp.context_processor
def helpers() -> dict:
    """The kinds of record, for every registry template (the labels and formatters are Jinja
    globals: inspector/blueprints/__init__.py)."""
    return {"kinds": KINDS, "listed": LISTED, "field_names": field_names}


def field_names(entity: str, names: list[str]) -> str:
    """The Portuguese names of some fields of a kind of record, once each, for the history."""
    kind = KINDS.get(entity)
    out: list[str] = []
    for name in names:
        if kind is not None and any(f.name == name for f in kind.fields):
            text = kind.label_of(name)
        else:
            text = OTHER_FIELDS.get(name, name)
        if text not in out:
            out.append(text)
    return ", ".join(out)


def go(url: str) -> Response:
    """After a successful POST: htmx gets HX-Redirect (a full page load), others get a 303."""
    if htmx:
        response = make_response("", 200)
        response.headers["HX-Redirect"] = url
        return response
    return redirect(url, 303)


def detail_url(kind: Kind, obj) -> str:
    """Where a saved record is shown (an insurance policy is shown on its vehicle's page)."""
    if kind.key == "insurance":
        return url_for("registry.vehicle", ident=obj.vehicle_id)
    return url_for(f"registry.{kind.key}", ident=obj.id)


def label_error(e: ValidationFailed) -> str:
    """All of a failure's reasons as one sentence for a flash message."""
    from inspector.blueprints.registry.labels import sentence

    return " ".join(sentence(reason) for reason in e.errors.values())


def in_form_order(kind: Kind, errors: dict[str, str]) -> dict[str, str]:
    """Errors in the order their fields appear (the summary reads top to bottom)."""
    order = {f.name: i for i, f in enumerate(kind.fields)}
    return dict(sorted(errors.items(), key=lambda item: order.get(item[0], len(order))))


def _page_number() -> int:
    try:
        return max(1, min(int(request.args.get("pagina", 1)), 10_000))
    except ValueError:
        return 1


@bp.get("")
@READ
def index():
    """The registry's start: the vehicle list."""
    return redirect(url_for("registry.vehicles"))


def list_view(kind: Kind):
    """Search-as-you-type list of one kind of record, paginated."""
    @READ
    def view():
        q = request.args.get("q", "").strip()[:MAX_QUERY]
        results = queries.search(kind, town_id(), q, _page_number())
        verdicts = (details.vehicle_verdicts(results.rows, town_id())
                    if kind.key == "vehicle" else {})
        documents = details.vehicle_documents(results.rows) if kind.key == "vehicle" else {}
        return page_or_fragment("registry/list.html", kind.results_template, kind=kind,
                                q=q, results=results, section=kind.plural, verdicts=verdicts,
                                documents=documents)
    view.__doc__ = f"List and search {kind.plural}."
    return view


def form_view(kind: Kind, editing: bool):
    """Create or edit form; a 422 re-renders it with every error next to its field."""
    @WRITE
    def view(ident: int | None = None):
        obj = get_in_town(kind.model, ident) if editing else None
        errors: dict[str, str] = {}
        over_cap = None   # the caps of the law a refused save passes, if the town may pass them
        reason = request.form.get(registry.CAPS_REASON_FIELD, "").strip()[:1000]
        if request.method == "POST":
            values = forms.read(kind, request.form)
            try:
                saved = forms.save(kind, town_id(), values, request.files, obj,
                                   g.user, override_reason=reason)
                db.session.commit()
            except ValidationFailed as e:  # one view draws the form for GET and POST alike
                db.session.rollback()
                errors = in_form_order(kind, e.errors) or {"_": "os dados enviados têm erros"}
                if isinstance(e, registry.CapExceeded) and e.overridable:
                    over_cap = e.breaches
            else:
                flash_saved(kind, saved, editing)
                return go(detail_url(kind, saved))
        else:
            values = forms.initial(kind, obj) if editing else forms.prefill(kind, request.args)
        if editing:
            action = url_for(f"registry.{kind.key}_edit", ident=ident)
            cancel_url = detail_url(kind, obj)
        else:
            action = url_for(f"registry.{kind.key}_new")
            cancel_url = url_for(f"registry.{kind.plural if kind.listed else 'vehicles'}")
        return page_or_fragment("registry/form.html", "registry/_form.html",
                                422 if errors else 200, kind=kind, obj=obj, values=values,
                                errors=errors, action=action, cancel_url=cancel_url,
                                town=town_id(), over_cap=over_cap, override_reason=reason,
                                limits=registry.limits_for(obj) if obj is not None
                                and not errors else [],
                                section=kind.plural if kind.listed else "vehicles")
    view.__doc__ = f"{'Edit' if editing else 'Create'} a {kind.key}."
    return view


def limit_text(w) -> str:
    """A limit of the law as one pt-BR line with its article, for a flash message."""
    from inspector.blueprints.laws.citations import citation_text

    where = citation_text(w.citation)
    return f"Atenção: {w.message}" + (f" ({where})" if where else "")


def flash_saved(kind: Kind, saved, editing: bool) -> None:
    """The success message, and the law's limits the saved record breaks (warnings)."""
    limits = registry.limits_for(saved)
    done = f"{kind.title} {kind.name_of(saved)} {kind.done(editing)}."
    if limits and kind.key in LIMITS_ON_PAGE:
        n = len(limits)
        done += f" A lei aponta {n} aviso{'s' if n > 1 else ''}: veja “Limites da lei”."
    flash(done, "success")
    if kind.key not in LIMITS_ON_PAGE:
        for w in limits:
            flash(limit_text(w), "info")


def detail_view(kind: Kind):
    """A record's page: its facts, links and history; status change form for admins."""
    @READ
    def view(ident: int):
        obj = get_in_town(kind.model, ident)
        return render_detail(kind, obj)
    view.__doc__ = f"Show one {kind.key}."
    return view


def render_detail(kind: Kind, obj, status_errors: dict | None = None,
                  status_values: dict | None = None, code: int = 200) -> Response:
    """The full detail page of a record (also used to show a failed status change)."""
    return make_response(render_template(
        kind.detail_template, kind=kind, obj=obj, section=kind.plural,
        status_errors=status_errors or {}, status_values=status_values or {},
        limits=registry.limits_for(obj) if kind.key in LIMITS_ON_PAGE else [],
        **details.context(kind, obj, town_id())), code)


def status_view(kind: Kind):
    """Suspend, revoke or reactivate a permit, licence or driver registration, with a reason."""
    @WRITE
    def view(ident: int):
        obj = get_in_town(kind.model, ident)
        values = {"to_status": request.form.get("to_status", ""),
                  "reason": request.form.get("reason", "")}
        try:
            # a licence brought back counts in the fleet again: the caps of the law hold, and
            # where the town may pass one by decree the change's reason is the one recorded
            town = db.session.get(Municipality, town_id()) if kind.key == "licence" else None
            before = registry.caps_in_use(town) if town is not None else None
            change = registry.change_status(obj, values["to_status"], values["reason"],
                                             actor=g.user)
            if town is not None:
                registry.check_caps(town, before, reason=values["reason"], actor=g.user,
                                        what=f"licence {kind.name_of(obj)}")
            db.session.commit()
        except ValidationFailed as e:  # one view draws the form for GET and POST alike
            db.session.rollback()
            code = e.status   # 409: changed by someone else at the same moment
            errors = dict(e.errors) or {"_": "mudança de situação não permitida"}
            if "status" in errors:  # the form's field is to_status
                errors["to_status"] = (errors.pop("status") if values["to_status"]
                                       else "escolha a nova situação")
        else:
            flash(f"{kind.title} {kind.name_of(obj)}: situação mudou de "
                  f"{label(change.from_status).lower()} para {label(change.to_status).lower()}.",
                  "success")
            return go(detail_url(kind, obj))
        if wants_fragment():
            response = make_response(render_template(
                "registry/_status_form.html", kind=kind, obj=obj, status_errors=errors,
                status_values=values), code)
        else:
            response = render_detail(kind, obj, errors, values, code)
        response.vary.add("HX-Request")
        return response
    view.__doc__ = f"Change the status of a {kind.key}."
    return view


def _unlink_refused(e: ValidationFailed):
    """Back to the driver's page, the reason said at its top."""
    flash(label_error(e), "error")
    return go(url_for("registry.driver", ident=request.view_args["ident"]))


@bp.post("/condutores/<int:ident>/veiculos/<int:vehicle_id>/desvincular")
@WRITE
@on_refusal(_unlink_refused)
def driver_unlink(ident: int, vehicle_id: int):
    """Stop registering a driver on one vehicle (the form can only add vehicles)."""
    from inspector.models import Driver, Vehicle

    driver = get_in_town(Driver, ident)
    vehicle = get_in_town(Vehicle, vehicle_id)
    registry.unlink_driver(driver, vehicle, actor=g.user)
    db.session.commit()
    flash(f"{driver.name} não conduz mais o veículo {vehicle.plate}.", "success")
    return go(url_for("registry.driver", ident=driver.id))


@bp.get("/condutores/<int:ident>/foto")
@READ
def driver_photo(ident: int):
    """A driver's photo, to staff of the driver's own town."""
    from inspector.models import Driver

    driver = get_in_town(Driver, ident)
    if not driver.photo:
        abort(404)
    response = make_response(driver.photo)
    response.mimetype = driver.photo_mime or "image/jpeg"
    response.headers["Cache-Control"] = "private, max-age=300"
    response.headers["Content-Disposition"] = "inline"
    response.set_etag(details.photo_etag(driver.photo))
    return response.make_conditional(request)


for _kind in KINDS.values():
    if _kind.listed:
        bp.add_url_rule(f"/{_kind.slug}", _kind.plural, list_view(_kind))
        bp.add_url_rule(f"/{_kind.slug}/<int:ident>", _kind.key, detail_view(_kind))
    bp.add_url_rule(f"/{_kind.slug}/novo", f"{_kind.key}_new", form_view(_kind, False),
                    methods=["GET", "POST"])
    bp.add_url_rule(f"/{_kind.slug}/<int:ident>/editar", f"{_kind.key}_edit",
                    form_view(_kind, True), methods=["GET", "POST"])
    if _kind.has_status:
        bp.add_url_rule(f"/{_kind.slug}/<int:ident>/situacao", f"{_kind.key}_status",
                        status_view(_kind), methods=["POST"])
