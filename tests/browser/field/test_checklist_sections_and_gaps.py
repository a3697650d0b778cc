"""The checklist on a 360×780 phone, offline. Items sit under sections taken
from the pack's `checks` (Veículo … Conduta); "x de N itens respondidos" changes as the agent
answers. The card already knows the insurance lapsed (Tapurah Lei 406/2001, as the pack's
requirement cites it): the "Seguro em vigor" item opens pre-marked "Não conforme" with that
reason, and what no item asks (the company's revoked permit) is listed above the list. The
agent may answer "Conforme" only with a note saying why; saving with gaps shows ONE summary
("Faltam 3 itens: …") and puts the focus in the first gap. The inspection that reaches the
server records that the agent disagreed with the registry, with the note."""
from __future__ import annotations

import re
from datetime import date, timedelta

import pytest
from playwright.sync_api import expect

from tests.browser.field_helpers import axe_violations, open_card, start_online, sync_until_empty

pytestmark = pytest.mark.browser

PHONE = {"width": 360, "height": 780}
WHY = "Apólice renovada ontem, mostrada no celular do condutor"


def _irregular(app, world) -> str:
    """Lapse the insurance and revoke the company's permit; the lapse day as printed."""
    from inspector.extensions import db
    from inspector.models import InsurancePolicy, Permit, Status, Vehicle

    ended = date.today() - timedelta(days=15)
    with app.app_context():
        v = db.session.get(Vehicle, world["vehicle_id"])
        for policy in db.session.scalars(db.select(InsurancePolicy).filter_by(vehicle_id=v.id)):
            policy.valid_from, policy.valid_until = ended - timedelta(days=365), ended
        for permit in db.session.scalars(db.select(Permit).filter_by(holder_id=v.holder_id)):
            permit.status = Status.REVOKED
        db.session.commit()
        db.session.remove()
    return ended.strftime("%d/%m/%Y")


def _stored(app) -> tuple[dict, dict]:
    from inspector.extensions import db
    from inspector.inspections.input import registry_answers
    from inspector.models import Inspection

    with app.app_context():
        insp = db.session.scalars(db.select(Inspection)).one()
        out = registry_answers(insp), {i.item_id: (i.result.value, i.note) for i in insp.items}
        db.session.remove()
        return out


def in_view(locator) -> bool:
    box = locator.bounding_box()
    return box is not None and 0 <= box["y"] and box["y"] + box["height"] <= PHONE["height"]


def test_sections_progress_premarked_item_and_one_summary_of_gaps(browser, live_server, app, world):
    ended = _irregular(app, world)
    context, guard, page = start_online(browser, live_server, world["agent"])
    page.set_viewport_size(PHONE)
    context.set_offline(True)
    open_card(page, world["plate"])
    page.get_by_role("button", name="Iniciar vistoria").click()
    items = page.locator("#checklist li.item")
    expect(items.first).to_be_visible()
    n = items.count()
    assert n >= 15

    titles = page.locator("#checklist .section-title")
    expect(titles).to_have_text([re.compile(rf"^{name} \((0|1) de \d+\)$") for name in (
        "Veículo", "Equipamentos", "Documentos", "Condutor", "Passageiro", "Conduta")])
    sizes = [int(re.search(r"de (\d+)", t).group(1)) for t in titles.all_inner_texts()]
    assert sum(sizes) == n   # every item in one section
    expect(titles.nth(2)).to_contain_text("Documentos (1 de")   # the pre-marked insurance
    progress = page.locator("#inspection-progress")
    expect(progress).to_have_text(f"1 de {n} itens respondidos")   # the pre-marked one

    # what the registry knows: the insurance item pre-marked with its reason and article
    insurance = page.locator("#checklist li.item[data-item-id='insurance']")
    expect(insurance.locator("input[value=fail]")).to_be_checked()
    expect(insurance.locator(".item-registry")).to_be_visible()
    expect(insurance.locator(".item-registry")).to_contain_text(
        f"O cadastro já aponta: Seguro obrigatório vencido em {ended} (Lei 406/2001, Art.")
    # ... and what no item asks, above the list
    expect(page.locator("#inspection-known")).to_contain_text("Permissão")
    expect(page.locator("#inspection-known")).to_contain_text(
        "cassada: nenhum moto-táxi da empresa pode circular (Lei 406/2001, Art.")

    items.nth(0).locator("label.choice.ok").click()
    expect(progress).to_have_text(f"2 de {n} itens respondidos")
    expect(titles.first).to_contain_text("Veículo (1 de")

    # overruling the registry asks why
    insurance.locator("label.choice.ok").click()
    note = insurance.locator(".note-box")
    expect(note).to_be_visible()
    expect(note).to_contain_text("Por que discorda do cadastro? (obrigatório)")
    expect(progress).to_have_text(f"2 de {n} itens respondidos")

    # everything else answered but items 3 and N: three gaps, one summary
    for i in range(1, n):
        item = items.nth(i)
        if i in (2, n - 1) or item.get_attribute("data-item-id") == "insurance":
            continue
        item.locator("label.choice.ok").click()
    expect(progress).to_have_text(f"{n - 2} de {n} itens respondidos")
    page.get_by_role("button", name="Salvar vistoria").click()
    summary = page.locator("#inspection-gaps")
    insurance_no = int(insurance.get_attribute("id").removeprefix("item-"))
    expect(summary).to_have_text(f"Faltam 3 itens: resposta em 3, {n}; "
                                 f"motivo de discordar do cadastro em {insurance_no}.")
    expect(summary.locator("a")).to_have_count(3)
    expect(page.locator(".form-error:visible")).to_have_count(1)
    first_gap = items.nth(2).get_attribute("data-item-id")
    page.wait_for_function(
        "(id) => document.activeElement && document.activeElement.closest('li.item')"
        " && document.activeElement.closest('li.item').dataset.itemId === id", arg=first_gap)
    box = items.nth(2).bounding_box()
    assert 0 <= box["y"] and box["y"] + min(box["height"], 200) <= PHONE["height"], box
    expect(page.locator("#checklist li.item.is-missing")).to_have_count(3)
    assert in_view(summary)   # the summary stays on top while the first gap is shown
    assert axe_violations(page, "checklist with gaps") == []

    # a link of the summary jumps to its gap
    summary.get_by_role("link", name=str(insurance_no), exact=True).click()
    page.wait_for_function("() => document.activeElement.closest('li.item')"
                           "?.dataset.itemId === 'insurance'")
    insurance.locator(".note-box textarea").fill(WHY)
    expect(summary).to_have_text(f"Faltam 2 itens: resposta em 3, {n}.")   # it follows
    items.nth(2).locator("label.choice.ok").click()
    items.nth(n - 1).locator("label.choice.ok").click()
    expect(summary).to_be_hidden()
    expect(progress).to_have_text(f"{n} de {n} itens respondidos")
    page.get_by_role("button", name="Salvar vistoria").click()
    expect(page.locator("#screen-home")).to_be_visible()

    context.set_offline(False)
    sync_until_empty(page)
    registry, answers = _stored(app)
    assert list(registry) == ["insurance"]
    assert registry["insurance"]["overruled"] is True
    assert registry["insurance"]["reason"].startswith(
        f"Seguro obrigatório vencido em {ended} (Lei 406/2001, Art.")
    assert answers["insurance"] == ("ok", WHY)
    context.close()
