"""Create and manage accounts."""
from __future__ import annotations

from sqlalchemy import update

from inspector import audit
from inspector.errors import Conflict, ValidationFailed
from inspector.extensions import db
from inspector.models import Municipality, Role, User
from inspector.security import end_all_sessions, hash_password

MIN_PASSWORD = 10
# the demo towns' one password (inspector/demo): refused for a real town's accounts
DEMO_PASSWORD = "vistoria-demo"
# Passwords of MIN_PASSWORD characters or more that are still the first ones tried (lists of
# leaked passwords, Portuguese and English, and words of this product); compared lowercased.
COMMON_PASSWORDS = frozenset({
    "0123456789", "1234567890", "12345678910", "1234567891", "0987654321", "1111111111",
    "0000000000", "123456789a", "a123456789", "abc1234567", "abcdef1234", "1q2w3e4r5t",
    "q1w2e3r4t5", "qwertyuiop", "qwerty1234", "1qaz2wsx3edc", "password123", "password1234",
    "iloveyou12", "senha12345", "senha123456", "senhasenha", "minhasenha", "mudar12345",
    "trocar1234", "trocarsenha", "mudarsenha", "admin12345", "administrador", "prefeitura",
    "fiscalizacao", "fiscalização", "inspector1", "inspector123", "vistoria123",
    "brasil1234", "matogrosso", "mototaxi123", "taxitaxi12",
})


def production() -> bool:
    """Whether this app serves a real town (INSPECTOR_ENV=production)."""
    from flask import current_app, has_app_context

    return has_app_context() and current_app.config.get("INSPECTOR_ENV") == "production"


def password_problem(password: str, username: str = "") -> str | None:
    """Why a new password will not do, in pt-BR, or None. Too short always; in production
    also the demo password and a common or guessable one (the username, one repeated
    character, COMMON_PASSWORDS)."""
    from inspector.config import DEMO_PASSWORD

    if len(password) < MIN_PASSWORD:
        return f"a senha precisa de pelo menos {MIN_PASSWORD} caracteres"
    if not production():
        return None
    if password == DEMO_PASSWORD:
        return "a senha de demonstração não pode ser usada num município real: escolha outra"
    folded = password.casefold()
    if folded in COMMON_PASSWORDS or len(set(folded)) <= 2 or \
            (len(username) >= 4 and username.casefold() in folded):
        return ("senha fraca: é das primeiras que alguém tentaria (comum, repetida ou com o "
                "nome do usuário); escolha outra, por exemplo três palavras soltas")
    return None


def create_user(*, town_slug: str, username: str, name: str, role: str, password: str,
                badge_number: str = "", actor=None, must_change_password: bool = True) -> User:
    """Create a user of one town with one role (the caller commits). The password was
    chosen by someone else (an admin, an operator): the holder must change it at the first
    sign-in, unless `must_change_password=False` (the demo's accounts)."""
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
    if problem := password_problem(password, username):
        errors["password"] = problem
    if errors:
        raise ValidationFailed(errors)
    user = User(municipality_id=town.id, username=username, name=name.strip(), role=Role(role),
                badge_number=badge_number, password_hash=hash_password(password),
                must_change_password=must_change_password)
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


def set_password(username: str, password: str, actor=None, must_change: bool = True) -> User:
    """Give an account a new password (the caller commits); its sessions end at once. A
    password someone else chose (`must_change`, an operator's reset) must be replaced by the
    holder's own at the next sign-in. The audit entry says that it changed, never the
    password or its hash."""
    user = db.session.scalar(db.select(User).filter_by(username=username.strip().lower()))
    if user is None:
        raise ValidationFailed({"username": f"usuário desconhecido: {username!r}"})
    if problem := password_problem(password, user.username):
        raise ValidationFailed({"password": problem})
    user.password_hash = hash_password(password)
    user.must_change_password = must_change
    end_all_sessions(user)
    audit.record("user_password_changed", "user", user.id, actor=actor,
                 municipality_id=user.municipality_id,
                 after={"username": user.username, "must_change_password": must_change})
    return user
