"""The HTML forms that take free input, posted arbitrary text by the right role with the CSRF
token (forms half): the registry's create and edit forms, the review's
decisions (reject, amend, comment), the CSV import's upload, the passenger's report and the
admin's new-account form (/municipio/contas).

Property (Hypothesis): never a 5xx; a refusal (4xx) says what is wrong in Portuguese; and
after a refusal nothing is half-written: every table's row count, the edited row and the
audit log are as they were. Examples are bounded so the file runs in well under two minutes.
"""
from __future__ import annotations

import io
import re
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from sqlalchemy import func, select

from inspector.blueprints.registry.kinds import KINDS
from inspector.extensions import db, limiter
from inspector.models import Sanction
from tests import factories
from tests.support.credentials import regular_mototaxi
from tests.support.enforcement import acts, fleet, inspect

SETTINGS = settings(max_examples=30, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow, HealthCheck.data_too_large])

# free text as a person, a program or an attacker could type it
HOSTILE = st.one_of(
    st.text(max_size=40),
    st.text(alphabet=st.characters(codec="utf-8"), max_size=300),
    st.sampled_from(["", " ", "\x00", "a\x00b", "\r\n", "\t", "\u202e", "\ufeff", "😀" * 50,
                     "<script>alert(1)</script>", "' OR 1=1 --", "{{7*7}}", "%00", "../../etc"]),
    st.integers(min_value=-10**30, max_value=10**30).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(str),
    st.sampled_from(["1e400", "-0", "NaN", "2026-13-45", "9999-12-31", "0000-00-00",
                     "31/02/2026", "2026-02-30", "99/99/9999", "1" * 40]),
    st.builds(lambda c, n: c * n, st.sampled_from(["x", "é", "\x00", "9", " "]),
              st.integers(min_value=200, max_value=70_000)),
)
ENGLISH = ("Bad Request", "Not Found", "Internal Server Error", "The browser (or proxy)",
           "Method Not Allowed", "Traceback")
# words any Portuguese sentence of the app's messages has (and no English one does)
PT = re.compile(r"\b(?:não|já|de|da|do|das|dos|um|uma|para|com|use|este|esta|é|ou|até|no|na)\b")
_MESSAGE = re.compile(r'class="(?:field-error|error[^"]*|form-error)"|role="alert"|<h1>')
_TAG = re.compile(r"<[^>]*>")


def counts() -> dict[str, int]:
    """Rows in every table (inside an app context)."""
    return {t.name: db.session.scalar(select(func.count()).select_from(t))
            for t in db.metadata.sorted_tables}


def check_answer(r, before: dict, app, what: str) -> None:
    """No 5xx; a 4xx says what is wrong in Portuguese and left every table as it was."""
    assert r.status_code < 500, f"{what}: {r.status_code}"
    if 400 <= r.status_code < 500:
        body = r.get_data(as_text=True)
        for english in ENGLISH:
            assert english not in body, f"{what}: {english!r} in a {r.status_code}"
        # the text of each error element (and of the error page's heading)
        messages = " ".join(_TAG.sub(" ", body[m.end():m.end() + 600])
                            for m in _MESSAGE.finditer(body)).lower()
        assert PT.search(messages), \
            f"{what}: {r.status_code} without a Portuguese message: {messages[:300]!r}"
        with app.app_context():
            assert counts() == before, f"{what}: a refused form changed rows"


@pytest.fixture
def open_doors(app):
    """Rate limits off (thousands of posts would otherwise meet a 429 and prove nothing)."""
    app.config["REPORT_MIN_FILL_SECONDS"] = 0
    was = limiter.enabled
    limiter.enabled = False
    yield
    limiter.enabled = was


@pytest.fixture
def admin(app, make, open_doors):
    user = make(factories.user, "admin", "tapurah")
    client = app.test_client()
    assert client.login(user.username).status_code == 302
    return client


@pytest.fixture
def registry_rows(app):
    """One row of each registry kind in Tapurah: the edit forms' subjects."""
    with app.app_context():
        f = fleet("tapurah", "mototaxi")
        stand = factories.stand("tapurah")
        db.session.commit()
        policy = f["vehicle"].insurance_policies[0]
        return {"vehicle": f["vehicle"].id, "driver": f["driver"].id, "holder": f["holder"].id,
                "permit": f["permit"].id, "licence": f["licence"].id, "stand": stand.id,
                "insurance": policy.id}


def _form_of(kind, values: list[str]) -> dict[str, str]:
    names = [f.name for f in kind.fields if f.type != "file"]
    return {name: values[i % len(values)] for i, name in enumerate(names)}


@SETTINGS
@given(key=st.sampled_from(sorted(KINDS)), values=st.lists(HOSTILE, min_size=1, max_size=12),
       editing=st.booleans())
def test_registry_forms(app, admin, registry_rows, key, values, editing):
    kind = KINDS[key]
    ident = registry_rows.get(key)
    assume(not editing or ident is not None)
    url = f"/cadastro/{kind.slug}/{ident}/editar" if editing else f"/cadastro/{kind.slug}/novo"
    with app.app_context():
        before = counts()
        row_before = None
        if editing:
            row_before = repr(sorted((c.key, getattr(db.session.get(kind.model, ident), c.key))
                                     for c in kind.model.__table__.columns))
    r = admin.post_form(url, _form_of(kind, values), token_from="/inicio")
    check_answer(r, before, app, f"POST {url}")
    if editing and 400 <= r.status_code < 500:
        with app.app_context():
            row_after = repr(sorted((c.key, getattr(db.session.get(kind.model, ident), c.key))
                                    for c in kind.model.__table__.columns))
        assert row_after == row_before, f"POST {url}: a refused edit changed the row"


@pytest.fixture
def review_desk(app, open_doors):
    """A Tapurah moto-taxi, its agent, and a supervisor signed in; `new()` stores one more
    inspection with failed items, hence a proposed act still to decide."""
    with app.app_context():
        f = fleet("tapurah", "mototaxi")
        agent = factories.user("agent", "tapurah")
        sup = factories.user("supervisor", "tapurah")
        db.session.commit()
        vehicle_id, agent_id, username = f["vehicle"].id, agent.id, sup.username
    client = app.test_client()
    assert client.login(username).status_code == 302

    def new() -> tuple[int, int]:
        from inspector.models import User, Vehicle

        with app.app_context():
            finished = datetime.now(UTC) - timedelta(hours=2)
            insp = inspect(db.session.get(Vehicle, vehicle_id), db.session.get(User, agent_id),
                           {"mirrors": "fail"}, finished)
            db.session.commit()
            return insp.id, acts(insp)[0].id
    return {"client": client, "new": new}


@SETTINGS
@given(action=st.sampled_from(["rejeitar", "alterar", "comentar", "confirmar"]),
       reason=HOSTILE, option=HOSTILE, htmx=st.booleans())
def test_review_decisions(app, review_desk, action, reason, option, htmx):
    client = review_desk["client"]
    inspection, act = review_desk["new"]()
    url = (f"/revisao/vistorias/{inspection}/comentar" if action == "comentar"
           else f"/revisao/atos/{act}/{action}")
    data = {"reason": reason, "option": option, "comment": reason, "text": reason,
            "nota": reason, "motivo": reason}
    with app.app_context():
        before = counts()
        status_before = db.session.get(Sanction, act).status
    r = client.post_form(url, data, token_from="/revisao",
                         headers={"HX-Request": "true"} if htmx else {})
    check_answer(r, before, app, f"POST {url}")
    if 400 <= r.status_code < 500:
        with app.app_context():
            assert db.session.get(Sanction, act).status == status_before


@SETTINGS
@given(content=st.one_of(HOSTILE.map(lambda s: s.encode("utf-8", "surrogatepass")),
                         st.binary(max_size=2000),
                         st.lists(st.lists(HOSTILE, max_size=8), max_size=6).map(
                             lambda rows: "\n".join(";".join(r) for r in rows).encode(
                                 "utf-8", "surrogatepass"))),
       header=st.sampled_from(["", "tipo;placa;nome\n", "kind,plate,name\n"]),
       filename=st.sampled_from(["cadastro.csv", "x.txt", "", "../../a.csv", "\x00.csv"]),
       confirm=st.booleans())
def test_csv_import_upload(app, admin, content, header, filename, confirm):
    url = "/cadastro/importar/confirmar" if confirm else "/cadastro/importar"
    with app.app_context():
        before = counts()
    data = {"csrf_token": admin.csrf_token("/cadastro/importar"),
            "arquivo": (io.BytesIO(header.encode() + content), filename)}
    r = admin.post(url, data=data, content_type="multipart/form-data")
    assert r.status_code < 500, f"POST {url}: {r.status_code}"
    if 400 <= r.status_code < 500 or not confirm:
        # a refused upload, and every dry run, writes nothing
        check_answer(r, before, app, f"POST {url}")
        with app.app_context():
            assert counts() == before, f"POST {url}: the dry run or a refusal wrote rows"


@pytest.fixture
def credential_token(app, open_doors):
    from inspector.credentials import issuing

    with app.app_context():
        cred = issuing.issue(regular_mototaxi(), actor="test")
        db.session.commit()
        return cred.token


_STAMP = re.compile(r'name="t" value="([^"]+)"')
_CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')


@SETTINGS
@given(categoria=st.one_of(HOSTILE, st.sampled_from(["driving", "forged", "other"])),
       texto=HOSTILE, contato=HOSTILE, website=st.sampled_from(["", "x"]))
def test_passenger_report(app, client, credential_token, categoria, texto, contato, website):
    url = f"/v/{credential_token}/denunciar"
    page = client.get(url).get_data(as_text=True)
    data = {"csrf_token": _CSRF.search(page).group(1), "t": _STAMP.search(page).group(1),
            "categoria": categoria, "texto": texto, "contato": contato, "website": website}
    with app.app_context():
        before = counts()
    r = client.post(url, data=data, content_type="multipart/form-data")
    check_answer(r, before, app, f"POST {url}")


@SETTINGS
@given(name=HOSTILE, username=HOSTILE, badge=HOSTILE, password=HOSTILE,
       role=st.one_of(HOSTILE, st.sampled_from(["agent", "supervisor", "admin"])),
       mode=st.one_of(HOSTILE, st.sampled_from(["gerar", "digitar"])), same=st.booleans())
def test_new_account_form(app, admin, name, username, badge, password, role, mode, same):
    url = "/municipio/contas"
    data = {"name": name, "username": username, "badge_number": badge, "role": role,
            "password_mode": mode, "password": password,
            "password_confirm": password if same else password + "x"}
    with app.app_context():
        before = counts()
    r = admin.post_form(url, data, token_from=url)
    check_answer(r, before, app, f"POST {url}")
    if r.status_code == 201:   # only a well-formed request creates, and one account
        with app.app_context():
            assert counts()["users"] == before["users"] + 1
