"""One town's enforcement rows, made the way the product makes them, for access tests: a
licensed moto-taxi with its holder, rider, permit, licence, insurance and a stand; a first
inspection whose act is confirmed (a notice or a written warning, with its issued PDF); a
second inspection synced through the field API with an evidence photo; a fine with a
payment; an appeal; the vehicle's QR credential and a passenger's report (with a photo) made
from it. Every id, UUID and document number is returned, so a test can ask for
exactly these rows (not for "row 1", which may not exist)."""
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import timedelta

from sqlalchemy import select

from inspector import enforcement
from inspector.credentials import issuing
from inspector.enforcement import payments
from inspector.extensions import db
from inspector.models import (
    Appeal,
    Credential,
    Fine,
    FinePayment,
    Inspection,
    Notice,
    PassengerReport,
    Photo,
    Sanction,
    User,
    Vehicle,
)
from inspector.models.calendar import TownClosure
from inspector.models.vistorias import (
    AppointmentStatus,
    InspectionKind,
    Vistoria,
    VistoriaAppointment,
    VistoriaPlace,
)
from inspector.passenger import reports
from tests import factories
from tests.support.credentials import jpeg as small_jpeg
from tests.support.enforcement import enforcement_worker, fleet, inspect, local, set_values
from tests.support.field_api import Api, body, jpeg
from tests.support.vistorias import vistoria_body

# What fails at each town's inspections (an item of its moto-taxi checklist) and what the
# second inspection declares as passed.
ITEMS = {"tapurah": ("mirrors", ("general-condition",)),
         "nortelandia": ("vest", ("general-condition",))}


@dataclass
class TownRows:
    """The ids a test asks for, by kind of row."""

    slug: str
    users: dict[str, str]                 # role -> username
    ids: dict[str, int] = field(default_factory=dict)   # table -> id
    inspection_uuid: str = ""
    photo_uuid: str = ""
    photo_bytes: bytes = b""
    inspection_body: dict = field(default_factory=dict)
    notice_number: str = ""


def build(app, slug: str) -> TownRows:
    """Make one town's rows (see the module's docstring) and return their ids."""
    failing, passing = ITEMS[slug]
    with app.app_context():
        set_values(slug, minimum_wage=1518, fiscal_unit=4)
        f = fleet(slug, "mototaxi")
        f["driver"].photo, f["driver"].photo_mime = small_jpeg(), "image/jpeg"
        stand = factories.stand(slug)
        users = {r: factories.user(r, slug) for r in ("agent", "supervisor", "admin")}
        db.session.commit()
        out = TownRows(slug, {r: u.username for r, u in users.items()})
        out.ids.update(vehicle=f["vehicle"].id, driver=f["driver"].id, holder=f["holder"].id,
                       permit=f["permit"].id, licence=f["licence"].id, stand=stand.id,
                       insurance=f["vehicle"].insurance_policies[0].id,
                       user=users["agent"].id)
        # 1. an inspection in March: its act confirmed by the supervisor issues a document
        when = local(2026, 3, 2)
        first = inspect(f["vehicle"], users["agent"], {failing: "fail"}, when)
        (act,) = enforcement.acts_of(first)
        enforcement.confirm(act, users["supervisor"], when + timedelta(hours=1))
        db.session.commit()
        out.ids["act"] = act.id
        out.notice_number = db.session.scalar(select(Notice.number)
                                              .where(Notice.sanction_id == act.id))
        assert out.notice_number, f"{slug}: the confirmed act issued no notice"
        # 2. a fine: Tapurah's missed 72 h deadline becomes a daily fine (Art. 29 § ú);
        #    Nortelândia's second finding is a fine (Art. 16)
        if slug == "tapurah":
            enforcement.tick(when + timedelta(days=4))
        else:
            second = inspect(f["vehicle"], users["agent"], {failing: "fail"},
                             when + timedelta(days=5))
            fine_act = next(a for a in enforcement.acts_of(second) if a.kind == "fine")
            enforcement.confirm(fine_act, users["supervisor"], when + timedelta(days=5, hours=1),
                                amount=fine_act.amount_max)
            db.session.commit()
        fine = db.session.scalar(select(Fine).join(Sanction, Sanction.id == Fine.sanction_id)
                                 .where(Sanction.vehicle_id == f["vehicle"].id))
        assert fine is not None, f"{slug}: no fine was made"
        fine_act = db.session.get(Sanction, fine.sanction_id)
        payment = payments.record_payment(
            fine_act, users["supervisor"], when + timedelta(days=6),
            paid_on=(when + timedelta(days=6)).date(), amount="10,00",
            receipt=f"DAM-{slug[:3].upper()}-1")
        db.session.commit()
        out.ids["fine_act"], out.ids["payment"] = fine_act.id, payment.id
        # 3. an appeal against the first act
        appeal = enforcement.file_appeal(
            db.session.get(Sanction, act.id), filed_on=(when + timedelta(days=2)).date(),
            filed_by="Permissionário de Teste", filed_by_role="holder",
            text_="Peço a revisão do ato: o item foi reparado.", user=users["supervisor"],
            now=when + timedelta(days=2))
        db.session.commit()
        out.ids["appeal"] = appeal.id
        # 4. the vehicle's QR credential, issued by the admin, and a passenger's report
        #    (with a photo) sent from its page
        cred = issuing.issue(f["vehicle"], users["admin"])
        report = reports.create_report(
            cred, "regular", "driving", f"Moto-táxi em alta velocidade em {slug}.",
            photo=small_jpeg())
        db.session.commit()
        out.ids["credential"], out.ids["report"] = cred.id, report.id
        # 5a. a day the town hall does not open, entered by the admin with its act
        closure = TownClosure(municipality_id=f["vehicle"].municipality_id,
                              day=(when + timedelta(days=40)).date(), reason="Aniversário",
                              act="Lei nº 1/1990", act_date=(when - timedelta(days=400)).date(),
                              kind="feriado municipal")
        db.session.add(closure)
        db.session.commit()
        out.ids["closure"] = closure.id
        agent_name = users["agent"].username
    # 5. an inspection synced by the agent's phone, with an evidence photo
    client = app.test_client()
    assert client.login(agent_name).status_code == 302
    api = Api(client)
    photo = jpeg(len(slug))
    b = body(out.ids["vehicle"], ok=passing, fail={failing: [photo]})
    iid = str(uuid.uuid4())
    r = api.put_inspection(iid, b)
    assert r.status_code == 201, r.get_data(as_text=True)
    pid = b["items"][-1]["photos"][0]["id"]
    assert api.put_photo(iid, pid, photo).status_code == 201
    enforcement_worker(app)
    out.inspection_uuid, out.photo_uuid, out.photo_bytes, out.inspection_body = \
        iid, pid, photo, b
    with app.app_context():
        insp = db.session.scalar(select(Inspection).where(Inspection.uuid == iid))
        out.ids["inspection"] = insp.id
        out.ids["photo"] = db.session.scalar(select(Photo.id).where(Photo.uuid == pid))
    # 6. a prior vistoria synced by the same phone (decided from its answers), and a booking
    #    of the vehicle's next one at the town's place of vistorias
    service = "mototaxi"
    r = api.put_inspection(str(uuid.uuid4()),
                           vistoria_body(out.ids["vehicle"], slug, service, "prior"))
    assert r.status_code == 201, r.get_data(as_text=True)
    with app.app_context():
        town_id = db.session.get(Vehicle, out.ids["vehicle"]).municipality_id
        out.ids["vistoria"] = db.session.scalar(
            select(Vistoria.id).where(Vistoria.vehicle_id == out.ids["vehicle"]))
        place = VistoriaPlace(municipality_id=town_id, name="Pátio da Prefeitura")
        db.session.add(place)
        db.session.flush()
        appt = VistoriaAppointment(municipality_id=town_id, place_id=place.id,
                                   vehicle_id=out.ids["vehicle"], kind=InspectionKind.PERIODIC,
                                   starts_at=local(2027, 3, 1, 9), booked_at=local(2026, 3, 2),
                                   status=AppointmentStatus.BOOKED)
        db.session.add(appt)
        db.session.commit()
        out.ids["appointment"] = appt.id
    return out


def fingerprint(app, rows: TownRows) -> dict:
    """What another town's user must not be able to change: the acts' statuses, the
    payments' reversals, the appeals' statuses, the inspection's review state, the
    credentials (revoked, reissued), the passenger reports' statuses and the accounts'
    (active or not)."""
    with app.app_context():
        town = db.session.scalar(select(User.municipality_id)
                                 .where(User.username == rows.users["admin"]))
        return {
            "acts": db.session.execute(select(Sanction.id, Sanction.status, Sanction.comment)
                                       .where(Sanction.municipality_id == town)
                                       .order_by(Sanction.id)).all(),
            "payments": db.session.execute(select(FinePayment.id, FinePayment.reversed_at)
                                           .where(FinePayment.municipality_id == town)).all(),
            "appeals": db.session.execute(select(Appeal.id, Appeal.status)
                                          .where(Appeal.municipality_id == town)).all(),
            "inspections": db.session.execute(
                select(Inspection.id, Inspection.status, Inspection.body_sha256)
                .where(Inspection.municipality_id == town)).all(),
            "credentials": db.session.execute(
                select(Credential.id, Credential.revoked_at, Credential.replaces_id)
                .where(Credential.municipality_id == town).order_by(Credential.id)).all(),
            "reports": db.session.execute(
                select(PassengerReport.id, PassengerReport.status)
                .where(PassengerReport.municipality_id == town)).all(),
            "users": db.session.execute(
                select(User.id, User.active).where(User.municipality_id == town)
                .order_by(User.id)).all(),
        }

