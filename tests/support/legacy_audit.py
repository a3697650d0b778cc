"""A log as 1.0.0 wrote it, for a database at a released schema: one chain over every town,
numbered 1, 2, 3..., each entry's hash over the previous one's (no position in a town's
chain: `audit.entry_hash` without `chain_seq`, the formula 1.0.0 used)."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import text

from inspector import audit

TOWNS = (("tapurah", "Tapurah", "5108006"), ("nortelandia", "Nortelândia", "5105903"))


def write_legacy_log(conn, per_town: int = 3) -> list[tuple[int, str]]:
    """Two towns and a legacy chain of their entries, interleaved, plus one entry of no town,
    written with plain SQL on `conn` (the schema of a released version); their (seq, hash),
    as documents of that version printed them."""
    ids = []
    for slug, name, ibge in TOWNS:
        conn.execute(text(
            "INSERT INTO municipalities (slug, name, ibge_code, population_seat, "
            "population_interior, population_source, fiscal_unit_name) "
            "VALUES (:slug, :name, :ibge, 9000, 4000, '', 'UFM')"),
            {"slug": slug, "name": name, "ibge": ibge})
        ids.append(conn.scalar(text("SELECT id FROM municipalities WHERE slug = :s"),
                               {"s": slug}))
    towns = [None] + [t for _ in range(per_town) for t in ids]
    prev, out = audit.GENESIS, []
    start = datetime(2026, 11, 2, 13, 0, tzinfo=UTC)
    for seq, town in enumerate(towns, start=1):
        at = start + timedelta(minutes=seq)
        after = audit.canonical({"colour": f"Cor {seq}"})
        digest = audit.entry_hash(seq, at, "fiscal", None, town, "vehicle_updated", "vehicle",
                                  str(seq), None, after, prev)
        conn.execute(text(
            "INSERT INTO audit_entries (id, seq, at, actor_id, actor, municipality_id, action, "
            "entity, entity_id, before, after, prev_hash, hash) VALUES (:seq, :seq, :at, NULL, "
            "'fiscal', :town, 'vehicle_updated', 'vehicle', :eid, NULL, :after, :prev, :hash)"),
            {"seq": seq, "town": town,
             "at": at if conn.dialect.name == "postgresql" else at.strftime("%Y-%m-%d %H:%M:%S.%f"),
             "eid": str(seq), "after": after, "prev": prev,
             "hash": digest})
        out.append((seq, digest))
        prev = digest
    if conn.dialect.name == "postgresql":  # as the app's inserts had moved it
        conn.execute(text("SELECT setval(pg_get_serial_sequence('audit_entries', 'id'), :n)"),
                     {"n": len(towns)})
    return out
