"""One record's audit entries, read through the (entity, entity_id, seq) index (migration
0016): a registry page's history and the registry changes a synced inspection missed.
The same entries as a plain filter over the whole log would give, and a plan that uses the
index. Runs on SQLite and PostgreSQL (DATABASE_URL)."""
from __future__ import annotations

import random
import re

from sqlalchemy import select, text

from inspector import audit
from inspector.credentials import issuing
from inspector.extensions import db
from inspector.inspections.records import _REGISTRY_CHANGES, registry_changes
from inspector.models import AuditEntry, Credential
from inspector.registry.history import audit_entries, audit_query
from tests import factories

INDEX = "ix_audit_entries_entity_entity_id_seq"


def _log() -> list[AuditEntry]:
    return list(db.session.scalars(select(AuditEntry).order_by(AuditEntry.seq)))


def _expected(town: int, records: set[tuple[str, str]], *, since: int = 0) -> list[int]:
    """The seqs a filter over the whole log finds, oldest first."""
    return [e.seq for e in _log() if e.municipality_id == town and e.seq > since
            and (e.entity, e.entity_id) in records]


def _related(v) -> set[tuple[str, str]]:
    """Every record whose change the phone must hear about, from the rows themselves."""
    related = {("vehicle", str(v.id)), ("holder", str(v.holder_id))}
    related |= {("driver", str(d.id)) for d in v.drivers}
    related |= {("licence", str(x.id)) for x in v.licences}
    related |= {("insurance", str(p.id)) for p in v.insurance_policies}
    related |= {("permit", str(p.id)) for p in v.holder.permits}
    creds = db.session.scalars(select(Credential).where(
        (Credential.vehicle_id == v.id)
        | Credential.driver_id.in_([d.id for d in v.drivers]))).all()
    return related | {("credential", str(c.id)) for c in creds}


def _fleet():
    """A vehicle with everything that can change about it in Tapurah, a neighbour vehicle,
    and a vehicle of another town whose ids (1, 2, ...) collide with Tapurah's."""
    v = factories.vehicle("tapurah")
    factories.licence(v)
    factories.licence(v)
    factories.insurance(v)
    factories.permit(v.holder)
    d1, d2 = factories.driver("tapurah"), factories.driver("tapurah")
    v.drivers.extend([d1, d2])
    neighbour = factories.vehicle("tapurah", holder=factories.holder("tapurah"))
    factories.licence(neighbour)
    neighbour.drivers.append(factories.driver("tapurah"))
    foreign = factories.vehicle("sapezal")
    factories.licence(foreign)
    db.session.flush()
    issuing.issue(v)
    issuing.issue(d1)
    issuing.issue(neighbour)
    db.session.flush()
    return v, neighbour, foreign


def _noise(rounds: int, towns: list[int], records: list[tuple[str, str]], seed: int) -> None:
    """Entries about these records and about look-alikes (other towns, other entities with
    the same ids), interleaved at random."""
    rng = random.Random(seed)
    lookalikes = [(e, i) for _, i in records for e in ("inspection", "stand", "vehicle")]
    for k in range(rounds):
        entity, entity_id = rng.choice(records + lookalikes)
        audit.record(f"{entity}_updated", entity, entity_id, actor="teste",
                     municipality_id=rng.choice(towns), after={"k": k})
    db.session.commit()  # entries take their number when their transaction commits


def test_history_is_the_newest_entries_of_the_records_in_the_town(app):
    with app.app_context():
        v, neighbour, foreign = _fleet()
        tapurah, sapezal = v.municipality_id, foreign.municipality_id
        mine = [("vehicle", str(v.id))] + [("licence", str(x.id)) for x in v.licences]
        others = [("vehicle", str(neighbour.id)), ("licence", str(neighbour.licences[0].id)),
                  ("vehicle", str(foreign.id)), ("driver", str(v.id))]
        _noise(160, [tapurah, tapurah, sapezal], mine + others, seed=16)
        db.session.commit()
        subjects = [("vehicle", v.id)] + [("licence", x.id) for x in v.licences]
        everything = _expected(tapurah, set(mine))[::-1]
        assert 8 < len(everything) < 100
        for limit in (100, len(everything), 5, 1):
            got = [e.seq for e in audit_entries(tapurah, subjects, limit)]
            assert got == everything[:limit], limit
        # one record; a record named twice counts once
        one = _expected(tapurah, {mine[0]})[::-1]
        assert [e.seq for e in audit_entries(tapurah, subjects[:1], 100)] == one
        assert [e.seq for e in audit_entries(tapurah, subjects[:1] * 2, 100)] == one
        # the same records seen from the other town: only that town's entries
        assert ([e.seq for e in audit_entries(sapezal, subjects, 100)]
                == _expected(sapezal, set(mine))[::-1])


def test_history_shows_on_the_vehicle_page(app, client, make):
    admin = make(factories.user, "admin", "tapurah")
    with app.app_context():
        v, _, foreign = _fleet()
        audit.record("vehicle_updated", "vehicle", v.id, actor=admin,
                     municipality_id=v.municipality_id, before={"colour": "Vermelha"},
                     after={"colour": "Azul"})
        audit.record("vehicle_updated", "vehicle", v.id, actor="outra.cidade",
                     municipality_id=foreign.municipality_id, before={"colour": "Preta"},
                     after={"colour": "Branca"})
        db.session.commit()
        vid = v.id
    client.login(admin.username)
    page = client.get(f"/cadastro/veiculos/{vid}").get_data(as_text=True)
    history = page[page.index('id="history-title"'):]
    assert "Cor" in history and "Admin de Teste" in history
    assert "outra.cidade" not in history


def test_registry_changes_are_the_entries_after_the_version_about_the_vehicle(app):
    with app.app_context():
        v, neighbour, foreign = _fleet()
        tapurah, sapezal = v.municipality_id, foreign.municipality_id
        related = _related(v)
        assert {e for e, _ in related} == {"vehicle", "holder", "driver", "licence",
                                           "insurance", "permit", "credential"}
        others = sorted(_related(neighbour) - related) + [("vehicle", str(foreign.id))]
        _noise(60, [tapurah], sorted(related), seed=1)
        since = max(e.seq for e in _log())
        _noise(320, [tapurah, tapurah, tapurah, sapezal], sorted(related) + others, seed=2)
        db.session.commit()
        after = _expected(tapurah, related, since=since)
        assert len(after) > 50  # the answer stops at 50, oldest first
        got = registry_changes(v, since)
        assert [c["seq"] for c in got] == after[:50]
        entries = {e.seq: e for e in _log()}
        assert all((c["entity"], c["entity_id"], c["action"], c["at"])
                   == (entries[c["seq"]].entity, entries[c["seq"]].entity_id,
                       entries[c["seq"]].action, entries[c["seq"]].at) for c in got)
        # a phone nearly up to date hears about the few entries after its version
        recent = after[-3] - 1
        assert ([c["seq"] for c in registry_changes(v, recent)]
                == _expected(tapurah, related, since=recent))
        assert registry_changes(v, max(entries)) == []
        assert registry_changes(v, None) == []


# ------------------------------------------------------------------ plans
def _plan(statement, params: dict) -> str:
    """The plan the engine in use picks for a statement."""
    compiled = statement.compile(dialect=db.engine.dialect)
    values = {**compiled.params, **params}
    conn = db.session.connection()
    if db.engine.dialect.name == "sqlite":
        rows = conn.exec_driver_sql(f"EXPLAIN QUERY PLAN {compiled}",
                                    tuple(values[k] for k in compiled.positiontup)).all()
        return "\n".join(r[3] for r in rows)
    # a test's tables are tiny: a sequential scan would win; the index must still be usable
    conn.execute(text("SET LOCAL enable_seqscan = off"))
    return "\n".join(r[0] for r in conn.exec_driver_sql(f"EXPLAIN {compiled}", values).all())


def _audit_scans(plan: str) -> list[str]:
    """The plan's lines that read audit_entries (SQLite: SCAN/SEARCH; PostgreSQL: a Scan
    node, Bitmap Heap Scans named by their Bitmap Index Scan children)."""
    return [line for line in plan.splitlines()
            if re.search(r"\b(SCAN|SEARCH) audit_entries\b|Index.* Scan .*\bon audit_entries\b"
                         r"|\bSeq Scan on audit_entries\b|Bitmap Index Scan on ix_audit", line)]


def test_both_lookups_read_the_entity_index(app):
    with app.app_context():
        v, _, _ = _fleet()
        _noise(600, [v.municipality_id], sorted(_related(v)), seed=3)
        # a town's log is mostly about other records: with only these, a tenth of the log is
        # this vehicle's, and reading the whole log backwards is as cheap as the index
        for k in range(4000):
            audit.record("inspection_updated", "inspection", 1000 + k % 700, actor="teste",
                         municipality_id=v.municipality_id, after={"k": k})
        db.session.commit()
        if db.engine.dialect.name == "postgresql":
            # The plan from statistics the test made, not from whatever autovacuum last saw
            # (a 50-entry log never analysed once took the (seq) index for one branch in CI),
            # nor from the dead rows earlier tests' clean-up left (DELETE, not TRUNCATE)
            with db.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
                conn.execute(text("VACUUM ANALYZE audit_entries"))
        history = _plan(*audit_query(v.municipality_id, [("vehicle", v.id), ("licence", 1),
                                                         ("insurance", 1)], 100))
        changes = _plan(_REGISTRY_CHANGES, {
            "vid": v.id, "vid_s": str(v.id), "hid": v.holder_id, "hid_s": str(v.holder_id),
            "town": v.municipality_id, "since": 10})
        one = _plan(*audit_query(v.municipality_id, [("driver", 1)], 100))
        for plan, branches in ((history, 3), (changes, 7), (one, 1)):
            scans = _audit_scans(plan)
            assert len(scans) == branches and all(INDEX in line for line in scans), plan
        db.session.rollback()

