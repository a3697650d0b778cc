"""What the act's card says once its delivery is recorded (Nortelândia Lei 030/1998 Art. 16
§ 2º: the appeal runs "a partir da intimação"). Runs on SQLite and PostgreSQL (DATABASE_URL)."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta

from inspector.extensions import db
from tests.support.enforcement import decided_in_office
from tests.support.instants import CUIABA

HX = {"HX-Request": "true"}


def _decided(app, hours_ago: int = 2):
    """A written warning (Art. 16 § 1º) confirmed in the office `hours_ago`, not delivered."""
    with app.app_context():
        decided = datetime.now(UTC) - timedelta(hours=hours_ago)
        o = decided_in_office("nortelandia", "mototaxi", {"brakes": "fail"}, decided)
        return o.act.id, o.supervisor.username, decided.astimezone(CUIABA)


def test_a_delivery_without_a_time_does_not_show_the_decisions_hour_as_the_delivery(app):
    """Recorded with the day only, the act counts from the decision (same day): the card said
    'entregue em mãos em 01/12/2026 10:48', the decision's minute, as if someone had written
    down when the document was handed over."""
    act, username, decided = _decided(app)
    c = app.test_client()
    c.login(username)
    card = c.post_form(f"/revisao/atos/{act}/entrega",
                       {"delivered_on": decided.date().isoformat(), "delivered_time": "",
                        "delivered_via": "hand", "delivery_ref": "Recebido pelo sócio"},
                       headers=HX).get_data(as_text=True)
    assert f"entregue em mãos em {decided:%d/%m/%Y} (Recebido pelo sócio)" in card
    assert f"em {decided:%d/%m/%Y %H:%M} (Recebido" not in card
    assert f"os prazos contam de {decided:%d/%m/%Y %H:%M}" in card


def test_a_delivery_with_a_time_counts_from_that_minute(app):
    act, username, decided = _decided(app, hours_ago=3)
    handed = decided + timedelta(hours=1)
    c = app.test_client()
    c.login(username)
    card = c.post_form(f"/revisao/atos/{act}/entrega",
                       {"delivered_on": handed.date().isoformat(),
                        "delivered_time": f"{handed:%H:%M}", "delivered_via": "mail_ar",
                        "delivery_ref": "AR JT123456789BR"}, headers=HX).get_data(as_text=True)
    assert f"correio com AR em {handed:%d/%m/%Y} (AR JT123456789BR)" in card
    assert f"os prazos contam de {handed:%d/%m/%Y %H:%M}" in card


def test_the_undelivered_card_says_from_when_in_one_sentence(app):
    """Tapurah Lei 406/2001: 72 hours to comply (Art. 29 § único), 8 days to appeal (Art. 30),
    both from delivery. The card read '72 horas · Prazo começa a contar da entrega' and
    '8 dias (Prazo começa a contar da entrega), à Secretaria': a capital in mid-sentence."""
    with app.app_context():
        o = decided_in_office("tapurah", "mototaxi", {"leg-guard": "fail"},
                              datetime.now(UTC) - timedelta(hours=2))
        act, username = o.act.id, o.supervisor.username
    c = app.test_client()
    c.login(username)
    card = " ".join(c.get(f"/revisao/atos/{act}").get_data(as_text=True).split())
    assert "72 horas, a contar da entrega (ainda não registrada)" in card
    assert "8 dias, a contar da entrega (ainda não registrada), à Secretaria" in card
    assert "Prazo começa a contar" not in card.split('id="ato-')[1].split("Registrar entrega")[0]


def test_the_date_picker_offers_only_the_days_a_delivery_can_have(app):
    """From the decision's day to today (Mato Grosso), on the act's page and the inspection's:
    the picker offered any day, and a future one came back 'A data da entrega não pode ser
    futura.' only after the whole form was sent."""
    from inspector.clock import default_day
    from inspector.models import Sanction

    act, username, decided = _decided(app, hours_ago=30)
    with app.app_context():
        inspection = db.session.get(Sanction, act).inspection_id
    c = app.test_client()
    c.login(username)
    picker = (f'name="delivered_on" required min="{decided.date().isoformat()}" '
              f'max="{default_day().isoformat()}"')
    for path in (f"/revisao/atos/{act}", f"/revisao/vistorias/{inspection}"):
        assert picker in c.get(path).get_data(as_text=True), path
