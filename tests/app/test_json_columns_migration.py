"""Migration 0031 turns the Text columns holding JSON into JSON columns (JSONB on PostgreSQL).
A stored value that is not JSON stops the upgrade with a message naming its table, column and
row, and nothing changes: an act's citation is what it was issued under, so a person corrects
it (docs/upgrades.md, "Colunas JSON"); an empty text where the column may be empty becomes
NULL, as the program always read it."""
from __future__ import annotations

import json

import flask_migrate
import pytest
from sqlalchemy import select, text

from inspector import audit, create_app
from inspector.extensions import db
from inspector.models import InspectionItem, Sanction
from tests.support import legacy_rows
from tests.support.config import app_config


def _version() -> str:
    return db.session.execute(text("SELECT version_num FROM alembic_version")).scalar_one()


def _refused(capfd) -> str:
    """`flask db upgrade` stopped (exit 1); the line it printed on stderr."""
    capfd.readouterr()
    with pytest.raises(SystemExit) as out:
        flask_migrate.upgrade()
    assert out.value.code == 1
    return next(line for line in capfd.readouterr().err.splitlines() if "Error: " in line)


def test_a_stored_value_that_is_not_json_stops_the_upgrade_and_names_its_row(fresh_url, capfd):
    app = create_app(app_config(fresh_url))
    with app.app_context():
        flask_migrate.upgrade(revision="0030")
        with db.engine.begin() as conn:
            town = legacy_rows.add(conn, "municipalities", slug="tapurah", name="Tapurah")
            insp = legacy_rows.add(conn, "inspections", municipality_id=town, body="{}")
            good = legacy_rows.add(conn, "sanctions", municipality_id=town, inspection_id=insp,
                                   citation=audit.canonical(legacy_rows.CITATION),
                                   breach_citation="", on_missed="null")
            typed = legacy_rows.add(conn, "sanctions", municipality_id=town, inspection_id=insp,
                                    citation="Lei 406/2001, Art. 19 (digitado à mão)")
            nul = legacy_rows.add(conn, "inspection_items", inspection_id=insp,
                                  citation='{"law": "Lei 406/2001", "quote": "a\\u0000b"}')
            nan = legacy_rows.add(conn, "inspection_items", inspection_id=insp,
                                  citation='{"law": "Lei 406/2001", "page": NaN}')
        db.engine.dispose()
        message = _refused(capfd)
        assert message.split("Error: ", 1)[1].startswith(
            "3 valor(es) guardado(s) como JSON não são JSON válido; nada foi alterado")
        assert f"sanctions.citation id={typed}: não é JSON" in message
        assert f"inspection_items.citation id={nul}: contém o caractere nulo" in message
        assert f"inspection_items.citation id={nan}: não é JSON (NaN" in message
        assert f"sanctions.citation id={good}" not in message
        assert "breach_citation" not in message and "on_missed" not in message
        db.session.remove()
        db.engine.dispose()
        # nothing was changed: still 0030, the texts as they were
        assert _version() == "0030"
        assert db.session.execute(text("SELECT citation, breach_citation FROM sanctions "
                                       f"WHERE id = {typed} OR id = {good} ORDER BY id")).all() \
            == [(audit.canonical(legacy_rows.CITATION), ""),
                ("Lei 406/2001, Art. 19 (digitado à mão)", None)]
        # the operator writes what the act was issued under, and upgrades again
        with db.engine.begin() as conn:
            conn.execute(text("UPDATE sanctions SET citation = :c WHERE id = :id"),
                         {"c": '{"law": "Lei 406/2001", "article": "Art. 19"}', "id": typed})
            conn.execute(text(f"UPDATE inspection_items SET citation = NULL WHERE id IN "
                              f"({nul}, {nan})"))
        db.session.remove()
        db.engine.dispose()
        flask_migrate.upgrade(revision="0031")
        assert _version() == "0031"
        rows = dict(db.session.execute(select(Sanction.id, Sanction.citation)).all())
        assert rows == {good: legacy_rows.CITATION,
                        typed: {"law": "Lei 406/2001", "article": "Art. 19"}}
        # "" and "null" where an act may have no breach or no missed-deadline measure: NULL
        assert db.session.execute(select(Sanction.breach_citation, Sanction.on_missed).where(
            Sanction.id == good)).one() == (None, None)
        assert db.session.scalar(select(text("count(*)")).select_from(Sanction).where(
            Sanction.breach_citation.is_(None), Sanction.on_missed.is_(None))) == 2
        assert db.session.scalars(select(InspectionItem.citation)).all() == [None, None]
        db.session.remove()
        db.engine.dispose()


def test_an_empty_text_where_a_value_is_required_stops_the_upgrade(fresh_url, capfd):
    app = create_app(app_config(fresh_url))
    with app.app_context():
        flask_migrate.upgrade(revision="0030")
        with db.engine.begin() as conn:
            town = legacy_rows.add(conn, "municipalities", slug="sapezal", name="Sapezal")
            insp = legacy_rows.add(conn, "inspections", municipality_id=town, body="{}")
            vistoria = legacy_rows.add(conn, "vistorias", municipality_id=town,
                                       inspection_id=insp, to_fix="")
        db.engine.dispose()
        assert (f"vistorias.to_fix id={vistoria}: vazio, e a coluna não aceita valor nulo"
                in _refused(capfd))
        db.session.remove()
        db.engine.dispose()
        assert _version() == "0030"
        db.session.remove()
        db.engine.dispose()


def test_the_downgrade_gives_the_columns_back_as_text_holding_the_same_json(fresh_url):
    app = create_app(app_config(fresh_url))
    with app.app_context():
        flask_migrate.upgrade()
        with db.engine.begin() as conn:
            town = legacy_rows.add(conn, "municipalities", slug="sorriso", name="Sorriso")
            insp = legacy_rows.add(conn, "inspections", municipality_id=town, body="{}")
            legacy_rows.add(conn, "sanctions", municipality_id=town, inspection_id=insp,
                            citation=legacy_rows.CITATION, on_missed=legacy_rows.ON_MISSED)
        db.engine.dispose()
        flask_migrate.downgrade(revision="0030")
        stored = db.session.execute(text("SELECT citation, on_missed, breach_citation "
                                         "FROM sanctions")).one()
        db.session.remove()
        db.engine.dispose()
    assert (json.loads(stored[0]), json.loads(stored[1]), stored[2]) == (
        legacy_rows.CITATION, legacy_rows.ON_MISSED, None)
