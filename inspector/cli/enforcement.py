"""`flask --app inspector enforcement tick [--now ISO] [--json]`: apply what time brings.

Idempotent and safe to run every minute (and two at once): see
`inspector/enforcement/tick.py`. Without `--now` the real clock is used; a time
without an offset is read as local time in Mato Grosso (America/Cuiaba). In production
(neither TESTING nor debug) a `--now` more than five minutes from the real clock is refused.
"""
from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import click
from flask import current_app
from flask.cli import AppGroup

from inspector import clock

NOW_SLACK = timedelta(minutes=5)   # a cron's --now written a moment before it runs
enforcement_cli = AppGroup("enforcement", help="Legal acts: deadlines, daily fines, appeals.")


def parse_now(value: str | None) -> datetime:
    """The tick's clock: now, or an ISO 8601 datetime (Mato Grosso's time when it has no
    offset)."""
    if value is None:
        return clock.now()
    moment = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    if moment.tzinfo is None:
        # the tick is one instant for every town, whatever its clock: a moment written
        # without an offset names no town, and is read on the default clock
        moment = clock.at_time(None, moment.date(), moment.time())
    return moment.astimezone(UTC)


def record_fleet_days(now: datetime) -> list[str]:
    """Each town's fleet standing of its local day, once a day (the dashboard's trend):
    one short transaction per town, after the tick's own, so a town whose
    standing cannot be judged neither holds the tick's lock nor stops the other towns.
    The slugs of the towns whose day was written now."""
    from flask import current_app

    from inspector import stats
    from inspector.extensions import db
    from inspector.models import Municipality

    written = []
    for town in db.session.scalars(db.select(Municipality).order_by(Municipality.id)).all():
        slug = town.slug
        try:
            if stats.record_fleet_day(town, now):
                written.append(slug)
            db.session.commit()
        except Exception:  # noqa: BLE001 - one town's failure is logged, the others go on
            db.session.rollback()
            current_app.logger.exception("frota de %s não registrada", slug)
    return written


def take_audit_digest(now: datetime) -> str | None:
    """The day's digest of every audit chain's head (taken by the day's first tick) as
    DAY:SHA256; None when it could not be taken (logged: the tick's work stands)."""
    from inspector import audit
    from inspector.extensions import db

    try:
        row, _taken = audit.take_digest(now)
        db.session.commit()
    except Exception:  # noqa: BLE001 - the digest is retried by the next tick
        db.session.rollback()
        current_app.logger.exception("resumo diário do registro de auditoria não tomado")
        return None
    return f"{row.day.isoformat()}:{row.digest}"


@enforcement_cli.command("tick")
@click.option("--now", "now_text", metavar="ISO", help="Clock to use, e.g. 2026-03-05T10:00-04:00 "
              "(without an offset: Mato Grosso's time).")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def tick_command(now_text: str | None, as_json: bool) -> None:
    """Turn missed notices into daily fines, accrue them, close appeal windows, apply the
    automatic measures of the law (cancelled registrations, revoked permits)."""
    from inspector import enforcement
    from inspector.cli.common import fail

    try:
        now = parse_now(now_text)
    except ValueError:
        fail(f"--now inválido: '{now_text}' (use ISO 8601, ex. 2026-03-05T10:00:00-04:00)")
    # in production only the real clock: another --now could issue fines ahead of time
    if now_text is not None and not (current_app.testing or current_app.debug) \
            and abs(now - clock.now()) > NOW_SLACK:
        fail("--now recusado em produção: a apuração usa só o relógio real (um --now no "
             "futuro emitiria multas antes do tempo); use-o só em testes e demonstração "
             "(FLASK_DEBUG=1)")
    report = enforcement.tick(now)
    fleet_days = record_fleet_days(now)
    digest = take_audit_digest(now)
    from inspector.cli.notifications import deliver_after_tick
    pushed = deliver_after_tick(now)  # the pushes this tick (and earlier requests) queued
    if as_json:
        click.echo(json.dumps(report.as_dict() | {"push": pushed, "fleet_days": fleet_days,
                                                  "audit_digest": digest},
                              ensure_ascii=False))
        return
    click.echo(f"frota: dia registrado em {len(fleet_days)} município(s)" if fleet_days
               else "frota: dia já registrado")
    click.echo(f"registro: resumo do dia {digest}" if digest else
               "registro: resumo do dia não tomado (veja o log)")
    click.echo(f"push: {pushed['error']}" if "error" in pushed else
               f"push: {len(pushed['sent'])} enviada(s), {len(pushed['retry'])} a repetir, "
               f"{len(pushed['failed'])} falha(s), {len(pushed['dropped'])} descartada(s)")
    d = report.as_dict()
    click.echo(f"tick {d['now']}: {d['changes']} alteração(ões) — "
               f"{len(d['proposed'])} vistoria(s) com atos propostos, "
               f"{len(d['converted'])} multa(s) diária(s) nova(s), "
               f"{len(d['accrued'])} multa(s) diária(s) atualizada(s), "
               f"{len(d['reminders'])} aviso(s) de prazo, "
               f"{len(d['windows_closed'])} prazo(s) de recurso encerrado(s), "
               f"{len(d['lifted'])} suspensão(ões) terminada(s), "
               f"{len(d['closed'])} ato(s) encerrado(s), "
               f"{len(d['automatic'])} ato(s) automático(s) da lei")
