"""The push side of an act's life, with the real enforcement engine and a frozen clock:
a Tapurah moto-taxi inspection with a failed safety item completes -> the town's supervisor
is pushed; the supervisor confirms -> the agent is pushed that it was reviewed, and the
holder, subscribed through an earlier notice, is pushed the new notice; 30 hours later
`enforcement tick` (the CLI, which delivers the outbox) pushes "deadline in 2 days". Every
push is checked at a local push service and decrypted to the expected payload; running the
tick again sends nothing."""
from __future__ import annotations

import json
from datetime import date, timedelta

from sqlalchemy import select

from inspector import clock, enforcement
from inspector.extensions import db
from inspector.models import Notice, Sanction, User
from inspector.notifications import push, subscriptions
from tests import factories
from tests.support.enforcement import fleet, inspect, local, set_values
from tests.support.push import Subscriber

T0 = local(2025, 12, 29, 10, 0)


def test_the_push_part_of_the_tapurah_story(app, service, runner):
    app.config["PUSH_ALLOW_HTTP_LOOPBACK"] = True
    phones = {name: Subscriber(service.endpoint(name)) for name in ("sup", "agent", "holder")}
    with app.app_context():
        f = fleet("tapurah", "mototaxi")
        set_values("tapurah", minimum_wage=1518, since=date(2025, 1, 1))
        agent = factories.user("agent", "tapurah", badge_number="AG-07")
        sup = factories.user("supervisor", "tapurah")
        factories.user("supervisor", "sapezal")  # another town's: told nothing
        subscriptions.save_subscription(phones["sup"].as_json(), user=sup)
        subscriptions.save_subscription(phones["agent"].as_json(), user=agent)
        subscriptions.save_subscription(phones["holder"].as_json(), holder=f["holder"])
        db.session.commit()
        ids = {"agent": agent.id, "sup": sup.id, "holder": f["holder"].id,
               "vehicle": f["vehicle"].id, "plate": f["vehicle"].plate}

        # the inspection syncs: the supervisor is told
        insp = inspect(db.session.get(type(f["vehicle"]), ids["vehicle"]),
                       db.session.get(User, ids["agent"]), {"mirrors": "fail"}, T0)
        db.session.commit()
        push.deliver_pending(T0)
        [got] = service.to("sup")
        to_review = phones["sup"].decrypt(got.body)
        assert to_review["title"] == "Vistoria para revisar"
        assert to_review["body"].startswith(f"Placa {ids['plate']} · 1 item reprovado · "
                                            "1 ato proposto")
        assert to_review["url"] == f"/revisao/vistorias/{insp.id}"

        # the supervisor confirms the notice
        act = db.session.scalar(select(Sanction).where(Sanction.inspection_id == insp.id))
        decision = enforcement.confirm(act, db.session.get(User, ids["sup"]),
                                       T0 + timedelta(hours=1))
        db.session.commit()
        notice = db.session.scalar(select(Notice))
        number, deadline = notice.number, notice.deadline_at
        push.deliver_pending(T0 + timedelta(hours=1))
        reviewed = phones["agent"].decrypt(service.to("agent")[0].body)
        assert reviewed["title"] == "Sua vistoria foi revisada"
        assert reviewed["body"] == f"Placa {ids['plate']}: 1 ato confirmado."
        assert reviewed["url"] == "/campo"
        issued = phones["holder"].decrypt(service.to("holder")[0].body)
        assert issued["title"] == "Nova notificação da fiscalização"
        assert f"Notificação nº {number}, prazo até 01/01/2026 10:00 (horário de MT)" in \
            issued["body"]
        assert issued["url"] == f"/notificacoes/tapurah/{number}"
        assert issued["data"] == {"notice": number}
        assert decision.access_code  # printed on the notice; opens the page in the url

    # 30 hours later the tick (CLI) finds the deadline two days away and sends the push
    now = (T0 + timedelta(hours=30)).isoformat()
    result = runner.invoke(args=["enforcement", "tick", "--now", now, "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.output.strip().splitlines()[-1])
    assert out["reminders"] and len(out["push"]["sent"]) == 1
    soon = phones["holder"].decrypt(service.to("holder")[1].body)
    assert soon["title"] == "Prazo vence em 2 dias"
    assert soon["body"].startswith(f"O prazo do documento nº {number} termina em 01/01/2026 10:00")
    assert soon["data"]["deadline_at"] == clock.utc(deadline).isoformat()

    again = runner.invoke(args=["enforcement", "tick", "--now", now, "--json"])
    assert json.loads(again.output.strip().splitlines()[-1])["push"]["attempted"] == 0
    assert len(service.received) == 4  # supervisor, agent, holder x2: nothing twice
    client = app.test_client()  # the holder opens the page with the printed code
    token = client.csrf_token(f"/notificacoes/tapurah/{number}")
    app.config["HOLDER_CODE_MIN_SECONDS"] = 0
    r = client.post(f"/notificacoes/tapurah/{number}",
                    data={"codigo": decision.access_code, "csrf_token": token})
    assert r.status_code == 303
    page = client.get(r.headers["Location"]).get_data(as_text=True)
    assert "situação: <strong data-status>" in page and "Confirmado" not in page
