"""From finding to legal act: proposals, supervisor review, appeals, deadlines.

No Flask here: every function takes the user and the clock (`now`, an aware datetime)
explicitly and works in the caller's transaction (the caller commits), except `tick`,
which is its own transaction. See docs/enforcement.md.

Entry points (the face exports those other areas call; a name only this area or its tests
use is imported from its module, given in brackets)
- `propose_pending(now, town_id)`: the field sync leaves completed inspections unproposed;
  this (run by `tick` and before every review page) calls `on_inspection_complete` on each.
- [pending.py] `on_inspection_complete(insp, now)`: proposes an inspection's acts, closes
  notices a re-inspection finds complied with, announces `inspection_to_review`.
- Review: `confirm`, `amend`, `reject`, `record_mayor_decision`, `comment_inspection`,
  `mark_reviewed`, `amend_options`; `choices` / `choose`: sanctions of the law no checklist
  item proposes (chosen by a supervisor on the review, then decided like any proposal).
- Delivery: `record_delivery` (an office decision starts no time until its document is
  delivered: delivery.py).
- Calendar: `move_for_closure(town_id, day, now)` (a town closure entered before a deadline
  falls due moves the deadlines it reaches: deadlines.py).
- Appeals: `file_appeal`, `decide_appeal`.
- Time: `tick(now)`.
- Read: `review_queue`, `acts_of`, `events_of`, `deadlines`, `review_for_agent`,
  `acts_list`; [queries.py] `deadline_soon`, `notice_for_holder`, `notices_for_holder`.
- Documents: `check_access_code`, `reset_access_code`.
- Fines and grants: `record_payment`, `reverse_payment`, `balance_of`, `open_fines`;
  `give_grant`, `remove_grant`, `offered_grants` (the repair deadline a supervisor grants);
  `suspension_bounds`, `situation_text`.
- Listeners: `subscribe(kind, fn)` ([common.py] `unsubscribe`); kinds `inspection_to_review(inspection)`,
  `act_decided(act, notice)`, `notice_issued(notice, act, access_code)`,
  `forwarded_to_mayor(act)`, `inspection_reviewed(inspection)`,
  `inspection_commented(inspection, text)`, `deadline_soon(act, deadline_at)`,
  `daily_fine_started(act, parent)`, `act_complied(act)`, `appeal_filed(appeal, act)`,
  `appeal_decided(appeal, act)`, `act_delivered(act)`,
  `deadline_moved(act, changes, closure_day, now)`. They run inside the transaction of the change.
"""

# The names other areas use. Modules of this area import each other's modules, never
# this face: that keeps the import order free of circles.
from inspector.enforcement.acts import check_access_code, reset_access_code
from inspector.enforcement.appeals import FILERS, can_file, decide_appeal, file_appeal
from inspector.enforcement.choose import choices, choose
from inspector.enforcement.common import NotAllowed, event, holder_of, notify, pack_measure, subscribe
from inspector.enforcement.deadlines import counting_of, move_for_closure
from inspector.enforcement.delivery import OFFICE_MEANS, record_delivery
from inspector.enforcement.grants import deadline_rule, give_grant, grant_seen, offered_grants, remove_grant
from inspector.enforcement.lifecycle import replay
from inspector.enforcement.payments import (
    PAYMENT_STATES,
    RUNNING_NOTE,
    AlreadyReversed,
    balance,
    balance_of,
    due_of,
    open_fines,
    paid_so_far,
    payment_state,
    record_payment,
    reversal_text,
    reverse_payment,
)
from inspector.enforcement.pending import propose_pending
from inspector.enforcement.propose import propose_for_inspection
from inspector.enforcement.queries import (
    LIST_GROUPS,
    acts_list,
    acts_of,
    agents,
    deadlines,
    end_of_day,
    events_of,
    inspection_review_state,
    money_of,
    review_for_agent,
    review_queue,
)
from inspector.enforcement.review import (
    amend,
    amend_options,
    comment_inspection,
    confirm,
    mark_reviewed,
    record_mayor_decision,
    reject,
)
from inspector.enforcement.suspensions import situation_text, suspension_bounds
from inspector.enforcement.tick import tick

__all__ = [
    "AlreadyReversed", "FILERS", "LIST_GROUPS", "NotAllowed", "OFFICE_MEANS", "PAYMENT_STATES",
    "RUNNING_NOTE", "acts_list", "acts_of", "agents", "amend", "amend_options", "balance",
    "balance_of", "can_file", "check_access_code", "choices", "choose", "comment_inspection", "confirm",
    "counting_of", "deadline_rule", "deadlines", "decide_appeal", "due_of", "end_of_day", "event",
    "events_of", "file_appeal", "give_grant", "grant_seen", "holder_of", "inspection_review_state",
    "mark_reviewed", "money_of", "move_for_closure", "notify", "offered_grants", "open_fines",
    "pack_measure", "paid_so_far", "payment_state", "propose_for_inspection", "propose_pending",
    "record_delivery", "record_mayor_decision", "record_payment", "reject", "remove_grant", "replay",
    "reset_access_code", "reversal_text", "reverse_payment", "review_for_agent", "review_queue",
    "situation_text", "subscribe", "suspension_bounds", "tick"
]
