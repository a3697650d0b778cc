"""Flask extensions, created unbound and bound in create_app(); and `insert_once`, the one
way a row guarded by a unique key is written when another writer may have written it first."""
from flask import Flask
from flask_htmx import HTMX
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from flask_migrate import Migrate
from flask_sqlalchemy import SQLAlchemy
from flask_wtf.csrf import CSRFProtect
from sqlalchemy import MetaData
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import DeclarativeBase

# A naming convention keeps Alembic's batch mode (SQLite) and autogenerate stable.
NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)


db = SQLAlchemy(model_class=Base)
migrate = Migrate()
csrf = CSRFProtect()
htmx = HTMX()
# How long a request waits on a shared store (redis://) that does not answer before the limiter
# counts in this process's memory instead (RATELIMIT_IN_MEMORY_FALLBACK_ENABLED). redis-py waits
# forever by default: a frozen Redis, or one behind a network that drops packets, hung every
# limited request and soon every thread of the server (tests/multinode/test_shared_store_down.py).
# Redis on the deployment's network answers in a millisecond.
STORE_TIMEOUT = 0.5
_REDIS_SCHEMES = ("redis://", "rediss://", "redis+unix://")


def store_options() -> dict:
    """redis-py's settings for the rate limits' store: connecting and each answer bounded."""
    return {"socket_connect_timeout": STORE_TIMEOUT, "socket_timeout": STORE_TIMEOUT}


class SharedLimiter(Limiter):
    """Flask-Limiter with bounded waits on a Redis store (`store_options`), unless the
    deployment set RATELIMIT_STORAGE_OPTIONS itself."""

    def init_app(self, app: Flask) -> None:
        uri = str(app.config.get("RATELIMIT_STORAGE_URI") or "")
        ours = uri.startswith(_REDIS_SCHEMES) and not app.config.get("RATELIMIT_STORAGE_OPTIONS")
        # one Limiter serves every app of the process (tests make many) and Limiter.init_app
        # only adds to its options: an earlier app's are dropped here
        self._storage_options = store_options() if ours else {}
        super().init_app(app)


limiter = SharedLimiter(key_func=get_remote_address, default_limits=[])


def insert_once(row) -> bool:
    """Add and flush `row` in a savepoint; False, and nothing of it written, when a unique
    key says a concurrent writer recorded the same thing first (the rest of the transaction
    goes on)."""
    try:
        with db.session.begin_nested():
            db.session.add(row)
            db.session.flush()
    except IntegrityError:
        return False
    return True
