"""`flask --app inspector rules ...`: the rule packs from the command line (DESIGN.md contract).

Errors (unknown town or service, no law in force, a bad date): one line on stderr, exit 2.
"""
from __future__ import annotations

import json
import sys
from datetime import date

import click
from flask.cli import AppGroup

from inspector import clock
from inspector.cli.common import fail
from inspector.rules import load_all

rules_cli = AppGroup("rules", help="The laws as data: rule packs, checklists, vehicle checks.")

# The packs load when the app starts (register_cli imports this module): a broken pack
# stops the app with its file and key, not the first inspection that needs it.
load_all()


def _town_row(town: str):
    """The town's row, or None where it has none or no database answers (the rules need no
    database)."""
    from sqlalchemy import select
    from sqlalchemy.exc import SQLAlchemyError

    from inspector.extensions import db
    from inspector.models import Municipality

    try:
        return db.session.scalar(select(Municipality).where(Municipality.slug == town))
    except SQLAlchemyError:
        db.session.rollback()
        return None


def _day(value: str | None, town: str) -> date:
    if value is None:
        # the town's day; a town with no row yet (a pack alone) has Mato Grosso's clock
        return clock.today(_town_row(town))
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
@click.option("--on", "on", default=None, help="Day (YYYY-MM-DD); default the town's today.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def rules_checklist(town: str, service: str, on: str | None, as_json: bool) -> None:
    """The checklist items in force on a day, each with its citation."""
    from inspector.rules import RulesError, checklist_of, find_pack

    day = _day(on, town)
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
        if i.applies_if_decree is not None:
            cond += f" (só com o decreto '{i.applies_if_decree}' registrado no município)"
        click.echo(f"  {i.id:<24} {i.label}{cond}  [{i.citation.article}]")


def _opt_day(value: str | None, what: str) -> date | None:
    if value is None:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        fail(f"{what} inválida: '{value}' (use AAAA-MM-DD)")


@rules_cli.command("check-vehicle")
@click.option("--town", required=True, help="Town slug, e.g. tapurah.")
@click.option("--service", required=True, help="taxi or mototaxi.")
@click.option("--year", type=int, default=None,
              help="Year of manufacture (may be left out when --manufactured is given).")
@click.option("--manufactured", default=None,
              help="Manufacture date (YYYY-MM-DD), when known: ages count from it.")
@click.option("--first-licensed", "first_licensed", default=None,
              help="First licensing date (YYYY-MM-DD): 'anos de uso' count from it.")
@click.option("--licence-from", "licence_from", default=None,
              help="The Alvará's first day (YYYY-MM-DD), with --licence-until.")
@click.option("--licence-until", "licence_until", default=None,
              help="The Alvará's last day: longer than its law allows is a violation.")
@click.option("--cc", type=int, default=None, help="Engine size in cc.")
@click.option("--trail", is_flag=True, help="The motorcycle is a trail bike.")
@click.option("--on", "on", default=None, help="Day (YYYY-MM-DD); default the town's today.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def rules_check_vehicle(town: str, service: str, year: int | None, manufactured: str | None,
                        first_licensed: str | None, licence_from: str | None,
                        licence_until: str | None, cc: int | None, trail: bool,
                        on: str | None, as_json: bool) -> None:
    """A vehicle's violations of the law in force on a day (age, engine size, trail)."""
    from inspector.rules import RulesError, VehicleFacts, vehicle_violations

    day = _day(on, town)
    made = _opt_day(manufactured, "data de fabricação")
    used = _opt_day(first_licensed, "data do primeiro licenciamento")
    if year is None and made is None:
        fail("informe --year ou --manufactured")
    year = made.year if year is None else year
    if not 1900 <= year <= day.year + 1:
        fail(f"ano de fabricação inválido: {year}")
    if made is not None and made.year != year:
        fail(f"a data de fabricação ({made:%d/%m/%Y}) não é do ano informado ({year})")
    if used is not None and made is not None and used < made:
        fail("o primeiro licenciamento não pode ser anterior à fabricação")
    if cc is not None and cc <= 0:
        fail(f"cilindrada inválida: {cc}")
    lic_from = _opt_day(licence_from, "data de início do alvará")
    lic_until = _opt_day(licence_until, "data de fim do alvará")
    if (lic_from is None) != (lic_until is None):
        fail("informe --licence-from e --licence-until juntos")
    if lic_from is not None and lic_until < lic_from:
        fail("o alvará não pode terminar antes de começar")
    try:
        found = vehicle_violations(town, service, VehicleFacts(
            year_of_manufacture=year, manufactured_on=made, first_licensed_on=used,
            engine_cc=cc, is_trail=trail), day)
        if lic_from is not None:   # judged by the law in force on its first day
            from inspector.rules import resolve, validity_violation

            v = validity_violation(resolve(town, service, lic_from), "licence", lic_from,
                                   lic_until, "vehicle", "Alvará")
            found = found + ([v] if v else [])
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
    from inspector.rules import validate_path

    files, problems = validate_path(path)
    if not files:
        fail(f"nenhum pacote (*.yaml) em {path} nem em {path}/packs")
    left = [p for p in problems if p.pending]
    if left:   # a draft (`rules draft`): what a person must still do, by article
        click.echo(f"a terminar ({len(left)}), por artigo:", err=True)
    for p in problems:
        click.echo(str(p), err=True)
    if problems:
        wrong = len(problems) - len(left)
        click.echo(f"erro: {wrong} problema(s)" + (f" e {len(left)} pendência(s) de rascunho"
                                                   if left else "")
                   + f" em {len(files)} pacote(s)", err=True)
        sys.exit(2)
    for f in files:
        click.echo(f"ok: {f}")


@rules_cli.command("draft")
@click.argument("law_file", metavar="LEI.txt")
@click.option("--town", required=True, help="The town's short name (slug), e.g. santa-rita-do-trivelato.")
@click.option("--service", type=click.Choice(("taxi", "mototaxi")), default=None,
              help="taxi or mototaxi (default: read from the law's title).")
@click.option("--output", "-o", default=None,
              help="Pack file to write (default: ../packs/<id>.yaml beside a laws/ folder, "
                   "else beside the law).")
@click.option("--exclude", multiple=True, metavar="PACK",
              help="A pack not to propose from (repeatable).")
@click.option("--like", "like", default=None, metavar="PACK",
              help="Propose from this pack instead of the most similar one.")
def rules_draft(law_file: str, town: str, service: str | None, output: str | None,
                exclude: tuple[str, ...], like: str | None) -> None:
    """Start a new town's pack from its law's text: every article, paragraph, item and alínea
    anchored with its own words, and the checklist and sanctions of the most similar pack
    proposed for a person to finish (`rules validate` lists what is left)."""
    from pathlib import Path

    from inspector.rules import DraftError, build_draft, check_town_slug, read_law_file

    law_path = Path(law_file)
    known = {p.id: p for p in load_all()}
    for pack_id in (*exclude, *([like] if like else [])):
        if pack_id not in known:
            fail(f"pacote de regras desconhecido: {pack_id!r} (veja `flask --app inspector "
                 "rules list`)")
    try:
        check_town_slug(town)
        text = read_law_file(law_path)
        candidates = tuple(p for p in known.values() if p.id not in exclude
                           and (like is None or p.id == like))
        result = build_draft(text, law_path.name, town, candidates, service)
    except DraftError as e:
        fail(str(e))
    if output is None:
        folder = law_path.resolve().parent
        out = (folder.parent / "packs" if folder.name == "laws" else folder) / f"{result.pack_id}.yaml"
    else:
        out = Path(output)
    if out.exists():
        fail(f"o arquivo já existe: {out} (escolha outro com --output; nada foi escrito)")
    if not out.parent.is_dir():
        if output is not None:
            fail(f"pasta não encontrada: {out.parent}")
        out.parent.mkdir(parents=True)
    try:
        with out.open("x", encoding="utf-8") as f:
            f.write(result.text)
    except OSError as e:
        fail(f"não foi possível escrever {out}: {e.strerror}")
    click.echo(f"rascunho: {out}")
    click.echo(f"lei: {law_path.name} — {result.articles} artigos, {result.units} dispositivos "
               "ancorados com suas palavras (draft.articles)")
    if result.similar:
        others = ", ".join(f"{k} {v:.2f}".replace(".", ",") for k, v in
                           sorted(result.scores.items(), key=lambda kv: -kv[1]))
        click.echo(f"propostas de {result.similar} (semelhança: {others}): "
                   f"{result.proposed_items} itens do checklist, {result.proposed_citations} "
                   f"citações a conferir; {len(result.left_out)} regras sem artigo parecido "
                   "(draft.left_out)")
    else:
        click.echo("nenhum pacote para comparar: nenhuma proposta")
    click.echo(f"próximo passo: flask --app inspector rules validate {out}")


# --- deadlines: a lawyer checks a reading without the web ------------------------
KINDS = {"appeal": "recurso", "repair": "prazo para cumprir a notificação",
         "grant": "prazo concedido a critério (defeito do veículo que não afeta a segurança)",
         "days": "prazo de N dias (--days)"}
_WEEKDAYS = ("segunda", "terça", "quarta", "quinta", "sexta", "sábado", "domingo")


def _pack_by_id(pack_id: str, town: str):
    pack = next((p for p in load_all() if p.id == pack_id), None)
    if pack is None:
        fail(f"lei desconhecida: '{pack_id}' (use o id que `rules list` mostra, por exemplo "
             f"{load_all()[-1].id})")
    if pack.town != town:
        fail(f"a lei {pack.law} ({pack.id}) é de {pack.town}, não de {town}")
    return pack


def _moment(value: str, hours: bool, town: str):
    """A day (AAAA-MM-DD), or for hours a moment (AAAA-MM-DDTHH:MM) on the town's clock."""
    from datetime import datetime

    try:
        if "T" in value or " " in value.strip():
            moment = datetime.fromisoformat(value.strip())
            return moment if moment.tzinfo else moment.replace(tzinfo=clock.zone_of(_town_row(town)))
        day = date.fromisoformat(value.strip())
    except ValueError:
        fail(f"data inválida: '{value}' (use AAAA-MM-DD, ou AAAA-MM-DDTHH:MM para prazo em horas)")
    if hours:
        fail("prazo em horas conta minuto a minuto: informe data e hora da notificação "
             "(AAAA-MM-DDTHH:MM)")
    return day


def _period(pack, kind: str, days: int | None):
    """(days or None, hours or None, citation, what) of the period asked for."""
    if kind == "days":
        if days is None or days < 1:
            fail("--kind days pede --days N (um número inteiro maior que zero)")
        return days, None, None, f"{days} dias"
    if days is not None:
        fail("--days só vale com --kind days")
    if kind == "appeal":
        found = {}
        for a in [pack.appeal] + [m.appeal for s in pack.ladder for m in s.measures] + \
                [m.appeal for o in pack.offences for m in o.measures]:
            if a is not None and a.days is not None:
                found.setdefault(a.days, a)
        if not found:
            fail(f"a {pack.law} não fixa prazo de recurso")
        if len(found) > 1:
            fail(f"a {pack.law} fixa prazos de recurso diferentes por medida: "
                 + ", ".join(f"{d} dias ({a.citation.article})" for d, a in sorted(found.items()))
                 + "; use --kind days --days N")
        a = next(iter(found.values()))
        return a.days, None, a.citation, "recurso"
    for step in pack.ladder:
        for d in step.deadlines:   # repair: the law's own deadline; grant: the longest granted
            if (d.grant is None) == (kind == "repair"):
                return d.days, d.hours, d.citation, KINDS[kind]
    fail(f"a {pack.law} não fixa {KINDS[kind]}")


def _town_calendar(town: str):
    """The town's own closures and entered years from the database (none: say so)."""
    from inspector.laws import calendar_for

    # the rules need no database: without one the town's own days are not known
    row = _town_row(town)
    return calendar_for(row.id) if row is not None else None


@rules_cli.command("deadline")
@click.option("--town", required=True, help="Town slug, e.g. tapurah.")
@click.option("--law", "pack_id", required=True, help="Pack id as `rules list` prints it.")
@click.option("--from", "start", required=True,
              help="Day of the notice (AAAA-MM-DD); for hours, AAAA-MM-DDTHH:MM (the town's time).")
@click.option("--kind", required=True, type=click.Choice(sorted(KINDS)),
              help="appeal, repair (the notice's deadline), grant (Tapurah Art. 19), days.")
@click.option("--days", type=int, default=None, help="With --kind days: how many days.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def rules_deadline(town: str, pack_id: str, start: str, kind: str, days: int | None,
                   as_json: bool) -> None:
    """The last day of a deadline counted as the law counts it, and the days skipped."""
    from inspector.rules import deadline_days, deadline_hours

    pack = _pack_by_id(pack_id, town)
    n_days, n_hours, citation, what = _period(pack, kind, days)
    when = _moment(start, hours=n_hours is not None, town=town)
    calendar = _town_calendar(town)
    try:
        if n_hours is not None:
            result = deadline_hours(when, n_hours, calendar)
        else:
            # days to repair (a notice's, a granted one) end when they end: only appeal windows
            # and other deadlines to file move past a closed day
            result = deadline_days(when, n_days, pack.counting.rule, calendar,
                                   moves=kind not in ("repair", "grant"))
    except ValueError as e:
        fail(str(e))
    counting = pack.counting.as_dict() if n_hours is None else {
        "rule": "hours", "basis": "contadas minuto a minuto, sem prorrogação", "citation": None}
    if as_json:
        _out({"town": town, "law": pack.law, "pack": pack.id, "kind": kind, "what": what,
              "citation": _cite(citation) if citation else None, "counting": counting,
              **result.to_json()})
        return
    head = f"{pack.law} ({pack.id}) — {what}"
    click.echo(head + (f", {citation.article}" if citation else ""))
    if n_hours is not None:
        click.echo(f"Notificação: {result.start:%d/%m/%Y %H:%M}")
        click.echo(f"Termina: {result.end:%d/%m/%Y %H:%M} ({_WEEKDAYS[result.end.weekday()]})"
                   + (f" — dia sem expediente ({result.end_closed}), sem prorrogação"
                      if result.end_closed else ""))
    else:
        click.echo(f"Contagem: {pack.counting.basis}")
        click.echo(f"Notificação: {result.start:%d/%m/%Y} ({_WEEKDAYS[result.start.weekday()]})")
        click.echo(f"Último dia: {result.last_day:%d/%m/%Y} "
                   f"({_WEEKDAYS[result.last_day.weekday()]})")
        click.echo("Dias sem expediente: " + ("; ".join(
            f"{d:%d/%m} {r}" for d, r in result.skipped) if result.skipped else "nenhum"))
    click.echo(result.explain())


@rules_cli.command("accept")
@click.argument("pack_ids", nargs=-1, required=True, metavar="PACK...")
def rules_accept(pack_ids) -> None:
    """Take a changed pack from RULES_EXTRA_DIR into use: its SHA-256 becomes the recorded
    version the start and `production check` compare with (the law changed, docs/adding-a-town.md).
    Audited."""
    from inspector import audit
    from inspector.extensions import db
    from inspector.operations import loaded_packs, record_packs, recorded_packs

    have = loaded_packs()
    unknown = [p for p in pack_ids if p not in have]
    if unknown:
        fail(f"pacote de regras desconhecido: {', '.join(unknown)} (veja `flask --app inspector "
             "rules list`)")
    before = recorded_packs()
    done = record_packs("rules accept", list(pack_ids))
    from inspector.models import Municipality

    for pack_id in done:
        town_id = db.session.scalar(db.select(Municipality.id).filter_by(slug=have[pack_id].town))
        audit.record("rule_pack_accepted", "rule_pack", pack_id, actor="cli",
                     municipality_id=town_id,
                     before={"pack": pack_id, "sha256": before.get(pack_id)},
                     after={"pack": pack_id, "sha256": have[pack_id].sha256,
                            "file": str(have[pack_id].path)})
    db.session.commit()
    for pack_id in pack_ids:
        click.echo(f"{'registrado' if pack_id in done else 'já estava registrado'}: {pack_id} "
                   f"(SHA-256 {have[pack_id].sha256[:12]}…, {have[pack_id].path})")
