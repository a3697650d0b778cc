"""From a checklist item, its citation opens the law on the cited
article, scrolled into view and highlighted (CSS :target, no script)."""
from __future__ import annotations

import re
from datetime import date

import pytest

from inspector.rules.engine import checklist

pytestmark = pytest.mark.browser

SLUG = "tapurah-lei-406-2001-mototaxi"
ITEM = "helmet-band"   # Tapurah Art. 15, I: the "Moto-Táxi" band on both helmets


def _target_state(page) -> dict:
    return page.evaluate("""() => {
        const el = document.querySelector(':target');
        if (!el) return null;
        const r = el.getBoundingClientRect();
        return {id: el.id, text: el.textContent,
                bg: getComputedStyle(el).backgroundColor,
                page_bg: getComputedStyle(document.body).backgroundColor,
                parent_bg: getComputedStyle(el.parentElement).backgroundColor,
                top: r.top, bottom: r.bottom, height: window.innerHeight};
    }""")


@pytest.mark.parametrize("viewport", [{"width": 390, "height": 800},
                                      {"width": 1280, "height": 720}], ids=["phone", "desktop"])
def test_checklist_citation_opens_the_highlighted_article(page, viewport):
    page.set_viewport_size(viewport)
    item = next(i for i in checklist("tapurah", "mototaxi", date(2026, 3, 1))
                if i.id == ITEM)
    anchor = item.citation.anchor
    assert anchor == "art-15-i"

    page.goto(f"/leis/{SLUG}/checklist?on=2026-03-01")
    link = page.locator(f"#item-{ITEM} a.cite")
    assert link.inner_text() == "Lei 406/2001, Art. 15, I"
    link.click()
    page.wait_for_url(re.compile(rf"/leis/{SLUG}#{anchor}$"))

    state = _target_state(page)
    assert state is not None, "no element is the :target"
    assert state["id"] == anchor
    assert "visivelmente aposta no capacete" in state["text"]
    # highlighted: its own background, unlike the page and the article around it
    assert state["bg"] not in ("rgba(0, 0, 0, 0)", "transparent")
    assert state["bg"] != state["page_bg"] and state["bg"] != state["parent_bg"]
    # and on screen
    assert 0 <= state["top"] < state["height"] and state["bottom"] > 0
    # the neighbouring item is not highlighted
    other = page.evaluate("getComputedStyle(document.getElementById('art-15-ii')).backgroundColor")
    assert other != state["bg"]
