"""Upgrades never lose data: a database populated through the services and
taken back to the schema before the newest migration is upgraded with `flask db upgrade`;
every row of every table (the columns it had), the audit chain and the evidence survive.
`db upgrade` refuses a database that a newer version of the program migrated."""
from __future__ import annotations

import hashlib

from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy import MetaData, select, text

from inspector import MIGRATIONS
from inspector.extensions import db
from tests.support.drill import make_town, send, sync


def previous_revision() -> str:
    """The schema before the newest migration: what the last version of the program left."""
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    script = ScriptDirectory.from_config(cfg)
    return script.get_revision(script.get_current_head()).down_revision


def table_digests() -> dict[str, tuple[int, str]]:
    """(rows, SHA-256 of every row in primary-key order) of each table, as it is now."""
    meta = MetaData()
    meta.reflect(bind=db.engine)
    out = {}
    with db.engine.connect() as conn:
        for table in meta.sorted_tables:
            order = list(table.primary_key.columns) or list(table.columns)
            rows = conn.execute(select(*table.columns).order_by(*order)).all()
            h = hashlib.sha256()
            for row in rows:
                h.update(repr(tuple(row)).encode())
            out[table.name] = (len(rows), h.hexdigest(), tuple(c.name for c in table.columns))
    return out


def same_columns_digests(columns_of: dict) -> dict[str, tuple[int, str]]:
    """table_digests over only the columns each table had before the upgrade."""
    meta = MetaData()
    meta.reflect(bind=db.engine)
    out = {}
    with db.engine.connect() as conn:
        for name, cols in columns_of.items():
            table = meta.tables[name]
            pick = [table.c[c] for c in cols]
            order = [table.c[c.name] for c in table.primary_key.columns] or pick
            rows = conn.execute(select(*pick).order_by(*order)).all()
            h = hashlib.sha256()
            for row in rows:
                h.update(repr(tuple(row)).encode())
            out[name] = (len(rows), h.hexdigest())
    return out


def test_an_upgrade_keeps_every_row_the_audit_chain_and_the_evidence(empty_instance):
    new = empty_instance
    cli = new.test_cli_runner()
    assert cli.invoke(args=["db", "upgrade"]).exit_code == 0
    town = make_town(new)
    for i in range(2):
        send(town["api"], *sync(town["api"], town["vehicle"], 60 + 2 * i))
    older = previous_revision()
    down = cli.invoke(args=["db", "downgrade", older])
    assert down.exit_code == 0, down.output
    with new.app_context():
        before = table_digests()
        db.engine.dispose()
    del before["alembic_version"]   # the one row that must change
    assert sum(n for n, _, _ in before.values()) > 50

    up = cli.invoke(args=["db", "upgrade"])
    assert up.exit_code == 0, up.output
    with new.app_context():
        after = same_columns_digests({name: cols for name, (_, _, cols) in before.items()})
        db.engine.dispose()
    assert after == {name: (n, h) for name, (n, h, _) in before.items()}
    assert cli.invoke(args=["audit", "verify"]).exit_code == 0
    assert cli.invoke(args=["evidence", "verify"]).exit_code == 0
    client = new.test_client()
    assert client.login("sup.t").status_code == 302
    assert client.get(f"/documentos/tapurah/{town['number']}/pdf").status_code == 200


def test_db_upgrade_refuses_a_database_newer_than_the_code(empty_instance):
    new = empty_instance
    cli = new.test_cli_runner()
    assert cli.invoke(args=["db", "upgrade"]).exit_code == 0
    with new.app_context(), db.engine.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = '0999'"))
    refused = cli.invoke(args=["db", "upgrade"])
    assert refused.exit_code == 2
    assert "o banco de dados está no esquema 0999, mais novo que este programa" in refused.output
    assert "nada foi alterado" in refused.output
    with new.app_context(), db.engine.connect() as conn:
        assert conn.execute(text("SELECT version_num FROM alembic_version")).scalar() == "0999"
        db.engine.dispose()
