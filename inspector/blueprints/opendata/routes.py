"""Transparency for citizens: /transparencia (what the town publishes) and its open data
(/transparencia/dados): per town, the fleet and its share regular today, inspections, acts
and fines per month, as CSV and JSON with a data dictionary. Public, no login, no personal
data (inspector/stats/opendata.py); cacheable: the same day and the same town data give the
same bytes, an ETag and `Cache-Control: public`, so a proxy or the browser asks again only
with If-None-Match (304)."""
from __future__ import annotations

import hashlib
import json

from flask import Blueprint, Response, abort, render_template, request

from inspector import audit, clock, render_cache, stats
from inspector.extensions import db, limiter
from inspector.models import Municipality
from inspector.security import config_limit, public, public_url

bp = Blueprint("opendata", __name__, url_prefix="/transparencia")
_limit = config_limit("OPEN_DATA_RATE_LIMIT", "60 per minute;600 per hour")
MAX_AGE = 3600


def _towns() -> list[Municipality]:
    return list(db.session.scalars(db.select(Municipality).order_by(Municipality.name)))


def _town(slug: str) -> Municipality:
    town = db.session.scalar(db.select(Municipality).filter_by(slug=slug))
    if town is None:
        abort(404, "Município não encontrado.")
    return town


def _data(town: Municipality) -> stats.OpenData:
    """The town's datasets, computed once per day and town version (per process)."""
    today = clock.today(town)

    def build():
        data = stats.open_data(town.id, today)
        db.session.commit()   # the fleet's counts of the day, when first computed
        return data
    # bench/caches.py: the open data 2.8x (20 vehicles) to 7.4x (500) slower without it
    return render_cache.reuse("open_data", (town.id, today, audit.town_version(town.id)), build,
                              size=64, seconds=MAX_AGE)


def _cacheable(body: bytes, mimetype: str, filename: str | None = None) -> Response:
    response = Response(body, mimetype=mimetype)
    response.headers["Cache-Control"] = f"public, max-age={MAX_AGE}"
    response.set_etag(hashlib.sha256(body).hexdigest()[:32])
    if filename:
        response.headers["Content-Disposition"] = f'attachment; filename="{filename}"'
    response.headers["Access-Control-Allow-Origin"] = "*"
    return response.make_conditional(request)


@bp.get("")
@public
@limiter.shared_limit(_limit, scope="open_data")
def index():
    """What the towns publish: the audit log's head and the open data."""
    body = render_template("opendata/index.html", towns=_towns()).encode()
    return _cacheable(body, "text/html")


@bp.get("/dados")
@public
@limiter.shared_limit(_limit, scope="open_data")
def dictionary():
    """The data dictionary and each town's downloads."""
    body = render_template("opendata/dados.html", towns=_towns(),
                           dictionary=stats.OPEN_DATA_DICTIONARY, months=stats.OPEN_DATA_MONTHS).encode()
    return _cacheable(body, "text/html")


@bp.get("/dados/<town>.json")
@public
@limiter.shared_limit(_limit, scope="open_data")
def town_json(town: str):
    """Every dataset of a town as one JSON document."""
    t = _town(town)
    data = stats.open_data_json(t, _data(t), public_url("opendata.dictionary"))
    body = json.dumps(data, ensure_ascii=False, indent=1).encode()
    return _cacheable(body, "application/json", f"dados-{t.slug}-{data['gerado_em']}.json")


@bp.get("/dados/<town>/<dataset>.csv")
@public
@limiter.shared_limit(_limit, scope="open_data")
def town_csv(town: str, dataset: str):
    """One dataset of a town as CSV (UTF-8 with BOM, ';', as Excel in pt-BR reads it)."""
    if dataset not in stats.OPEN_DATA_DICTIONARY:
        abort(404, "Conjunto de dados desconhecido: veja o dicionário em /transparencia/dados.")
    t = _town(town)
    data = _data(t)
    header = [c[0] for c in stats.OPEN_DATA_DICTIONARY[dataset][2]]
    body = b"".join(stats.csv_stream(header, data.tables[dataset], t))
    return _cacheable(body, "text/csv", f"{dataset}-{t.slug}-{data.on.isoformat()}.csv")
