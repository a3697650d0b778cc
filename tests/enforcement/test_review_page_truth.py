"""The supervisor's inspection page tells one truth: what the registry knew
on the inspection's day beside each answer, with the contradictions marked; who decides each
act as the law gives it (Tapurah Lei 406/2001 Art. 27: the agent may notify and fine, the
supervision confirms in the review); the review state read from the acts, in the page and in
the queue; a photo refused for good said as such; the GPS shown where it exists."""
from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from sqlalchemy import select

from inspector import enforcement
from inspector.extensions import db
from inspector.models import (
    Inspection,
    InspectionStatus,
    InsurancePolicy,
    Photo,
    Sanction,
    User,
    Vehicle,
)
from inspector.models.registry import Status
from tests.support.enforcement import inspect
from tests.support.field_api import jpeg
from tests.support.review import inspection_ids, send_inspection


def _signed_in(app, username):
    c = app.test_client()
    assert c.login(username).status_code == 302
    return c


def _text(html: str) -> str:
    """The page's words without tags, spaces collapsed."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def _section(html: str, item_id: int) -> str:
    start = html.index(f'id="item-{item_id}"')
    return html[start:html.index("</section>", start)]


def _inspect(app, town, results, *, lapse_insurance_days=None, note=None, **kw):
    """A Tapurah inspection two hours ago by the town's agent; the vehicle's insurance ended
    `lapse_insurance_days` before it when given."""
    finished = datetime.now(UTC) - timedelta(hours=2)
    with app.app_context():
        vehicle = db.session.get(Vehicle, town["vehicle_id"])
        agent = db.session.scalar(select(User).filter_by(username=town["agent"]))
        if lapse_insurance_days is not None:
            for policy in db.session.scalars(select(InsurancePolicy).filter_by(vehicle_id=vehicle.id)):
                policy.valid_from = finished.date() - timedelta(days=300)
                policy.valid_until = finished.date() - timedelta(days=lapse_insurance_days)
        insp = inspect(vehicle, agent, results, finished, **kw)
        if note is not None:
            for item in insp.items:
                item.note = note
        db.session.commit()
        items = {i.item_id: i.id for i in insp.items}
        return insp.id, items, [a.id for a in enforcement.acts_of(insp)]


def test_an_answer_the_registry_contradicts_is_flagged_with_the_article(app, town):
    """The agent said "Conforme" for the insurance, whose policy had lapsed ten days before:
    the item is marked 'Contradiz o cadastro: Seguro obrigatório vencido em dd/mm/aaaa (Lei
    406/2001, Art. 17)' with the agent's note beside it; the verdict of that day is IRREGULAR,
    as on the passenger's page."""
    ident, items, _ = _inspect(app, town, {"insurance": "ok", "mirrors": "ok"},
                               lapse_insurance_days=10, note="Apresentou apólice nova em papel")
    lapsed = (datetime.now(UTC) - timedelta(hours=2)).date() - timedelta(days=10)
    html = _signed_in(app, town["supervisor"]).get(f"/revisao/vistorias/{ident}").get_data(as_text=True)
    flag = _text(_section(html, items["insurance"]))
    assert (f"Contradiz o cadastro: Seguro obrigatório vencido em {lapsed:%d/%m/%Y} "
            f"( Lei 406/2001, Art. 17 )") in flag
    assert "Nota do agente: Apresentou apólice nova em papel" in flag
    assert 'class="item card result-ok contradiction"' in html
    assert "1 resposta contradiz o cadastro" in _text(html)
    assert "IRREGULAR" in _text(html[html.index('id="cadastro"'):])
    # the mirrors agree with everyone: folded away, without any flag
    folded = html[html.index('<details class="card folded-items"'):]
    assert f'id="item-{items["mirrors"]}"' in folded
    assert f'id="item-{items["insurance"]}"' not in folded
    assert "Contradiz" not in _section(html, items["mirrors"])


def test_no_flag_when_the_registry_agrees_and_a_failed_answer_is_not_a_contradiction(app, town):
    """Insurance in force: no flag. Insurance lapsed and the agent said "Não conforme": the
    registry's reason is beside the item, but as agreement, not as a contradiction."""
    ident, items, _ = _inspect(app, town, {"insurance": "ok"})
    c = _signed_in(app, town["supervisor"])
    html = c.get(f"/revisao/vistorias/{ident}").get_data(as_text=True)
    assert "Contradiz o cadastro" not in html and "REGULAR" in _text(html)
    ident, items, _ = _inspect(app, town, {"insurance": "fail"}, lapse_insurance_days=3)
    section = _text(_section(c.get(f"/revisao/vistorias/{ident}").get_data(as_text=True),
                             items["insurance"]))
    assert "O cadastro também aponta: Seguro obrigatório vencido" in section
    assert "Contradiz" not in section


def test_a_revoked_permit_no_item_checks_is_listed_above_the_answers(app, town):
    """A revoked permit (Tapurah's company authorisation) is what the passenger's page shows as
    IRREGULAR: the review lists it with its article even though no checklist item checks it."""
    with app.app_context():
        vehicle = db.session.get(Vehicle, town["vehicle_id"])
        for p in vehicle.holder.permits:
            p.status = Status.REVOKED
        db.session.commit()
    ident, _, _ = _inspect(app, town, {"mirrors": "ok"})
    html = _signed_in(app, town["supervisor"]).get(f"/revisao/vistorias/{ident}").get_data(as_text=True)
    box = _text(html[html.index('id="cadastro"'):html.index("Itens verificados")])
    assert "IRREGULAR" in box
    assert re.search(r"Permissão TP-\d+ cassada \( Lei 406/2001, Art\. 6 \)", box), box


def test_who_decides_names_the_agent_and_the_supervisions_confirmation(app, town):
    """Tapurah Art. 27 I-II: the agent notifies (and fines); the act is confirmed in the review.
    'Quem decide' says so before and after; a measure the pack gives the supervision (Art. 14's
    revocation) names the supervision."""
    ident, _, acts = _inspect(app, town, {"mirrors": "fail", "one-passenger": "fail"})
    c = _signed_in(app, town["supervisor"])

    def who():
        html = c.get(f"/revisao/vistorias/{ident}").get_data(as_text=True)
        return {int(a): w for a, w in re.findall(
            r'id="ato-(\d+)".*?<dt>Quem decide</dt><dd>([^<]*)</dd>', html, re.S)}

    with app.app_context():
        kinds = {a: (db.session.get(Sanction, a).kind, db.session.get(Sanction, a).decided_by)
                 for a in acts}
    notice = next(a for a, (k, by) in kinds.items() if k == "notice" and by == "agent")
    revocation = next(a for a, (k, by) in kinds.items() if by == "supervisor")
    before = who()
    assert before[notice] == "Agente de fiscalização (aguarda confirmação da supervisão)"
    assert before[revocation] == "Supervisor(a) / Secretaria"
    assert c.post_form(f"/revisao/atos/{notice}/confirmar", {}).status_code == 303
    assert who()[notice] == "Agente de fiscalização (confirmado pela supervisão)"


def test_the_review_state_follows_the_acts_in_the_page_and_the_queue(app, town):
    """One failed item, one act: 'Aguardando revisão (1 de 1 ato)'; once it is decided through
    htmx, the answer also swaps the page's state to 'Revisada' (out of band) and the queue lists
    it as 'Revisada' under its filter, even when the stored status was left behind."""
    ident, _, acts = _inspect(app, town, {"mirrors": "fail"})
    assert len(acts) == 1
    c = _signed_in(app, town["supervisor"])
    page = c.get(f"/revisao/vistorias/{ident}").get_data(as_text=True)
    assert re.search(r'id="review-state"[^>]*>Aguardando revisão \(1 de 1 ato\)<', page)
    assert "Marcar como revisada" not in page   # the service refuses it while an act waits
    queue = _text(c.get("/revisao?situacao=todas").get_data(as_text=True))
    assert "Aguardando revisão (1 de 1 ato)" in queue

    r = c.post_form(f"/revisao/atos/{acts[0]}/confirmar", {}, headers={
        "HX-Request": "true", "HX-Current-URL": f"http://localhost/revisao/vistorias/{ident}"})
    assert r.status_code == 200
    assert re.search(r'<span id="review-state" class="badge badge-ok" hx-swap-oob="true">Revisada<',
                     r.get_data(as_text=True))
    with app.app_context():   # a stored status a decision elsewhere left behind
        db.session.get(Inspection, ident).status = InspectionStatus.AWAITING_REVIEW
        db.session.commit()
    page = c.get(f"/revisao/vistorias/{ident}").get_data(as_text=True)
    assert re.search(r'id="review-state"[^>]*>Revisada<', page)
    assert "Aguardando revisão" not in _text(page)
    reviewed = c.get("/revisao?situacao=reviewed").get_data(as_text=True)
    waiting = c.get("/revisao?situacao=awaiting_review").get_data(as_text=True)
    assert f"/revisao/vistorias/{ident}" in reviewed and f"/revisao/vistorias/{ident}" not in waiting
    assert ">Revisada<" in reviewed


def test_an_inspection_without_acts_reads_sem_atos(app, town):
    ident, _, acts = _inspect(app, town, {"mirrors": "ok"})
    assert acts == []
    c = _signed_in(app, town["supervisor"])
    page = c.get(f"/revisao/vistorias/{ident}").get_data(as_text=True)
    assert re.search(r'id="review-state"[^>]*>Sem atos<', page)
    assert "Marcar como revisada" in page
    row = c.get("/revisao").get_data(as_text=True)
    assert f"/revisao/vistorias/{ident}" in row and ">Sem atos<" in row


def test_a_photo_refused_for_good_is_said_and_no_longer_awaited(app, town):
    """The only photo never arrived and the server refused it for good (migration 0023):
    'Foto recusada: <reason>', and the inspection does not read 'Aguardando fotos'."""
    iid = send_inspection(app, town["agent"], town["vehicle_id"], {"mirrors": [jpeg(5)]})
    ident, _, (photo_id,) = inspection_ids(app, iid)
    with app.app_context():
        photo = db.session.get(Photo, photo_id)
        photo.received_at = None
        photo.refused_at = datetime.now(UTC)
        photo.refused_reason = "imagem danificada: o arquivo termina antes do fim da imagem"
        db.session.get(Inspection, ident).status = InspectionStatus.INCOMPLETE
        db.session.commit()
    c = _signed_in(app, town["supervisor"])
    html = c.get(f"/revisao/vistorias/{ident}").get_data(as_text=True)
    assert "Foto recusada: imagem danificada: o arquivo termina antes do fim da imagem" in html
    assert "Aguardando fotos" not in _text(html) and "Foto ainda não recebida" not in html
    queue = c.get("/revisao?situacao=todas").get_data(as_text=True)
    state = re.search(r'data-label="Situação"><span[^>]*>([^<]*)<', queue).group(1)
    assert state == "Aguardando revisão (1 de 1 ato)"


def test_gps_is_shown_where_it_exists(app, town):
    """The photo's panel shows the inspection's GPS with its accuracy and the photo's own EXIF
    GPS when there is one; 'sem GPS' only when neither exists."""
    iid = send_inspection(app, town["agent"], town["vehicle_id"], {"mirrors": [jpeg(6)]})
    ident, _, (photo_id,) = inspection_ids(app, iid)
    c = _signed_in(app, town["supervisor"])

    def zoom():
        return _text(c.get(f"/revisao/fotos/{photo_id}/ampliar").get_data(as_text=True))

    with app.app_context():   # the test photo carries EXIF GPS: first without it
        db.session.get(Photo, photo_id).exif_lat = db.session.get(Photo, photo_id).exif_lon = None
        db.session.commit()
    shown = zoom()
    assert "GPS da vistoria: -12.700000, -56.500000 (± 12 m)" in shown
    assert "sem GPS" not in shown and "GPS da foto" not in shown
    gallery = _text(c.get(f"/revisao/vistorias/{ident}").get_data(as_text=True))
    assert "GPS da vistoria: -12.700000, -56.500000 (± 12 m)" in gallery
    assert "sem GPS" not in gallery
    with app.app_context():
        db.session.get(Photo, photo_id).exif_lat, db.session.get(Photo, photo_id).exif_lon = \
            -12.701, -56.502
        db.session.commit()
    assert ("GPS da foto (EXIF): -12.701000, -56.502000 · GPS da vistoria: -12.700000, "
            "-56.500000 (± 12 m)") in zoom()
    with app.app_context():
        photo, insp = db.session.get(Photo, photo_id), db.session.get(Inspection, ident)
        photo.exif_lat = photo.exif_lon = insp.lat = insp.lon = insp.accuracy_m = None
        db.session.commit()
    assert "sem GPS" in zoom()
    assert "GPS da vistoria" not in zoom()
