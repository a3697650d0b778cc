"""The legal acts of bench/review.py's inspections, as the enforcement services would have
left them: proposals from the real rules engine (`rules.propose_sanction` with the town's
values and the offender's history), the deadline and appeal window from the real
`schedule()`, then what the supervisor and time did: most acts confirmed, some rejected
with a reason; a notice numbered per town and year for each decided act that has a
document; notices complied with, or turned into a running or stopped daily fine; appeal
windows closed and acts closed as `enforcement tick` does; one event per step.

Rows are plain dicts for core bulk inserts; `Ledger.write()` numbers the notices and
events in time order and inserts everything.
"""
from __future__ import annotations

import hashlib
import math
from datetime import datetime, timedelta

from inspector.audit import (
    canonical,  # noqa: F401  (review_data uses it)
    jsonable,
)

DOCUMENTS = {"notice": "notice", "written_warning": "warning", "fine": "infraction_record",
             "daily_fine": "infraction_record", "suspension": "decision",
             "revocation": "decision", "suspension_or_revocation": "decision", "ban": "decision"}
PREFIXES = {"notice": "NOT", "warning": "ADV", "infraction_record": "AI", "decision": "DEC"}
REJECT_REASON = "A foto não mostra a irregularidade com clareza; refaça a vistoria do item."
ACCESS_CODE = "BENCH-CODE2"
SUPERVISOR_NAME = "supervisor.bench"


def _blank_act() -> dict:
    """Every column of `sanctions`, as the services leave it before a decision."""
    return dict(parent_id=None, step_id=None, offence_id=None, permit_id=None, licence_id=None,
                amount_unit=None, amount=None, amount_max=None, amount_per=None,
                amount_decree_key=None, amount_brl=None, amount_basis="", amount_on=None,
                deadline_hours=None, deadline_days=None, deadline_text=None,
                deadline_citation=None, deadline_at=None, on_missed=None, appeal_days=None,
                appeal_to=None, appeal_suspensive=None, appeal_citation=None, appeal_until=None,
                appeal_closed_at=None, automatic=False, awaiting_mayor=False, suspended=False,
                notified_at=None, decided_at=None, decided_by_user_id=None, decision_ref="",
                reason="", comment="", effect_applied_at=None, closed_at=None)


class Ledger:
    """Collects the acts of inspections handed over in the order they were finished."""

    def __init__(self, town_id: int, facts, items, supervisor_id: int, now: datetime, rng):
        from inspector import clock
        from inspector.extensions import db
        from inspector.models import Municipality

        self.town_id, self.facts, self.supervisor, self.now, self.rng = \
            town_id, facts, supervisor_id, now, rng
        town = db.session.get(Municipality, town_id)
        # the town's day and the end of one of its days, on its own clock
        self.local_day = lambda moment: clock.town_day(town, moment)
        self.end_of_day = lambda day: clock.end_of_day(town, day)
        self.today = self.local_day(now)
        self.help = {it.id: it.help for it in items}
        self.cache: dict[tuple, object] = {}
        self.occasions: dict[int, int] = {}      # driver id -> earlier occasions in effect
        self.acts: list[dict] = []
        self.notices: list[dict] = []
        self.fines: list[dict] = []
        self.appeals: list[dict] = []
        self.events: list[tuple] = []
        self.notice_of: dict[int, dict] = {}     # act id -> its notice row
        self.revoked: dict[int, tuple[int, datetime]] = {}   # driver id -> (act id, when)
        self.pdf_notice_acts: list[int] = []
        self.pdf_acts: list[int] = []
        self.pdf_offenders: set[str] = set()

    # -- the law ---------------------------------------------------------------------------
    def proposal(self, rule_id: str, occurrence: int, day):
        """The engine's proposal (cached: it depends on the rung and the year's values)."""
        from inspector import rules

        key = (rule_id, min(occurrence, 3), day.year)
        if key not in self.cache:
            prior = [rules.PriorSanction(on=day - timedelta(days=1), rule_id=rule_id,
                                         kind="notice")] * (occurrence - 1)
            self.cache[key] = rules.propose_sanction(self.facts, "mototaxi",
                                                     rules.Finding(rule_id, None), prior, day)
        return self.cache[key]

    def _event(self, at, kind: str, act: dict | None, inspection_id: int | None, text: str,
               *, by_supervisor: bool = False, dedupe: str | None = None) -> None:
        self.events.append((at, kind, act["id"] if act else None, inspection_id,
                            self.supervisor if by_supervisor else None,
                            SUPERVISOR_NAME if by_supervisor else "enforcement-tick", text,
                            dedupe))

    def _new_id(self) -> int:
        return len(self.acts) + 1

    # -- one inspection ---------------------------------------------------------------------
    def inspection(self, insp: dict, failed: list[tuple], holder_id: int, driver_id: int,
                   vehicle_id: int, sample: str | None) -> None:
        """Propose the acts of a complete inspection, then decide them if it was reviewed."""
        from inspector.enforcement.acts import schedule
        from inspector.models import Sanction

        completed, iid = insp["completed_at"], insp["id"]
        occurrence = 1 + self.occasions.get(driver_id, 0)
        mine = []
        for item_row, rule, note in failed:
            p = self.proposal(rule.id, occurrence, insp["rules_day"])
            principal = next((i for i, m in enumerate(p.measures)
                              if m.kind in ("notice", "written_warning", "oral_warning")), 0)
            action = f"{rule.help} Observação do agente: {note}".strip() if note else rule.help
            for i, m in enumerate(p.measures):
                act = _blank_act() | dict(
                    id=self._new_id(), municipality_id=self.town_id,
                    origin_key=f"item:{item_row}:{i}", inspection_id=iid,
                    inspection_item_id=item_row, pack_id=p.pack_id, law=p.law,
                    rule_id=p.rule_id, step_id=p.step_id, offence_id=p.offence_id,
                    occurrence=occurrence, measure_index=i, kind=m.kind, target=m.target,
                    label=m.label, offender=f"driver:{driver_id}", holder_id=holder_id,
                    driver_id=driver_id, vehicle_id=vehicle_id,
                    breach_citation=jsonable(rule.citation.as_dict()),
                    citation=jsonable(m.citation.as_dict()), required_action=action,
                    decided_by=m.decided_by, status="proposed", proposed_at=completed,
                    updated_at=completed, amount_on=insp["rules_day"])
                if m.money is not None:
                    act.update(amount_unit=m.money.unit, amount=m.money.amount,
                               amount_max=m.money.max, amount_per=m.money.per,
                               amount_decree_key=m.money.decree_key, amount_brl=m.money.brl,
                               amount_basis=m.money.basis)
                if m.appeal is not None:
                    act.update(appeal_days=m.appeal.days, appeal_to=m.appeal.to,
                               appeal_suspensive=m.appeal.suspensive,
                               appeal_citation=jsonable(m.appeal.citation.as_dict()))
                if i == principal and p.deadline is not None:
                    d = p.deadline
                    act.update(deadline_hours=d.hours, deadline_days=d.days,
                               deadline_text=d.text,
                               deadline_citation=jsonable(d.citation.as_dict()))
                    if p.on_missed_deadline is not None:
                        act["on_missed"] = jsonable(p.on_missed_deadline.as_dict())
                if m.decided_by == "agent" and insp["ack_name"]:
                    act["notified_at"] = insp["finished_at"]   # signed on the street
                    self._schedule(act, schedule, Sanction)
                self.acts.append(act)
                mine.append((act, i == principal, rule.id))
                self._event(completed, "proposed", act, iid,
                            f"Proposto: {m.label} ({p.law}, {m.citation.article}).")
                # one notice per offender: confirming one re-proposes the offender's later
                # proposals with the new count (enforcement.repropose_later), rejecting them
                if sample == "open" and m.kind == "notice" and \
                        act["offender"] not in self.pdf_offenders:
                    self.pdf_offenders.add(act["offender"])
                    self.pdf_acts.append(act["id"])
        self._event(completed, "inspection_to_review", None, iid,
                    f"Vistoria completa: {len(mine)} ato(s) proposto(s).",
                    dedupe=f"to_review:{iid}")
        if insp["status"] != "reviewed":
            return
        effective = False
        for act, _principal, rule_id in mine:
            keep = sample == "done" or self.rng.random() < 0.9
            effective |= keep
            self._decide(act, insp, keep, rule_id, sample == "done", schedule, Sanction)
        self._event(insp["reviewed_at"], "inspection_reviewed", None, iid, "Vistoria revisada.",
                    by_supervisor=True)
        if effective:
            self.occasions[driver_id] = self.occasions.get(driver_id, 0) + 1

    @staticmethod
    def _schedule(act: dict, schedule, Sanction) -> None:
        """The services' own `schedule()` on a transient act: deadline and appeal window."""
        probe = Sanction(municipality_id=act["municipality_id"], notified_at=act["notified_at"],
                         deadline_hours=act["deadline_hours"],
                         deadline_days=act["deadline_days"], appeal_days=act["appeal_days"])
        schedule(probe)
        act["deadline_at"], act["appeal_until"] = probe.deadline_at, probe.appeal_until

    # -- decisions and what time did ----------------------------------------------------------
    def _decide(self, act: dict, insp: dict, keep: bool, rule_id: str, sample: bool,
                schedule, Sanction) -> None:
        decided = max(insp["completed_at"],
                      insp["reviewed_at"] - timedelta(seconds=self.rng.randint(5, 600)))
        act.update(decided_at=decided, decided_by_user_id=self.supervisor, updated_at=decided)
        iid = insp["id"]
        if not keep:
            act.update(status="rejected", reason=REJECT_REASON)
            self._event(decided, "rejected", act, iid, f"Rejeitado: {REJECT_REASON}",
                        by_supervisor=True)
            return
        act["status"] = "confirmed"
        if act["notified_at"] is None:
            act["notified_at"] = decided
            self._schedule(act, schedule, Sanction)
        self._event(decided, "confirmed", act, iid, f"Confirmado: {act['label']}.",
                    by_supervisor=True)
        self._notice(act, insp, decided)
        if sample and act["kind"] == "notice":
            self.pdf_notice_acts.append(act["id"])
        if act["kind"] == "fine":
            self._fine(act, decided)
        if act["kind"] == "revocation" and act["target"] == "registration":
            act["effect_applied_at"] = decided
            self.revoked.setdefault(act["driver_id"], (act["id"], decided))
            self._event(decided, "registry_effect", act, iid,
                        "Cadastro atualizado: cassação / revogação (registration).")
        moment = None
        if act["deadline_at"] is not None and act["deadline_at"] < self.now:
            span = act["deadline_at"] - act["notified_at"]
            if self.rng.random() < 0.87:   # fixed in time (a re-inspection found it ok)
                moment = act["notified_at"] + span * self.rng.uniform(0.1, 0.95)
            else:                          # missed: the tick starts a daily fine
                moment = self._daily_fine(act, insp, rule_id, schedule, Sanction)
            if moment is not None:
                act.update(status="complied", updated_at=moment)
                self.notice_of[act["id"]]["complied_at"] = moment
                self._event(moment, "complied", act, iid,
                            "Notificação cumprida (constatado em nova vistoria).")
        if act["appeal_until"] is not None and self.rng.random() < 0.03:
            self._appeal(act, decided)
        self._close(act, iid)

    def _close(self, act: dict, iid: int | None) -> None:
        """What the tick does once the appeal window is over."""
        until = act["appeal_until"]
        if until is None or until >= self.today:
            return
        closed = self.end_of_day(until) + timedelta(minutes=1)
        act["appeal_closed_at"] = closed
        self._event(closed, "appeal_window_closed", act, iid,
                    f"Prazo de recurso encerrado em {until:%d/%m/%Y}.")
        if act["deadline_at"] is not None and act["status"] != "complied":
            return
        if act["status"] in ("confirmed", "complied"):
            act.update(status="closed", closed_at=closed, updated_at=closed)
            self._event(closed, "closed", act, iid,
                        "Ato encerrado: prazo de recurso terminado, nada pendente.")

    def _appeal(self, act: dict, decided: datetime) -> None:
        filed = self.local_day(decided) + timedelta(days=self.rng.randint(1, act["appeal_days"]))
        if filed > self.today:
            return
        recorded = self.end_of_day(filed) - timedelta(hours=8)
        self.appeals.append(dict(
            id=len(self.appeals) + 1, municipality_id=self.town_id, sanction_id=act["id"],
            filed_on=filed, recorded_at=recorded, filed_by="Condutor (bench)",
            filed_by_role="driver", text="Peço a anulação: o item foi corrigido no mesmo dia.",
            recorded_by_id=self.supervisor, window_until=act["appeal_until"], admitted=True,
            suspensive=act["appeal_suspensive"], to=act["appeal_to"] or "supervisor",
            status="refused", decided_by_id=self.supervisor,
            decided_at=recorded + timedelta(days=2), decision_text="Recurso negado: a foto "
            "mostra a irregularidade.", decision_ref=""))
        self._event(recorded, "appeal_filed", act, act["inspection_id"], "Recurso registrado.")

    def _notice(self, act: dict, insp: dict, issued: datetime) -> None:
        kind = DOCUMENTS.get(act["kind"])
        if kind is None:
            return
        sig = insp["ack_signature"]
        self.notice_of[act["id"]] = dict(
            municipality_id=self.town_id, sanction_id=act["id"], document_kind=kind,
            issued_at=issued, deadline_at=act["deadline_at"], inspection_id=insp["id"],
            ack_name=insp["ack_name"], ack_at=insp["finished_at"] if insp["ack_name"] else None,
            ack_signature_sha256=hashlib.sha256(sig).hexdigest() if sig else None,
            complied_at=None, complied_inspection_id=None)
        self.notices.append(self.notice_of[act["id"]])

    def _fine(self, act: dict, at: datetime, *, start=None, stop=None) -> None:
        fine = dict(id=len(self.fines) + 1, municipality_id=self.town_id,
                    sanction_id=act["id"], unit=act["amount_unit"], amount=act["amount"],
                    amount_max=act["amount_max"], per=act["amount_per"],
                    amount_brl=act["amount_brl"], brl_basis=act["amount_basis"],
                    value_on=act["amount_on"] or self.local_day(at), daily_start_at=start,
                    stopped_at=stop, accrued_days=0, accrued_brl=None, accrued_at=None)
        if act["amount_per"] == "day":
            until = min(stop or self.now, self.now)
            days = max(0, math.ceil((until - start).total_seconds() / 86400))
            fine.update(accrued_days=days, accrued_at=until,
                        accrued_brl=None if act["amount_brl"] is None
                        else act["amount_brl"] * days)
        self.fines.append(fine)

    def _daily_fine(self, parent: dict, insp: dict, rule_id: str, schedule, Sanction):
        """The daily fine a missed deadline turns into; when it stopped (or None: running)."""
        start = parent["deadline_at"]
        day = self.local_day(start)
        missed = self.proposal(rule_id, parent["occurrence"], day).on_missed_deadline
        cash = missed.money
        child = _blank_act() | dict(
            id=self._new_id(), municipality_id=self.town_id, origin_key=f"daily:{parent['id']}",
            inspection_id=parent["inspection_id"],
            inspection_item_id=parent["inspection_item_id"], parent_id=parent["id"],
            pack_id=parent["pack_id"], law=parent["law"], rule_id=parent["rule_id"],
            step_id=parent["step_id"], occurrence=parent["occurrence"],
            measure_index=parent["measure_index"], kind=missed.kind, target=missed.target,
            label=missed.label, offender=parent["offender"], holder_id=parent["holder_id"],
            driver_id=parent["driver_id"], vehicle_id=parent["vehicle_id"],
            breach_citation=parent["breach_citation"],
            citation=jsonable(missed.citation.as_dict()),
            required_action=parent["required_action"], decided_by=missed.decided_by,
            automatic=True, status="confirmed", notified_at=start, proposed_at=start,
            decided_at=start, updated_at=start, amount_unit=cash.unit, amount=cash.amount,
            amount_max=cash.max, amount_per=cash.per, amount_decree_key=cash.decree_key,
            amount_brl=cash.brl, amount_basis=cash.basis, amount_on=day,
            appeal_days=parent["appeal_days"], appeal_to=parent["appeal_to"],
            appeal_suspensive=parent["appeal_suspensive"],
            appeal_citation=parent["appeal_citation"])
        self._schedule(child, schedule, Sanction)
        self.acts.append(child)
        parent.update(status="converted_to_daily_fine", updated_at=start)
        self._event(start, "converted", parent, parent["inspection_id"],
                    f"Prazo vencido: {missed.label} ({cash.text}, {cash.brl_text}).")
        stop = start + timedelta(days=self.rng.randint(1, 12), hours=self.rng.randint(0, 20))
        stop = None if stop > self.now else stop
        self._fine(child, start, start=start, stop=stop)
        self._notice(child, insp, start)
        if stop is not None:
            self._event(stop, "fine_stopped", child, parent["inspection_id"],
                        "Multa diária encerrada.")
        self._close(child, parent["inspection_id"])
        return stop

    # -- into the database -------------------------------------------------------------------
    def write(self) -> dict:
        """Number the notices per year and the events in time order; insert everything."""
        from argon2 import PasswordHasher
        from sqlalchemy import insert, update

        from inspector.extensions import db
        from inspector.models import (
            Appeal,
            Driver,
            EnforcementEvent,
            Fine,
            Notice,
            Sanction,
            StatusChange,
        )

        code_hash = PasswordHasher().hash(ACCESS_CODE)
        seq: dict[int, int] = {}
        notice_ids = {}
        for n, row in enumerate(sorted(self.notices, key=lambda r: (r["issued_at"],
                                                                   r["sanction_id"])), 1):
            year = self.local_day(row["issued_at"]).year
            seq[year] = seq.get(year, 0) + 1
            row.update(id=n, year=year, seq=seq[year], access_code_hash=code_hash,
                       number=f"{PREFIXES[row['document_kind']]}-{year}/{seq[year]:06d}")
            notice_ids[row["sanction_id"]] = n
        events = sorted(self.events, key=lambda e: e[0])
        for start in range(0, len(self.acts), 20_000):
            db.session.execute(insert(Sanction.__table__), self.acts[start:start + 20_000])
        for rows, model in ((self.notices, Notice), (self.fines, Fine), (self.appeals, Appeal)):
            if rows:
                db.session.execute(insert(model.__table__), rows)
        for start in range(0, len(events), 50_000):
            db.session.execute(insert(EnforcementEvent.__table__), [
                dict(id=start + n + 1, municipality_id=self.town_id, sanction_id=e[2],
                     inspection_id=e[3], kind=e[1], at=e[0], recorded_at=e[0], actor_id=e[4],
                     actor=e[5], text=e[6], data=None, dedupe_key=e[7])
                for n, e in enumerate(events[start:start + 50_000])])
        if self.revoked:
            db.session.execute(update(Driver), [{"id": d, "status": "revoked"}
                                                for d in self.revoked])
            db.session.execute(insert(StatusChange.__table__), [
                dict(id=n, municipality_id=self.town_id, subject_type="driver", subject_id=d,
                     from_status="active", to_status="revoked", user_id=self.supervisor, at=at,
                     reason=f"Cassação / revogação (Lei 406/2001, Art. 14): Ato nº {a}.")
                for n, (d, (a, at)) in enumerate(self.revoked.items(), 1)])
        return {"acts": len(self.acts), "notices": len(self.notices),
                "pdf_notices": [notice_ids[a] for a in self.pdf_notice_acts],
                "pdf_acts": self.pdf_acts}
