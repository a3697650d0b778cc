"""/transparencia/registro: each town's audit chain head, public, and the check of a kept copy.

A log whose newest entries are deleted still verifies as a chain; only a copy of the head kept
elsewhere exposes it. These tests keep the page's pair, cut or rewrite the log, and ask again.
"""
from __future__ import annotations

import re

import pytest
from sqlalchemy import delete, update

from inspector import audit
from inspector.extensions import db
from inspector.models import AuditEntry
from tests import factories


def _entries(app, n: int, start: int = 0) -> None:
    """n registry changes recorded the way the app records them."""
    with app.app_context():
        town = factories.town("tapurah")
        for i in range(start, start + n):
            audit.record("vehicle_updated", "vehicle", i, before={"colour": "Azul"},
                         after={"colour": f"Cor {i}"}, actor="teste", municipality_id=town.id)
        db.session.commit()


def _kept(client) -> tuple[int, str]:
    """The pair a visitor copies from the page: Tapurah's chain's head."""
    html = client.get("/transparencia/registro").get_data(as_text=True)
    row = re.search(r'<tr data-chain="tapurah">(.*?)</tr>', html, re.S).group(1)
    seq = re.search(r'<td class="plate">(\d+)</td>', row).group(1)
    digest = re.search(r'<code class="hash">([0-9a-f]{64})</code>', row).group(1)
    return int(seq), digest


def _check(client, seq, digest) -> tuple[int, str]:
    got = client.get("/transparencia/registro", query_string={"numero": seq, "codigo": digest})
    return got.status_code, got.get_data(as_text=True)


@pytest.fixture
def logged(app):
    _entries(app, 5)
    return app


def test_anyone_sees_the_head_and_it_moves_with_every_change(logged, client):
    got = client.get("/transparencia/registro")  # no login
    assert got.status_code == 200
    assert got.headers["Cache-Control"] == "no-store"
    seq, digest = _kept(client)
    with logged.app_context():
        last = db.session.scalar(db.select(AuditEntry).order_by(AuditEntry.seq.desc()))
        assert (seq, digest) == (last.seq, last.hash)
    as_json = client.get("/transparencia/registro.json").get_json()
    assert (as_json["seq"], as_json["sha256"]) == (seq, digest)
    assert [(c["town"], c["seq"], c["sha256"]) for c in as_json["chains"]] == [
        ("tapurah", seq, digest)]
    _entries(logged, 1, start=10)
    assert _kept(client)[0] == seq + 1


def test_a_kept_copy_confirms_then_witnesses_a_cut_tail_the_chain_alone_misses(logged, client):
    seq, digest = _kept(client)
    _entries(logged, 3, start=20)  # the log goes on after the copy was kept
    status, html = _check(client, seq, digest)
    assert status == 200 and f"Confere: a entrada nº {seq} continua no registro" in html
    with logged.app_context():  # someone deletes the newest entries, the kept one included
        db.session.execute(delete(AuditEntry).where(AuditEntry.seq >= seq))
        db.session.commit()
        assert audit.verify()[1] is None  # the chain alone still holds...
    status, html = _check(client, seq, digest)  # ...the kept copy does not
    assert status == 200 and f"NÃO confere: o registro não tem a entrada nº {seq}" in html
    answer = client.get("/transparencia/registro.json",
                        query_string={"numero": seq, "codigo": digest}).get_json()
    assert answer["check"]["holds"] is False and answer["check"]["state"] == "missing"


def test_a_rewritten_entry_does_not_confirm(logged, client):
    seq, digest = _kept(client)
    with logged.app_context():
        db.session.execute(update(AuditEntry).where(AuditEntry.seq == seq)
                           .values(hash="f" * 64))
        db.session.commit()
    status, html = _check(client, seq, digest)
    assert f"NÃO confere: a entrada nº {seq} tem hoje outro código (ffffffffffffffff…)" in html
    # the copy is read as people copy it: upper case and spaces do not matter
    with logged.app_context():
        db.session.execute(update(AuditEntry).where(AuditEntry.seq == seq).values(hash=digest))
        db.session.commit()
    spaced = " ".join(digest[i:i + 8] for i in range(0, 64, 8)).upper()
    assert "Confere:" in _check(client, f"nº {seq}", spaced)[1]


@pytest.mark.parametrize("seq, digest, message", [
    ("abc", "a" * 64, "Informe o número da entrada"),
    ("0", "a" * 64, "Informe o número da entrada"),
    ("12", "abc", "O código SHA-256 tem 64 caracteres"),
    ("12", "g" * 64, "O código SHA-256 tem 64 caracteres"),
])
def test_a_pair_that_cannot_be_read_is_a_400_that_says_what_to_fix(logged, client, seq, digest,
                                                                   message):
    status, html = _check(client, seq, digest)
    assert status == 400 and message in html
    got = client.get("/transparencia/registro.json", query_string={"numero": seq,
                                                                    "codigo": digest})
    assert got.status_code == 400 and message in got.get_json()["error"]


def test_an_empty_log_says_so(app, client):
    assert "O registro ainda não tem entradas" in client.get(
        "/transparencia/registro").get_data(as_text=True)
    assert client.get("/transparencia/registro.json").get_json()["seq"] == 0


def test_the_page_is_rate_limited_per_client(logged, client):
    logged.config["TRANSPARENCY_RATE_LIMIT"] = "3 per minute"
    codes = [client.get("/transparencia/registro").status_code for _ in range(4)]
    assert codes == [200, 200, 200, 429]
    assert client.get("/transparencia/registro.json").status_code == 429
    other = client.get("/transparencia/registro", environ_base={"REMOTE_ADDR": "10.0.0.9"})
    assert other.status_code == 200


def test_the_cli_prints_the_same_pair_to_publish_and_verify_takes_it(logged, client, runner):
    printed = runner.invoke(args=["audit", "head", "--town", "tapurah"])
    assert printed.exit_code == 0
    seq, digest = _kept(client)
    assert printed.output.strip() == f"{seq}:{digest}"
    assert runner.invoke(args=["audit", "head"]).output.strip() == f"tapurah {seq}:{digest}"
    ok = runner.invoke(args=["audit", "verify", "--expect", printed.output.strip()])
    assert ok.exit_code == 0 and "entries printed on documents are there" in ok.output
