"""JSON documents kept in Text columns become JSON columns: JSONB on PostgreSQL, JSON on SQLite

The columns: the citations an act was recorded with (sanctions.breach_citation, citation,
deadline_citation, appeal_citation, on_missed), the article asking for a company's copy
(notice_company_copies.citation), an enforcement event's data, an inspection's registry
changes, a checklist answer's citation and a vistoria's items to fix.

Before any change every stored value is read. A value that is not JSON (or that PostgreSQL's
JSONB refuses: NaN, Infinity, a \\u0000 inside a string) stops the upgrade, naming the table,
the column and the row, and nothing is changed: an act's citation is what it was issued
under, so it is corrected by hand, never guessed (docs/upgrades.md). An empty text or
"null" in a column that may be empty becomes SQL NULL, as the program always read it.

Text that a hash covers stays text: audit_entries.before/after (the chain hashes those exact
bytes) and inspections.body (body_sha256, printed on documents).

Revision ID: 0031
Revises: 0030
Create Date: 2026-12-06 08:40:00

"""
import json
import re

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

# revision identifiers, used by Alembic.
revision = '0031'
down_revision = '0030'
branch_labels = None
depends_on = None

# (table, column, may be NULL)
COLUMNS = (
    ('sanctions', 'breach_citation', True),
    ('sanctions', 'citation', False),
    ('sanctions', 'deadline_citation', True),
    ('sanctions', 'on_missed', True),
    ('sanctions', 'appeal_citation', True),
    ('notice_company_copies', 'citation', False),
    ('enforcement_events', 'data', True),
    ('inspections', 'registry_changes', True),
    ('inspection_items', 'citation', True),
    ('vistorias', 'to_fix', False),
)
SHOWN = 20  # problems named in the message; the count says how many more


def _constant(name):
    raise ValueError(f'{name} não é um valor JSON aceito')


def _has_nul(value) -> bool:
    if isinstance(value, str):
        return '\x00' in value
    if isinstance(value, dict):
        return any(_has_nul(k) or _has_nul(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_nul(v) for v in value)
    return False


def problem(text, nullable: bool) -> str | None:
    """Why a stored text cannot become a JSON value (None: it can)."""
    if text.strip() in ('', 'null'):
        return None if nullable else 'vazio, e a coluna não aceita valor nulo'
    try:
        value = json.loads(text, parse_constant=_constant)
    except (ValueError, RecursionError) as e:
        return f'não é JSON ({e})'
    if _has_nul(value):
        return 'contém o caractere nulo (\\u0000), que o PostgreSQL não guarda em JSONB'
    return None


def check(bind) -> list[tuple[str, str, int]]:
    """Refuse the upgrade on any value that is not JSON; return the (table, column, id) of
    empty values to set to NULL."""
    problems, empty = [], []
    for table, column, nullable in COLUMNS:
        rows = bind.execute(sa.text(
            f'SELECT id, {column} FROM {table} WHERE {column} IS NOT NULL ORDER BY id'))
        for ident, text in rows:
            why = problem(text, nullable)
            if why is not None:
                problems.append(f'{table}.{column} id={ident}: {why}')
            elif text.strip() in ('', 'null'):
                empty.append((table, column, ident))
    if problems:
        more = len(problems) - SHOWN
        raise RuntimeError(
            f'{len(problems)} valor(es) guardado(s) como JSON não são JSON válido; nada foi '
            'alterado. Corrija cada linha (restaure-a do backup ou escreva o JSON correto) e '
            'rode flask db upgrade de novo (docs/upgrades.md, "Colunas JSON"): '
            + '; '.join(problems[:SHOWN]) + (f'; e mais {more}' if more > 0 else ''))
    return empty


def retype_sqlite(bind, old: str, new: str) -> None:
    """Change the declared type of the columns in SQLite's own schema, in place.

    SQLite stores JSON as text whatever the declared type, so the rows stay as they are and
    only the type's name changes (the "writable_schema" procedure of SQLite's ALTER TABLE
    documentation; the name is all a JSON column's affinity changes, for new values). A
    batch copy of the tables instead would fail on a database with data (sanctions and
    inspections are referenced by other tables) and would rewrite their foreign keys in a
    form that the downgrade of 0020 cannot drop."""
    tables = {}
    for table, column, _ in COLUMNS:
        sql = tables.get(table) or bind.execute(sa.text(
            "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = :t"),
            {'t': table}).scalar_one()
        pattern = re.compile(rf'(?<=[(,\s])("?{column}"?)\s+{old}\b', re.IGNORECASE)
        sql, found = pattern.subn(rf'\1 {new}', sql)
        if found != 1:
            raise RuntimeError(f'{table}.{column}: a definição da coluna não foi encontrada '
                               f'como {old} no esquema do SQLite; nada foi alterado')
        tables[table] = sql
    version = bind.execute(sa.text('PRAGMA schema_version')).scalar_one()
    bind.execute(sa.text('PRAGMA writable_schema = ON'))
    for table, sql in tables.items():
        bind.execute(sa.text("UPDATE sqlite_master SET sql = :sql WHERE type = 'table' "
                             "AND name = :t"), {'sql': sql, 't': table})
    bind.execute(sa.text(f'PRAGMA schema_version = {version + 1}'))
    bind.execute(sa.text('PRAGMA writable_schema = OFF'))
    ok = bind.execute(sa.text('PRAGMA integrity_check')).scalar_one()
    if ok != 'ok':
        raise RuntimeError(f'o esquema do SQLite não passou na verificação: {ok}')


def upgrade():
    bind = op.get_bind()
    for table, column, ident in check(bind):
        bind.execute(sa.text(f'UPDATE {table} SET {column} = NULL WHERE id = :id'),
                     {'id': ident})
    if bind.dialect.name == 'postgresql':
        for table, column, nullable in COLUMNS:
            op.alter_column(table, column, existing_type=sa.Text(),
                            type_=postgresql.JSONB(none_as_null=True),
                            existing_nullable=nullable,
                            postgresql_using=f'{column}::jsonb')
        return
    retype_sqlite(bind, 'TEXT', 'JSON')


def downgrade():
    bind = op.get_bind()
    if bind.dialect.name == 'postgresql':
        for table, column, nullable in COLUMNS:
            op.alter_column(table, column, existing_type=postgresql.JSONB(), type_=sa.Text(),
                            existing_nullable=nullable, postgresql_using=f'{column}::text')
        return
    retype_sqlite(bind, 'JSON', 'TEXT')
