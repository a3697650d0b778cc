"""`flask --app inspector rules ...`: the rule packs from the command line (DESIGN.md contract).

Errors (unknown town or service, no law in force, a bad date): one line on stderr, exit 2.
"""
from __future__ import annotations

import json
import sys
from datetime import date

import click
from flask.cli import AppGroup

from inspector.cli.common import fail
from inspector.clock import local_day
from inspector.rules import load_all

rules_cli = AppGroup("rules", help="The laws as data: rule packs, checklists, vehicle checks.")

# The packs load when the app starts (register_cli imports this module): a broken pack
# stops the app with its file and key, not the first inspection that needs it.
load_all()


def _day(value: str | None) -> date:
    if value is None:
        return local_day()
    try:
        return date.fromisoformat(value)
    except ValueError:
        fail(f"data inválida: '{value}' (use AAAA-MM-DD)")


def _cite(c) -> dict:
    return {"law": c.law, "article": c.article, "anchor": c.anchor, "law_slug": c.law_slug,
            "quote": c.quote}


def _out(data: dict) -> None:
    click.echo(json.dumps(data, ensure_ascii=False, indent=2))


@rules_cli.command("list")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def rules_list(as_json: bool) -> None:
    """Every rule pack: town, service, law, in force from/to."""
    packs = load_all()
    if as_json:
        _out({"packs": [p.summary() for p in packs]})
        return
    for p in packs:
        until = p.span.last.isoformat() if p.span.last else "—"
        click.echo(f"{p.town:<18} {p.service:<9} {p.law:<13} de {p.span.start.isoformat()} "
                   f"até {until}  ({p.id})")


@rules_cli.command("checklist")
@click.option("--town", required=True, help="Town slug, e.g. tapurah.")
@click.option("--service", required=True, help="taxi or mototaxi.")
@click.option("--on", "on", default=None, help="Day (YYYY-MM-DD); default today.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def rules_checklist(town: str, service: str, on: str | None, as_json: bool) -> None:
    """The checklist items in force on a day, each with its citation."""
    from inspector.rules import RulesError, checklist_of, find_pack

    day = _day(on)
    try:
        pack = find_pack(town, service, day)
    except RulesError as e:
        fail(str(e))
    items = checklist_of(pack, day)
    if as_json:
        _out({"town": town, "service": service, "on": day.isoformat(), "law": pack.law,
              "law_slug": pack.law_slug,
              "items": [dict(i.as_dict(), citation=_cite(i.citation)) for i in items]})
        return
    click.echo(f"{pack.law} — {pack.town_name}, {service}, em {day.isoformat()}:")
    for i in items:
        cond = (f" (se a sede passar de {i.seat_population_over} habitantes)"
                if i.seat_population_over is not None else "")
        click.echo(f"  {i.id:<24} {i.label}{cond}  [{i.citation.article}]")


@rules_cli.command("check-vehicle")
@click.option("--town", required=True, help="Town slug, e.g. tapurah.")
@click.option("--service", required=True, help="taxi or mototaxi.")
@click.option("--year", required=True, type=int, help="Year of manufacture.")
@click.option("--cc", type=int, default=None, help="Engine size in cc.")
@click.option("--trail", is_flag=True, help="The motorcycle is a trail bike.")
@click.option("--on", "on", default=None, help="Day (YYYY-MM-DD); default today.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def rules_check_vehicle(town: str, service: str, year: int, cc: int | None, trail: bool,
                        on: str | None, as_json: bool) -> None:
    """A vehicle's violations of the law in force on a day (age, engine size, trail)."""
    from inspector.rules import RulesError, VehicleFacts, vehicle_violations

    day = _day(on)
    if not 1900 <= year <= day.year + 1:
        fail(f"ano de fabricação inválido: {year}")
    if cc is not None and cc <= 0:
        fail(f"cilindrada inválida: {cc}")
    try:
        found = vehicle_violations(town, service, VehicleFacts(year_of_manufacture=year,
                                                               engine_cc=cc, is_trail=trail),
                                   day)
    except RulesError as e:
        fail(str(e))
    if as_json:
        _out({"violations": [{"rule_id": v.rule_id, "message": v.message,
                              "citation": _cite(v.citation)} for v in found]})
        return
    if not found:
        click.echo("ok: nenhuma violação")
    for v in found:
        click.echo(f"{v.rule_id}: {v.message} ({v.citation.law}, {v.citation.article})")


@rules_cli.command("validate")
@click.argument("path", type=click.Path(exists=True))
def rules_validate(path: str) -> None:
    """Check a new pack (a file, or a folder laid out like RULES_EXTRA_DIR) against its law
    text with the same strict loader: every problem with its file and line (exit 2)."""
    from inspector.rules.validate import validate_path

    files, problems = validate_path(path)
    if not files:
        fail(f"nenhum pacote (*.yaml) em {path} nem em {path}/packs")
    for p in problems:
        click.echo(str(p), err=True)
    if problems:
        click.echo(f"erro: {len(problems)} problema(s) em {len(files)} pacote(s)", err=True)
        sys.exit(2)
    for f in files:
        click.echo(f"ok: {f}")
