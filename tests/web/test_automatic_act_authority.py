"""An act the law applies by itself (Tapurah 406 Art. 29 § ú: the notice "converter-se-á em
multa diária") does not say an agent decided it."""
from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from sqlalchemy import select

from inspector.extensions import db
from inspector.models import Sanction
from inspector.services import enforcement

from .. import factories
from ..enforcement_helpers import fleet, inspect


def test_a_daily_fine_from_a_missed_notice_is_decided_by_the_law(app):
    with app.app_context():
        f = fleet("tapurah", "mototaxi")
        agent, sup = factories.user("agent", "tapurah"), factories.user("supervisor", "tapurah")
        db.session.commit()
        started = datetime.now(UTC) - timedelta(days=4)
        [notice] = enforcement.acts_of(inspect(f["vehicle"], agent, {"mirrors": "fail"},
                                               started))
        enforcement.confirm(notice, sup, started + timedelta(hours=1))
        db.session.commit()
        enforcement.tick(datetime.now(UTC))
        daily = db.session.scalar(select(Sanction).where(Sanction.parent_id == notice.id))
        username, ids = sup.username, (notice.id, daily.id)
    c = app.test_client()
    assert c.login(username).status_code == 302

    def who(act_id):
        html = c.get(f"/revisao/atos/{act_id}").get_data(as_text=True)
        return re.search(r"<dt>Quem decide</dt><dd>([^<]*)</dd>", html).group(1)

    assert who(ids[1]) == "Automático, por força da lei"
    assert who(ids[0]) == "Agente de fiscalização"      # the notice itself: the agent's
