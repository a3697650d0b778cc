"""The tick counts a town's days on the town's own clock (municipalities.timezone):
an appeal window ends with its last day where the town is. Nortelândia's warning of Mon
02/03/2026 may be appealed until Mon 16/03 (10 business days, Lei 030/1998 Art. 16 § 2º);
in Cuiabá it closes after 16/03 ends there (tests/enforcement/test_tick.py), and a town on
Fernando de Noronha's clock (UTC-2) reaches the 17th two hours earlier."""
from __future__ import annotations

from inspector import enforcement
from inspector.extensions import db
from inspector.models import Sanction, SanctionStatus
from tests import factories
from tests.support.enforcement import confirm_delivered, fleet, inspect, local

T0 = local(2026, 3, 2, 10)


def test_an_appeal_window_closes_at_the_end_of_its_last_day_on_the_towns_clock(app):
    with app.app_context():
        factories.town("nortelandia", timezone="America/Noronha")
        f = fleet("nortelandia", "mototaxi")
        agent = factories.user("agent", "nortelandia")
        sup = factories.user("supervisor", "nortelandia")
        db.session.commit()
        [warning] = enforcement.acts_of(inspect(f["vehicle"], agent, {"vest": "fail"}, T0))
        confirm_delivered(warning, sup, T0)
        db.session.commit()
        assert db.session.get(Sanction, warning.id).appeal_until.isoformat() == "2026-03-16"
        # 21:59 in Cuiabá is 23:59 of the 16th in Noronha: still open
        assert enforcement.tick(local(2026, 3, 16, 21, 59)).windows_closed == []
        # 22:00 in Cuiabá (still the 16th there) is 00:00 of the 17th in the town: closed
        report = enforcement.tick(local(2026, 3, 16, 22, 0))
        assert report.windows_closed == [warning.id] and report.closed == [warning.id]
        assert db.session.get(Sanction, warning.id).status == SanctionStatus.CLOSED
