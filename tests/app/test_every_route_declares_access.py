"""Walk the URL map: every route declares who may use it, and refuses everyone else.

A route without an access declaration fails the test, so a new view cannot be added
unprotected by accident.
"""
from __future__ import annotations

import uuid

import pytest
from flask import url_for

from inspector.extensions import db
from inspector.models import Role
from tests import factories
from tests.support.field_api import sha
from tests.support.town_rows import build, fingerprint

SKIP_ENDPOINTS = {"static"}
METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")


def _fill(rule) -> dict:
    """Values for a rule's arguments: id 1 (a row of the *other* town), or placeholders."""
    values = {}
    for name, conv in rule._converters.items():
        kind = type(conv).__name__
        if kind == "IntegerConverter":
            values[name] = 1
        elif kind == "UUIDConverter":
            values[name] = uuid.UUID(int=1)
        elif kind == "AnyConverter":
            values[name] = sorted(conv.items)[0]
        else:
            values[name] = "x"
    return values


def _routes(app) -> list:
    """(rule, view, method, url) for every route; built before any request is made."""
    out = []
    with app.test_request_context():
        for rule in app.url_map.iter_rules():
            if rule.endpoint in SKIP_ENDPOINTS:
                continue
            view = app.view_functions[rule.endpoint]
            url = url_for(rule.endpoint, **_fill(rule))
            for method in sorted(set(rule.methods) & set(METHODS)):
                out.append((rule, view, method, url))
    return out


def _request(client, method, url, token):
    return client.open(url, method=method, data={"csrf_token": token},
                       headers={"X-CSRFToken": token, "Accept": "text/html"})


def test_every_route_declares_its_access(app):
    missing = sorted({rule.rule for rule, view, _, _ in _routes(app)
                      if not hasattr(view, "access")})
    assert not missing, f"routes without @public/@login_required/@roles_required: {missing}"


def test_anonymous_requests_are_refused_on_every_private_route(app, client, registry_rows_in):
    registry_rows_in("sapezal")
    checked = 0
    for _rule, view, method, url in _routes(app):
        token = client.csrf_token("/entrar")  # fresh: /sair clears the session
        r = _request(client, method, url, token)
        assert r.status_code < 500, f"{method} {url} -> {r.status_code}"
        if getattr(view, "access", None) == "public":
            continue
        checked += 1
        if r.status_code == 302:
            assert "/entrar" in r.headers["Location"], f"{method} {url} redirects elsewhere"
        else:
            assert r.status_code == 401, f"{method} {url} answered {r.status_code} to anonymous"
    assert checked >= 3


@pytest.mark.parametrize("role", [r.value for r in Role])
def test_wrong_role_is_refused(app, make, registry_rows_in, role):
    registry_rows_in("sapezal")
    user = make(factories.user, role, "tapurah")
    client = app.test_client()
    assert client.login(user.username).status_code == 302
    token = client.csrf_token("/inicio")
    for _rule, view, method, url in _routes(app):
        access = getattr(view, "access", None)
        if not isinstance(access, tuple) or role in access:
            continue
        r = _request(client, method, url, token)
        assert r.status_code == 403, f"{role}: {method} {url} -> {r.status_code}"


@pytest.mark.parametrize("role", [r.value for r in Role])
def test_another_towns_rows_are_out_of_reach(app, make, registry_rows_in, role):
    """A Tapurah user asking for Sapezal's row #1 gets 403/404, never the row or a 5xx.

    A sweep with placeholder ids; every route with a row id is also tried on rows that
    exist, by test_another_towns_real_rows_answer_404_while_ours_answer."""
    registry_rows_in("sapezal")     # before the user: Sapezal holds id 1 of every table
    user = make(factories.user, role, "tapurah")
    client = app.test_client()
    client.login(user.username)
    token = client.csrf_token("/inicio")
    for rule, view, method, url in _routes(app):
        access = getattr(view, "access", None)
        if access == "public" or not any(
                type(c).__name__ == "IntegerConverter" for c in rule._converters.values()):
            continue
        if isinstance(access, tuple) and role not in access:
            continue
        r = _request(client, method, url, token)
        assert r.status_code in (403, 404), f"{role}: {method} {url} -> {r.status_code}"


# --- another town's real rows ----------------------------------------------------------------
# Which row a route's <int:ident> names, by the start of its rule (longest first). A route
# with an id, a UUID or a document number that is not here must be added (or listed in
# NOT_MAPPED with the reason) so that its town check is tried on a row that exists.
ROW_OF_PREFIX = [
    ("/revisao/atos/<int:ident>/pagamento", "fine_act"),
    ("/cadastro/veiculos/", "vehicle"), ("/cadastro/condutores/", "driver"),
    ("/cadastro/permissionarios/", "holder"), ("/cadastro/alvaras/", "licence"),
    ("/cadastro/permissoes/", "permit"), ("/cadastro/pontos/", "stand"),
    ("/cadastro/seguros/", "insurance"), ("/revisao/atos/", "act"),
    ("/revisao/recursos/", "appeal"), ("/revisao/fotos/", "photo"),
    ("/revisao/pagamentos/", "payment"), ("/revisao/vistorias/", "inspection"),
    ("/credenciais/", "credential"), ("/denuncias/", "report"),
    ("/conformidade/calendario/", "closure"), ("/municipio/contas/", "user"),
    ("/vistorias/agenda/", "appointment"), ("/vistorias/", "vistoria"),
]
# Routes with arguments that name no row: the printed sheet of one kind of credential is
# always the signed-in user's own town's (its argument is "vehicle", "rider" or "card"), and
# so is an export (its arguments are a dataset's name and "csv" or "xlsx").
NOT_MAPPED = ("/credenciais/folha/<sheet>.pdf", "/painel/exportar/<dataset>.<fmt>")
# The field API answers a PUT of a UUID another town holds as it answers any UUID taken
# with other content: 409, the stored inspection kept (field_api/openapi.py: "409").
OTHER_TOWN_STATUS = {("PUT", "/api/field/inspections/<uuid:inspection_id>"): 409}


def _row_values(rule, rows) -> dict | None:
    """The rule's arguments naming `rows` (a town_rows.TownRows); None when not mapped."""
    values = {}
    for name, conv in rule._converters.items():
        kind = type(conv).__name__
        if kind == "AnyConverter":
            values[name] = sorted(conv.items)[0]
        elif kind == "UUIDConverter":
            values[name] = uuid.UUID({"inspection_id": rows.inspection_uuid,
                                      "photo_id": rows.photo_uuid}[name])
        elif rule.rule.startswith("/documentos/") and name in ("town", "number"):
            values[name] = rows.slug if name == "town" else rows.notice_number
        elif kind == "IntegerConverter" and name == "vehicle_id":
            values[name] = rows.ids["vehicle"]
        elif kind == "IntegerConverter":
            key = next((k for prefix, k in ROW_OF_PREFIX if rule.rule.startswith(prefix)), None)
            if key is None:
                return None
            values[name] = rows.ids[key]
        else:
            return None
    return values


def _row_routes(app, rows) -> list:
    """(rule, view, method, url) of every private route with arguments, on `rows`."""
    out = []
    with app.test_request_context():
        for rule in app.url_map.iter_rules():
            view = app.view_functions[rule.endpoint]
            if rule.endpoint in SKIP_ENDPOINTS or not rule.arguments \
                    or getattr(view, "access", None) == "public":
                continue
            values = _row_values(rule, rows)
            if values is None:
                assert rule.rule in NOT_MAPPED, \
                    f"{rule.rule}: map its id to a row in ROW_OF_PREFIX (town_rows.build)"
                continue
            url = url_for(rule.endpoint, **values)
            for method in sorted(set(rule.methods) & set(METHODS)):
                out.append((rule, view, method, url))
    return out


def _send(client, method, rule, url, rows, token):
    """The request a phone or a browser would make on that route for `rows`."""
    if rule.rule.endswith("/photos/<uuid:photo_id>"):
        return client.put(url, data=rows.photo_bytes,
                          headers={"X-CSRFToken": token, "Content-Type": "image/jpeg",
                                   "X-Content-SHA256": sha(rows.photo_bytes)})
    if method == "PUT":
        return client.put(url, json=rows.inspection_body, headers={"X-CSRFToken": token})
    return _request(client, method, url, token)


@pytest.fixture
def two_towns(app):
    """Nortelândia's rows first (lower ids), then Tapurah's: acts, a fine and its payment, an
    appeal, inspections (one synced with a photo), issued documents, and the registry."""
    return {"other": build(app, "nortelandia"), "own": build(app, "tapurah")}


@pytest.mark.parametrize("role", [r.value for r in Role])
def test_another_towns_real_rows_answer_404_while_ours_answer(app, two_towns, role):
    """A Tapurah user asking for Nortelândia's existing act, appeal, photo, payment,
    inspection (by id and by the phone's UUID), document, registry row, QR credential or
    passenger report (and its photo) gets 404 (a PUT of
    its inspection's UUID: 409, nothing stored), and Nortelândia's rows stay as they were;
    the same requests on Tapurah's rows answer (so the 404 is the town check, not a
    missing row)."""
    own, other = two_towns["own"], two_towns["other"]
    before = fingerprint(app, other)
    client = app.test_client()
    assert client.login(own.users[role]).status_code == 302
    token = client.csrf_token("/inicio")
    tried = []
    for rule, view, method, url in _row_routes(app, other):
        access = getattr(view, "access", None)
        if isinstance(access, tuple) and role not in access:
            continue
        r = _send(client, method, rule, url, other, token)
        want = OTHER_TOWN_STATUS.get((method, rule.rule), 404)
        assert r.status_code == want, f"{role}: {method} {url} -> {r.status_code}"
        assert other.notice_number not in r.get_data(as_text=True), \
            f"{role}: {method} {url} shows the other town's notice number"
        tried.append((method, rule.rule))
    assert fingerprint(app, other) == before, f"{role}: another town's rows changed"
    # the same routes on our own rows: none is "not found"
    for rule, _view, method, url in _row_routes(app, own):
        if (method, rule.rule) not in tried:
            continue
        r = _send(client, method, rule, url, own, token)
        assert r.status_code < 500 and r.status_code not in (403, 404), \
            f"{role}: own row {method} {url} -> {r.status_code}"
    # the routes this test exists for were really tried, for each role that may use them
    must = {"supervisor": {"/revisao/atos/<int:ident>", "/revisao/recursos/<int:ident>/decidir",
                           "/revisao/fotos/<int:ident>/original",
                           "/revisao/pagamentos/<int:ident>/estorno",
                           "/revisao/vistorias/<int:ident>",
                           "/api/field/inspections/<uuid:inspection_id>",
                           "/documentos/<town>/<path:number>/pdf",
                           "/credenciais/<int:ident>", "/credenciais/<int:ident>/folha.pdf",
                           "/denuncias/<int:ident>", "/denuncias/<int:ident>/foto",
                           "/denuncias/<int:ident>/concluir"},
            "agent": {"/api/field/inspections/<uuid:inspection_id>",
                      "/api/field/inspections/<uuid:inspection_id>/photos/<uuid:photo_id>",
                      "/documentos/<town>/<path:number>/pdf"},
            "admin": {"/cadastro/condutores/<int:ident>", "/revisao/atos/<int:ident>/prefeito",
                      "/credenciais/<int:ident>/cancelar", "/credenciais/<int:ident>/reemitir",
                      "/denuncias/<int:ident>/concluir",
                      "/municipio/contas/<int:ident>/desativar"}}
    assert must[role] <= {r for _, r in tried}, must[role] - {r for _, r in tried}


def test_credentials_are_issued_only_for_rows_of_our_town(app, two_towns):
    """The issue form names its subject by id: a Tapurah admin posting Nortelândia's driver or
    vehicle id gets 404 and no credential is signed for it; our own driver's id issues one."""
    from inspector.models import Credential

    own, other = two_towns["own"], two_towns["other"]
    before = fingerprint(app, other)
    client = app.test_client()
    assert client.login(own.users["admin"]).status_code == 302

    def count(**where) -> int:
        with app.app_context():
            return db.session.query(Credential).filter_by(**where).count()
    for field in ("driver_id", "vehicle_id"):
        kind = field.removesuffix("_id")
        held = count(**{field: other.ids[kind]})
        r = client.post_form("/credenciais/emitir", {field: str(other.ids[kind])})
        assert r.status_code == 404, f"{field}: {r.status_code}"
        assert count(**{field: other.ids[kind]}) == held
    assert fingerprint(app, other) == before
    assert count(driver_id=own.ids["driver"]) == 0
    r = client.post_form("/credenciais/emitir", {"driver_id": str(own.ids["driver"])})
    assert r.status_code == 302 and count(driver_id=own.ids["driver"]) == 1
