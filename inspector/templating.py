"""The app's Jinja environment: the filters and globals every template may use, whichever
blueprint renders it. `create_app` calls `init_app` once; a blueprint's own context (the
registry's kinds) stays on its blueprint."""
from __future__ import annotations

from datetime import date, datetime

from flask import Flask, g, url_for
from jinja2 import StrictUndefined

from inspector import clock, documents, enforcement
from inspector.blueprints.laws.citations import citation_text, citation_url
from inspector.blueprints.notifications.routes import unread_count
from inspector.blueprints.registry.kinds import KINDS
from inspector.blueprints.registry.labels import audit_action, template_helpers
from inspector.models import FinePayment, Sanction
from inspector.passenger import TITLES
from inspector.rules import brl
from inspector.security import town_id, viewer_town


def review_dt(moment: datetime | None, fmt: str = "%d/%m/%Y %H:%M") -> str:
    """A stored UTC moment on the clock of the signed-in user's town."""
    if moment is None:
        return "—"
    return clock.town_moment(viewer_town(), moment).strftime(fmt)


def exif_dt(written: str | None) -> str:
    """A photo's EXIF time as the camera wrote it ("2026-11-30T09:05:00-04:00"), in Brazilian
    order: 30/11/2026 09:05:00 (UTC-04:00); the camera's clock zone only when it wrote one.
    Evidence: never converted; anything unexpected is shown as written."""
    if not written:
        return "—"
    day, _, rest = written.partition("T")
    parts = day.split("-")
    time_, offset = rest[:8], rest[8:]
    if len(parts) != 3 or len(time_) != 8 or offset not in ("", "Z") and len(offset) != 6:
        return written
    zone = "" if not offset else " (UTC)" if offset == "Z" else f" (UTC{offset})"
    return f"{parts[2]}/{parts[1]}/{parts[0]} {time_}{zone}"


def review_day(day: date | None) -> str:
    """dd/mm/aaaa."""
    return "—" if day is None else day.strftime("%d/%m/%Y")


def review_brl(value) -> str:
    """R$ 1.234,56."""
    return "não definido" if value is None else brl(value)


def local_time(moment: datetime | None) -> str:
    """A stored instant on the clock of the signed-in user's town, dd/mm/yyyy hh:mm ("" for
    none)."""
    if moment is None:
        return ""
    return clock.town_text(viewer_town(), moment)


def seen_banner(state: str | None) -> str:
    """What the passenger's page said when they reported ("NÃO RECONHECIDA"), in its words."""
    return TITLES.get(state or "", state or "") or "—"


# A registry change the phone did not know (inspections.registry_changes), in words: what
# happened to which record, linked to it where the supervisor can open it.
_CHANGE_VERBS = {"issued": "emissão", "reissued": "reemissão", "revoked": "cancelamento",
                 "deleted": "exclusão", "linked": "vínculo", "unlinked": "fim do vínculo"}
_CHANGE_PAGES = {"vehicle": "registry.vehicle", "holder": "registry.holder",
                 "driver": "registry.driver", "licence": "registry.licence",
                 "permit": "registry.permit", "credential": "credentials.detail"}


def registry_change(entry: dict) -> dict:
    """{when, what, url} of one change: local time, "Veículo: cadastro", its page or None."""
    action, entity = entry.get("action", ""), entry.get("entity", "")
    kind = next((k for k in KINDS.values() if k.key == entity), None)
    title = kind.title if kind else {"credential": "Credencial QR"}.get(entity, entity)
    verb = audit_action(action)
    if verb == action:  # not one of the registry's own verbs
        verb = next((v for suffix, v in _CHANGE_VERBS.items() if action.endswith(suffix)),
                    action.replace("_", " "))
    try:
        when = review_dt(datetime.fromisoformat(entry.get("at", "")))
    except (TypeError, ValueError):
        when = "—"
    page, ident = _CHANGE_PAGES.get(entity), str(entry.get("entity_id", ""))
    url = url_for(page, ident=int(ident)) if page and ident.isdigit() else None
    return {"when": when, "what": f"{title}: {verb.lower()}", "url": url}


TARGETS = {"driver": "Condutor", "registration": "Registro do condutor", "holder": "Titular",
           "company": "Empresa", "permit": "Permissão / autorização", "licence": "Alvará",
           "vehicle": "Veículo"}


def _licence_of(act: Sanction) -> str:
    """The alvará an act suspends or revokes, by its number, with its vehicle's plate."""
    plate = act.vehicle.plate if act.vehicle else ""
    if act.licence is None:
        return plate
    return f"nº {act.licence.number}" + (f" (veículo {plate})" if plate else "")


def target_label(act: Sanction) -> str:
    """Who the act is against, by name."""
    who = {"driver": act.driver.name if act.driver else "condutor não identificado",
           "registration": act.driver.name if act.driver else "condutor não identificado",
           "holder": act.holder.name if act.holder else "", "company":
           act.holder.name if act.holder else "", "permit": act.holder.name if act.holder
           else "", "licence": _licence_of(act),
           "vehicle": act.vehicle.plate if act.vehicle else ""}.get(act.target, "")
    return f"{TARGETS.get(act.target, act.target)}: {who}" if who else \
        TARGETS.get(act.target, act.target)


def reversal_text(payment: FinePayment) -> str:
    """"estornado em dd/mm/aaaa por Nome: motivo" ("" when the payment stands)."""
    return enforcement.reversal_text(payment)


def pending_company_copies():
    """The user's town's company copies not yet remitted (deadlines page)."""
    return documents.pending_copies(town_id())


FILTERS = {"review_dt": review_dt, "exif_dt": exif_dt, "review_day": review_day,
           "review_brl": review_brl, "seen_banner": seen_banner}

GLOBALS = {
    "registry_change": registry_change, "target_label": target_label,
    # an act's amount as the rules engine prints it (unit and BRL, or "não definido")
    "act_money": enforcement.money_of,
    # the fine's balance (due, paid, "quitada" / "paga parcialmente" / "em aberto"), or None
    "act_balance": enforcement.balance_of,
    "reversal_text": reversal_text,
    # whether the act's page offers "Registrar recurso" (not while one is pending or decided)
    "can_file_appeal": enforcement.can_file,
    # the pack's bounds for a suspension's length in days (None: the pack has none)
    "suspension_bounds": enforcement.suspension_bounds,
    # the act's card asks whether to offer the discretionary deadline (review/_grant.html)
    "repair_grant": enforcement.offered_grants,
    # the deadline as the supervisor saw it, sent back with the form: changed meanwhile -> 409
    "grant_seen": enforcement.grant_seen,
    "citation_url": citation_url, "citation_text": citation_text,
    # the act's "Cópia à empresa" line (None: the law asks for no copy of this act)
    "company_copy": documents.copy_view,
    "pending_company_copies": pending_company_copies,
    # the nav's badge, queried only where the nav is drawn
    "unread_notifications": unread_count, "local_time": local_time,
    "app_name": "Inspector",
}


def init_app(app: Flask) -> None:
    """Set the app's Jinja environment: strict undefined, the filters and the globals."""
    app.jinja_env.undefined = StrictUndefined  # a typo in a template is an error, not ""
    app.jinja_env.filters.update(FILTERS)
    app.jinja_env.globals.update(GLOBALS)
    # The registry's labels and formatters are plain functions: as globals, its templates
    # import their macros without the context, and Jinja keeps the imported module instead
    # of running it again on every render (~0.2 ms of a plate search).
    app.jinja_env.globals.update(template_helpers())
    app.jinja_env.globals["has_endpoint"] = lambda name: name in app.view_functions
    app.context_processor(lambda: {"current_user": g.get("user")})
