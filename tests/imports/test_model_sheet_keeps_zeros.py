"""The model sheet offered to admins survives being opened in Excel: Excel reads a cell of
bare digits as a number and drops its leading zeros. A document (CPF, CNH, CNPJ) that loses
them is explained by the import; any other example must not start with a zero to lose (a
prefix 0101 would come back as 101, a different, valid prefix, with nothing to say so)."""
from __future__ import annotations

from datetime import date

from inspector.imports.csv_format import template_csv, zeros_hint


def test_no_example_loses_a_zero_without_the_import_saying_so():
    header, example = [line.split(";") for line in template_csv(date(2026, 12, 7)).strip().split("\r\n")]
    for column, value in zip(header, example):
        if value.isdigit() and value.startswith("0"):
            as_excel_saves_it = value.lstrip("0")
            assert zeros_hint(column, as_excel_saves_it), (column, value)


def test_the_upload_page_tells_to_format_number_columns_as_text(app, client, make):
    from tests import factories

    admin = make(factories.user, "admin", "tapurah")
    client.login(admin.username)
    page = client.get("/cadastro/importar").get_data(as_text=True)
    assert "formate a coluna como Texto antes de digitar" in page
    assert "(0101 vira 101)" in page
