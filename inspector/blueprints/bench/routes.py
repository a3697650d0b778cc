"""Routes for the benchmarks (bench/field.py) only: registered when the app is created with
`BENCH_ENDPOINTS=True` (passed in the app factory's test config by the bench), never by
default, never from the environment. Not part of any product feature.

`PUT /_bench/upload` reads the whole body and throws it away: the floor that the photo sync
(`PUT /api/field/inspections/<uuid>/photos/<uuid>`) is compared with, the same bytes over
the same server in the same run. With `?check=photo` it also checks the body as the photo
sync checks every photo before storing it (structure walked, decoded whole), and nothing
else: what no sync that checks every photo whole can avoid, timed apart from the rest.
"""
from __future__ import annotations

from flask import Blueprint, jsonify, request

from inspector.extensions import csrf
from inspector.inspections import PhotoRefused, check_photo
from inspector.security import public

bp = Blueprint("bench", __name__, url_prefix="/_bench")
csrf.exempt(bp)


@bp.put("/upload")
@public
def upload():
    """Read the body like the photo endpoint does, keep nothing, answer a small JSON."""
    data = request.get_data(cache=False)
    if request.args.get("check") == "photo":
        try:
            check_photo(data, request.mimetype)
        except PhotoRefused as e:  # answered as the sync answers it
            return jsonify(e.answer()), 422
    return jsonify({"received": len(data)}), 201
