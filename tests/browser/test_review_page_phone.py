"""The supervisor's inspection page on a 360×780 phone, in Chromium (issue 17 item 4): a whole
Tapurah checklist (19 answers, three failed with photos, one "Conforme" the registry
contradicts) does not scroll sideways, the answers that need the supervisor are open and the
conforming ones folded, no badge wraps, and the page is a third shorter than before (its
height is printed)."""
from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import select

from inspector.extensions import db
from inspector.models import InsurancePolicy
from tests.browser.field_helpers import sign_in
from tests.support.enforcement import enforcement_worker
from tests.support.field_api import Api, body, jpeg
from tests.support.review import inspection_ids

pytestmark = pytest.mark.browser
PHONE = {"width": 360, "height": 780}
AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"
TAPURAH = ("tank-sign", "general-condition", "detran-signage", "leg-guard", "foot-protector",
           "exhaust-protector", "mirrors", "helmet-band", "vest-id", "id-card", "fare-table",
           "insurance", "engine-size", "one-passenger", "helmets", "uniform", "sober",
           "taxi-stand-parking", "touting")
FAILED = ("mirrors", "helmets", "uniform")

# every badge that does not fit one line, by its text (a badge is one line: white-space nowrap;
# a sentence badge, .badge-long, wraps between words only)
WRAPPED = """() => [...document.querySelectorAll('.badge:not(.badge-long)')]
  .filter(b => b.getClientRects().length > 0)
  .filter(b => b.getBoundingClientRect().height > 1.6 * parseFloat(getComputedStyle(b).lineHeight))
  .map(b => b.textContent)"""
MID_WORD = """() => [...document.querySelectorAll('.badge')]
  .filter(b => getComputedStyle(b).overflowWrap !== 'normal' || getComputedStyle(b).wordBreak !== 'normal')
  .map(b => b.textContent)"""


@pytest.fixture
def full_inspection(app, town):
    """A whole checklist sent by the agent's phone: three failures with a photo each, the
    insurance answered "Conforme" although its policy ended five days before."""
    with app.app_context():
        for policy in db.session.scalars(select(InsurancePolicy)):
            policy.valid_until = datetime.now(UTC).date() - timedelta(days=5)
            policy.valid_from = policy.valid_until - timedelta(days=365)
        db.session.commit()
    c = app.test_client()
    assert c.login(town["agent"]).status_code == 302
    iid = str(uuid.uuid4())
    b = body(town["vehicle_id"], fail={i: [jpeg(20 + n)] for n, i in enumerate(FAILED)},
             ok=tuple(i for i in TAPURAH if i not in FAILED))
    api = Api(c)
    assert api.put_inspection(iid, b).status_code == 201
    for item in b["items"]:
        for photo in item["photos"]:
            assert api.put_photo(iid, photo["id"], jpeg(20 + FAILED.index(item["item_id"]))
                                 ).status_code == 201
    enforcement_worker(app)
    insp_id, acts, _ = inspection_ids(app, iid)
    assert len(acts) >= 3
    return insp_id


def test_the_review_page_fits_a_phone(page, town, full_inspection):
    page.context.add_init_script(path=str(AXE))   # axe-core, as in test_accessibility.py
    page.set_viewport_size(PHONE)
    sign_in(page, town["supervisor"], f"/revisao/vistorias/{full_inspection}")
    page.wait_for_load_state("load")
    # the thumbnails load lazily: load them all, so the height is the one a reader scrolls
    page.evaluate("""() => Promise.all([...document.images].map(i => { i.loading = 'eager';
      return i.complete ? null : new Promise(r => { i.onload = i.onerror = r; }); }))""")
    height = page.evaluate("document.scrollingElement.scrollHeight")
    print(f"\nreview page at 360x780: {height} px tall")
    assert page.evaluate("document.scrollingElement.scrollWidth") <= 360
    assert page.evaluate(WRAPPED) == []
    assert page.evaluate(MID_WORD) == []

    # the failures and the contradicted answer are open; the other 15 answers are folded
    folded = page.locator("details.folded-items")
    assert "15 itens conformes" in folded.locator("summary").inner_text()
    assert folded.get_attribute("open") is None
    assert page.locator("main section.item.contradiction").count() == 1
    flag = page.locator("section.item.contradiction .registry-contradiction").inner_text()
    assert flag.startswith("Contradiz o cadastro: Seguro obrigatório vencido em")
    assert "Lei 406/2001, Art. 17" in flag
    assert page.locator("main > section.item, main > * > section.item").count() >= 4
    # 14,459 px before the answers were folded, the badges kept whole and the facts put on
    # one run of text (the same inspection, measured on this machine); 9,702 px after
    assert height < 10_500, height

    # opened, the folded answers still fit the width, and no badge wraps
    folded.locator("summary").click()
    assert page.evaluate("document.scrollingElement.scrollWidth") <= 360
    assert page.evaluate(WRAPPED) == []
    print(f"with the conforming answers unfolded: "
          f"{page.evaluate('document.scrollingElement.scrollHeight')} px")
    # the flags, the folded answers and the registry's box keep axe clean
    result = page.evaluate("async () => await axe.run(document)")
    assert len(result["passes"]) > 10
    assert [(v["id"], [n["target"] for n in v["nodes"][:3]]) for v in result["violations"]] == []


def test_the_queue_fits_a_phone_with_its_state_on_one_line(page, town, full_inspection):
    page.set_viewport_size(PHONE)
    sign_in(page, town["supervisor"], "/revisao?situacao=todas")
    state = page.locator("td[data-label='Situação'] .badge").first
    assert state.inner_text().startswith("Aguardando revisão (")
    assert page.evaluate("document.scrollingElement.scrollWidth") <= 360
    assert page.evaluate(WRAPPED) == []


def test_deciding_the_only_act_turns_the_pages_state_to_revisada_without_a_reload(
        app, page, town):
    """The issue's case: the one act of an inspection is confirmed (its card swapped by htmx);
    the page's header no longer reads "Aguardando revisão"."""
    c = app.test_client()
    assert c.login(town["agent"]).status_code == 302
    iid = str(uuid.uuid4())
    b = body(town["vehicle_id"], fail={"mirrors": [jpeg(30)]}, ok=("general-condition",))
    api = Api(c)
    assert api.put_inspection(iid, b).status_code == 201
    photo = next(p for it in b["items"] for p in it["photos"])
    assert api.put_photo(iid, photo["id"], jpeg(30)).status_code == 201
    enforcement_worker(app)
    insp_id, (act,), _ = inspection_ids(app, iid)
    page.set_viewport_size(PHONE)
    sign_in(page, town["supervisor"], f"/revisao/vistorias/{insp_id}")
    state = page.locator("#review-state")
    assert state.inner_text() == "Aguardando revisão (1 de 1 ato)"
    page.evaluate("window.__same_page = true")
    page.locator(f"#ato-{act} button", has_text="Confirmar").click()
    page.locator(f"#ato-{act} .badge", has_text="Confirmado").wait_for()
    page.wait_for_function("document.querySelector('#review-state').textContent === 'Revisada'")
    assert page.evaluate("window.__same_page") is True
    assert page.locator("#review-state").count() == 1
