"""The supervisor's inspection page on a 360×780 phone, in Chromium: a whole
Tapurah checklist (19 answers, three failed with photos, one "Conforme" the registry
contradicts) does not scroll sideways, the answers that need the supervisor are open and the
conforming ones folded, no badge wraps, and each proposed act shows first what is decided
(the act, its article, the deadline, Confirmar / Alterar / Rejeitar as thumb-sized targets)
with the facts in full folded: the page is at most about five screens (its height and each
part's are printed). The same page on a 1280 px desk puts an act's facts beside its forms; an
act's own page fits the phone; and a folded form still works without JavaScript."""
from __future__ import annotations

import re
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import select

from inspector.extensions import db
from inspector.models import InsurancePolicy, Sanction
from tests.browser.field_helpers import sign_in
from tests.support.enforcement import enforcement_worker
from tests.support.field_api import Api, body, jpeg
from tests.support.review import inspection_ids

pytestmark = pytest.mark.browser
PHONE = {"width": 360, "height": 780}
DESK = {"width": 1280, "height": 900}
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
# every control a thumb presses in the page's content, shown and under 44 px tall (a radio or a
# checkbox is pressed through its label; a link inside a sentence is exempt, WCAG 2.5.8)
SMALL_TARGETS = """() => [...document.querySelectorAll('main button, main summary, main select,'
    + 'main textarea, main input:not([type=hidden]):not([type=radio]):not([type=checkbox])')]
  .filter(e => e.getClientRects().length > 0)
  .filter(e => e.getBoundingClientRect().height < 44)
  .map(e => e.outerHTML.slice(0, 90))"""
# the height of each part of the page, and of each act's card, to see what makes it tall
PARTS = """() => [...document.querySelectorAll('main > *, main article.act')]
  .map(e => `${e.tagName.toLowerCase()}${e.id ? '#' + e.id : ''}.${[...e.classList].join('.')}`
            + ` ${Math.round(e.getBoundingClientRect().height)}`)"""
KEY_FACTS = "dl => [...dl.querySelectorAll('dt')].map(t => [t.textContent, t.nextElementSibling.textContent])"
HEIGHT = "document.scrollingElement.scrollHeight"
WIDTH = "document.scrollingElement.scrollWidth"
LOAD_IMAGES = """() => Promise.all([...document.images].map(i => { i.loading = 'eager';
  return i.complete ? null : new Promise(r => { i.onload = i.onerror = r; }); }))"""


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


def _acts(app, insp_id: int) -> list[int]:
    with app.app_context():
        return list(db.session.scalars(select(Sanction.id).where(
            Sanction.inspection_id == insp_id).order_by(Sanction.id)))


def test_the_review_page_fits_a_phone(page, town, full_inspection):
    page.context.add_init_script(path=str(AXE))   # axe-core, as in test_accessibility.py
    page.set_viewport_size(PHONE)
    sign_in(page, town["supervisor"], f"/revisao/vistorias/{full_inspection}")
    page.wait_for_load_state("load")
    # the thumbnails load lazily: load them all, so the height is the one a reader scrolls
    page.evaluate(LOAD_IMAGES)
    height = page.evaluate(HEIGHT)
    print(f"\nreview page at 360x780: {height} px tall ({height / 780:.1f} screens)")
    print("\n".join(page.evaluate(PARTS)))
    assert page.evaluate(WIDTH) <= 360
    assert page.evaluate(WRAPPED) == []
    assert page.evaluate(MID_WORD) == []
    assert page.evaluate(SMALL_TARGETS) == []

    # the failures and the contradicted answer are open; the other 15 answers are folded
    folded = page.locator("details.folded-items")
    assert "15 itens conformes" in folded.locator("summary").inner_text()
    assert folded.get_attribute("open") is None
    assert page.locator("main section.item.contradiction").count() == 1
    flag = page.locator("section.item.contradiction .registry-contradiction").inner_text()
    assert flag.startswith("Contradiz o cadastro: Seguro obrigatório vencido em")
    assert "Lei 406/2001, Art. 17" in flag
    assert page.locator("main > section.item, main > * > section.item").count() >= 4

    # each proposed act: what is decided first, in sight (the notice's article, the one broken,
    # what to do, Art. 29's 72 hours), then Confirmar / Alterar / Rejeitar; the facts in full
    # folded
    acts = page.locator("main article.act")
    assert acts.count() == 3
    for i in range(3):
        act = acts.nth(i)
        key = dict(act.locator("dl.act-key").evaluate(KEY_FACTS))
        # Art. 27 I: the written notice, signed by the rider; the item's article is the one broken
        assert key["Fundamento"].startswith("Lei 406/2001, Art. 27, I; infringido: Art. "), key
        assert key["Prazo"].startswith("72 horas, até "), key
        assert key["Providências"] and key["Infrator"], key
        assert act.locator("dl.act-key").is_visible()
        top = act.bounding_box()["y"]
        for control in (act.get_by_role("button", name="Confirmar"),
                        act.locator(".decide > details > summary", has_text="Alterar"),
                        act.locator(".decide > details > summary", has_text="Rejeitar")):
            box = control.bounding_box()
            assert box is not None and box["height"] >= 44
            assert box["y"] + box["height"] - top <= 780, (i, box, top)  # within a screen
        more = act.locator("details.act-more")
        assert more.get_attribute("open") is None
        # folded, not removed: who decides, the appeal, the law's own words
        for fact in ("Quem decide", "Recurso", "Dispositivo infringido"):
            assert fact in more.text_content()
        assert act.bounding_box()["height"] <= 600, (i, act.bounding_box())  # ~1,650 before
    # 14,459 px before the answers were folded, the badges kept whole and the facts put on
    # one run of text; 9,702 px after (each act ~1,650 px); 3,882 px (5.0 screens, each act
    # ~500 px) with the decision first and the facts folded (same inspection, this machine);
    # 3,999-4,070 px once each act's "Providências" says which item to fix and what the law
    # requires (a line more per act) and the header wraps the user's town instead of cutting it
    assert height <= 4_200, height

    # unfolded, an act's facts give the law's words whole (no longer cut to two lines), and
    # Art. 19's grant beside the deadline it would change
    first = acts.nth(0).locator("details.act-more")
    first.locator(":scope > summary").click()
    quote = first.locator(".cite-quote").first
    assert quote.is_visible()
    assert quote.evaluate("q => q.scrollHeight <= q.clientHeight + 1")
    assert "Quem decide" in first.inner_text()
    assert first.locator("details.grant > summary", has_text="Prazo do Art. 19").is_visible()
    assert page.evaluate(WIDTH) <= 360 and page.evaluate(SMALL_TARGETS) == []

    # opened, the folded answers still fit the width, and no badge wraps
    folded.locator("summary").click()
    assert page.evaluate(WIDTH) <= 360
    assert page.evaluate(WRAPPED) == []
    print(f"with the conforming answers unfolded: {page.evaluate(HEIGHT)} px")
    # the flags, the folded answers and the registry's box keep axe clean
    result = page.evaluate("async () => await axe.run(document)")
    assert len(result["passes"]) > 10
    assert [(v["id"], [n["target"] for n in v["nodes"][:3]]) for v in result["violations"]] == []


def test_on_a_desk_an_acts_facts_and_its_forms_stand_side_by_side(page, town, full_inspection):
    page.set_viewport_size(DESK)
    sign_in(page, town["supervisor"], f"/revisao/vistorias/{full_inspection}")
    page.evaluate(LOAD_IMAGES)
    print(f"\nreview page at 1280x900: {page.evaluate(HEIGHT)} px tall")
    assert page.evaluate(WIDTH) <= 1280
    for i in range(3):
        act = page.locator("main article.act").nth(i)
        facts = act.locator(".act-info").bounding_box()
        forms = act.locator(".act-actions").bounding_box()
        assert forms["x"] >= facts["x"] + facts["width"], (facts, forms)       # beside, not below
        assert abs(forms["y"] - facts["y"]) < 2, (facts, forms)
        assert act.get_by_role("button", name="Confirmar").is_visible()
    assert page.evaluate(SMALL_TARGETS) == []


def test_an_acts_own_page_fits_the_phone_before_and_after_the_decision(app, page, town,
                                                                         full_inspection):
    act = _acts(app, full_inspection)[0]
    page.context.add_init_script(path=str(AXE))
    page.set_viewport_size(PHONE)
    sign_in(page, town["supervisor"], f"/revisao/atos/{act}")
    height = page.evaluate(HEIGHT)
    print(f"\nan act's page at 360x780: {height} px tall")
    assert height <= 2 * 780, height
    assert page.evaluate(WIDTH) <= 360
    assert page.evaluate(SMALL_TARGETS) == []

    page.locator(f"#ato-{act} button", has_text="Confirmar").click()
    page.locator(f"#ato-{act} .act-head .badge", has_text="Confirmado").wait_for()
    print(f"confirmed: {page.evaluate(HEIGHT)} px tall")
    assert page.evaluate(WIDTH) <= 360
    assert page.evaluate(WRAPPED) == []
    assert page.evaluate(SMALL_TARGETS) == []
    result = page.evaluate("async () => await axe.run(document)")
    assert len(result["passes"]) > 10
    assert [(v["id"], [n["target"] for n in v["nodes"][:3]]) for v in result["violations"]] == []


def test_without_javascript_a_folded_form_still_rejects(app, browser, live_server, town,
                                                          full_inspection):
    """The forms are plain HTML forms that htmx enhances: with scripts off, "Rejeitar" opens
    (a <details> needs none) and its reason goes through a normal POST and 303 back."""
    act = _acts(app, full_inspection)[1]
    context = browser.new_context(base_url=live_server.url, locale="pt-BR",
                                  java_script_enabled=False, viewport=PHONE)
    try:
        page = context.new_page()
        sign_in(page, town["supervisor"], f"/revisao/vistorias/{full_inspection}")
        card = page.locator(f"#ato-{act}")
        card.locator(".decide > details > summary", has_text="Rejeitar").click()
        card.locator(".reject-form textarea[name=reason]").fill("As luvas aparecem na segunda foto.")
        card.locator(".reject-form button").click()
        page.wait_for_url(re.compile(rf"/revisao/vistorias/{full_inspection}#ato-{act}$"))
        assert page.locator(f"#ato-{act} .act-head .badge").first.inner_text() == "Rejeitado"
        key = page.locator(f"#ato-{act} dl.act-key").inner_text()
        assert "As luvas aparecem na segunda foto." in key
    finally:
        context.close()
    with app.app_context():
        assert db.session.get(Sanction, act).status.value == "rejected"


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
