"""Suspensions are periods: the deciding authority sets the length within the rule pack's
bounds (no law here gives one), the act records its first and last day, the registry row
shows the last day, and `enforcement tick` lifts it when the period is over (exactly at
00:00 local of the next day), restoring the previous status unless something else changed
it. A refused suspensive appeal makes the whole period run from the refusal. Runs on SQLite
and PostgreSQL (DATABASE_URL)."""
from __future__ import annotations

from datetime import date, timedelta

import pytest
from sqlalchemy import func, select

from inspector import audit, enforcement, rules
from inspector.enforcement import suspensions
from inspector.enforcement.common import unsubscribe
from inspector.errors import ValidationFailed
from inspector.extensions import db
from inspector.models import (
    AuditEntry,
    EnforcementEvent,
    Licence,
    Permit,
    Sanction,
    SanctionStatus,
    Status,
    StatusChange,
)
from inspector.registry import records
from inspector.rules.loader import LAWS_DIR, PACKS_DIR, RulePackError, load_pack
from tests import factories
from tests.support.enforcement import (
    deliver,
    fleet,
    inspect,
    local,
    nortelandia_030_suspension,
    ticks_at_once,
)

T0 = local(2026, 3, 2, 10)      # the inspection; the supervisor decides an hour later


# --- the pack's bounds ----------------------------------------------------------------------------
def test_every_pack_with_a_suspension_states_its_default_and_maximum_as_data():
    for pack in rules.load_all():
        kinds = {m.kind for s in pack.ladder for m in s.measures} | \
            {m.kind for o in pack.offences for m in o.measures}
        if kinds & {"suspension", "suspension_or_revocation"}:
            b = pack.suspension
            assert b is not None, pack.id
            assert 1 <= b.min_days <= b.default_days <= b.max_days, pack.id
            assert "gives no length" in b.note
            assert b.citation.quote


def _broken(tmp_path, text: str):
    path = tmp_path / "broken.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(RulePackError) as info:
        load_pack(path, (LAWS_DIR,))
    return info.value


def test_a_pack_with_suspensions_but_no_bounds_is_refused(tmp_path):
    text = (PACKS_DIR / "nortelandia-127-2009.yaml").read_text(encoding="utf-8")
    start = text.index("  suspension:\n")
    end = text.index("  ladder:\n")
    e = _broken(tmp_path, text[:start] + text[end:])
    assert e.key == "sanctions.suspension" and "default_days" in e.reason


def test_bounds_out_of_order_are_refused(tmp_path):
    text = (PACKS_DIR / "nortelandia-127-2009.yaml").read_text(encoding="utf-8")
    e = _broken(tmp_path, text.replace("    default_days: 30\n", "    default_days: 120\n", 1))
    assert e.key == "sanctions.suspension" and "max_days" in e.reason


# --- deciding the length ----------------------------------------------------------------------------
def _suspension(town="nortelandia", service="taxi", item="clean", when=T0):
    """A Nortelândia taxi and the written notice proposed for a dirty car: Art. 26 grades by
    "a gravidade da falta", not by count, so the suspension of the Alvará is the supervisor's
    choice instead of the notice (`_suspend`), with the gravity written in the decision."""
    f = fleet(town, service)
    agent, sup = factories.user("agent", town), factories.user("supervisor", town)
    db.session.commit()
    [act] = enforcement.acts_of(inspect(f["vehicle"], agent, {item: "fail"}, when))
    db.session.commit()
    assert act.kind == "notice" and act.target == "holder"
    return f, agent, sup, act


GRAVE = "Falta grave: carro imundo no ponto, reclamações de passageiros."


def _suspend(act, sup, now, *, days=None):
    """The supervisor decides the suspension of the Alvará instead of the notice (Art. 26),
    and its document is delivered at the same moment."""
    d = enforcement.amend(act, sup, now, option="step:suspension:0", days=days, reason=GRAVE)
    if act.awaiting_delivery:
        deliver(act, sup, now)
    return d


def test_a_length_outside_the_bounds_is_refused_with_a_message_and_nothing_changes(app):
    with app.app_context():
        f, _, sup, act = _suspension()
        messages = {}
        for bad in ("91", "0", "-3", "dez", "2.5", "²", "١٢"):
            with pytest.raises(ValidationFailed) as info:
                enforcement.amend(act, sup, T0 + timedelta(hours=1), option="step:suspension:0",
                                  days=bad, reason=GRAVE)
            db.session.rollback()
            assert set(info.value.errors) == {"days"}, bad
            messages[bad] = info.value.errors["days"]
        assert "deve durar de 1 a 90 dias (padrão 30)" in messages["91"]
        assert "a lei não fixa a duração" in messages["0"]
        assert messages["dez"] == "Informe a duração da suspensão em dias (número inteiro)."
        # digits to str.isdigit, but not a number a supervisor types: no 500, the same message
        assert messages["²"] == messages["١٢"] == messages["dez"]
        act = db.session.get(Sanction, act.id)
        assert act.status == SanctionStatus.PROPOSED and act.suspension_start is None
        lic = db.session.get(Licence, f["licence"].id)
        assert lic.status == Status.ACTIVE and lic.suspended_until is None


def test_the_decision_records_the_period_and_the_registry_its_last_day(app):
    with app.app_context():
        f, _, sup, act = _suspension()
        d = _suspend(act, sup, T0 + timedelta(hours=1), days="10")
        db.session.commit()
        act = db.session.get(Sanction, act.id)
        assert (act.suspension_days, act.suspension_start, act.suspension_end) == \
            (10, date(2026, 3, 2), date(2026, 3, 11))
        lic = db.session.get(Licence, f["licence"].id)
        assert lic.status == Status.SUSPENDED and lic.suspended_until == date(2026, 3, 11)
        change = db.session.get(StatusChange, act.effect_change_id)
        assert "Suspenso de 02/03/2026 a 11/03/2026 (10 dias)" in change.reason
        assert d.notice.document_kind == "decision"


# --- the tick lifts it --------------------------------------------------------------------------------
def _counts() -> dict:
    return {m.__name__: db.session.scalar(select(func.count()).select_from(m))
            for m in (Sanction, StatusChange, EnforcementEvent, AuditEntry)}


def test_tick_lifts_the_suspension_exactly_when_its_last_day_ends_and_twice_changes_nothing(app):
    lifted = []
    listener = enforcement.subscribe("suspension_lifted",
                                     lambda act, restored: lifted.append((act.id, restored)))
    try:
        with app.app_context():
            f, _, sup, act = _suspension()
            _suspend(act, sup, T0 + timedelta(hours=1), days=10)
            db.session.commit()
            last_moment = local(2026, 3, 11, 23, 59) + timedelta(seconds=59, microseconds=999999)
            assert enforcement.tick(last_moment).lifted == []
            assert db.session.get(Licence, f["licence"].id).status == Status.SUSPENDED
            report = enforcement.tick(local(2026, 3, 12, 0, 0))
            assert report.lifted == [act.id]
            lic = db.session.get(Licence, f["licence"].id)
            assert lic.status == Status.ACTIVE and lic.suspended_until is None
            back = db.session.scalar(select(StatusChange).order_by(StatusChange.id.desc()))
            assert (back.from_status, back.to_status) == (Status.SUSPENDED, Status.ACTIVE)
            assert "Fim da suspensão" in back.reason
            actions = db.session.scalars(select(AuditEntry.action)).all()
            assert "sanction_suspension_lifted" in actions
            assert db.session.scalar(select(EnforcementEvent.text).where(
                EnforcementEvent.kind == "suspension_lifted")).startswith("Fim da suspensão")
            before = _counts()
            again = enforcement.tick(local(2026, 3, 12, 0, 0))
            assert again.changes == 0 and _counts() == before
            assert enforcement.tick(local(2026, 4, 1)).lifted == []
            assert lifted == [(act.id, True)]
            assert audit.verify()[1] is None
    finally:
        unsubscribe("suspension_lifted", listener)


def test_a_later_revocation_is_not_undone_when_the_suspension_ends(app):
    with app.app_context():
        f, _, sup, act = _suspension()
        _suspend(act, sup, T0 + timedelta(hours=1), days=5)
        db.session.commit()
        lic = db.session.get(Licence, f["licence"].id)
        records.change_status(lic, Status.REVOKED, "Cassado por decisão do prefeito.",
                               actor=sup)
        db.session.commit()
        assert enforcement.tick(local(2026, 3, 7, 0, 1)).lifted == [act.id]
        lic = db.session.get(Licence, f["licence"].id)
        assert lic.status == Status.REVOKED and lic.suspended_until is None
        text = db.session.scalar(select(EnforcementEvent.text).where(
            EnforcementEvent.kind == "suspension_lifted"))
        assert "nada a restabelecer" in text


def test_a_suspension_entered_by_hand_after_a_reactivation_is_kept(app):
    with app.app_context():
        f, _, sup, act = _suspension()
        _suspend(act, sup, T0 + timedelta(hours=1), days=5)
        lic = db.session.get(Licence, f["licence"].id)
        records.change_status(lic, Status.ACTIVE, "Reativado: decisão judicial.", actor=sup)
        records.change_status(lic, Status.SUSPENDED, "Suspenso: vistoria reprovada.", actor=sup)
        db.session.commit()
        enforcement.tick(local(2026, 3, 8))
        assert db.session.get(Licence, f["licence"].id).status == Status.SUSPENDED


def test_two_suspensions_of_one_licence_hold_it_until_the_later_one_ends(app):
    with app.app_context():
        f, agent, sup, first = _suspension()
        _suspend(first, sup, T0 + timedelta(hours=1), days=10)          # 02/03-11/03
        db.session.commit()
        [second] = enforcement.acts_of(inspect(f["vehicle"], agent, {"clean": "fail"},
                                               local(2026, 3, 5)))
        assert second.kind == "notice"   # a repeat is not graver by count (Art. 26)
        enforcement.amend(second, sup, local(2026, 3, 5, 11), option="step:suspension:0",
                          days=20, reason="Ainda não é caso de cassação.")      # 05/03-24/03
        deliver(second, sup, local(2026, 3, 5, 11))
        db.session.commit()
        lic = db.session.get(Licence, f["licence"].id)
        assert lic.suspended_until == date(2026, 3, 24)
        assert enforcement.tick(local(2026, 3, 12, 0, 1)).lifted == [first.id]
        lic = db.session.get(Licence, f["licence"].id)
        assert lic.status == Status.SUSPENDED and lic.suspended_until == date(2026, 3, 24)
        assert enforcement.tick(local(2026, 3, 25, 0, 1)).lifted == [second.id]
        lic = db.session.get(Licence, f["licence"].id)
        assert lic.status == Status.ACTIVE and lic.suspended_until is None


def test_without_an_appeal_the_period_starts_the_day_after_the_window_closes(app):
    with app.app_context():
        f, _, _, susp = nortelandia_030_suspension(T0, days=15)
        # 10 business days from Mon 02/03 (Lei 030/1998 Art. 16 § 2º, CPC Art. 219)
        assert susp.appeal_until == date(2026, 3, 16)
        assert suspensions.situation_text(susp) == \
            "suspenso de 17/03/2026 a 31/03/2026 (15 dias), se não houver recurso no prazo"
        assert (susp.suspension_start, susp.suspension_end) == (date(2026, 3, 17),
                                                                date(2026, 3, 31))
        assert db.session.get(Permit, f["permit"].id).suspended_until is None
        enforcement.tick(local(2026, 3, 17, 0, 1))
        permit = db.session.get(Permit, f["permit"].id)
        assert permit.status == Status.SUSPENDED and permit.suspended_until == date(2026, 3, 31)
        assert enforcement.tick(local(2026, 4, 1, 0, 1)).lifted == [susp.id]
        assert db.session.get(Permit, f["permit"].id).status == Status.ACTIVE


def test_a_refused_suspensive_appeal_makes_the_whole_period_run_from_the_refusal(app):
    with app.app_context():
        f, sup, admin, susp = nortelandia_030_suspension(T0, days=15)
        ap = enforcement.file_appeal(susp, filed_on=date(2026, 3, 10), filed_by="Empresa X",
                                     filed_by_role="company", text_="Recorremos da suspensão.",
                                     user=sup, now=local(2026, 3, 10, 11))
        db.session.commit()
        assert suspensions.situation_text(susp) == \
            "15 dias, retida pelo recurso: se ele for negado, contam da decisão"
        enforcement.tick(local(2026, 3, 20))           # the planned period is held
        assert db.session.get(Permit, f["permit"].id).status == Status.ACTIVE
        enforcement.decide_appeal(ap, admin, local(2026, 3, 21, 9), accepted=False,
                                  text_="Mantida a suspensão.", ref="Decisão 4/2026")
        db.session.commit()
        susp = db.session.get(Sanction, susp.id)
        assert (susp.suspension_start, susp.suspension_end) == (date(2026, 3, 21),
                                                                date(2026, 4, 4))
        permit = db.session.get(Permit, f["permit"].id)
        assert permit.status == Status.SUSPENDED and permit.suspended_until == date(2026, 4, 4)
        assert enforcement.tick(local(2026, 4, 4, 23)).lifted == []
        assert enforcement.tick(local(2026, 4, 5, 0, 1)).lifted == [susp.id]
        assert db.session.get(Permit, f["permit"].id).status == Status.ACTIVE
        assert db.session.get(Sanction, susp.id).status == SanctionStatus.CLOSED


def test_an_upheld_appeal_ends_a_running_suspension_at_once(app):
    """Nortelândia 127 gives no appeal window (admitted at any time) and does not say it
    suspends: the suspension runs until the appeal is upheld, then the licence is restored."""
    with app.app_context():
        f, _, sup, act = _suspension()
        admin = factories.user("admin", "nortelandia")
        _suspend(act, sup, T0 + timedelta(hours=1), days=30)
        ap = enforcement.file_appeal(act, filed_on=date(2026, 3, 4), filed_by="Titular",
                                     filed_by_role="holder", text_="O carro estava limpo.",
                                     user=sup, now=local(2026, 3, 4, 9))
        enforcement.decide_appeal(ap, admin, local(2026, 3, 6, 9), accepted=True,
                                  text_="Fotos não mostram sujeira.")
        db.session.commit()
        lic = db.session.get(Licence, f["licence"].id)
        assert lic.status == Status.ACTIVE and lic.suspended_until is None
        assert suspensions.situation_text(db.session.get(Sanction, act.id)) == \
            "suspenso de 02/03/2026 a 31/03/2026 (30 dias): anulada"
        assert enforcement.tick(local(2026, 4, 2)).lifted == []


# --- two ticks at once ----------------------------------------------------------------------------
def test_two_ticks_at_once_lift_each_suspension_once(app):
    with app.app_context():
        ids = []
        for _ in range(3):
            f, _, sup, act = _suspension()
            _suspend(act, sup, T0 + timedelta(hours=1), days=3)
            ids.append(act.id)
        db.session.commit()
        db.engine.dispose()
    now = local(2026, 3, 5, 0, 1)
    out = ticks_at_once(app, now)
    assert all(not isinstance(r, Exception) for r in out), out
    assert sorted(len(r.lifted) for r in out) == [0, 3]
    with app.app_context():
        back = db.session.scalar(select(func.count()).select_from(StatusChange).where(
            StatusChange.to_status == Status.ACTIVE))
        assert back == 3
        assert db.session.scalars(select(AuditEntry.action)).all().count(
            "sanction_suspension_lifted") == 3
        assert audit.verify()[1] is None


def test_a_subscribed_holder_is_told_when_the_suspension_ends(app):
    from inspector.models import Holder, Notification, PushDelivery
    from inspector.notifications import subscriptions
    from tests.support.push import Subscriber

    app.config.update(PUSH_ALLOW_HTTP_LOOPBACK=True)
    with app.app_context():
        f, _, sup, act = _suspension()
        _suspend(act, sup, T0 + timedelta(hours=1), days=10)
        subscriptions.save_subscription(Subscriber("http://127.0.0.1:9/push/h").as_json(),
                                holder=db.session.get(Holder, f["holder"].id))
        db.session.commit()
        enforcement.tick(local(2026, 3, 12, 0, 0))
        enforcement.tick(local(2026, 3, 12, 0, 5))
        [note] = db.session.scalars(select(Notification).where(
            Notification.kind == "suspension_lifted")).all()
        assert note.holder_id == f["holder"].id and note.title == "Fim da suspensão"
        assert "Terminou em 11/03/2026" in note.body and "voltou à situação anterior" in note.body
        assert note.url == f"/notificacoes/nortelandia/{act.notice.number}"
        assert db.session.scalar(select(func.count()).select_from(PushDelivery).where(
            PushDelivery.notification_id == note.id)) == 1
