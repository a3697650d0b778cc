"""An unhandled error is logged as one JSON line with the signed-in user's id, also when it came
from a failed database write: the user is then expired and its id cannot be loaded again (that
used to make the log formatter itself raise, so the crash left no line at all)."""
from __future__ import annotations

import json
import logging

import pytest
from flask import g
from sqlalchemy.exc import IntegrityError

from inspector.extensions import db
from inspector.logs import JsonFormatter
from inspector.models import Vehicle
from tests import factories


def test_the_crash_line_survives_a_failed_flush(app):
    with app.test_request_context("/cadastro/veiculos/novo", method="POST"):
        user = factories.user("admin", "tapurah")
        db.session.commit()  # the user's attributes are expired from here
        user_id = user.id  # loaded again, inside a transaction that still works
        g.request_id, g.user = "r-1", user
        db.session.add(Vehicle())  # no town, no plate: NOT NULL refused at the flush
        with pytest.raises(IntegrityError) as failed:
            db.session.flush()
        record = logging.LogRecord("inspector", logging.ERROR, __file__, 1, "unhandled error",
                                   None, (IntegrityError, failed.value, failed.tb))
        line = json.loads(JsonFormatter().format(record))
        db.session.rollback()
    assert line["msg"] == "unhandled error" and line["request_id"] == "r-1"
    assert line["user_id"] == user_id
    assert "IntegrityError" in line["exc"]
