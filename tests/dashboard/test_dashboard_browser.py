"""The dashboard in Chromium on a 360 px phone and a 1280 px desktop: every
chart is an SVG picture with its table beside it (under it on the phone), nothing scrolls
sideways, the CSP blocks nothing (no inline style or script), and the period links swap the
figures through htmx. Screenshots of both are kept in the test's temporary folder."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.browser.field_helpers import sign_in
from tests.support.dashboard import PERIOD

pytestmark = pytest.mark.browser
WIDTH = "document.scrollingElement.scrollWidth"
PAIRS = """() => [...document.querySelectorAll('.chart-pair')].map(p => {
  const svg = p.querySelector('figure svg'), table = p.querySelector('table');
  const a = svg.getBoundingClientRect(), b = table.getBoundingClientRect();
  return {svgW: a.width, svgH: a.height, svgRight: a.right, svgBottom: a.bottom,
          tableLeft: b.left, tableTop: b.top, rows: table.querySelectorAll('tbody tr').length};
})"""


@pytest.mark.parametrize("width, height", [(360, 740), (1280, 900)], ids=["phone", "desktop"])
def test_charts_are_pictures_with_their_tables_and_fit(page, town, tmp_path, width, height):
    refused = []
    page.on("console", lambda m: refused.append(m.text) if "Content Security Policy" in m.text
            else None)
    page.set_viewport_size({"width": width, "height": height})
    sign_in(page, town["sup"], "/painel")
    page.goto(f"/painel?{PERIOD}")
    page.wait_for_load_state("load")
    assert page.locator("svg.chart-svg").count() == 8
    pairs = page.evaluate(PAIRS)
    assert len(pairs) == 8 and all(p["rows"] >= 1 and p["svgW"] > 200 and p["svgH"] > 40
                                   for p in pairs), pairs
    if width == 360:
        assert all(p["tableTop"] >= p["svgBottom"] - 1 for p in pairs)    # under the chart
        assert all(p["svgRight"] <= 360 for p in pairs)
    else:
        beside = [p for p in pairs if p["tableLeft"] >= p["svgRight"] - 1]
        assert len(beside) >= 6, pairs                                      # the acts: full width
    assert page.evaluate(WIDTH) <= width
    page.screenshot(path=str(tmp_path / f"painel-{width}.png"), full_page=True)
    assert refused == []


def test_a_period_link_swaps_the_figures_without_a_page_load(page, town):
    page.set_viewport_size({"width": 360, "height": 740})
    sign_in(page, town["sup"], "/painel")
    page.goto(f"/painel?{PERIOD}")
    page.wait_for_load_state("load")
    page.evaluate("window.__same_page = true")
    page.get_by_role("link", name="Últimos 30 dias").click()
    page.wait_for_url("**/painel?periodo=30d")
    assert page.evaluate("window.__same_page === true")                     # swapped, not loaded
    assert "Período:" in page.inner_text("#painel")
    assert "01/03/2026" not in page.inner_text("#painel .period-now")


AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"


def test_no_accessibility_violation_on_the_dashboard_and_the_open_data(browser, live_server,
                                                                       town):
    """axe-core on /painel (phone), its drill-down lists and the public open-data pages."""
    context = browser.new_context(base_url=live_server.url, locale="pt-BR",
                                  viewport={"width": 360, "height": 740})
    context.add_init_script(path=str(AXE))
    context.set_default_timeout(20_000)
    page = context.new_page()
    found = []
    for path in ("/transparencia", "/transparencia/dados"):
        page.goto(path)
        found += _axe(page, path)
    sign_in(page, town["sup"], "/painel")
    for path in (f"/painel?{PERIOD}", "/painel/frota?servico=mototaxi&situacao=regular",
                 f"/painel/pagamentos?{PERIOD}"):
        page.goto(path)
        page.wait_for_load_state("load")
        found += _axe(page, path)
    context.close()
    assert found == []


def _axe(page, where: str) -> list[str]:
    result = page.evaluate("async () => await axe.run(document)")
    assert len(result["passes"]) > 10, f"{where}: axe did not run"
    return [f"{where}: {v['id']} ({v['impact']}) at "
            + ", ".join(" ".join(n["target"]) for n in v["nodes"][:3])
            for v in result["violations"]]


CUT = """() => [...document.querySelectorAll('#painel .table-wrap')]
  .filter(w => w.scrollWidth > w.clientWidth + 1)
  .map(w => (w.querySelector('caption') || w).textContent.trim().slice(0, 60))"""
LEGENDS = """() => [...document.querySelectorAll('#painel svg')].flatMap(svg => {
  const box = svg.viewBox.baseVal;
  return [...svg.querySelectorAll('text.legend, text.tick')].filter(t => {
    const b = t.getBBox();
    return b.x < box.x - 0.5 || b.x + b.width > box.x + box.width + 0.5;
  }).map(t => t.textContent);
})"""


@pytest.mark.parametrize("width, height", [(1280, 900)], ids=["desktop"])
def test_no_table_is_cut_and_every_legend_and_tick_is_inside_its_chart(page, town, width, height):
    """At desktop width the fleet table's last column ("Regular") shows without scrolling, and
    every legend and axis label ("100%") is drawn inside its picture, whole."""
    page.set_viewport_size({"width": width, "height": height})
    sign_in(page, town["sup"], "/painel")
    page.goto(f"/painel?{PERIOD}")
    page.wait_for_load_state("load")
    assert page.evaluate(CUT) == []
    assert page.evaluate(LEGENDS) == []
    assert "100%" in page.locator("#painel svg.chart-svg").nth(3).text_content()
