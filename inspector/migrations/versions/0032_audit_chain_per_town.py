"""one audit chain per town, and the daily digest of every chain's head

- audit_entries.chain_seq: an entry's position in its town's chain (entries of no town: the
  deployment's chain); unique per town. Entries already in the log keep chain_seq NULL and
  stay, untouched, the single chain they were (the legacy chain): their hashes are what
  documents printed and archives kept, so none is recomputed. (A database downgraded after
  this revision gets each town chain's positions back: an entry that links to its town's
  previous one and whose hash holds with its position is in that chain.)
- the cut-over: when the log holds entries, the deployment chain's first entry
  (`audit_chains_split`) records the legacy chain's last entry (number and SHA-256) and how
  many it holds; `audit verify` checks that the legacy chain still ends there. New entries
  are numbered after every existing one (PostgreSQL: from the id's own sequence, moved past
  every number in use).
- audit_digests: one digest per day of every chain's head.

The downgrade keeps every entry and drops the positions and the digests: an earlier program
does not verify the town chains (restore the backup made before the upgrade to go back).

The entry's hash is computed here as inspector/audit.py does it, copied so that this file
never changes with the app.

Revision ID: 0032
Revises: 0031
Create Date: 2026-12-06 08:40:00

"""
import hashlib
import json
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = '0032'
down_revision = '0031'
branch_labels = None
depends_on = None

CUT_OVER = 'audit_chains_split'
ENTRIES = sa.table(
    'audit_entries', sa.column('id', sa.Integer), sa.column('seq', sa.Integer),
    sa.column('chain_seq', sa.Integer), sa.column('at', sa.DateTime(timezone=True)),
    sa.column('actor_id', sa.Integer), sa.column('actor', sa.String),
    sa.column('municipality_id', sa.Integer), sa.column('action', sa.String),
    sa.column('entity', sa.String), sa.column('entity_id', sa.String),
    sa.column('before', sa.Text), sa.column('after', sa.Text),
    sa.column('prev_hash', sa.String), sa.column('hash', sa.String))


def _canonical(value) -> str:
    def default(v):
        if isinstance(v, datetime):
            return v.astimezone(UTC).isoformat(timespec='microseconds')
        raise TypeError(type(v).__name__)
    return json.dumps(value, default=default, sort_keys=True, separators=(',', ':'),
                      ensure_ascii=False)


def _sha256(value) -> str:
    return hashlib.sha256(_canonical(value).encode()).hexdigest()


def _genesis(town_id) -> str:
    return _sha256({'chain': 'deployment' if town_id is None else town_id})


def _positions(bind) -> dict:
    """The town chains already in the log (a database downgraded after this revision): the
    position of each entry that follows its town's previous one and whose hash holds with
    that position; {town: (position, hash)} of the chains found. Entries of 1.0.0 (the legacy
    chain) follow no town chain and keep no position."""
    heads = {}
    updates = []
    for r in bind.execute(sa.select(ENTRIES).order_by(ENTRIES.c.seq)):
        town = r.municipality_id
        position, prev = heads.get(town, (0, None))
        if r.prev_hash != (prev or _genesis(town)):
            continue
        content = {k: getattr(r, k) for k in (
            'seq', 'actor', 'actor_id', 'municipality_id', 'action', 'entity', 'entity_id',
            'before', 'after', 'prev_hash')}
        at = r.at if r.at.tzinfo else r.at.replace(tzinfo=UTC)
        content.update(at=at, chain_seq=position + 1)
        if _sha256(content) == r.hash:
            heads[town] = (position + 1, r.hash)
            updates.append({'i': r.id, 'p': position + 1})
    if updates:
        bind.execute(sa.text('UPDATE audit_entries SET chain_seq = :p WHERE id = :i'), updates)
    return heads


def _now(bind) -> datetime:
    """The database's clock: this file asks nothing else for the time."""
    value = bind.scalar(sa.select(sa.func.current_timestamp()))
    if isinstance(value, str):  # SQLite: UTC, as text
        value = datetime.fromisoformat(value)
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def _cut_over(bind, heads: dict) -> None:
    """The deployment chain's first entry, naming where the legacy chain ends."""
    legacy = ENTRIES.c.chain_seq.is_(None)
    last = bind.execute(sa.select(ENTRIES.c.seq, ENTRIES.c.hash).where(legacy)
                        .order_by(ENTRIES.c.seq.desc()).limit(1)).first()
    if last is None or None in heads:  # no legacy chain, or its cut-over is already there
        return
    count = bind.scalar(sa.select(sa.func.count()).select_from(ENTRIES).where(legacy))
    top = max(last.seq, bind.scalar(sa.select(sa.func.max(ENTRIES.c.id))))
    if bind.dialect.name == 'postgresql':
        bind.execute(sa.text("SELECT setval(pg_get_serial_sequence('audit_entries', 'id'), :n)"),
                     {'n': top})
        number = bind.scalar(sa.text("SELECT nextval(pg_get_serial_sequence('audit_entries', "
                                     "'id'))"))
    else:
        number = top + 1
    at = _now(bind)
    entry = {
        'seq': number, 'at': at, 'actor': 'system', 'actor_id': None,
        'municipality_id': None, 'action': CUT_OVER, 'entity': 'audit_log',
        'entity_id': 'legacy', 'before': None,
        'after': _canonical({'legacy_entries': count,
                             'legacy_head': {'seq': last.seq, 'sha256': last.hash}}),
        'prev_hash': _genesis(None), 'chain_seq': 1,
    }
    entry['hash'] = _sha256(entry)
    bind.execute(ENTRIES.insert(), [{**entry, 'id': number}])


def upgrade():
    with op.batch_alter_table('audit_entries', schema=None) as batch_op:
        batch_op.add_column(sa.Column('chain_seq', sa.Integer(), nullable=True))
    bind = op.get_bind()
    _cut_over(bind, _positions(bind))
    with op.batch_alter_table('audit_entries', schema=None) as batch_op:
        batch_op.create_unique_constraint('uq_audit_entries_municipality_id_chain_seq',
                                          ['municipality_id', 'chain_seq'])
    op.create_table('audit_digests',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('day', sa.Date(), nullable=False),
    sa.Column('taken_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('heads', sa.Text(), nullable=False),
    sa.Column('prev_digest', sa.String(length=64), nullable=True),
    sa.Column('digest', sa.String(length=64), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_audit_digests')),
    sa.UniqueConstraint('day', name=op.f('uq_audit_digests_day')),
    sa.UniqueConstraint('digest', name=op.f('uq_audit_digests_digest'))
    )


def downgrade():
    op.drop_table('audit_digests')
    with op.batch_alter_table('audit_entries', schema=None) as batch_op:
        batch_op.drop_constraint('uq_audit_entries_municipality_id_chain_seq', type_='unique')
        batch_op.drop_column('chain_seq')
