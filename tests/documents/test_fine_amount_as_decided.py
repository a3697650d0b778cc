"""A fine reads as the law counts it and as it was decided: on the auto de infração and on
the holder's page (/notificacoes/<town>/<number>). Runs on SQLite and PostgreSQL
(DATABASE_URL)."""
from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from html import unescape

from inspector import enforcement
from inspector.extensions import db
from tests import factories
from tests.support.documents import pdf_text, stored_document
from tests.support.enforcement import fleet, inspect, set_values


def _holder_amount(client, path: str, code: str) -> str | None:
    html = unescape(client.holder_page(path, code))
    found = re.search(r"<dt>Valor</dt><dd[^>]*>([^<]*)</dd>", html)
    return found.group(1) if found else None


def test_a_fine_fixed_within_the_bound_is_that_amount_not_up_to_it(app, client, tmp_path):
    """Lei 030/1998 (Nortelândia) Art. 16, II: "Multa de até 10 (dez) UFM". The supervisor
    fixes it at 7,5 UFM: the auto de infração and the holder's page say the fine is 7,5 UFM
    (R$ 30,00 at R$ 4,00 the UFM), not "até 7,5 UFM" / "até R$ 30,00"."""
    app.config.update(HOLDER_CODE_MIN_SECONDS=0.01, HOLDER_CODE_RATE_LIMIT="1000 per minute")
    with app.app_context():
        f = fleet("nortelandia", "mototaxi")
        set_values("nortelandia", fiscal_unit=4)
        agent = factories.user("agent", "nortelandia")
        sup = factories.user("supervisor", "nortelandia")
        db.session.commit()
        now = datetime.now(UTC)
        [warning] = enforcement.acts_of(inspect(f["vehicle"], agent, {"vest": "fail"},
                                                now - timedelta(days=20)))
        enforcement.confirm(warning, sup, now - timedelta(days=19))
        db.session.commit()
        [fine] = enforcement.acts_of(inspect(f["vehicle"], agent, {"vest": "fail"},
                                             now - timedelta(days=2)))
        assert fine.kind == "fine" and fine.amount_max == 10
        d = enforcement.confirm(fine, sup, now - timedelta(days=1), amount="7,5")
        db.session.commit()
        path, code, notice_id = f"nortelandia/{d.notice.number}", d.access_code, d.notice.id
        day = d.act.amount_on.strftime("%d/%m/%Y")
    text = pdf_text(stored_document(app, notice_id).pdf, tmp_path)
    assert "Valor na unidade da lei 7,5 UFM" in text, text
    assert "até 7,5" not in text and "até R$ 30,00" not in text
    assert "R$ 30,00" in text
    assert _holder_amount(client, path, code) == f"7,5 UFM — R$ 30,00 em {day}"


def test_the_holder_reads_a_fine_in_ufim_even_before_the_ufim_is_valued(app, client):
    """Lei 406/2001 (Tapurah) Art. 14, § único: the holder "será multado em cem Unidades
    Fiscais do Município - UFIMs". With no UFIM value registered the page still says the
    fine is 100 UFIM (its value in reais not defined), instead of leaving the amount out."""
    app.config.update(HOLDER_CODE_MIN_SECONDS=0.01, HOLDER_CODE_RATE_LIMIT="1000 per minute")
    with app.app_context():
        f = fleet("tapurah", "mototaxi")
        agent, sup = factories.user("agent", "tapurah"), factories.user("supervisor", "tapurah")
        db.session.commit()
        now = datetime.now(UTC)
        acts = enforcement.acts_of(inspect(f["vehicle"], agent, {"one-passenger": "fail"},
                                           now - timedelta(hours=5)))
        fine = next(a for a in acts if a.kind == "fine")
        d = enforcement.confirm(fine, sup, now - timedelta(hours=4))
        db.session.commit()
        assert d.act.amount_brl is None
        path, code = f"tapurah/{d.notice.number}", d.access_code
    assert _holder_amount(client, path, code) == "100 UFIM (valor em reais não definido)"
