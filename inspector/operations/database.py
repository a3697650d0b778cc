"""One pt-BR line for a database that cannot be reached or named, wherever a command or a
start meets it: a wrong password, a missing database, a server that does not answer, a
malformed DATABASE_URL (the command line's guard, `inspector.cli.database_errors`; the
production start; create_app for a URL it cannot parse). The password is never shown.
"""
from __future__ import annotations

import re

from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import make_url

# What reaching the database can raise before any of our code has a say.
DATABASE_ERRORS = (sa_exc.OperationalError, sa_exc.InterfaceError, sa_exc.ArgumentError,
                     sa_exc.NoSuchModuleError, sa_exc.ProgrammingError)


def where(url) -> str:
    """The database a URL names, without its password: 'inspector@127.0.0.1:5432/town'
    or the SQLite file."""
    try:
        u = make_url(url) if isinstance(url, str) else url
    except (sa_exc.ArgumentError, ValueError):
        return "DATABASE_URL"
    if u.get_backend_name() == "sqlite":
        return f"o arquivo SQLite {u.database or '(memória)'}"
    host = u.host or "localhost"
    return f"{u.username or ''}{'@' if u.username else ''}{host}:{u.port or 5432}/{u.database or ''}"


def explain_database_error(error: BaseException, url=None) -> str | None:
    """The one line an operator needs for a database error (no traceback, no password);
    None for an error that is the program's own (a bug keeps its traceback)."""
    if isinstance(error, sa_exc.NoSuchModuleError):
        return ("DATABASE_URL com um banco que o programa não conhece: use "
                "postgresql+psycopg://USUÁRIO:SENHA@HOST:5432/BANCO ou sqlite:////caminho/arquivo")
    if isinstance(error, (sa_exc.ArgumentError, ValueError)):
        return ("DATABASE_URL malformada: o formato é "
                "postgresql+psycopg://USUÁRIO:SENHA@HOST:5432/BANCO (ou sqlite:////caminho/arquivo)")
    text = str(getattr(error, "orig", None) or error)
    place = where(url) if url is not None else "o banco de dados (DATABASE_URL)"
    if "password authentication failed" in text or "no password supplied" in text:
        return (f"o PostgreSQL recusou o usuário ou a senha de DATABASE_URL ({place}): "
                "confira a senha em DATABASE_URL")
    if m := re.search(r'database "([^"]+)" does not exist', text):
        return (f"o banco de dados \"{m.group(1)}\" não existe ({place}): crie-o "
                "(createdb -O USUÁRIO BANCO) ou corrija o nome em DATABASE_URL")
    if m := re.search(r'role "([^"]+)" does not exist', text):
        return (f"o usuário \"{m.group(1)}\" não existe no PostgreSQL ({place}): crie-o "
                "(createuser) ou corrija DATABASE_URL")
    if any(s in text for s in ("Connection refused", "could not connect", "timeout expired",
                               "Name or service not known", "could not translate host name",
                               "No route to host", "Network is unreachable")):
        return (f"o PostgreSQL não responde em {place}: confira se o serviço está rodando e o "
                "endereço e a porta em DATABASE_URL")
    if "unable to open database file" in text:
        return (f"não foi possível abrir {place}: a pasta não existe ou não tem permissão de "
                "escrita")
    if "does not exist" in text or "no such table" in text or "no such column" in text:
        first = text.strip().splitlines()[0][:160]
        return (f"o banco de dados não tem o esquema deste programa ({first}): rode "
                "`flask --app inspector db upgrade`")
    if isinstance(error, sa_exc.ProgrammingError):
        return None
    first = text.strip().splitlines()[0][:200] if text.strip() else type(error).__name__
    return f"banco de dados inacessível ({place}): {first}"
