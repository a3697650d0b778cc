"""An act the law applies by itself (Tapurah 406 Art. 29 § ú: the notice "converter-se-á em
multa diária") does not say an agent decided it."""
from __future__ import annotations

import re

from tests.support.enforcement import running_daily_fine


def test_a_daily_fine_from_a_missed_notice_is_decided_by_the_law(app):
    with app.app_context():
        notice, daily, sup = running_daily_fine()
        username, ids = sup.username, (notice.id, daily.id)
    c = app.test_client()
    assert c.login(username).status_code == 302

    def who(act_id):
        html = c.get(f"/revisao/atos/{act_id}").get_data(as_text=True)
        return re.search(r"<dt>Quem decide</dt><dd>([^<]*)</dd>", html).group(1)

    assert who(ids[1]) == "Automático, por força da lei"
    # the notice itself: the agent's (Art. 27 I), which the supervision confirmed
    assert who(ids[0]) == "Agente de fiscalização (confirmado pela supervisão)"
