"""The result card's "Última vistoria" line counts what failed in words that agree with the
number ("1 item não conforme", "2 itens não conformes"), not "item(ns) não conforme(s)"."""
from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.field_helpers import start_online

pytestmark = pytest.mark.browser


def _last_inspection(app, world, failed: int) -> None:
    from inspector.extensions import db
    from inspector.models import User, Vehicle
    from tests.support.push import inspection_row

    with app.app_context():
        agent = db.session.scalar(db.select(User).filter_by(username=world["agent"]))
        inspection_row(agent, db.session.get(Vehicle, world["vehicle_id"]), failed=failed)
        db.session.commit()
        db.session.remove()


@pytest.mark.parametrize("failed, words", [(1, "1 item não conforme"),
                                           (2, "2 itens não conformes")])
def test_the_last_inspection_counts_in_agreeing_words(browser, live_server, app, world,
                                                      failed, words):
    _last_inspection(app, world, failed)
    context, _, page = start_online(browser, live_server, world["agent"])
    context.set_offline(True)
    page.fill("#search-q", world["plate"])
    page.get_by_role("button", name="Buscar").click()
    line = page.locator("#result .last-inspection")
    expect(line).to_contain_text(f" · {words} · aguardando revisão")
    expect(line).not_to_contain_text("(")
    context.close()
