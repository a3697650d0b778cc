"""Once a day one digest of every chain's head is stored and published beside
/transparencia/registro: a copy kept elsewhere shows a rewrite of one town's chain, or of the
whole deployment, that each chain verified alone would not."""
from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from inspector import audit
from inspector.extensions import db
from inspector.models import AuditDigest, AuditEntry
from tests import factories

DAY1 = datetime(2026, 12, 3, 15, 0, tzinfo=UTC)   # 11:00 in Cuiabá
DAY2 = DAY1 + timedelta(days=1)


def _write(town_id, what):
    audit.record("vehicle_updated", "vehicle", 7, actor="Maria da Silva",
                 municipality_id=town_id, before={"owner": "Maria da Silva"},
                 after={"colour": what})
    db.session.commit()


def _take(now=None):
    """Take the day's digest as the tick does (then commits)."""
    row, taken = audit.take_digest(now)
    db.session.commit()
    return row, taken


@pytest.fixture
def towns(app):
    with app.app_context():
        tapurah, sapezal = factories.town("tapurah"), factories.town("sapezal")
        db.session.commit()
        _write(tapurah.id, "Azul")
        _write(sapezal.id, "Verde")
        return tapurah.id, sapezal.id


def test_one_digest_a_day_lists_every_towns_head_and_moves_with_any_of_them(app, towns):
    tapurah, sapezal = towns
    with app.app_context():
        first, taken = _take(DAY1)
        again, taken_again = _take(DAY1 + timedelta(hours=5))
        assert taken and not taken_again and again.digest == first.digest
        heads = {h["town"]: (h["seq"], h["sha256"]) for h in json.loads(first.heads)}
        assert heads["tapurah"] == audit.head(tapurah) and heads["sapezal"] == audit.head(sapezal)
        day1 = first.digest
        _write(sapezal, "Roxa")                       # only Sapezal moves
        second, _ = _take(DAY2)
        moved = {h["town"]: h["seq"] for h in json.loads(second.heads)}
        assert second.digest != day1 and second.prev_digest == day1
        assert moved["tapurah"] == heads["tapurah"][0] and moved["sapezal"] > heads["sapezal"][0]
        assert db.session.scalar(select(AuditEntry).where(
            AuditEntry.action == "audit_digest_taken").order_by(AuditEntry.seq)) is not None
    assert app.test_cli_runner().invoke(args=["audit", "verify"]).exit_code == 0


def test_the_digest_changes_when_any_towns_head_changes(app, towns):
    with app.app_context():
        heads = audit.heads_now()
        day = DAY1.date()
        base = audit.digest_of(day, heads, None)
        for i, head in enumerate(heads):
            other = [dict(h) for h in heads]
            other[i]["sha256"] = "0" * 64
            assert audit.digest_of(day, other, None) != base, head["town"]


def test_the_page_publishes_each_days_digest_and_heads_without_personal_data(app, towns, client):
    with app.app_context():
        row, _ = _take()
        digest, day = row.digest, row.day.isoformat()
    page = client.get("/transparencia/registro/resumos")
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and page.headers["Cache-Control"] == "no-store"
    assert digest in html and "Tapurah" in html and "Sapezal" in html
    assert "Maria" not in html
    body = client.get("/transparencia/registro/resumos.json").get_json()
    [published] = body["digests"]
    assert (published["day"], published["digest"]) == (day, digest)
    assert {tuple(sorted(h)) for h in published["heads"]} == {("position", "seq", "sha256", "town")}
    assert "Maria" not in json.dumps(body)
    assert client.get("/transparencia/registro/resumos.json",
                      query_string={"dia": day}).get_json()["digests"] == [published]
    bad = client.get("/transparencia/registro/resumos", query_string={"dia": "ontem"})
    assert bad.status_code == 400 and "AAAA-MM-DD" in bad.get_data(as_text=True)
    assert "resumos" in client.get("/transparencia/registro").get_data(as_text=True)


def _rewrite_chain(town_id):
    """Someone edits a town's entry and recomputes that whole chain: alone it verifies."""
    rows = db.session.scalars(select(AuditEntry).where(AuditEntry.municipality_id == town_id)
                              .order_by(AuditEntry.seq)).all()
    prev = audit.genesis(town_id)
    for r in rows:
        r.after = audit.canonical({"colour": "Reescrita"})
        r.prev_hash = prev
        r.hash = prev = audit.entry_hash(r.seq, r.at, r.actor, r.actor_id, r.municipality_id,
                                         r.action, r.entity, r.entity_id, r.before, r.after,
                                         prev, chain_seq=r.chain_seq)
        db.session.flush()
    db.session.commit()


def test_a_rewritten_town_chain_no_longer_matches_the_digest_and_verify_says_so(app, towns):
    tapurah, _ = towns
    with app.app_context():
        row, _ = _take(DAY1)
        kept = f"{row.day.isoformat()}:{row.digest}"
        _rewrite_chain(tapurah)
        assert [c.chain for c in audit.chains() if c.broken] == []  # each chain alone holds
    result = app.test_cli_runner().invoke(args=["audit", "verify", "--digest", kept])
    assert result.exit_code == 1
    assert "DIGEST: digest of 2026-12-03: the tapurah chain's head then" in result.output
    assert "the chain was rewritten" in result.output


def test_a_whole_deployment_rewritten_with_its_digests_still_differs_from_a_kept_copy(app,
                                                                                     towns):
    """The digests rewritten too, so that the database agrees with itself: only the copy kept
    elsewhere shows it."""
    tapurah, _ = towns
    with app.app_context():
        row, _ = _take(DAY1)
        kept = f"{row.day.isoformat()}:{row.digest}"
        _rewrite_chain(tapurah)
        heads = [h for h in audit.heads_now() if h["town"] is not None]  # as on that day
        row = db.session.scalar(select(AuditDigest))
        row.heads, row.digest = audit.canonical(heads), audit.digest_of(row.day, heads, None)
        db.session.commit()
    alone = app.test_cli_runner().invoke(args=["audit", "verify"])
    assert alone.exit_code == 0, alone.output
    result = app.test_cli_runner().invoke(args=["audit", "verify", "--digest", kept])
    assert result.exit_code == 1
    assert "kept digest of 2026-12-03: the log's digest of that day is another" in result.output


def test_a_kept_digest_that_cannot_be_read_is_one_line_and_exit_2(app, towns):
    result = app.test_cli_runner().invoke(args=["audit", "verify", "--digest", "ontem:abc"])
    assert result.exit_code == 2 and result.stderr.startswith("erro: --digest")


def test_the_tick_takes_the_days_digest(app, towns):
    result = app.test_cli_runner().invoke(args=["enforcement", "tick", "--json"])
    assert result.exit_code == 0, result.output
    reported = json.loads(result.stdout)["audit_digest"]
    with app.app_context():
        row = db.session.scalar(select(AuditDigest))
        assert reported == f"{row.day.isoformat()}:{row.digest}"
    printed = app.test_cli_runner().invoke(args=["audit", "digest"])
    assert printed.exit_code == 0 and "já tomado hoje" in printed.output
