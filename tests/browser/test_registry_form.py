"""An admin registers a vehicle through the htmx form in a real browser (Debian Chromium),
sees the server's inline error for a bad plate, fixes it, and finds the vehicle by searching."""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests import factories
from tests.browser.field_helpers import sign_in

pytestmark = pytest.mark.browser


def test_admin_creates_a_vehicle_fixes_a_bad_plate_and_finds_it(page, make):
    admin = make(factories.user, "admin", "tapurah")
    holder = make(factories.holder, "tapurah", name="Moto Rápida Ltda")
    make(factories.vehicle, "tapurah", plate="QZZ9Z99")
    sign_in(page, admin.username, "/inicio")

    page.get_by_role("link", name="Cadastro").first.click()
    expect(page).to_have_url(re.compile(r"/cadastro/veiculos$"))
    page.get_by_role("link", name="+ Novo veículo").click()
    expect(page).to_have_url(re.compile(r"/cadastro/veiculos/novo$"))
    page.wait_for_load_state("load")  # htmx has bound the form (else "Salvar" posts it plainly)

    page.select_option("#f-service", "mototaxi")
    page.fill("#f-plate", "AB-12")
    page.fill("#f-make_model", "Honda CG 160 Fan")
    page.fill("#f-year_of_manufacture", "2024")
    page.fill("#f-engine_cc", "160")
    page.fill("#f-colour", "Vermelha")
    page.fill("#f-holder_tax_id", holder.tax_id)
    with page.expect_response(lambda r: r.request.method == "POST") as answer:
        page.get_by_role("button", name="Salvar").click()
    assert answer.value.status == 422
    assert answer.value.request.headers.get("hx-request") == "true"  # swapped by htmx

    expect(page.locator("#f-plate-error")).to_contain_text("Placa inválida")
    expect(page.locator("#f-plate")).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#f-plate")).to_be_focused()
    expect(page.locator("#f-make_model")).to_have_value("Honda CG 160 Fan")  # nothing retyped
    expect(page).to_have_url(re.compile(r"/cadastro/veiculos/novo$"))

    page.fill("#f-plate", "qbc1d23")
    page.get_by_role("button", name="Salvar").click()
    expect(page).to_have_url(re.compile(r"/cadastro/veiculos/\d+$"))
    expect(page.locator(".flash")).to_contain_text("QBC1D23")
    expect(page.get_by_role("heading", level=1)).to_have_text("QBC1D23")

    page.get_by_role("navigation", name="Cadastro").get_by_role("link", name="Veículos").click()
    expect(page.locator("#results")).to_contain_text("QZZ9Z99")
    with page.expect_response(lambda r: "q=QBC1" in r.url) as search:
        page.locator("#q").press_sequentially("QBC1", delay=30)
    assert search.value.request.headers.get("hx-request") == "true"
    expect(page.locator("#results")).to_contain_text("QBC1D23")
    expect(page.locator("#results")).not_to_contain_text("QZZ9Z99")
    expect(page.locator("#results")).to_contain_text("Moto Rápida Ltda")
    page.locator("#results").get_by_role("link", name="QBC1D23").click()
    expect(page).to_have_url(re.compile(r"/cadastro/veiculos/\d+$"))


