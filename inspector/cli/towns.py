"""`towns create` and `towns admin`: a town from nothing, then its first admin account.

    flask --app inspector towns create --ibge 5108006 --name Tapurah --slug tapurah \\
        --population-seat 10059 --population-interior 4311 \\
        --population-source "IBGE, Censo 2022, urbana/rural" --fiscal-unit UFIM \\
        --pack tapurah-406-2001
    flask --app inspector towns admin --town tapurah --username admin.tapurah \\
        --name "Maria da Silva"            # the password is asked, or --generate
    flask --app inspector towns status --town tapurah   # what is still missing

Errors: every problem of the request, one line on stderr, exit status 2; nothing written.
"""
from __future__ import annotations

import json
import sys

import click
from flask.cli import AppGroup

from inspector.cli.common import fail
from inspector.errors import ValidationFailed
from inspector.extensions import db

towns_cli = AppGroup("towns", help="Towns: create one from nothing, its first admin, its setup.")


def _problems(e: ValidationFailed) -> str:
    return "; ".join(f"{k}: {v}" for k, v in e.errors.items())


@towns_cli.command("create")
@click.option("--ibge", "ibge_code", required=True, help="IBGE code, 7 digits (51…).")
@click.option("--name", required=True, help="The town's name as written by IBGE.")
@click.option("--slug", required=True, help="Short name in URLs and rule packs (e.g. tapurah).")
@click.option("--timezone", default="America/Cuiaba", show_default=True,
              help="IANA time zone of the town's clock: its days are the days the law counts.")
@click.option("--population-seat", required=True, help="Inhabitants of the seat (sede).")
@click.option("--population-interior", required=True, help="Inhabitants outside the seat.")
@click.option("--population-source", required=True, help="Where the figures come from.")
@click.option("--fiscal-unit", "fiscal_unit", default="UFM", show_default=True,
              help="The town's fiscal unit (UFM, UFIM...).")
@click.option("--pack", "packs", multiple=True, help="A rule pack in force (repeatable); "
              "see `rules list`.")
def towns_create(ibge_code, name, slug, timezone, population_seat, population_interior,
                 population_source, fiscal_unit, packs) -> None:
    """Create a town: IBGE code, name, timezone, population of seat and interior with its
    source, fiscal unit, and the law packs in force for its services. Audited."""
    from inspector.towns import create_town

    try:
        town = create_town(ibge_code=ibge_code, name=name, slug=slug, timezone=timezone,
                           population_seat=population_seat,
                           population_interior=population_interior,
                           population_source=population_source, fiscal_unit_name=fiscal_unit,
                           pack_ids=list(packs), actor="cli")
    except ValidationFailed as e:
        db.session.rollback()
        fail(f"município não criado: {_problems(e)}")
    from inspector.operations import record_packs

    record_packs("towns create", list(packs))   # the versions its acts will be judged under
    db.session.commit()
    click.echo(f"criado: {town.name} ({town.slug}, IBGE {town.ibge_code}, fuso {town.timezone}), "
               f"{town.population_seat + town.population_interior} habitantes, "
               f"leis: {', '.join(packs)}")
    click.echo(f"próximo passo: flask --app inspector towns admin --town {town.slug} "
               "--username USUÁRIO --name 'Nome Completo'")


@towns_cli.command("admin")
@click.option("--town", "town_slug", required=True)
@click.option("--username", required=True)
@click.option("--name", required=True)
@click.option("--generate", is_flag=True, help="Make a random password and print it once.")
@click.option("--password-stdin", "password_stdin", is_flag=True,
              help="Read the password from the first line of standard input.")
def towns_admin(town_slug, username, name, generate, password_stdin) -> None:
    """The town's first admin: the password is typed twice (or --password-stdin), or
    generated and printed once; it must be changed at the first sign-in."""
    from inspector.cli.records import read_password
    from inspector.towns import create_first_admin

    password = None if generate else read_password(password_stdin)
    try:
        user, generated = create_first_admin(town_slug=town_slug, username=username, name=name,
                                             password=password, actor="cli")
    except ValidationFailed as e:
        db.session.rollback()
        fail(f"conta não criada: {_problems(e)}")
    db.session.commit()
    click.echo(f"administrador(a) criado(a): {user.username} ({town_slug})")
    if generated:
        click.echo(f"senha: {generated}  (anote: não será mostrada de novo)")
    click.echo("entre em /municipio para ver o que falta antes que os agentes possam trabalhar")


@towns_cli.command("status")
@click.option("--town", "town_slug", required=True)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def towns_status(town_slug, as_json) -> None:
    """What the town still lacks (the "Configuração do município" page); exit 1 if anything."""
    from inspector.models import Municipality
    from inspector.towns import setup_of

    town = db.session.scalar(db.select(Municipality).filter_by(slug=town_slug))
    if town is None:
        fail(f"município desconhecido: {town_slug!r}")
    view = setup_of(town)
    if as_json:
        click.echo(json.dumps({"town": town.slug, "missing": [s.key for s in view.missing],
                               "steps": [{"key": s.key, "done": s.done, "needed": s.needed,
                                          "detail": s.detail} for s in view.steps]},
                              ensure_ascii=False))
    else:
        for s in view.steps:
            mark = "—" if not s.needed else ("ok" if s.done else "FALTA")
            click.echo(f"{mark:<6} {s.title}: {s.detail}")
    if view.missing:
        sys.exit(1)
