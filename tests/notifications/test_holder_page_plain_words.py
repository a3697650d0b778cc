"""The holder's page says in plain words what the document page says and what the printed
notice says: the same status word as the public document page for the same act; what
happens if nothing is done (Tapurah Lei 406/2001 Art. 29 § único: a daily fine of 60% of the
minimum wage, with its value in reais); how and until when to appeal (Art. 30:
8 days, the last day the enforcement layer counted); and a link to the notice's PDF, which
only a browser that gave the printed code may open."""
from __future__ import annotations

import hashlib
import re
from datetime import UTC, datetime
from html import unescape

from inspector.extensions import db
from inspector.models import Notice
from tests.support.documents import stored_document
from tests.support.holder import tapurah_notice


def _text(html: str) -> str:
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


def test_the_holder_page_speaks_plainly_and_agrees_with_the_document_page(app):
    n = tapurah_notice(app)
    client = app.test_client()
    holder = unescape(client.holder_page(n["path"], n["code"]))
    document = unescape(client.get(f"/documentos/{n['path']}").get_data(as_text=True))

    # one status word for one act, on both pages
    shown = re.search(r"<strong data-status>([^<]*)</strong>", holder).group(1)
    situacao = re.search(r'<dd id="situacao">([^<]*)</dd>', document).group(1)
    assert shown == situacao and shown != "Confirmado"

    # what happens if nothing is done: the daily fine, its amount, its article
    consequence = _text(re.search(r"<p data-if-not-done>(.*?)</p>", holder, re.S).group(1))
    assert "Multa diária de 60% do salário mínimo" in consequence
    assert "60% do salário mínimo por dia" in consequence
    reais = f"{n['daily']:,.2f}".replace(",", "X").replace(".", ",").replace("X", ".")
    assert f"R$ {reais} por dia" in consequence               # 60% of the minimum wage
    assert "Lei 406/2001" in consequence and "Art. 29" in consequence

    # how and until when to appeal: the last day the enforcement layer counted (Art. 30)
    appeal = _text(re.search(r"<p data-appeal-how>(.*?)</p>", holder, re.S).group(1))
    assert appeal.startswith(f"Até {n['appeal_until']} (último dia), por escrito")
    assert "protocolado na Prefeitura Municipal de Tapurah" in appeal
    assert n["number"] in appeal

    # the PDF, as issued
    href = re.search(r'<a class="report" data-pdf href="([^"]+)"', holder).group(1)
    pdf = client.get(href)
    assert pdf.status_code == 200 and pdf.mimetype == "application/pdf"
    assert pdf.data.startswith(b"%PDF") and pdf.headers["Cache-Control"] == "no-store"
    doc = stored_document(app, n["notice_id"])
    assert hashlib.sha256(pdf.data).hexdigest() == doc.sha256


def test_the_pdf_needs_the_printed_code(app):
    n = tapurah_notice(app)
    stranger = app.test_client()
    r = stranger.get(f"/notificacoes/{n['path']}/pdf")
    assert r.status_code == 403 and r.mimetype == "text/html"
    assert "Código de acesso" in r.get_data(as_text=True)
    assert stranger.get("/notificacoes/tapurah/NOT-1999/999999/pdf").status_code == 403


def test_once_complied_nothing_more_is_threatened(app):
    n = tapurah_notice(app)
    with app.app_context():
        notice = db.session.get(Notice, n["notice_id"])
        notice.complied_at = datetime.now(UTC)
        db.session.commit()
    holder = app.test_client().holder_page(n["path"], n["code"])
    assert "data-if-not-done" not in holder and "Se nada for feito" not in holder


def test_the_authenticity_page_says_authentic_in_words_first(app):
    n = tapurah_notice(app)
    html = app.test_client().get(f"/documentos/{n['path']}").get_data(as_text=True)
    body = _text(html.split("<main>", 1)[1])
    assert body.startswith("Documento autêntico")
    assert body.index("Documento autêntico") < body.index("SHA-256")
