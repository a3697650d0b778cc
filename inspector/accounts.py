"""Create and manage accounts."""
from __future__ import annotations

from sqlalchemy import update

from inspector import audit
from inspector.errors import Conflict, ValidationFailed
from inspector.extensions import db
from inspector.models import Municipality, Role, User
from inspector.security import end_all_sessions, hash_password

MIN_PASSWORD = 10


def create_user(*, town_slug: str, username: str, name: str, role: str, password: str,
                badge_number: str = "", actor=None) -> User:
    """Create a user of one town with one role (the caller commits)."""
    errors = {}
    town = db.session.scalar(db.select(Municipality).filter_by(slug=town_slug))
    if town is None:
        errors["town"] = f"município desconhecido: {town_slug!r}"
    username = username.strip().lower()
    if not username or not username.replace(".", "").replace("-", "").replace("_", "").isalnum():
        errors["username"] = "use letras, números, ponto, hífen ou sublinhado"
    elif db.session.scalar(db.select(User).filter_by(username=username)):
        errors["username"] = f"o usuário {username!r} já existe"
    if role not in {r.value for r in Role}:
        errors["role"] = f"perfil desconhecido: {role!r}"
    if len(password) < MIN_PASSWORD:
        errors["password"] = f"a senha precisa de pelo menos {MIN_PASSWORD} caracteres"
    if errors:
        raise ValidationFailed(errors)
    user = User(municipality_id=town.id, username=username, name=name.strip(), role=Role(role),
                badge_number=badge_number, password_hash=hash_password(password))
    db.session.add(user)
    db.session.flush()
    audit.record("user_created", "user", user.id, actor=actor, municipality_id=town.id,
                 after={"username": username, "name": user.name, "role": role,
                        "badge_number": badge_number})
    return user


def set_active(username: str, active: bool, actor=None) -> User:
    """Enable or disable an account; disabling ends all its sessions at once."""
    user = db.session.scalar(db.select(User).filter_by(username=username.strip().lower()))
    if user is None:
        raise ValidationFailed({"username": f"usuário desconhecido: {username!r}"})
    before = {"active": user.active}
    # one winner: of two deactivations at once, one finds the account as it read it
    done = db.session.execute(update(User).where(User.id == user.id, User.active == (not active))
                              .values(active=active).execution_options(synchronize_session=False))
    if done.rowcount != 1:
        raise Conflict({"user": f"a conta {user.username} já está "
                                f"{'ativa' if active else 'desativada'}"})
    db.session.refresh(user)
    if not active:
        end_all_sessions(user)
    audit.record("user_enabled" if active else "user_disabled", "user", user.id, actor=actor,
                 municipality_id=user.municipality_id, before=before, after={"active": active})
    return user


def set_password(username: str, password: str, actor=None) -> User:
    """Give an account a new password (the caller commits); its sessions end at once. The
    audit entry says that it changed, never the password or its hash."""
    user = db.session.scalar(db.select(User).filter_by(username=username.strip().lower()))
    if user is None:
        raise ValidationFailed({"username": f"usuário desconhecido: {username!r}"})
    if len(password) < MIN_PASSWORD:
        raise ValidationFailed({"password": f"a senha precisa de pelo menos {MIN_PASSWORD} "
                                            "caracteres"})
    user.password_hash = hash_password(password)
    end_all_sessions(user)
    audit.record("user_password_changed", "user", user.id, actor=actor,
                 municipality_id=user.municipality_id, after={"username": user.username})
    return user
