"""Legal documents: the notice PDF (article, quoted text, photo hashes, deadline,
appeal, agent, "ciente", QR), the public authenticity page and the town-scoped download.
Runs on SQLite and PostgreSQL (DATABASE_URL)."""
from __future__ import annotations

import hashlib
import re
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import delete, select

from inspector import audit, enforcement
from inspector.documents import issuing
from inspector.enforcement.pending import on_inspection_complete
from inspector.extensions import db
from inspector.models import (
    AuditEntry,
    Inspection,
    InspectionItem,
    InspectionStatus,
    ItemResult,
    Notice,
    NoticeDocument,
    Sanction,
    User,
)
from inspector.rules import law_text
from inspector.rules.engine import checklist
from tests import factories
from tests.support.documents import pdf_text, qr_codes, rasterise, stored_document
from tests.support.enforcement import enforcement_worker
from tests.support.field_api import Api, body, jpeg, png_signature, sha
from tests.support.instants import (
    CUIABA,
)

RIDER = "Carlos Alberto Motoqueiro"
BASE = "https://fiscaliza.tapurah.example.gov.br"
_HIDDEN_TOKEN = re.compile(r'name="csrf_token" value="([^"]+)"')


def _moto(town: str):
    h = factories.holder(town, company=True, name="Moto Rápida Ltda")
    factories.permit(h)
    v = factories.vehicle(town, "mototaxi", holder=h, plate="QBA1C23", prefix="0107")
    d = factories.driver(town, "mototaxista", holder=h, name=RIDER)
    d.vehicles.append(v)
    factories.licence(v)
    factories.insurance(v)
    return v


def issue(app, make, town: str = "tapurah") -> dict:
    """An agent syncs a moto-taxi inspection with two photos of a missing mirror, signed
    "ciente" by the rider; a supervisor confirms the proposed notice."""
    app.config["PUBLIC_BASE_URL"] = BASE
    agent = make(factories.user, "agent", town, name="Joana Fiscal da Silva",
                 badge_number="AG-0042")
    sup = make(factories.user, "supervisor", town)
    v = make(_moto, town)
    photos = [jpeg(1, size=(640, 480)), jpeg(2, size=(480, 640))]
    client = app.test_client()
    assert client.login(agent.username).status_code == 302
    api = Api(client)
    iid = str(uuid.uuid4())
    b = body(v.id, ok=("general-condition", "tank-sign"), fail={"mirrors": photos},
             acknowledgement={"name": RIDER, "signature_png": png_signature()})
    b["items"][-1]["note"] = "Sem o retrovisor esquerdo"
    assert api.put_inspection(iid, b).status_code == 201
    for decl, data in zip(b["items"][-1]["photos"], photos):
        assert api.put_photo(iid, decl["id"], data).status_code in (200, 201)
    enforcement_worker(app)  # the tick after the sync proposes
    with app.app_context():
        act = db.session.scalar(select(Sanction).where(Sanction.kind == "notice",
                                                       Sanction.municipality_id == v.municipality_id))
        decision = enforcement.confirm(act, db.session.get(User, sup.id), datetime.now(UTC))
        db.session.commit()
        return {"number": decision.notice.number, "code": decision.access_code,
                "notice_id": decision.notice.id, "act_id": act.id, "agent": agent, "sup": sup,
                "hashes": [sha(p) for p in photos], "town": town}


def one_line(text: str) -> str:
    return " ".join(text.replace("\ufffe", "-").split())


def local(moment: datetime) -> str:
    return moment.replace(tzinfo=UTC).astimezone(CUIABA).strftime("%d/%m/%Y às %H:%M") \
        if moment.tzinfo is None else moment.astimezone(CUIABA).strftime("%d/%m/%Y às %H:%M")


def qr_urls(pdf: bytes, tmp_path: Path) -> list[str]:
    return qr_codes(rasterise(pdf, tmp_path, 150, pages=1))


# --------------------------------------------------------------------------- the PDF
def test_tapurah_notice_pdf_cites_the_law_and_carries_the_evidence(app, make, tmp_path):
    out = issue(app, make)
    doc = stored_document(app, out["notice_id"])
    assert doc.version == 1 and doc.sha256 == hashlib.sha256(doc.pdf).hexdigest()
    assert doc.pdf.startswith(b"%PDF")
    text = pdf_text(doc.pdf, tmp_path)
    tapurah = law_text("tapurah-lei-406-2001-mototaxi")

    assert f"NOTIFICAÇÃO Nº {out['number']}" in text
    assert "PREFEITURA MUNICIPAL DE TAPURAH" in text and "Lei 406/2001" in text
    # the facts
    for fact in ("QBA1C23", "prefixo 0107", "Moto Rápida Ltda", RIDER, "Dois retrovisores",
                 "NÃO CONFORME", "Sem o retrovisor esquerdo"):
        assert fact in text, fact
    # the item's own article, quoted from the law text, and the notice's articles
    assert "Lei 406/2001, Art. 15 “" in text
    assert one_line(tapurah.unit("art-15").text) in text
    assert "Lei 406/2001, Art. 27, I “" in text
    assert "Lei 406/2001, Art. 29, parágrafo único “" in text
    assert one_line(tapurah.unit("art-29-pu").text) in text  # "converter-se-á em multa diária"
    assert "converter-se-á em multa diária" in text
    # the evidence: every photo's SHA-256
    for h in out["hashes"]:
        assert h in text
    with app.app_context():
        act = db.session.get(Sanction, out["act_id"])
        notice = db.session.get(Notice, out["notice_id"])
        deadline, notified, until = act.deadline_at, act.notified_at, act.appeal_until
        assert enforcement.check_access_code(notice, out["code"])  # the printed code works
    # the deadline (72 h from the "ciente"), and what it turns into: 60 % of R$ 1.621,00
    assert local(deadline) == local(notified + timedelta(hours=72))
    assert f"Vence em {local(deadline)}" in text and "72 horas" in text
    assert "60% do salário mínimo por dia" in text and "R$ 972,60 por dia" in text
    # the appeal: 8 days, to the Secretaria, Art. 30 quoted
    assert "8 dias a contar da ciência" in text and until.strftime("%d/%m/%Y") in text
    assert "Lei 406/2001, Art. 30 “" in text and "08 (oito) dias" in text
    # the agent (Art. 26: credentialed and identified) and the rider's "ciente"
    assert "Joana Fiscal da Silva" in text and "AG-0042" in text
    assert f"Ciente do condutor Nome {RIDER}" in text
    # the QR leads to the authenticity page; the holder's access code is printed
    url = f"{BASE}/documentos/tapurah/{out['number']}"
    assert qr_urls(doc.pdf, tmp_path) == [url]
    assert url in text and out["code"] in text


def test_the_document_is_made_once_and_rendering_is_reproducible(app, make):
    out = issue(app, make)
    with app.app_context():
        notice = db.session.get(Notice, out["notice_id"])
        again = issuing.issue_document(notice, "OUTRO-CODIGO")
        assert again.version == 1  # issuing twice keeps the first document
        first = issuing.render_notice_pdf(notice, out["code"])
        assert issuing.render_notice_pdf(notice, out["code"]) == first
        assert db.session.scalar(select(db.func.count(NoticeDocument.id))) == 1


def test_the_issued_document_prints_the_audit_log_tail_and_witnesses_a_truncation(
        app, make, runner, tmp_path):
    out = issue(app, make)
    doc = stored_document(app, out["notice_id"])
    text = pdf_text(doc.pdf, tmp_path)
    with app.app_context():
        own = db.session.scalar(select(AuditEntry).where(
            AuditEntry.action == "notice_document_issued",
            AuditEntry.entity_id == str(out["notice_id"])))
        number = int(re.search(r"terminava na entrada nº (\d+)", text).group(1))
        before = db.session.scalar(select(AuditEntry).where(AuditEntry.seq == number))
        # the chain's last committed entry when the PDF was made: its own transaction's
        # entries (the document's issuance among them) are chained after it, at the commit
        printed = (before.seq, before.hash)
        assert before.seq < own.seq
    assert printed[1] in text
    expect = f"--expect={printed[0]}:{printed[1]}"
    ok = runner.invoke(args=["audit", "verify", expect])
    assert ok.exit_code == 0 and "entries printed on documents are there" in ok.output
    with app.app_context():   # someone deletes the log's tail, the document's entry included
        db.session.execute(delete(AuditEntry).where(AuditEntry.seq >= printed[0]))
        db.session.commit()
    assert runner.invoke(args=["audit", "verify"]).exit_code == 0  # the chain alone holds...
    cut = runner.invoke(args=["audit", "verify", expect])            # ...the paper does not
    assert cut.exit_code == 1
    assert f"entry #{printed[0]} is missing: the log was truncated" in cut.output
    bad = runner.invoke(args=["audit", "verify", "--expect", "12:abc"])
    assert bad.exit_code == 2 and "NÚMERO:SHA256" in bad.output
    bad = runner.invoke(args=["audit", "verify", "--expect", f"²:{printed[1]}"])
    assert bad.exit_code == 2 and "NÚMERO:SHA256" in bad.output


# --------------------------------------------------------------------------- public page
def test_authenticity_page_shows_the_hash_and_status_and_nothing_personal(app, make, client):
    out = issue(app, make)
    doc = stored_document(app, out["notice_id"])
    r = client.get(f"/documentos/tapurah/{out['number']}")
    assert r.status_code == 200 and r.headers["Cache-Control"] == "no-store"
    page = r.get_data(as_text=True)
    assert doc.sha256 in page and out["number"] in page and "Notificação" in page
    assert "Tapurah" in page and '<dd id="situacao">Em vigor</dd>' in page
    for private in (RIDER, "QBA1C23", "Moto Rápida", "Joana Fiscal", "AG-0042", out["code"]):
        assert private not in page, private

    with app.app_context():  # the rider appeals on day 2: the page says so
        act = db.session.get(Sanction, out["act_id"])
        enforcement.file_appeal(act, filed_on=(act.notified_at.replace(tzinfo=UTC)
                                               .astimezone(CUIABA).date() + timedelta(days=1)),
                                filed_by=RIDER, filed_by_role="driver",
                                text_="O retrovisor foi trocado no mesmo dia.",
                                user=db.session.get(User, out["sup"].id),
                                now=datetime.now(UTC) + timedelta(days=1))
        db.session.commit()
    page = client.get(f"/documentos/tapurah/{out['number']}").get_data(as_text=True)
    assert '<dd id="situacao">Em recurso (aguarda decisão)' in page

    missing = client.get("/documentos/tapurah/NOT-1999/000001")
    assert missing.status_code == 404 and "não encontrado" in missing.get_data(as_text=True)
    other_town = client.get(f"/documentos/sapezal/{out['number']}")
    assert other_town.status_code == 404


def test_a_copy_is_checked_against_the_stored_hash(app, make, client):
    out = issue(app, make)
    doc = stored_document(app, out["notice_id"])
    path = f"/documentos/tapurah/{out['number']}"
    token = _HIDDEN_TOKEN.search(client.get(path).get_data(as_text=True)).group(1)

    def check(data: bytes):
        from io import BytesIO
        return client.post(path + "/conferir", data={"csrf_token": token,
                                                     "arquivo": (BytesIO(data), "n.pdf")},
                           content_type="multipart/form-data")

    same = check(doc.pdf)
    assert same.status_code == 200
    assert "O arquivo é este documento" in same.get_data(as_text=True)
    forged = check(doc.pdf.replace(b"AG-0042", b"AG-0043") + b"\n")
    assert "NÃO é este documento" in forged.get_data(as_text=True)
    empty = client.post(path + "/conferir", data={"csrf_token": token})
    assert empty.status_code == 422


def test_a_reprint_with_a_new_code_supersedes_the_first_paper(app, make, client, tmp_path):
    out = issue(app, make)
    first = stored_document(app, out["notice_id"])
    with app.app_context():
        notice = db.session.get(Notice, out["notice_id"])
        doc, code = issuing.reissue_document(
            notice, actor=db.session.get(User, out["sup"].id), now=datetime.now(UTC))
        db.session.commit()
        assert doc.version == 2 and code != out["code"]
        assert not enforcement.check_access_code(notice, out["code"])
        assert issuing.check_copy(notice, first.pdf) == "superseded"
    second = stored_document(app, out["notice_id"])
    assert code in pdf_text(second.pdf, tmp_path)
    page = client.get(f"/documentos/tapurah/{out['number']}").get_data(as_text=True)
    assert second.sha256 in page and "Versão 1 (substituída)" in page and first.sha256 in page


# --------------------------------------------------------------------------- download
def test_download_needs_the_role_the_town_and_for_agents_their_own_inspection(app, make):
    out = issue(app, make)
    doc = stored_document(app, out["notice_id"])
    path = f"/documentos/tapurah/{out['number']}/pdf"

    def get_as(user):
        c = app.test_client()
        if user is not None:
            assert c.login(user.username).status_code == 302
        return c.get(path)

    anonymous = get_as(None)
    assert anonymous.status_code in (302, 401) and b"%PDF" not in anonymous.data
    for allowed in (out["agent"], out["sup"], make(factories.user, "admin", "tapurah")):
        r = get_as(allowed)
        assert r.status_code == 200 and r.mimetype == "application/pdf"
        assert hashlib.sha256(r.data).hexdigest() == doc.sha256
    for refused in (make(factories.user, "agent", "tapurah"),       # not the inspecting agent
                    make(factories.user, "supervisor", "sapezal"),  # another town
                    make(factories.user, "admin", "nortelandia")):
        assert get_as(refused).status_code == 404


def test_a_missed_deadline_issues_an_infraction_record_with_the_daily_fine(app, make, tmp_path):
    out = issue(app, make)
    with app.app_context():
        act = db.session.get(Sanction, out["act_id"])
        deadline = act.deadline_at.replace(tzinfo=UTC) if act.deadline_at.tzinfo is None \
            else act.deadline_at
        enforcement.tick(deadline + timedelta(minutes=1))
        daily = db.session.scalar(select(Sanction).where(Sanction.parent_id == act.id))
        record = daily.notice
        assert record is not None and record.document_kind == "infraction_record"
        number, notice_id = record.number, record.id
    text = pdf_text(stored_document(app, notice_id).pdf, tmp_path)
    assert f"AUTO DE INFRAÇÃO Nº {number}" in text
    assert f"Decorre da notificação nº {out['number']}, não cumprida no prazo" in text
    assert f"venceu em {local(deadline)}" in text
    assert "60% do salário mínimo por dia" in text and "R$ 972,60 por dia" in text
    assert "Lei 406/2001, Art. 29, parágrafo único “" in text
    assert "8 dias a contar da ciência" in text and "Art. 30" in text
    for h in out["hashes"]:
        assert h in text
    # the rider signed the notice on the street, not this record: a receipt line instead
    assert "Ciente do condutor" not in text and "Recebi a via deste documento" in text


# --------------------------------------------------------------------------- other laws
def _failed(town: str, service: str, item_id: str, agent, moment: datetime) -> Inspection:
    """A complete inspection of a new vehicle of `town` failing one item, without photos."""
    v = factories.vehicle(town, service)
    d = factories.driver(town, "mototaxista" if service == "mototaxi" else "autonomo",
                         holder=v.holder)
    d.vehicles.append(v)
    factories.licence(v, permit_id=factories.permit(v.holder, service).id)
    rule = next(i for i in checklist(town, service, moment.date()) if i.id == item_id)
    raw = audit.canonical({"vehicle": v.id, "item": item_id, "n": uuid.uuid4().hex})
    insp = Inspection(uuid=str(uuid.uuid4()), municipality_id=v.municipality_id,
                      agent_id=agent.id, vehicle_id=v.id, service=v.service,
                      started_at=moment - timedelta(minutes=5), finished_at=moment,
                      rules_day=moment.date(), body_sha256=hashlib.sha256(raw.encode()).hexdigest(),
                      body=raw, ack_name=None, status=InspectionStatus.AWAITING_REVIEW,
                      failed_items=1, received_at=moment, completed_at=moment)
    db.session.add(insp)
    db.session.flush()
    db.session.add(InspectionItem(inspection_id=insp.id, position=0, item_id=item_id,
                                  result=ItemResult.FAIL, note="", label=rule.label,
                                  citation=rule.citation.as_dict()))
    db.session.flush()
    db.session.expire(insp, ["items"])
    on_inspection_complete(insp, moment)
    return insp


@pytest.mark.parametrize("town, service, item_id, expected", [
    # Tapurah Art. 14 § ú: a second passenger revokes the rider's licence (decision) and
    # fines the holder 100 UFIM, whose value in reals nobody configured
    ("tapurah", "mototaxi", "one-passenger",
     {"decision": ["DECISÃO ADMINISTRATIVA", "Lei 406/2001, Art. 14 “",
                   "Lei 406/2001, Art. 14, parágrafo único “", "o condutor terá sua licença cassada"],
      "infraction_record": ["AUTO DE INFRAÇÃO", "100 UFIM", "Valor em reais não definido",
                            "valor da UFIM não definido"]}),
    # Nortelândia 030 Art. 16 § 1º: the warning cites the article and says what to do;
    # § 2º: appeal to the mayor in 10 days, suspensive
    ("nortelandia", "mototaxi", "tank-sign",
     {"warning": ["ADVERTÊNCIA ESCRITA", "Lei 030/1998, Art. 1, parágrafo único “",
                  "Lei 030/1998, Art. 16, § 1º “", "Providências necessárias:",
                  "10 dias úteis a contar do recebimento deste documento (CPC, art. 219; Lei "
                  "030/1998, Art. 16, § 2º)",
                  "o 10º dia útil após o recebimento deste documento", "Prefeito(a) Municipal",
                  "sim: a penalidade fica suspensa", "Lei 030/1998, Art. 16, § 2º “"]}),
    # Nova Santa Helena Art. 19: a drunk driver's registration is revoked at once, by the mayor
    ("nova-santa-helena", "taxi", "sober",
     {"decision": ["DECISÃO ADMINISTRATIVA", "Lei 535/2013, Art. 19 “",
                   "Prefeito(a) (Chefe do Poder Executivo), Decreto 12/2026",
                   "Recebi a via deste documento"]}),
])
def test_each_law_gets_its_own_document(app, tmp_path, town, service, item_id, expected):
    moment = datetime(2026, 11, 30, 14, tzinfo=UTC)
    with app.app_context():
        agent, sup = factories.user("agent", town), factories.user("supervisor", town)
        admin = factories.user("admin", town)
        insp = _failed(town, service, item_id, agent, moment)
        for act in enforcement.acts_of(insp):
            amount = act.amount_max if act.amount is None and act.amount_max is not None else None
            enforcement.confirm(act, sup, moment + timedelta(hours=1), amount=amount)
            if act.awaiting_mayor:
                enforcement.record_mayor_decision(act, admin, moment + timedelta(hours=2),
                                                  decision="confirm", ref="Decreto 12/2026")
        db.session.commit()
        notices = {n.document_kind: n.id for n in db.session.scalars(
            select(Notice).where(Notice.inspection_id == insp.id))}
    assert set(notices) == set(expected)
    for kind, phrases in expected.items():
        text = pdf_text(stored_document(app, notices[kind]).pdf, tmp_path)
        for phrase in phrases:
            assert phrase in text, (kind, phrase)


def test_the_public_page_is_rate_limited(app, client):
    app.config["DOCUMENT_RATE_LIMIT"] = "3 per minute"
    codes = [client.get("/documentos/tapurah/NOT-2026/000009").status_code for _ in range(4)]
    assert codes == [404, 404, 404, 429]
    assert "Muitas tentativas" in client.get("/documentos/tapurah/NOT-2026/000009").get_data(
        as_text=True)
