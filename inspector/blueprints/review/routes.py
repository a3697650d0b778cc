"""Review pages: the queue, one inspection (answers, photos, proposed acts), the acts list
and "Prazos". Views parse, call `inspector.enforcement`, render; POSTs are in actions.py,
photos in photos.py; the URLs of all of them are in this package's `__init__`."""
from __future__ import annotations

from datetime import date

from flask import Response, abort, g, make_response, render_template, request
from markupsafe import Markup

from inspector import audit, clock, enforcement, field, inspections, laws, render_cache
from inspector.blueprints.fragments import page_or_fragment, wants_fragment
from inspector.blueprints.review.common import VIEWERS
from inspector.clock import now
from inspector.enforcement import LIST_GROUPS
from inspector.extensions import db
from inspector.inspections import evidence_state
from inspector.models import (
    KIND_LABELS,
    STATUS_LABELS,
    AppealStatus,
    Driver,
    Holder,
    Inspection,
    InspectionStatus,
    ItemResult,
    Sanction,
    SanctionStatus,
    Vehicle,
)
from inspector.security import day_in_range, get_in_town, roles_required, town_id, whole_number

QUEUE_STATUSES = {"awaiting_review": "Aguardando revisão", "reviewed": "Revisadas",
                  "incomplete": "Aguardando fotos"}
FILER_LABELS = enforcement.FILERS
SUSPENSIVE = {True: "sim", False: "não", None: "a lei não diz"}


def _day_arg(name: str) -> date | None:
    return day_in_range(request.args.get(name))


def _int_arg(name: str, default: int | None = None) -> int | None:
    return whole_number(request.args.get(name), default, lo=0, hi=999_999_999)


@roles_required(*VIEWERS)
def queue():
    """Inspections of the town by agent, day and status, newest first.

    The list (and, for a full page, the filter form around it) is rendered once per town,
    filters, page and audit version, and reused until any change of the town is recorded
    (render_cache.py); only the layout around it is rendered per request."""
    filters = {"agente": _int_arg("agente"), "situacao": request.args.get("situacao") or "",
               "de": _day_arg("de"), "ate": _day_arg("ate"),
               "item": (request.args.get("item") or "")[:120]}
    if filters["situacao"] not in QUEUE_STATUSES and filters["situacao"] != "todas":
        filters["situacao"] = "awaiting_review" if "situacao" not in request.args else ""
    town, page_no, fragment = town_id(), _int_arg("pagina", 1) or 1, wants_fragment()

    def render() -> str:
        page = enforcement.review_queue(
            town, agent_id=filters["agente"],
            status=filters["situacao"] if filters["situacao"] in QUEUE_STATUSES else None,
            day_from=filters["de"], day_to=filters["ate"], page=page_no,
            item=filters["item"] or None)
        today_verdicts = _today_verdicts(town, page.rows)
        if fragment:
            return render_template("review/_queue_rows.html", page=page, filters=filters,
                                   today_verdicts=today_verdicts)
        return render_template("review/_queue_content.html", page=page, filters=filters,
                               agents=enforcement.agents(town), statuses=QUEUE_STATUSES,
                               today_verdicts=today_verdicts)

    version = audit.town_version(town)
    # the registry's verdict of today changes with the day too (a date passes)
    key = (town, *filters.values(), page_no, fragment, version, clock.today(g.user.municipality))
    # bench/caches.py: /revisao 2.6x (500 vehicles) to 3.2x (20) slower without it
    html = render_cache.reuse("review_queue", key, render)
    body = html if fragment else render_template("review/queue.html", content=Markup(html))
    response = make_response(body)
    response.vary.add("HX-Request")
    return response


def _today_verdicts(town: int, rows) -> dict[str, laws.Verdict]:
    """Each listed vehicle's verdict in the registry today (plate -> Verdict), from the town's
    standing kept for the field snapshot: the queue's "Cadastro hoje"."""
    plates = sorted({r.plate for r in rows})
    if not plates:
        return {}
    ids = dict(db.session.execute(db.select(Vehicle.plate, Vehicle.id).where(
        Vehicle.municipality_id == town, Vehicle.plate.in_(plates))).all())
    kept = field.town_standing(town, clock.today(g.user.municipality), audit.town_version(town))
    return {plate: laws.verdict_of_standing(kept[vid]) for plate, vid in ids.items() if vid in kept}


def inspection_context(insp: Inspection, errors: dict | None = None,
                       error_act: int | None = None) -> dict:
    """Everything the inspection page shows."""
    acts = enforcement.acts_of(insp)
    by_item: dict[int | None, list[Sanction]] = {}
    for a in acts:
        by_item.setdefault(a.inspection_item_id, []).append(a)
    checks = {p.id: evidence_state(p) for p in insp.photos}
    body = insp.payload
    registry = inspections.check_registry(insp, insp.items, body.get("driver"))
    # On a phone the answers that need the supervisor come first, open; the ones that agree
    # with the agent and the registry wait folded in one <details>.
    open_items = [i for i in insp.items if i.result == ItemResult.FAIL or i.id in by_item
                  or i.id in registry.by_item]
    folded = [i for i in insp.items if i not in open_items]
    return {"insp": insp, "acts": acts, "by_item": by_item, "checks": checks,
            "registry": registry, "open_items": open_items, "folded_items": folded,
            "bulk": inspections.bulk_answers(insp),
            "state": enforcement.inspection_review_state(insp, acts), "body": body,
            "options": {a.id: enforcement.amend_options(a) for a in acts
                        if a.status == SanctionStatus.PROPOSED},
            "choices": enforcement.choices(insp), "chosen": by_item.get(None, []),
            "events": enforcement.events_of(insp),
            "changes": insp.registry_changes or [], "errors": errors or {},
            "error_act": error_act, "filers": FILER_LABELS, "suspensive": SUSPENSIVE,
            "delivery_means": enforcement.OFFICE_MEANS,
            "today": clock.town_day(g.user.municipality, now()), "AppealStatus": AppealStatus,
            "InspectionStatus": InspectionStatus, "SanctionStatus": SanctionStatus}


@roles_required(*VIEWERS)
def inspection(ident: int):
    """One inspection: answers, photos with their hashes, proposed acts and their decisions."""
    insp = get_in_town(Inspection, ident)
    return render_template("review/inspection.html", **inspection_context(insp))


@roles_required(*VIEWERS)
def signature(ident: int) -> Response:
    """The driver's on-screen signature ("ciente") as recorded by the phone."""
    insp = get_in_town(Inspection, ident)
    data = db.session.scalar(db.select(Inspection.ack_signature).where(Inspection.id == insp.id))
    if not data:
        abort(404)
    response = make_response(data)
    response.headers["Content-Type"] = "image/png"
    return response


# The acts list's filters by whom an act concerns (the holder's and the driver's registry
# pages link here): query argument -> (model, label, registry endpoint).
SUBJECT_FILTERS = {"titular": (Holder, "Permissionário", "registry.holder"),
                   "condutor": (Driver, "Condutor", "registry.driver")}


def _subject_filters() -> tuple[dict[str, int], list[dict]]:
    """The holder / driver filters asked for: {argument: id}, and what the page says of each
    (label, name, link; name None when the town has no such record). A value that is not a
    record number answers 400: ignoring it would list every act of the town under a page
    the reader takes for one person's."""
    ids, shown = {}, []
    for arg, (model, label, endpoint) in SUBJECT_FILTERS.items():
        raw = request.args.get(arg, "")
        if raw == "":
            continue
        if not (raw.isascii() and raw.isdigit() and len(raw) < 10):
            abort(400, f"Filtro inválido: “{arg}” deve ser o número de um cadastro "
                       f"(por exemplo ?{arg}=12), não “{raw[:40]}”.")
        ids[arg] = int(raw)
        name = db.session.scalar(db.select(model.name).where(
            model.id == ids[arg], model.municipality_id == town_id()))
        shown.append({"arg": arg, "label": label, "id": ids[arg], "name": name,
                      "endpoint": endpoint})
    return ids, shown


@roles_required(*VIEWERS)
def acts():
    """The town's acts with their status and deadlines, optionally of one holder or driver."""
    status = request.args.get("situacao") or ""
    kind = request.args.get("tipo") or ""
    ids, subjects = _subject_filters()
    page = _int_arg("pagina", 1) or 1
    if any(s["name"] is None for s in subjects):
        rows, has_next = [], False   # another town's (or no) record: nothing to list
    else:
        rows, has_next = enforcement.acts_list(town_id(), status=status or None,
                                               kind=kind if kind in KIND_LABELS else None,
                                               holder_id=ids.get("titular"),
                                               driver_id=ids.get("condutor"), page=page,
                                               day_from=_day_arg("de"), day_to=_day_arg("ate"))
    statuses = dict(STATUS_LABELS) | {"awaiting_mayor": "Aguarda decisão do prefeito",
                                      "awaiting_delivery": "Aguardando entrega"} | {
        k: label for k, (label, _) in LIST_GROUPS.items()}
    days = {k: d.isoformat() for k in ("de", "ate") if (d := _day_arg(k))}
    return page_or_fragment("review/acts.html", "review/_acts_rows.html", rows=rows,
                            has_next=has_next, page=page, status_filter=status, kind=kind,
                            statuses=statuses, kinds=KIND_LABELS, subjects=subjects,
                            days=days, list_args={"situacao": status, "tipo": kind} | ids | days)


@roles_required(*VIEWERS)
def deadlines():
    """What expires soon: notices, appeal windows, the mayor's decisions, appeals, daily fines."""
    days = min(_int_arg("dias", 7) or 7, 90)
    return page_or_fragment("review/deadlines.html", "review/deadlines.html",
                            d=enforcement.deadlines(town_id(), now(), days), days=days)
