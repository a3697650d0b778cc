"""Upload a registry spreadsheet (/cadastro/importar): a dry run first, then "Importar".

The dry run keeps the uploaded bytes in the instance folder under a random token tied
to the admin and the town; "Importar" validates them again (the registry may have
changed meanwhile) and commits only if every row is still good and no cap of the law is
passed (registry.caps: refused, or with the decree and a reason where the law lets the town
pass it). The law's other limits the file breaks (warnings) are listed on the dry run
and, kept the same way under a new token, on the page "Importar" goes back to.
"""
from __future__ import annotations

import hashlib
import json
import re
import secrets
import time
from datetime import date
from pathlib import Path

from flask import (
    Blueprint,
    Response,
    current_app,
    flash,
    g,
    redirect,
    render_template,
    request,
    url_for,
)

from inspector import clock, registry
from inspector.extensions import db
from inspector.imports import (
    COLUMNS,
    MAX_BYTES,
    MAX_ROWS,
    FileRefused,
    ImportReport,
    examples,
    import_registry,
    template_csv,
)
from inspector.models import Role
from inspector.security import roles_required, town_id


def local_today() -> date:
    """Today on the clock of the signed-in admin's town (the example row's dates)."""
    return clock.today(g.user.municipality)


bp = Blueprint("imports", __name__, url_prefix="/cadastro/importar")

ADMIN = roles_required(Role.ADMIN)
KEEP_SECONDS = 2 * 3600
_TOKEN = re.compile(r"^[A-Za-z0-9_-]{20,64}$")


def _store() -> Path:
    path = Path(current_app.instance_path) / "imports"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _sweep(store: Path) -> None:
    """Forget uploads nobody confirmed."""
    cutoff = time.time() - KEEP_SECONDS
    for item in store.iterdir():
        if item.stat().st_mtime < cutoff:
            item.unlink(missing_ok=True)


def _keep(data: bytes, filename: str) -> str:
    """Keep an upload that passed the dry run; return its token."""
    store = _store()
    _sweep(store)
    token = secrets.token_urlsafe(24)
    (store / f"{token}.csv").write_bytes(data)
    (store / f"{token}.json").write_text(json.dumps({
        "user_id": g.user.id, "town_id": town_id(), "filename": filename,
        "sha256": hashlib.sha256(data).hexdigest()}))
    return token


def _take(token: str) -> tuple[bytes, str] | None:
    """The upload behind a token, if it is this admin's, of this town, and unaltered."""
    if not _TOKEN.match(token or ""):
        return None
    store = _store()
    try:
        meta = json.loads((store / f"{token}.json").read_text())
        data = (store / f"{token}.csv").read_bytes()
    except (OSError, ValueError):
        return None
    if (meta.get("user_id"), meta.get("town_id")) != (g.user.id, town_id()) or \
            hashlib.sha256(data).hexdigest() != meta.get("sha256"):
        return None
    return data, str(meta.get("filename", "planilha.csv"))


def _keep_result(report: ImportReport, filename: str) -> str:
    """Keep an import's limits for the page it redirects to (too many for a flash cookie)."""
    token = secrets.token_urlsafe(24)
    (_store() / f"{token}.result.json").write_text(json.dumps({
        "user_id": g.user.id, "town_id": town_id(), "filename": filename,
        "limits": report.limits_json()}))
    return token


def _result(token: str) -> dict | None:
    """An import's kept limits, if they are this admin's and this town's."""
    if not _TOKEN.match(token or ""):
        return None
    try:
        kept = json.loads((_store() / f"{token}.result.json").read_text())
    except (OSError, ValueError):
        return None
    if (kept.get("user_id"), kept.get("town_id")) != (g.user.id, town_id()):
        return None
    return kept


def _drop(token: str) -> None:
    if _TOKEN.match(token or ""):
        for suffix in (".csv", ".json"):
            (_store() / f"{token}{suffix}").unlink(missing_ok=True)


def _page(status: int = 200, **context) -> tuple[str, int]:
    context.setdefault("report", None)
    context.setdefault("refused", None)
    context.setdefault("token", None)
    context.setdefault("filename", "")
    context.setdefault("done", None)
    context.setdefault("override_reason", "")
    return render_template("imports/upload.html", columns=COLUMNS, max_rows=MAX_ROWS,
                           max_mb=MAX_BYTES // (1024 * 1024), example=examples(local_today()),
                           **context), status


@bp.get("")
@ADMIN
def upload():
    """The upload form and a description of the spreadsheet (and, after an import, the
    law's limits its rows break)."""
    return _page(done=_result(request.args.get("resultado", "")))


@bp.post("")
@ADMIN
def check():
    """Dry run: validate every row, write nothing, show every bad row or what would change."""
    upload = request.files.get("arquivo")
    if upload is None or not upload.filename:
        return _page(422, refused="Escolha o arquivo CSV, .xlsx ou .ods da planilha.")
    data = upload.read(MAX_BYTES + 1)
    filename = Path(upload.filename).name[:120]
    try:
        report = import_registry(town_id(), data, actor=g.user, dry_run=True,
                                 source=f"planilha {filename}")
    except FileRefused as e:
        return _page(422, refused=f"Arquivo recusado: {e}.", filename=filename)
    token = _keep(data, filename) if report.ok else None
    return _page(200 if report.ok else 422, report=report, token=token, filename=filename)


@bp.post("/confirmar")
@ADMIN
def confirm():
    """Import for real the file that passed the dry run; all rows or nothing."""
    token = request.form.get("token", "")
    kept = _take(token)
    if kept is None:
        return _page(422, refused="Este envio expirou ou não é seu. Envie o arquivo de novo.")
    data, filename = kept
    reason = request.form.get(registry.CAPS_REASON_FIELD, "")[:1000]
    try:
        report: ImportReport = import_registry(town_id(), data, actor=g.user,
                                               source=f"planilha {filename}",
                                               override_reason=reason)
    except FileRefused as e:
        return _page(422, refused=f"Arquivo recusado: {e}.", filename=filename)
    if not report.ok:
        # a cap the town may pass by decree, without the decree and reason: ask again
        return _page(422, report=report, filename=filename, override_reason=reason.strip(),
                     token=token if report.needs_reason else None)
    db.session.commit()
    _drop(token)
    limits = report.limits_summary()
    flash(f"Importação concluída ({filename}): {report.summary()}."
          + (f" {limits}: veja “Limites da lei”." if limits else ""), "success")
    if not limits:
        return redirect(url_for("imports.upload"), 303)
    return redirect(url_for("imports.upload", resultado=_keep_result(report, filename)), 303)


@bp.get("/modelo.csv")
@ADMIN
def example():
    """A spreadsheet to start from: the header and one example row."""
    response = Response("\ufeff" + template_csv(today=local_today()), mimetype="text/csv")
    response.headers["Content-Disposition"] = 'attachment; filename="modelo-cadastro.csv"'
    return response
