"""The accounts of a town, created and deactivated by its admin in the browser: agents (each
with a badge number, printed on every notice as "Crachá / matrícula nº"; a law may ask for it,
as Tapurah Lei 406/2001 Art. 26 does, "agentes credenciados e identificados": the form cites
the town's own law where it does, `badge_law`), supervisors and admins. Holders have no
account: they open their page with an access code.

Readings: the password is either generated (shown once, never stored in clear nor logged)
or typed twice, with the rule of `flask users create` (accounts.MIN_PASSWORD characters); a
badge number is required of an agent and unique among the town's active accounts; an admin
cannot deactivate their own account (a town would be left without whoever can undo it).
The caller commits; every write has its audit entry (accounts.create_user, set_active).
"""
from __future__ import annotations

import re
import secrets
from collections.abc import Mapping

from sqlalchemy import select

from inspector.accounts import MIN_PASSWORD, create_user, set_active
from inspector.errors import Conflict, ValidationFailed
from inspector.extensions import db
from inspector.models import Municipality, Role, User
from inspector.registry import Fields

MAX_PASSWORD = 128
USERNAME = re.compile(r"[a-z0-9]+(?:[._-][a-z0-9]+)*")
# letters of Portuguese names (accents included), spaces, apostrophe, hyphen, dot
NAME = re.compile(r"[A-Za-zÀ-ÖØ-öø-ÿ'’.\- ]+")
BADGE = re.compile(r"[A-Za-z0-9][A-Za-z0-9./ -]*")
ROLES = {r.value: r for r in Role}
PASSWORD_MODES = ("gerar", "digitar")


BADGE_WORDS = "credenciados e identificados"   # what a law says when it asks for agents' IDs


def badge_law(town: Municipality) -> str | None:
    """The article of the town's own law that asks for identified agents, as a citation
    ("Tapurah, Lei 406/2001, Art. 26"), or None when none of its laws says so."""
    from inspector import rules

    for pack in rules.packs_for_town(town.slug):
        text = rules.law_text(pack.law_slug)
        for unit in text.articles if text else ():
            if BADGE_WORDS in " ".join(unit.text.split()).casefold():
                return f"{town.name}, {pack.law}, {unit.label}"
    return None


def badge_reason(town: Municipality) -> str:
    """Why an agent needs a badge number, in this town's terms."""
    law = badge_law(town)
    return (f"a lei pede agentes credenciados e identificados ({law}), e o número sai em cada "
            "notificação") if law else "o número sai em cada notificação"


def accounts_of(town: Municipality) -> list[User]:
    """The town's accounts: active first, then by role and name."""
    order = {Role.ADMIN: 0, Role.SUPERVISOR: 1, Role.AGENT: 2}
    users = db.session.scalars(select(User).where(User.municipality_id == town.id)).all()
    return sorted(users, key=lambda u: (not u.active, order[u.role], u.name.casefold()))


def create_account(town: Municipality, data: Mapping[str, str], actor) -> tuple[User, str | None]:
    """An account of `town` from the form (the caller commits): the user and, when the
    password was generated, that password (to be shown once). ValidationFailed naming each
    field that will not do; nothing written then."""
    f = Fields(data)
    name = f.text("name", max_len=120)
    if name and not NAME.fullmatch(name):
        f.fail("name", "use só letras, espaços, apóstrofo, hífen e ponto")
    elif name and len(name.split()) < 2:
        f.fail("name", "informe o nome completo (nome e sobrenome)")
    username = f.text("username", max_len=40).lower()
    if username and (len(username) < 3 or not USERNAME.fullmatch(username)):
        f.fail("username", "de 3 a 40 letras sem acento, números, ponto, hífen ou sublinhado "
                           "(ex.: maria.silva)")
    elif username and db.session.scalar(select(User.id).where(User.username == username)):
        f.fail("username", f"o usuário “{username}” já existe: escolha outro")
    role = f.raw("role")
    if role not in ROLES:
        f.fail("role", "escolha o perfil: agente, supervisor(a) ou administrador(a)")
    badge = f.text("badge_number", required=False, max_len=30)
    if badge and not BADGE.fullmatch(badge):
        f.fail("badge_number", "use letras, números, ponto, barra ou hífen (ex.: 0123/2026)")
    elif role == Role.AGENT.value and not badge:
        f.fail("badge_number", "o agente precisa do número do crachá ou matrícula: "
                               + badge_reason(town))
    elif badge and db.session.scalar(select(User.id).where(
            User.municipality_id == town.id, User.badge_number == badge, User.active.is_(True))):
        f.fail("badge_number", f"o crachá {badge} já é de outra conta ativa do município")
    mode = f.raw("password_mode") or "gerar"
    password = generated = None
    if mode not in PASSWORD_MODES:
        f.fail("password_mode", "escolha gerar uma senha ou digitá-la")
    elif mode == "gerar":
        password = generated = secrets.token_urlsafe(12)
    else:
        typed = str(data.get("password") or "")
        if len(typed) < MIN_PASSWORD:
            f.fail("password", f"a senha precisa de pelo menos {MIN_PASSWORD} caracteres")
        elif len(typed) > MAX_PASSWORD:
            f.fail("password", f"senha longa demais (máximo {MAX_PASSWORD} caracteres)")
        elif typed.strip() != typed or not typed.isprintable():
            f.fail("password", "a senha não pode começar ou terminar com espaço nem ter "
                               "caracteres de controle")
        elif typed != str(data.get("password_confirm") or ""):
            f.fail("password_confirm", "as duas senhas não são iguais")
        else:
            password = typed
    if f.errors:
        raise ValidationFailed(f.errors)
    user = create_user(town_slug=town.slug, username=username, name=name, role=role,
                       password=password, badge_number=badge, actor=actor)
    return user, generated


def deactivate(town: Municipality, user: User, actor) -> User:
    """End an account of the town: it can no longer sign in, its sessions end at once (the
    caller commits). An admin's own account is refused."""
    if user.municipality_id != town.id:  # the view found it in the town already
        raise ValidationFailed({"user": "conta de outro município"})
    if getattr(actor, "id", None) == user.id:
        raise ValidationFailed({"user": "você não pode desativar a própria conta: peça a outro(a) "
                                        "administrador(a)"})
    if not user.active:
        raise Conflict({"user": f"a conta {user.username} já está desativada"})
    return set_active(user.username, False, actor=actor)
