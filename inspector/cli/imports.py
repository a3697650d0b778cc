"""`flask --app inspector registry import --town SLUG FILE [--dry-run] [--json]`."""
from __future__ import annotations

import errno
import json
import sys
from pathlib import Path

import click
from flask.cli import AppGroup

from inspector.extensions import db

registry_cli = AppGroup("registry", help="O cadastro de um município.")


def _fail(message: str) -> None:
    click.echo(f"erro: {message}", err=True)
    sys.exit(2)


@registry_cli.command("import")
@click.option("--town", required=True, help="Slug do município (ex.: tapurah).")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--dry-run", is_flag=True, help="Só valida: mostra o que faria e não grava nada.")
@click.option("--json", "as_json", is_flag=True, help="Relatório em JSON na saída padrão.")
@click.option("--acima-do-limite", "override_reason", default="", metavar="MOTIVO",
              help="Decreto e motivo para passar um limite que a lei deixa o município "
                   "ampliar por decreto (fica no registro de auditoria).")
def registry_import(town: str, file: Path, dry_run: bool, as_json: bool,
                    override_reason: str) -> None:
    """Import a town's registry CSV: every row or nothing (see docs/csv-import.md)."""
    from inspector.imports import MAX_BYTES, FileRefused, import_registry
    from inspector.models import Municipality

    municipality = db.session.scalar(db.select(Municipality).filter_by(slug=town))
    if municipality is None:
        _fail(f"município desconhecido: {town!r}")
    try:
        if file.stat().st_size > MAX_BYTES:
            _fail(f"arquivo grande demais: o limite é {MAX_BYTES // (1024 * 1024)} MB")
        data = file.read_bytes()
    except OSError as e:
        _fail(f"não consegui ler {str(file)!r}: {_why(e)}")
    try:
        report = import_registry(municipality.id, data, actor="cli", dry_run=dry_run,
                                 source=f"planilha {file.name}",
                                 override_reason=override_reason)
    except FileRefused as e:
        _fail(str(e))
    if report.written:
        db.session.commit()
    if as_json:
        click.echo(json.dumps(report.as_json(), ensure_ascii=False))
    if not report.ok:
        for error in report.errors:
            click.echo(str(error), err=True)
        if report.errors:
            _fail(f"{report.bad_summary()}; nada foi gravado")
        for b in report.caps:
            click.echo(f"limite da lei: {b.text()}", err=True)
        _fail("a planilha passa um limite da lei; nada foi gravado"
              + ("" if report.cap_refused else " (use --acima-do-limite com o decreto e o motivo)"))
    if not as_json:
        prefix = "simulação, nada foi gravado" if dry_run else "importado"
        click.echo(f"{prefix}: {report.summary()}")
        for line in limit_lines(report):
            click.echo(line)
        for b in report.caps:
            click.echo(f"acima do limite da lei, por decreto: {b.text()}")


_ERRNO = {errno.ENOENT: "o arquivo não existe", errno.EACCES: "sem permissão para ler",
          errno.EPERM: "sem permissão para ler", errno.EISDIR: "é uma pasta, não um arquivo"}


def _why(e: OSError) -> str:
    """Why a file could not be read, in Portuguese (the system says it in English)."""
    return _ERRNO.get(e.errno, f"erro do sistema ({e.strerror or e})")


def limit_lines(report) -> list[str]:
    """The law's limits the file breaks, one line each with its article, as the forms say
    them ("Atenção: … (Lei 127/2009, Art. 3)"); the town's first, then by line."""
    from inspector.blueprints.laws.citations import citation_text

    summary = report.limits_summary()
    if not summary:
        return []
    def text(v) -> str:  # noqa: E306
        badge = "Fora do limite" if v.severity == "violation" else "Atenção"
        where = citation_text(v.citation)
        return f"{badge}: {v.message}" + (f" ({where})" if where else "")
    verb = "entrariam" if report.dry_run else "entraram"
    return ([f"{summary} (são avisos: as linhas {verb} no cadastro):"]
            + [f"  município: {text(v)}" for v in report.file_limits]
            + [f"  linha {line}: {text(v)}" for line, v in report.row_limits])
