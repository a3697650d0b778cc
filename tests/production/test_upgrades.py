"""Upgrades never lose data: a database populated through the services and
taken back to the schema before the newest migration is upgraded with `flask db upgrade`;
every row of every table (the columns it had; a JSON document as the document it holds, text
before a migration typed its column), the audit chain and the evidence survive.
`db upgrade` refuses a database that a newer version of the program migrated."""
from __future__ import annotations

import hashlib
import json

from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy import JSON, MetaData, select, text

from inspector import MIGRATIONS, audit
from inspector.extensions import db
from tests.support.drill import make_town, send, sync


def previous_revision() -> str:
    """The schema before the newest migration: what the last version of the program left."""
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    script = ScriptDirectory.from_config(cfg)
    return script.get_revision(script.get_current_head()).down_revision


def table_rows() -> dict[str, tuple[tuple[str, ...], list[tuple]]]:
    """(column names, every row in primary-key order) of each table, as it is now."""
    meta = MetaData()
    meta.reflect(bind=db.engine)
    out = {}
    with db.engine.connect() as conn:
        for table in meta.sorted_tables:
            order = list(table.primary_key.columns) or list(table.columns)
            rows = conn.execute(select(*table.columns).order_by(*order)).all()
            out[table.name] = (tuple(c.name for c in table.columns), [tuple(r) for r in rows])
    return out


def json_columns() -> set[tuple[str, str]]:
    """(table, column) of the columns that are JSON in the schema as it is now."""
    meta = MetaData()
    meta.reflect(bind=db.engine)
    return {(t.name, c.name) for t in meta.sorted_tables for c in t.columns
            if isinstance(c.type, JSON)}


def digest(name: str, columns: tuple[str, ...], rows: list[tuple], as_json: set) -> tuple:
    """(rows, SHA-256 of the rows); a value of a JSON column counts as the document it holds,
    whether the schema stored it as text (before a migration typed it) or as JSON."""
    h = hashlib.sha256()
    for row in rows:
        h.update(repr(tuple(
            (audit.canonical(json.loads(v) if isinstance(v, str) else v)
             if (name, c) in as_json and v not in (None, "", "null") else
             None if (name, c) in as_json else v)
            for c, v in zip(columns, row))).encode())
    return len(rows), h.hexdigest()


def same_columns_rows(columns_of: dict) -> dict[str, list[tuple]]:
    """table_rows over only the columns each table had before the upgrade."""
    meta = MetaData()
    meta.reflect(bind=db.engine)
    out = {}
    with db.engine.connect() as conn:
        for name, cols in columns_of.items():
            table = meta.tables[name]
            pick = [table.c[c] for c in cols]
            order = [table.c[c.name] for c in table.primary_key.columns] or pick
            out[name] = [tuple(r) for r in conn.execute(select(*pick).order_by(*order))]
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
        before = table_rows()
        db.engine.dispose()
    del before["alembic_version"]   # the one row that must change
    assert sum(len(rows) for _, rows in before.values()) > 50

    up = cli.invoke(args=["db", "upgrade"])
    assert up.exit_code == 0, up.output
    with new.app_context():
        after = same_columns_rows({name: cols for name, (cols, _) in before.items()})
        as_json = json_columns()
        db.engine.dispose()
    assert ({name: digest(name, before[name][0], rows, as_json) for name, rows in after.items()}
            == {name: digest(name, cols, rows, as_json) for name, (cols, rows) in before.items()})
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
