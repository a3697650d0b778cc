"""Flask extensions, created unbound and bound in create_app(); and `insert_once`, the one
way a row guarded by a unique key is written when another writer may have written it first."""
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
limiter = Limiter(key_func=get_remote_address, default_limits=[])


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
