"""Rows written into a database at an older schema, as the release that made it wrote them.

`add(conn, table, **values)` reflects the table as it is in that database (not as the models
say today) and fills every required column the caller left out: a parent row for a foreign
key (made the same way), a distinct value of the column's type otherwise. `release_1_0_0`
writes what a town on 1.0.0 holds that a JSON column's migration must carry over: acts with
their citations, an inspection with its body and hash, a vistoria, a company's copy, events,
a received photo and audit entries chained as 1.0.0 chained them.
"""
from __future__ import annotations

import hashlib
import itertools
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from pathlib import Path

from sqlalchemy import (
    JSON,
    Boolean,
    Date,
    DateTime,
    Float,
    Integer,
    LargeBinary,
    MetaData,
    Numeric,
    String,
    Table,
    Text,
    select,
)

from inspector import audit
from inspector.inspections import evidence_store

_counter = itertools.count(1)
AT = datetime(2026, 11, 20, 13, 30, 15, 123456, tzinfo=UTC)


def _filler(column):
    n = next(_counter)
    kind = column.type
    if isinstance(kind, Boolean):
        return False
    if isinstance(kind, Integer):
        return n
    if isinstance(kind, Numeric | Float):
        return Decimal(n) if isinstance(kind, Numeric) and kind.asdecimal else float(n)
    if isinstance(kind, DateTime):
        return AT + timedelta(seconds=n)
    if isinstance(kind, Date):
        return date(2026, 11, 1) + timedelta(days=n % 28)
    if isinstance(kind, LargeBinary):
        return b"x"
    if isinstance(kind, JSON):
        return {}
    if isinstance(kind, String | Text):
        text = f"v{n}"
        return text[:kind.length] if getattr(kind, "length", None) else text
    raise TypeError(f"no filler for {column.table.name}.{column.name} ({kind!r})")


def add(conn, table_name: str, **values) -> int:
    """Insert one row into `table_name` as the database's schema has it; return its id."""
    table = Table(table_name, MetaData(), autoload_with=conn)
    row = {}
    for column in table.columns:
        if column.name in values or column.nullable or column.server_default is not None:
            continue
        if column.primary_key and isinstance(column.type, Integer):
            continue
        fk = next(iter(column.foreign_keys), None)
        row[column.name] = (add(conn, fk.column.table.name) if fk is not None
                            else _filler(column))
    row.update(values)
    return conn.execute(table.insert().values(row)).inserted_primary_key[0]


def chain(conn, entries: list[dict]) -> None:
    """Append audit entries chained after the last one, hashed as 1.0.0 hashed them."""
    table = Table("audit_entries", MetaData(), autoload_with=conn)
    last = conn.execute(select(table.c.seq, table.c.hash).order_by(table.c.seq.desc())
                        .limit(1)).first()
    seq, prev = (last.seq, last.hash) if last else (0, audit.GENESIS)
    for e in entries:
        seq += 1
        row = {"seq": seq, "at": AT + timedelta(minutes=seq), "actor": "agente",
               "actor_id": None, "action": "x", "entity": "x", "entity_id": "1",
               "municipality_id": None, "before": None, "after": None} | e
        row["hash"] = audit.entry_hash(seq, row["at"], row["actor"], row["actor_id"],
                                       row["municipality_id"], row["action"], row["entity"],
                                       row["entity_id"], row["before"], row["after"], prev)
        row["prev_hash"], prev = prev, row["hash"]
        conn.execute(table.insert().values(row))


CITATION = {"law": "Lei 535/2013", "law_slug": "nova-santa-helena-535-2013",
            "article": "Art. 27, I", "anchor": "art27-i",
            "quote": "advertência por escrito, com prazo de \u201c72 horas\u201d"}
BREACH = {"law": "Lei 535/2013", "article": "Art. 15", "anchor": "art15",
          "also": [{"law": "Lei 535/2013", "article": "Art. 16"}]}
DEADLINE = {"law": "Lei 535/2013", "article": "Art. 29, parágrafo único"}
ON_MISSED = {"kind": "daily_fine", "label": "multa diária de 60% do salário mínimo",
             "citation": {"law": "Lei 535/2013", "article": "Art. 30"}}
EVENT = {"accrued_days": 3, "accrued_brl": "1518.00", "deadline_at": "2026-11-21T02:59:59.999999+00:00"}
TO_FIX = [{"item_id": "pneus", "label": "Pneus em bom estado", "law": "Lei 535/2013",
           "article": "Art. 12, III", "note": "dianteiro careca"}]
BODY = {"vehicle_id": 1, "items": [{"item_id": "pneus", "result": "fail", "note": "ç, ã, \u00e9",
                                    "photos": []}],
        "driver": {"cpf": "52998224725", "name": "José da Silva"}, "lat": -12.5, "lon": -55.25,
        "scanned_host": None}
PHOTO = b"\xff\xd8\xff\xe0 a photo of 1.0.0 \xff\xd9"


def release_1_0_0(conn, evidence: Path) -> dict:
    """One town's rows as 1.0.0 wrote them (JSON as canonical text); return their ids and the
    values the migrated columns must give back."""
    town = add(conn, "municipalities", slug="nova-santa-helena", name="Nova Santa Helena")
    text = audit.canonical(BODY)
    insp = add(conn, "inspections", municipality_id=town, body=text,
               body_sha256=hashlib.sha256(text.encode()).hexdigest(),
               registry_changes=audit.canonical([{"seq": 4, "at": "2026-11-19T10:00:00+00:00",
                                                  "action": "licence_updated",
                                                  "entity": "licence", "entity_id": "7"}]),
               kind="periodic")
    item = add(conn, "inspection_items", inspection_id=insp, citation=audit.canonical(DEADLINE))
    act = add(conn, "sanctions", municipality_id=town, inspection_id=insp,
              citation=audit.canonical(CITATION), breach_citation=audit.canonical(BREACH),
              deadline_citation=audit.canonical(DEADLINE), on_missed=audit.canonical(ON_MISSED),
              appeal_citation=None)
    notice = add(conn, "notices", municipality_id=town, sanction_id=act)
    copy = add(conn, "notice_company_copies", municipality_id=town, notice_id=notice,
               citation=audit.canonical(CITATION))
    event = add(conn, "enforcement_events", municipality_id=town, sanction_id=act,
                data=audit.canonical(EVENT))
    vistoria = add(conn, "vistorias", municipality_id=town, inspection_id=insp,
                   to_fix=audit.canonical(TO_FIX))
    digest = hashlib.sha256(PHOTO).hexdigest()
    evidence_store.put(digest, PHOTO, base=evidence)
    add(conn, "inspection_photos", inspection_id=insp, item_id=item, sha256=digest,
        size=len(PHOTO), received_at=AT, pack=None)
    chain(conn, [
        {"municipality_id": town, "action": "sanction_proposed", "entity": "sanction",
         "entity_id": str(act), "after": audit.canonical({"status": "proposed",
                                                           "citation": audit.canonical(CITATION)})},
        {"municipality_id": town, "action": "vehicle_updated", "entity": "vehicle",
         "entity_id": "1", "before": audit.canonical({"colour": "Preta", "km": 1.5e-7}),
         "after": audit.canonical({"colour": "Prata \u00e9", "km": 10 ** 20})},
        {"municipality_id": town, "action": "inspection_received", "entity": "inspection",
         "entity_id": "u-1", "after": audit.canonical({"body_sha256": "0" * 64})}])
    return {"town": town, "inspection": insp, "item": item, "act": act, "copy": copy,
            "event": event, "vistoria": vistoria, "body": text}
