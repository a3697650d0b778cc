"""The supervisor's review pages (/revisao): roles, town isolation, the queue and its filters,
the photo gallery (renditions, original bytes, hash check), decisions over htmx, and the
rejection reaching the agent's app through GET /api/field/inspections/<uuid>."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta
from io import BytesIO

import pytest
from PIL import Image
from sqlalchemy import select

from inspector.extensions import db
from inspector.models import Inspection, Photo, Sanction, SanctionStatus
from tests.support.enforcement import enforcement_worker
from tests.support.field_api import Api, damage_evidence, jpeg, sha
from tests.support.review import BIG, inspection_ids, send_inspection
from tests.support.web import login


@pytest.fixture
def one(app, town):
    iid = send_inspection(app, town["agent"], town["vehicle_id"], {"mirrors": [BIG], "uniform": [jpeg(3)]})
    insp_id, acts, photos = inspection_ids(app, iid)
    return {"iid": iid, "id": insp_id, "acts": acts, "photos": photos}


def test_only_supervisors_and_admins_of_the_town_see_the_review(app, client, town, one):
    pages = ["/revisao", "/revisao/prazos", "/revisao/atos", f"/revisao/vistorias/{one['id']}",
             f"/revisao/atos/{one['acts'][0]}", f"/revisao/fotos/{one['photos'][0]}/mini.jpg"]
    agent = login(app, town["agent"])
    for p in pages:
        assert agent.get(p).status_code == 403, p
    assert "Revisão" not in agent.get("/inicio").get_data(as_text=True)
    for role in ("supervisor", "admin"):
        c = login(app, town[role])
        for p in pages:
            assert c.get(p).status_code == 200, (role, p)
        assert 'href="/revisao"' in c.get("/inicio").get_data(as_text=True)
    anonymous = app.test_client().get("/revisao")
    assert anonymous.status_code == 302 and "/entrar" in anonymous.headers["Location"]


def test_another_towns_inspections_acts_and_photos_are_404(app, town, one):
    c = login(app, town["sapezal"])
    for p in (f"/revisao/vistorias/{one['id']}", f"/revisao/atos/{one['acts'][0]}",
              f"/revisao/fotos/{one['photos'][0]}/mini.jpg",
              f"/revisao/fotos/{one['photos'][0]}/original",
              f"/revisao/fotos/{one['photos'][0]}/ampliar",
              f"/revisao/vistorias/{one['id']}/assinatura.png"):
        assert c.get(p).status_code == 404, p
    r = c.post_form(f"/revisao/atos/{one['acts'][0]}/confirmar", {})
    assert r.status_code == 404
    assert "Nenhuma vistoria" in c.get("/revisao?situacao=todas").get_data(as_text=True)
    with app.app_context():
        assert db.session.get(Sanction, one["acts"][0]).status == SanctionStatus.PROPOSED


def test_queue_filters_by_agent_status_and_day_and_answers_a_fragment_to_htmx(app, town, one):
    old = datetime.now(UTC) - timedelta(days=40)
    other = send_inspection(app, town["other_agent"], town["vehicle_id"], {"mirrors": [jpeg(9)]}, old)
    c = login(app, town["supervisor"])
    page = c.get("/revisao").get_data(as_text=True)        # default: awaiting review
    assert page.count("/revisao/vistorias/") == 2 and "<html" in page
    with app.app_context():
        other_agent_id = db.session.scalar(select(Inspection.agent_id).filter_by(uuid=other))
    only = c.get(f"/revisao?agente={other_agent_id}&situacao=todas",
                 headers={"HX-Request": "true"})
    html = only.get_data(as_text=True)
    assert "<html" not in html and "HX-Request" in only.headers["Vary"]
    assert html.count("/revisao/vistorias/") == 1 and "Outra Agente" in html
    recent = c.get(f"/revisao?situacao=todas&de={(datetime.now(UTC) - timedelta(days=2)).date()}")
    assert recent.get_data(as_text=True).count("/revisao/vistorias/") == 1
    done = c.get("/revisao?situacao=reviewed").get_data(as_text=True)
    assert "Nenhuma vistoria" in done


def test_gallery_shows_each_photos_time_gps_hash_and_whether_it_matches(app, town, one):
    c = login(app, town["supervisor"])
    html = c.get(f"/revisao/vistorias/{one['id']}").get_data(as_text=True)
    assert sha(BIG)[:16] in html and "-12.70833" in html           # hash and EXIF GPS
    assert "EXIF 30/11/2026 09:05:00 (UTC-04:00)" in html  # as the camera wrote it
    assert html.count("confere com o arquivo guardado") == 2 and "NÃO confere" not in html
    with app.app_context():   # the stored bytes are altered behind the app's back
        damage_evidence(db.session.get(Photo, one["photos"][0]), BIG[:-10] + b"0123456789")
    html = c.get(f"/revisao/vistorias/{one['id']}").get_data(as_text=True)
    assert "NÃO confere com o arquivo guardado" in html and "AUSENTE" not in html
    zoom = c.get(f"/revisao/fotos/{one['photos'][0]}/ampliar").get_data(as_text=True)
    assert "NÃO confere com o arquivo guardado" in zoom
    with app.app_context():   # ... and then lost
        damage_evidence(db.session.get(Photo, one["photos"][0]), None)
    html = c.get(f"/revisao/vistorias/{one['id']}").get_data(as_text=True)
    assert html.count("arquivo AUSENTE no servidor") == 1
    assert html.count("confere com o arquivo guardado") == 1  # the other photo
    assert c.get(f"/revisao/fotos/{one['photos'][0]}/original").status_code == 404


def test_thumbnail_zoom_and_original(app, town, one):
    c = login(app, town["supervisor"])
    pid = one["photos"][0]
    mini = c.get(f"/revisao/fotos/{pid}/mini.jpg")
    assert mini.status_code == 200 and mini.headers["Content-Type"] == "image/jpeg"
    assert max(Image.open(BytesIO(mini.data)).size) == 320
    assert c.get(f"/revisao/fotos/{pid}/mini.jpg",
                 headers={"If-None-Match": mini.headers["ETag"]}).status_code == 304
    zoom = c.get(f"/revisao/fotos/{pid}/zoom.jpg")
    assert max(Image.open(BytesIO(zoom.data)).size) == 1600
    original = c.get(f"/revisao/fotos/{pid}/original")
    assert original.data == BIG and sha(original.data) in original.headers["ETag"]
    panel = c.get(f"/revisao/fotos/{pid}/ampliar", headers={"HX-Request": "true"})
    text = panel.get_data(as_text=True)
    assert "<html" not in text and f"/revisao/fotos/{pid}/zoom.jpg" in text
    assert sha(BIG) in text and "2000×1500" in text and "Abrir o original" in text


def test_reject_with_a_reason_reaches_the_agents_app_confirm_the_other(app, town, one):
    c = login(app, town["supervisor"])
    mirrors, uniform = one["acts"]
    empty = c.post_form(f"/revisao/atos/{uniform}/rejeitar", {"reason": ""},
                        headers={"HX-Request": "true"})
    assert empty.status_code == 422 and "Informe o motivo da rejeição" in empty.get_data(as_text=True)
    r = c.post_form(f"/revisao/atos/{uniform}/rejeitar",
                    {"reason": "A foto mostra o colete com o nome da empresa."},
                    headers={"HX-Request": "true"})
    card = r.get_data(as_text=True)
    assert r.status_code == 200 and "Rejeitado" in card and "colete com o nome" in card
    assert c.post_form(f"/revisao/atos/{mirrors}/confirmar",
                       {"comment": "Bem documentado."}).status_code == 303
    assert c.post_form(f"/revisao/vistorias/{one['id']}/comentar",
                       {"comment": "Confira o número do prefixo na próxima."}).status_code == 303
    agent = Api(login(app, town["agent"]))
    review = agent.get(f"/api/field/inspections/{one['iid']}").json["review"]
    assert review["status"] == "reviewed"
    by_item = {a["item_id"]: a for a in review["acts"]}
    assert by_item["uniform"]["status"] == "rejected"
    assert by_item["uniform"]["reason"] == "A foto mostra o colete com o nome da empresa."
    assert by_item["mirrors"]["status"] == "confirmed"
    assert by_item["mirrors"]["comment"] == "Bem documentado."
    assert by_item["mirrors"]["notice_number"].startswith("NOT-")
    assert [x["text"] for x in review["comments"]] == ["Confira o número do prefixo na próxima."]


def test_the_mayors_decision_is_an_admins_form_and_amendments_stay_in_the_law(app, town, one):
    c = login(app, town["supervisor"])
    act = one["acts"][0]
    r = c.post_form(f"/revisao/atos/{act}/prefeito", {"decision": "confirm", "ref": "X 1/2026"})
    assert r.status_code == 403
    bad = c.post_form(f"/revisao/atos/{act}/alterar",
                      {"option": "step:notice:9", "reason": "Outra medida."},
                      headers={"HX-Request": "true"})
    assert bad.status_code == 422 and "fora das previstas pela lei" in bad.get_data(as_text=True)
    page = c.get(f"/revisao/vistorias/{one['id']}").get_data(as_text=True)
    # Tapurah Art. 27, III: the removal request comes only "após a terceira notificação",
    # so a rider's first notice is not offered the third-notice rung
    assert "Pedido de afastamento do condutor à Secretaria" not in page
    assert "Multa de 100 UFIM" not in page     # an offence of another item is not offered
    assert "Registrar decisão do prefeito" not in page


def test_prazos_lists_the_notice_and_its_deadline(app, town, one):
    c = login(app, town["supervisor"])
    c.post_form(f"/revisao/atos/{one['acts'][0]}/confirmar", {})
    html = c.get("/revisao/prazos").get_data(as_text=True)
    assert "Notificações a cumprir" in html and "NOT-" in html
    assert c.get("/revisao/atos?situacao=confirmed").get_data(as_text=True).count("NOT-") == 1


def test_a_failing_proposal_never_refuses_the_evidence_and_can_be_made_again(app, town,
                                                                            monkeypatch):
    from inspector.enforcement import propose

    def broken(insp, now):
        raise RuntimeError("bug")
    monkeypatch.setattr("inspector.enforcement.pending.propose_for_inspection", broken)
    iid = send_inspection(app, town["agent"], town["vehicle_id"], {"mirrors": [jpeg(4)]})  # + worker
    monkeypatch.undo()
    insp_id, acts, photos = inspection_ids(app, iid)
    assert acts == [] and len(photos) == 1
    assert enforcement_worker(app) == []  # tried once: not again on every page
    c = login(app, town["supervisor"])
    page = c.get(f"/revisao/vistorias/{insp_id}").get_data(as_text=True)
    assert "Propostas não geradas" in page and "Gerar propostas" in page
    assert c.post_form(f"/revisao/vistorias/{insp_id}/propor", {}).status_code == 303
    assert len(inspection_ids(app, iid)[1]) == 1
    assert propose.propose_for_inspection  # the real one is back


def test_exif_times_read_in_brazilian_order_as_the_camera_wrote_them():
    from inspector.templating import exif_dt

    assert exif_dt("2026-11-30T09:05:00-04:00") == "30/11/2026 09:05:00 (UTC-04:00)"
    assert exif_dt("2026-11-30T09:05:00") == "30/11/2026 09:05:00"  # camera clock, no zone
    assert exif_dt("2026-11-30T13:05:00Z") == "30/11/2026 13:05:00 (UTC)"
    assert exif_dt("0000:00:00 00:00:00") == "0000:00:00 00:00:00"  # shown as written
    assert exif_dt(None) == "—"
