"""Name search ignores accents and case the same on SQLite and PostgreSQL (DATABASE_URL):
the folded name columns, kept in step by the model, filled for old rows by migration 0012."""
from __future__ import annotations

import flask_migrate
import pytest
from sqlalchemy import insert, select, text

from inspector import create_app
from inspector.extensions import db
from inspector.models import Driver, Holder, fold_name
from inspector.registry import records
from tests import factories


@pytest.fixture
def town(app):
    """An app context and Tapurah's id."""
    with app.app_context():
        t = factories.town("tapurah")
        factories.town("sapezal")
        db.session.commit()
        yield t.id
        db.session.rollback()


@pytest.mark.parametrize("raw, folded", [
    ("João da Silva", "joao da silva"), ("CONCEIÇÃO", "conceicao"),
    ("  Zé   Antônio ", "ze antonio"), ("Straße", "strasse"), ("", ""), (None, ""),
    ("Ｊｏãｏ", "joao"),  # full-width letters (NFKD)
])
def test_fold_name(raw, folded):
    assert fold_name(raw) == folded


def _names(rows) -> list[str]:
    return [r.name for r in rows]


def test_driver_search_ignores_accents_and_case(town):
    for name in ("João Batista", "Maria da Conceição", "Joana Prado", "Joao Sem Acento"):
        factories.driver("tapurah", name=name)
    factories.driver("sapezal", "autonomo", name="João de Outra Cidade", cnh_category="B")
    db.session.flush()
    # alphabetical with accents and case ignored, the same on every engine
    assert _names(records.search_drivers(town, "Joao")) == ["João Batista", "Joao Sem Acento"]
    assert _names(records.search_drivers(town, "JOÃO")) == ["João Batista", "Joao Sem Acento"]
    assert _names(records.search_drivers(town, "jo"))[:3] == ["Joana Prado", "João Batista",
                                                                "Joao Sem Acento"]
    assert _names(records.search_drivers(town, "conceicao")) == ["Maria da Conceição"]
    assert _names(records.search_drivers(town, "CONCEIÇÃO")) == ["Maria da Conceição"]
    assert _names(records.search_drivers(town, "da conc")) == ["Maria da Conceição"]
    assert _names(records.search_drivers(town, "Prado")) == ["Joana Prado"]
    assert records.search_drivers(town, "ção%") == []  # wildcards taken literally


def test_holder_search_and_searches_by_holder_name_fold_too(town):
    h = factories.holder("tapurah", company=True, name="Moto Táxi São José Ltda")
    v = factories.vehicle("tapurah", "mototaxi", holder=h)
    factories.permit(h, "mototaxi", number="AUT-9")
    factories.holder("tapurah", name="Pedro Álvares")
    db.session.flush()
    assert _names(records.search_holders(town, "sao jose")) == ["Moto Táxi São José Ltda"]
    assert _names(records.search_holders(town, "alvares")) == ["Pedro Álvares"]
    assert [x.plate for x in records.search_vehicles(town, "taxi sao")] == [v.plate]
    assert [p.number for p in records.search_permits(town, "são josé")] == ["AUT-9"]


def test_renaming_through_the_service_refolds_and_the_old_name_is_gone(town):
    d = factories.driver("tapurah", name="Antonio Pereira")
    db.session.flush()
    records.save_driver(town, {"name": "Antônia Conceição"}, actor="teste", driver=d)
    db.session.commit()
    db.session.expire_all()
    assert db.session.get(Driver, d.id).name_folded == "antonia conceicao"
    assert _names(records.search_drivers(town, "antonia conc")) == ["Antônia Conceição"]
    assert records.search_drivers(town, "pereira") == []


def test_core_bulk_insert_folds_names_too(town):
    db.session.execute(insert(Holder), [
        {"municipality_id": town, "kind": "person", "name": "Ângela Guimarães",
         "tax_id": "11144477735"}])
    db.session.flush()
    assert db.session.scalar(select(Holder.name_folded).filter_by(tax_id="11144477735")) \
        == "angela guimaraes"
    assert _names(records.search_holders(town, "angela")) == ["Ângela Guimarães"]


def test_migration_0012_fills_the_folded_names_of_existing_rows(tmp_path):
    app = create_app({"TESTING": True, "SECRET_KEY": "t",
                      "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'm.sqlite3'}"})
    with app.app_context():
        flask_migrate.upgrade(revision="0011")
        with db.engine.begin() as conn:
            conn.execute(text(
                "INSERT INTO municipalities (id, slug, name, ibge_code, population_seat, "
                "population_interior, population_source, fiscal_unit_name) "
                "VALUES (1, 'tapurah', 'Tapurah', '5108006', 1, 1, '', 'UFIM')"))
            conn.execute(text(
                "INSERT INTO holders (id, municipality_id, kind, name, tax_id, address, phone, "
                "email) VALUES (1, 1, 'person', 'José da Conceição', '11144477735', '', '', '')"))
            conn.execute(text(
                "INSERT INTO drivers (id, municipality_id, holder_id, category, name, cpf, "
                "cnh_number, cnh_category, cnh_expiry, registration_number, "
                "registration_expiry, status) VALUES (1, 1, 1, 'mototaxista', 'JOÃO  Ávila', "
                "'11144477735', '01234567890', 'A', '2030-01-01', 'R-1', '2030-01-01', "
                "'active')"))
        flask_migrate.upgrade(revision="0012")
        with db.engine.connect() as conn:
            assert conn.execute(text("SELECT name_folded FROM holders")).scalar() \
                == "jose da conceicao"
            assert conn.execute(text("SELECT name_folded, rg_number, rg_issuer FROM drivers")
                                ).one() == ("joao avila", "", "")
        flask_migrate.downgrade(revision="0011")
        db.engine.dispose()
