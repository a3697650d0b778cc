"""The holder page says what to do and how to prove it (docs/vistoria.md, "How the holder
proves it fixed"), from the pack: a vehicle item is proven by presenting the vehicle at the
law's vistoria where one checks it (Tapurah Lei 406/2001 Art. 23 X), at the town hall where the
law sets none (Nortelândia Lei 127/2009); a document is brought to the town hall (Tapurah Art.
17: the insurance); conduct is seen again on the street; the vistoria's place and the holder's
booking, and the deadline, are on the page."""
from __future__ import annotations

from datetime import UTC, date, datetime

import pytest
import time_machine

from inspector import vistorias
from inspector.extensions import db
from tests import factories
from tests.support.push import notice_row

CODE = "K7M2P-QRS9T"
THURSDAY = datetime(2026, 12, 10, 15, 0, tzinfo=UTC)  # 11:00 in Mato Grosso


@pytest.fixture
def happ(app):
    app.config.update(HOLDER_CODE_MIN_SECONDS=0.01, HOLDER_CODE_RATE_LIMIT="1000 per minute")
    return app


def _page(happ, town, service, rule_id, *, place=False, book=None):
    with happ.app_context(), time_machine.travel(THURSDAY, tick=False):
        v = factories.vehicle(town, service, last_vistoria_on=date(2026, 9, 1))
        if place:
            admin = factories.user("admin", town)
            p = vistorias.save_place(v.municipality_id, {
                "name": "Pátio da Prefeitura", "address": "Av. Brasil, 100",
                "weekdays": ["0", "1", "2", "3", "4"], "start_hour": "8", "end_hour": "10",
                "slots_per_hour": "2"}, admin)
            if book:
                vistorias.book_vistoria(v.municipality_id, v.plate, p.id, book, "periodic", admin)
        n = notice_row(v.holder, v, code=CODE, deadline_at=datetime(2026, 12, 13, 15, tzinfo=UTC))
        n.sanction.rule_id = rule_id
        n.sanction.pack_id = f"{town}-{service}"
        db.session.commit()
        path = f"{town}/{n.number}"
    with time_machine.travel(THURSDAY, tick=True):
        c = happ.test_client()
        c.holder_page(path, CODE)
        return c.get(f"/notificacoes/{path}").get_data(as_text=True)


def test_a_vehicle_item_is_proven_at_the_vistoria_with_its_place_and_deadline(happ):
    html = _page(happ, "tapurah", "mototaxi", "leg-guard", place=True)
    assert ('data-proof="present_vehicle">Apresente o veículo com o item corrigido: '
            'mata-cachorro na vistoria periódica (Lei 406/2001, Art. 23, X).') in html
    assert "Onde: Pátio da Prefeitura, Av. Brasil, 100. Agende o dia e o horário abaixo" in html
    assert "Antes do prazo: 13/12/2026 às 11:00." in html


def test_a_booked_vistoria_is_where_and_when(happ):
    html = _page(happ, "tapurah", "mototaxi", "vistoria.overdue", place=True,
                 book="2026-12-14T08:30")
    assert "Apresente o veículo para a vistoria na vistoria periódica" in html
    assert "Sua vistoria está agendada: <strong>14/12/2026 às 08:30</strong>, Pátio da " \
           "Prefeitura" in html


def test_a_document_is_brought_to_the_town_hall(happ):
    html = _page(happ, "tapurah", "mototaxi", "insurance.lapsed")
    assert ('data-proof="bring_document">Leve a apólice do seguro obrigatório em vigor à '
            'Prefeitura Municipal de Tapurah (Lei 406/2001, Art. 17).') in html
    # Thursday 10/12/2026 is a day with office
    assert "Onde: Prefeitura Municipal de Tapurah, em dia de expediente (hoje), antes do " \
           "prazo: 13/12/2026 às 11:00." in html


def test_where_the_law_sets_no_vistoria_the_vehicle_goes_to_the_town_hall(happ):
    html = _page(happ, "nortelandia", "taxi", "stripe")
    assert 'data-proof="present_vehicle">Apresente o veículo com o item corrigido' in html
    assert "na Prefeitura Municipal de Nortelândia (Lei 127/2009, Art. 14, XXII)." in html


def test_conduct_needs_nothing_to_bring(happ):
    html = _page(happ, "tapurah", "mototaxi", "uniform")
    assert 'data-proof="comply">Não é preciso levar nada: a fiscalização confere na rua' in html
