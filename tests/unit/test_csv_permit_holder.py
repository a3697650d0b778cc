"""A permit (Termo de Permissão, a company's authorization) is its holder's: a spreadsheet
row that names a registered permit under another holder's CPF/CNPJ (a typo, a copied row)
must not hand it over silently, with every licence issued under it."""
from __future__ import annotations

from inspector.extensions import db
from inspector.identifiers import make_cnpj
from inspector.imports.csv_import import import_registry
from inspector.models import Permit
from tests.support.registry_csv import (
    counts,
    row,
    tapurah_with_two_rows,  # noqa: F401  (the `town` fixture)
    to_csv,
)


def test_a_registered_permit_under_another_holder_is_refused_naming_its_holder(town):
    before = counts()
    other = {**row(10), "permissao_numero": row(0)["permissao_numero"]}  # company 1's row
    report = import_registry(town, to_csv([other]), actor="teste")
    assert [(e.line, e.column) for e in report.errors] == [(2, "permissao_numero")]
    assert report.errors[0].reason.startswith(
        f"a permissão {row(0)['permissao_numero']} é de {row(0)['titular_nome']}: a planilha "
        "não passa uma permissão a outro titular")
    assert counts() == before
    permit = db.session.scalar(db.select(Permit).filter_by(number=row(0)["permissao_numero"]))
    assert permit.holder.tax_id == make_cnpj("000010000001")


def test_a_company_s_new_permit_repeated_on_its_rows_still_imports(town):
    """Rows 10 to 12: a new company and its new permit, repeated on each of its vehicles."""
    report = import_registry(town, to_csv([row(10), row(11), row(12)]), actor="teste",
                             dry_run=True)
    assert report.ok, report.errors
    assert report.created["permit"] == 1


def test_an_existing_company_s_permit_on_more_of_its_rows_still_imports(town):
    report = import_registry(town, to_csv([row(0), row(1), row(2)]), actor="teste",
                             dry_run=True)
    assert report.ok, report.errors
    assert report.created["vehicle"] == 1 and report.created["permit"] == 0
