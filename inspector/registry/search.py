"""Search a town's registry for the list pages (search as you type) and the benchmark.

Every function returns at most `limit` rows of one town from `offset`, in a stable
order, with what a list row shows already loaded (no query per row).
"""
from __future__ import annotations

import functools
import re
import unicodedata

from sqlalchemy import and_, bindparam, case, false, func, not_, or_, select, union
from sqlalchemy.orm import joinedload, selectinload

from inspector.extensions import db
from inspector.models import Driver, Holder, Licence, Permit, Stand, Vehicle, fold_name

# Plates hold only these characters; digits sort before letters under every collation
# we run on (C, and the primary level of pt_BR / en_US), which the plate range relies on.
_ALNUM = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
# The start of a plate as it is typed: ABC, ABC1, ABC1D, ABC1D2, ABC1234...
_PLATE_START = re.compile(r"^[A-Z]{1,3}$|^[A-Z]{3}[0-9]([A-Z0-9][0-9]{0,2})?$")


def _clean(q: str | None) -> str:
    return re.sub(r"\s+", " ", q or "").strip()[:100]


def _key(q: str) -> str:
    """Letters and digits only, upper case, no accents: ' abc-1d ' -> 'ABC1D'."""
    plain = unicodedata.normalize("NFKD", q).encode("ascii", "ignore").decode()
    return re.sub(r"[^A-Z0-9]", "", plain.upper())


def _contains(column, q: str):
    """Case-insensitive substring match with LIKE wildcards in `q` taken literally."""
    return func.lower(column).contains(q.lower(), autoescape=True)


def _name_contains(model, q: str):
    """The folded name contains the folded query: 'joao' finds 'João' on every engine."""
    return model.name_folded.contains(fold_name(q), autoescape=True)


def _successor(key: str) -> str | None:
    """The smallest alphanumeric string after every string that starts with `key`."""
    chars = list(key)
    while chars:
        i = _ALNUM.find(chars[-1])
        if 0 <= i < len(_ALNUM) - 1:
            chars[-1] = _ALNUM[i + 1]
            return "".join(chars)
        chars.pop()
    return None


def _page(query, limit: int, offset: int) -> list:
    return list(db.session.scalars(query.limit(max(0, limit)).offset(max(0, offset))).unique())


def _vehicle_rows():
    """Vehicles with what a list row shows (holder, stand, licences)."""
    return select(Vehicle).options(joinedload(Vehicle.holder), joinedload(Vehicle.stand),
                                   joinedload(Vehicle.licences))


# The plate search's statements are built once per shape, with bound values, as
# `_others_statement`: building one anew (its eager loads' cache key) cost ~0.5 ms, a
# seventh of a search as the plate is typed, measured in one process.
# bench/caches.py: with the two below, a plate search is 5.8x (500 vehicles) to 14x (20) slower without
@functools.cache
def _plate_page_statement(by_key: bool, upper: bool):
    query = _vehicle_rows().where(Vehicle.municipality_id == bindparam("town"))
    if by_key:
        query = query.where(_prefix_range(Vehicle.plate, upper))
    return query.order_by(Vehicle.plate).limit(bindparam("lim")).offset(bindparam("off"))


@functools.cache
def _plate_count_statement(upper: bool):
    return select(func.count()).select_from(Vehicle).where(
        Vehicle.municipality_id == bindparam("town"), _prefix_range(Vehicle.plate, upper))


@functools.cache
def _vehicles_by_id_statement():
    return _vehicle_rows().where(Vehicle.id.in_(bindparam("ids", expanding=True)))


def search_vehicles(town_id: int, q: str | None, *, limit: int = 50, offset: int = 0) -> list[Vehicle]:
    """Vehicles whose plate starts with the query (first, by plate), then those whose
    prefix number starts with it (by prefix in natural order, TMT01, TMT03, TMT10, as the
    field app lists them), then those whose plate contains it or (for a word) whose holder's
    name or make/model contains it (by plate)."""
    q = _clean(q)
    key = _key(q)
    upper = _successor(key) if key else None
    page = {"town": town_id, "key": key, "key_like": _escape(key) + "%", "upper": upper,
            "lim": max(0, limit), "off": max(0, offset)}
    if not q:
        return list(db.session.scalars(_plate_page_statement(False, False), page).unique())
    rows: list[Vehicle] = []
    if key:
        # Plate prefix first: an index range scan, the common case while typing a plate.
        rows = list(db.session.scalars(_plate_page_statement(True, upper is not None),
                                       page).unique())
        if len(rows) >= limit:
            return rows
    found = _other_vehicle_matches(town_id, q, key)
    if found is None:
        return rows
    others, params = found
    if rows or offset == 0 or not key:
        before = offset + len(rows)
    else:
        before = db.session.scalar(_plate_count_statement(upper is not None), page)
    # Pick the page's ids from the (usually few) candidates, then load just those rows.
    ids = list(db.session.scalars(others, {
        **params, "lim": max(0, limit - len(rows)),
        "off": max(0, offset + len(rows) - before)}))
    if not ids:
        return rows
    loaded = {v.id: v for v in db.session.scalars(_vehicles_by_id_statement(),
                                                  {"ids": ids}).unique()}
    return rows + [loaded[i] for i in ids]


def _escape(text: str) -> str:
    """`text` taken literally inside a LIKE pattern whose escape character is "/"."""
    return text.replace("/", "//").replace("%", "/%").replace("_", "/_")


def _prefix_range(column, upper: bool):
    """`column` starts with :key (an index range), as `_starts_with` with bound values."""
    cond = [column >= bindparam("key"), column.like(bindparam("key_like"), escape="/")]
    if upper:
        cond.append(column < bindparam("upper"))
    return and_(*cond)


def _prefix_first(others, upper: bool) -> tuple:
    """ORDER BY for the other matches: prefixes starting with the query first, in natural
    order (TMT2 before TMT10, TX09 before TX010: the letters, then the number's value, as
    the field app's `localeCompare(..., {numeric: true})`), then the rest by plate."""
    prefix = others.c.prefix
    hit = _prefix_range(prefix, upper)
    head = func.rtrim(prefix, "0123456789")                      # TMT06 -> TMT
    number = func.ltrim(func.substr(prefix, func.length(head) + 1), "0")  # -> 6
    return (case((hit, 0), else_=1), case((hit, head), else_=""),
            case((hit, func.length(number)), else_=0), case((hit, number), else_=""),
            case((hit, prefix), else_=""), others.c.plate)


def _other_vehicle_matches(town_id: int, q: str, key: str):
    """The ids of vehicles matching other than by plate prefix, in the list's order, as a
    statement with its parameters (:lim and :off still to give); None if none can match.

    Each part is answered by an index where one exists. A query shaped like the start of
    a plate (ABC, ABC1, ABC1D2) is taken as one: the plate index answered it already, and
    plates are typed from the start. Anything else (1D23, a final digit group) is looked
    for inside plates too. Names and models cost a scan, so they are searched only for
    something that looks like a word (four letters or more, or a space).
    The statement is built once per shape (which parts, whether the key has a successor)
    with bound values: building it anew cost more than running it (0.6 ms a search).
    """
    inside = bool(key) and not _PLATE_START.match(key)
    letters = sum(c.isalpha() for c in q)
    words = bool((" " in q and letters) or (letters >= 4 and not _PLATE_START.match(key)))
    if not key and not words:
        return None
    upper = _successor(key) if key else None
    params = {"town": town_id, "key": key, "key_like": _escape(key) + "%", "upper": upper,
              "inside": "%" + _escape(key) + "%", "model": "%" + _escape(q.lower()) + "%",
              "name": "%" + _escape(fold_name(q)) + "%"}
    return _others_statement(bool(key), inside, words, upper is not None), params


# bench/caches.py: building it anew costs 1.3-9.4 ms a plate search
@functools.lru_cache(maxsize=16)
def _others_statement(by_key: bool, inside: bool, words: bool, upper: bool):
    town = Vehicle.municipality_id == bindparam("town")
    columns = (Vehicle.id, Vehicle.plate, Vehicle.prefix)
    parts = []
    if inside:
        parts.append(select(*columns).where(
            town, Vehicle.plate.like(bindparam("inside"), escape="/")))
    if by_key:
        # Prefix numbers are digits (Nova Santa Helena Lei 535/2013 Art. 13 IX) or a
        # company's code shaped like the start of a plate (TMT01, AMS03: the motorcycle's
        # number in the company, Tapurah Lei 406/2001 Art. 22 II); an index range either way.
        parts.append(select(*columns).where(town, _prefix_range(Vehicle.prefix, upper)))
    if words:
        parts.append(select(*columns).where(
            town, func.lower(Vehicle.make_model).like(bindparam("model"), escape="/")))
        parts.append(select(*columns).where(town, Vehicle.holder_id.in_(
            select(Holder.id).where(Holder.municipality_id == bindparam("town"),
                                    Holder.name_folded.like(bindparam("name"), escape="/")))))
    others = (parts[0] if len(parts) == 1 else union(*parts)).subquery()
    skip = _prefix_range(others.c.plate, upper) if by_key else false()
    order = _prefix_first(others, upper) if by_key else (others.c.plate,)
    return (select(others.c.id).where(not_(skip)).order_by(*order)
            .limit(bindparam("lim")).offset(bindparam("off")))


def search_holders(town_id: int, q: str | None, *, limit: int = 50, offset: int = 0) -> list[Holder]:
    """Holders by name (accents and case ignored) or CPF/CNPJ (digits, formatted or not);
    in alphabetical order, accents and case ignored ('Álvaro' among the A's)."""
    q = _clean(q)
    query = select(Holder).where(Holder.municipality_id == town_id)
    if q:
        cond = [_name_contains(Holder, q)]
        digits = re.sub(r"\D", "", q)
        if len(digits) >= 3:
            cond.append(Holder.tax_id.startswith(digits, autoescape=True))
        query = query.where(or_(*cond))
    return _page(query.order_by(Holder.name_folded, Holder.name, Holder.id), limit, offset)


def search_drivers(town_id: int, q: str | None, *, limit: int = 50, offset: int = 0) -> list[Driver]:
    """Drivers by name (accents and case ignored), CPF, CNH or registration number; in
    alphabetical order, accents and case ignored."""
    q = _clean(q)
    query = (select(Driver).where(Driver.municipality_id == town_id)
             .options(joinedload(Driver.holder), selectinload(Driver.vehicles)))
    if q:
        cond = [_name_contains(Driver, q), _contains(Driver.registration_number, q)]
        digits = re.sub(r"\D", "", q)
        if len(digits) >= 3:
            cond += [Driver.cpf.startswith(digits, autoescape=True),
                     Driver.cnh_number.startswith(digits, autoescape=True)]
        query = query.where(or_(*cond))
    return _page(query.order_by(Driver.name_folded, Driver.name, Driver.id), limit, offset)


def search_licences(town_id: int, q: str | None, *, limit: int = 50, offset: int = 0) -> list[Licence]:
    """Licences by number or vehicle plate; newest validity first."""
    q = _clean(q)
    query = (select(Licence).join(Licence.vehicle).where(Licence.municipality_id == town_id)
             .options(joinedload(Licence.vehicle).joinedload(Vehicle.holder),
                      joinedload(Licence.permit)))
    if q:
        cond = [_contains(Licence.number, q)]
        if _key(q):
            cond.append(Vehicle.plate.contains(_key(q), autoescape=True))
        query = query.where(or_(*cond))
    return _page(query.order_by(Licence.valid_until.desc(), Licence.number), limit, offset)


def search_permits(town_id: int, q: str | None, *, limit: int = 50, offset: int = 0) -> list[Permit]:
    """Permits by number or holder's name; ordered by number."""
    q = _clean(q)
    query = (select(Permit).join(Permit.holder).where(Permit.municipality_id == town_id)
             .options(joinedload(Permit.holder)))
    if q:
        query = query.where(or_(_contains(Permit.number, q), _name_contains(Holder, q)))
    return _page(query.order_by(Permit.number), limit, offset)


def search_stands(town_id: int, q: str | None, *, limit: int = 50, offset: int = 0) -> list[Stand]:
    """Stands by code or place; ordered by code."""
    q = _clean(q)
    query = select(Stand).where(Stand.municipality_id == town_id)
    if q:
        query = query.where(or_(_contains(Stand.code, q), _contains(Stand.place, q)))
    return _page(query.order_by(Stand.code), limit, offset)
