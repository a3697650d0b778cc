"""The town's dashboard (/painel, supervisors and admins): what its inspections, acts, fines
and passengers' reports add up to over a period, as SVG charts drawn here with their numbers
in a table beside each, every number a link to the list behind it. The period form is a
plain GET (htmx swaps only the figures). The figures of a town, period and audit version
are rendered once and reused until anything of the town changes (render_cache.py)."""
from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

from flask import (
    Blueprint,
    Response,
    abort,
    g,
    make_response,
    render_template,
    request,
    stream_with_context,
)
from markupsafe import Markup

from inspector import audit, clock, render_cache, stats, vistorias
from inspector.blueprints.dashboard import charts
from inspector.blueprints.fragments import page_or_fragment, wants_fragment
from inspector.errors import ValidationFailed
from inspector.extensions import db
from inspector.models import Fine, FinePayment, Role, Sanction
from inspector.rules import (
    FINE_KINDS,
    brl,
)
from inspector.security import roles_required, town_id

bp = Blueprint("dashboard", __name__, url_prefix="/painel")


EXPORT_LABELS = {"vistorias": "Vistorias (uma linha por item do checklist, com o artigo)",
                 "atos": "Atos", "multas": "Multas", "pagamentos": "Pagamentos de multas",
                 "cadastro": "Cadastro (veículos com titular, alvará e condutores)",
                 "credenciais": "Credenciais QR",
                 "vistorias-lei": "Vistorias prévias e periódicas (resultado, validade, certificado)"}
VIEWERS = roles_required(Role.SUPERVISOR, Role.ADMIN)


def _period() -> stats.Period | tuple[dict, stats.Period]:
    """The period asked for; on a bad one, its errors and the default period."""
    try:
        return stats.period_from_args(request.args, clock.today(g.user.municipality))
    except ValidationFailed as e:
        return e.errors, stats.preset_period("12s", clock.today(g.user.municipality))


@bp.get("")
@VIEWERS
def index():
    """The dashboard of the signed-in user's town over a period (default: the last 12 weeks)."""
    asked = _period()
    errors, period = asked if isinstance(asked, tuple) else ({}, asked)
    town, fragment, today = town_id(), wants_fragment(), clock.today(g.user.municipality)
    key = (town, period.first, period.last, fragment, audit.town_version(town), today)
    # bench/caches.py: /painel 4.9x (20 vehicles) to 11x (500) slower without it
    html = render_cache.reuse("dashboard", key, lambda: _content(town, period, today),
                              size=128, seconds=300)
    if fragment and not errors:
        body = html
    else:
        body = render_template("dashboard/index.html", content=Markup(html), period=period,
                               presets=stats.PERIOD_PRESETS, errors=errors, asked=request.args)
    response = make_response(body, 422 if errors else 200)
    response.vary.add("HX-Request")
    return response


def _content(town: int, period: stats.Period, today) -> str:
    """The figures and their charts, rendered (the fleet's count of the day is recorded)."""
    buckets = period.buckets()
    insp = stats.inspection_figures(town, period)
    items = stats.failed_items(town, period)
    acts = stats.act_figures(town, period)
    fines = stats.fine_figures(town, period)
    reports = stats.report_figures(town, period)
    fleet_today = stats.fleet_today(town, today)
    vistoria_figures = vistorias.figures(town, period.first, period.last, today)
    trend = stats.fleet_trend(town, period)
    causes = stats.irregular_by_cause(town, today)
    expiring = stats.expiring(town, today)
    db.session.commit()   # the day's fleet counts, when first computed
    states = list(stats.ACT_STATES)
    names = [{"decided": "Decididos, já entregues"}.get(s, stats.ACT_STATES[s][0]) for s in states]
    services = [f.service for f in fleet_today] or sorted({s for _, d in trend for s in d})
    pictures = {
        "weeks": charts.columns(
            f"Vistorias por {'semana' if period.weekly else 'mês'}, {period.text()}",
            [b.label for b in buckets], insp.buckets),
        "agents": charts.bars("Vistorias por agente", [a[1] for a in insp.agents],
                              [a[2] for a in insp.agents]),
        "fleet": charts.stacked("Frota hoje por situação", [f.label for f in fleet_today],
                                [[f.regular, f.irregular, f.suspended] for f in fleet_today],
                                list(stats.STANDING_LABELS.values()), prefix="standing"),
        "trend": charts.lines(
            "Parte da frota regular, por dia registrado",
            [f"{d:%d/%m}" for d, _ in trend],
            {stats.SERVICE_LABELS.get(s, s): [(by[s].share if s in by else None)
                                              for _, by in trend] for s in services}),
        "failed": charts.bars("Itens mais reprovados", [i.label for i in items],
                             [i.count for i in items]),
        "acts": charts.stacked("Atos por tipo e situação", [k.label for k in acts],
                               [[k.states[s] - (k.states["awaiting_delivery"] if s == "decided"
                                                else 0) for s in states]   # parts add up
                                for k in acts], names),
        "causes": charts.bars("Veículos irregulares por causa",
                              [f"{c.label} ({c.service_label})" for c in causes],
                              [c.vehicles for c in causes]),
        "reports": charts.bars("Denúncias por tipo", [r[1] for r in reports.by_category],
                               [r[2] for r in reports.by_category]),
    }
    issued = [(k, stats.FINE_LABELS[k], fines.issued.get(k, (0, stats.ZERO_BRL, 0)))
              for k in FINE_KINDS]
    pictures["fines"] = charts.bars(
        "Multas em reais", ["Emitidas no período", "Pagas no período", "Em aberto hoje"],
        [float(fines.issued_brl), float(fines.paid_brl), float(fines.open_brl)],
        [brl(fines.issued_brl), brl(fines.paid_brl), brl(fines.open_brl)])
    return render_template(
        "dashboard/_content.html", period=period, buckets=buckets, insp=insp, items=items,
        acts=acts, states=states, state_labels={k: v[0] for k, v in stats.ACT_STATES.items()},
        fines=fines, issued=issued, reports=reports, fleet_today=fleet_today, trend=trend,
        services=services, service_labels=stats.SERVICE_LABELS, charts=pictures, brl=brl,
        pct=_pct, today=today, args=period.args(), exports=EXPORT_LABELS,
        vistorias=vistoria_figures, causes=causes, expiring=expiring, windows=stats.WINDOWS,
        folded=_folded(buckets, insp.buckets), plural=plural)


def plural(n: int, one: str, many: str) -> str:
    """'1 vistoria', '0 vistorias', '2 vistorias' (pt-BR: only 1 is singular)."""
    return f"{n} {one if n == 1 else many}"


def _folded(buckets, counts) -> list[tuple[date, date, int]]:
    """The period's weeks or months as table rows, each run of empty ones folded into one row
    (first day, last day, count): a quiet quarter is one line, not twelve rows of zeros."""
    rows: list[tuple[date, date, int]] = []
    for b, n in zip(buckets, counts):
        if n == 0 and rows and rows[-1][2] == 0:
            rows[-1] = (rows[-1][0], b.last, 0)
        else:
            rows.append((b.first, b.last, n))
    return rows


def _pct(share: float | None) -> str:
    """0.8734 -> 87,3 %."""
    return "—" if share is None else f"{share * 100:.1f} %".replace(".", ",")


# ?situacao= as people read it (pt-BR); "suspended", the value of older links, still works
STANDING_ARGS = {"regular": "regular", "irregular": "irregular", "suspenso": "suspended",
                 "suspended": "suspended"}
STANDING_WORDS = {"regular": "regular", "irregular": "irregular", "suspended": "suspenso"}


@bp.get("/frota")
@VIEWERS
def fleet_list():
    """The vehicles in a standing today (the dashboard's fleet figures): of one service
    (?servico=taxi|mototaxi) and one standing (?situacao=regular|irregular|suspenso), either,
    or neither: the bare address lists the whole fleet."""
    service = request.args.get("servico", "")
    asked = request.args.get("situacao", "")
    cause = request.args.get("causa", "")
    if (service and service not in stats.SERVICE_LABELS) or (asked and asked not in STANDING_ARGS):
        abort(400, "Filtro inválido: use servico=taxi ou mototaxi e situacao=regular, "
                   "irregular ou suspenso, ou abra a lista sem filtro para ver a frota inteira.")
    if cause and cause not in stats.CAUSE_LABELS:
        abort(400, "Filtro inválido: a causa pedida não existe; abra a lista pelo painel.")
    standing = STANDING_ARGS.get(asked, "")
    today = clock.today(g.user.municipality)
    standings = [standing] if standing else \
        [s for s in stats.STANDING_LABELS if not cause or s != "regular"]
    rows = [(v, reasons, s, st) for s in ([service] if service else stats.SERVICE_LABELS)
            for st in standings
            for v, reasons in stats.vehicles_in(town_id(), s, st, today, cause)]
    rows.sort(key=lambda r: (r[0].prefix or "", r[0].plate))
    return render_template("dashboard/fleet.html", rows=rows, today=today, service=service,
                           standing=standing, services=stats.SERVICE_LABELS,
                           standings=stats.STANDING_LABELS, standing_words=STANDING_WORDS,
                           cause=cause, cause_label=stats.cause_label(cause) if cause else "",
                           service_label=stats.SERVICE_LABELS.get(service, "Frota"),
                           standing_label=stats.STANDING_LABELS.get(standing, "todos os veículos"))


@bp.get("/vencimentos")
@VIEWERS
def falling_due():
    """Documents in force whose last day falls within ?dias=30|60|90 (of one kind, with
    ?documento=alvara|permissao|seguro|registro|cnh, or all): the dashboard's "vencem em"."""
    kind = request.args.get("documento", "")
    days = request.args.get("dias", "90")
    if (kind and kind not in stats.DOCUMENTS) or days not in {str(w) for w in stats.WINDOWS}:
        abort(400, "Filtro inválido: use documento=alvara, permissao, seguro, registro ou cnh "
                   "e dias=30, 60 ou 90.")
    today = clock.today(g.user.municipality)
    rows = stats.falling_due(town_id(), today, int(days), kind or None)
    return render_template("dashboard/due.html", rows=rows, today=today, kind=kind,
                           days=int(days), until=today + timedelta(days=int(days)),
                           documents=stats.DOCUMENTS, windows=stats.WINDOWS)


@bp.get("/pagamentos")
@VIEWERS
def payments():
    """Payments of fines recorded for days of a period, not reversed (the dashboard's
    "pagas no período"), newest first."""
    asked = _period()
    if isinstance(asked, tuple):
        abort(400, " ".join(asked[0].values()))
    rows = db.session.execute(
        db.select(FinePayment, Sanction).join(Fine, Fine.id == FinePayment.fine_id)
        .join(Sanction, Sanction.id == Fine.sanction_id)
        .where(FinePayment.municipality_id == town_id(), FinePayment.reversed_at.is_(None),
               FinePayment.paid_on >= asked.first, FinePayment.paid_on <= asked.last)
        .order_by(FinePayment.paid_on.desc(), FinePayment.id.desc())).all()
    return page_or_fragment("dashboard/payments.html", "dashboard/payments.html", rows=rows,
                            period=asked, brl=brl,
                            total=sum((p.amount_brl for p, _ in rows), Decimal(0)))


EXPORT_FORMATS = {"csv": "text/csv",   # Werkzeug adds "; charset=utf-8" to text/*
                  "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"}


def _export_period() -> stats.Period | None:
    """The lists' days: none, either end or both (an open end is open, as on the lists)."""
    if request.args.get("periodo"):
        return stats.preset_period(request.args["periodo"], clock.today(g.user.municipality))
    try:
        first = stats.parse_day(request.args.get("de", ""), "de")
        last = stats.parse_day(request.args.get("ate", ""), "ate")
    except ValidationFailed as e:
        abort(400, " ".join(e.errors.values()))
    if first is None and last is None:
        return None
    return stats.Period(first or date(1970, 1, 1), last or max(clock.today(g.user.municipality), first))


def _id_arg(name: str) -> int | None:
    value = request.args.get(name, "")
    if value == "":
        return None
    if not (value.isascii() and value.isdigit() and len(value) < 10):
        abort(400, f"Filtro inválido: “{name}” deve ser um número.")
    return int(value)


@bp.get("/exportar/<dataset>.<fmt>")
@VIEWERS
def export(dataset: str, fmt: str):
    """A list of the town as a spreadsheet, streamed: the filters of its screen (`de`, `ate`,
    `agente`, `situacao`, `tipo`, `item`), CSV (UTF-8 with BOM, ";") or XLSX."""
    if dataset not in stats.EXPORT_DATASETS or fmt not in EXPORT_FORMATS:
        abort(404)
    period = _export_period()
    today = clock.today(g.user.municipality)
    filters = stats.ExportFilters(period=period, agent_id=_id_arg("agente"),
                              holder_id=_id_arg("titular"), driver_id=_id_arg("condutor"),
                              status=(request.args.get("situacao") or "")[:40],
                              kind=(request.args.get("tipo") or "")[:40],
                              item=(request.args.get("item") or "")[:120],
                              extra={"today": today})
    town = town_id()
    if dataset == "cadastro":
        filters.extra["standing"] = stats.standing_today(town, today)[0]
    data = stats.EXPORT_DATASETS[dataset](town, filters)
    stream = (stats.csv_stream(data.header, data.rows, g.user.municipality) if fmt == "csv"
              else stats.xlsx_stream(data.name, data.header, data.rows, g.user.municipality))
    slug = g.user.municipality.slug
    span = f"-{period.first.isoformat()}-a-{period.last.isoformat()}" if period else \
        f"-{today.isoformat()}"
    response = Response(stream_with_context(stream), mimetype=EXPORT_FORMATS[fmt])
    response.headers["Content-Disposition"] = \
        f'attachment; filename="{dataset}-{slug}{span}.{fmt}"'
    return response
