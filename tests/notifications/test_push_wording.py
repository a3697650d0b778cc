"""What the lock screen says: counts agree with their nouns ("1 item reprovado", "2 atos
propostos"), and an inspection reviewed with no act says so instead of "0 ato(s)"."""
from __future__ import annotations

from inspector.extensions import db
from inspector.models import InspectionStatus, User
from inspector.notifications import triggers
from tests import factories
from tests.support.push import inspection_row


def test_the_supervisor_is_told_counts_that_agree(app):
    with app.app_context():
        agent = factories.user("agent", "tapurah", name="Ana Agente")
        factories.user("supervisor", "tapurah")
        v = factories.vehicle("tapurah", "mototaxi", plate="QAB1C23")
        one = inspection_row(db.session.get(User, agent.id), v, failed=1)
        [note] = triggers.notify_inspection_to_review(one, acts=[1])
        assert note.body == "Placa QAB1C23 · 1 item reprovado · 1 ato proposto · Ana Agente"
        two = inspection_row(db.session.get(User, agent.id), v, failed=2)
        [note] = triggers.notify_inspection_to_review(two, acts=[1, 2])
        assert note.body == "Placa QAB1C23 · 2 itens reprovados · 2 atos propostos · Ana Agente"


def test_an_inspection_reviewed_without_acts_says_so(app):
    with app.app_context():
        agent = factories.user("agent", "tapurah")
        v = factories.vehicle("tapurah", "mototaxi", plate="QAB1C23")
        insp = inspection_row(db.session.get(User, agent.id), v, failed=0,
                              status=InspectionStatus.REVIEWED)
        note = triggers.notify_inspection_reviewed(insp)
        assert note.body == "Placa QAB1C23: nenhum ato a decidir."
        assert "(s)" not in note.body


def test_the_list_counts_browsers_in_agreeing_words(app, client):
    from tests.support.push import Subscriber

    app.config["PUSH_ALLOW_HTTP_LOOPBACK"] = True
    with app.app_context():
        agent = factories.user("agent", "tapurah")
        from inspector.notifications import subscriptions
        subscriptions.save_subscription(Subscriber("http://127.0.0.1:9/push/a").as_json(), user=agent)
        db.session.commit()
        username, agent_id = agent.username, agent.id
    client.login(username)
    assert "Notificações ativadas em 1 navegador." in client.get("/notificacoes").get_data(
        as_text=True)
    with app.app_context():
        subscriptions.save_subscription(Subscriber("http://127.0.0.1:9/push/b").as_json(),
                                user=db.session.get(User, agent_id))
        db.session.commit()
    page = client.get("/notificacoes").get_data(as_text=True)
    assert "Notificações ativadas em 2 navegadores." in page and "(es)" not in page
