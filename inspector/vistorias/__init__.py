"""The law's vistorias run in the field app: the result decided from the checklist, the
vehicle's vistoria recorded through the registry, and the certificado de vistoria (a signed
PDF the passenger can check). docs/vistoria.md."""

# The names other areas use. Modules of this area import each other's modules, never
# this face: that keeps the import order free of circles.
from inspector.vistorias.agenda import (
    WEEKDAYS,
    agenda_places,
    appointments_for_phone,
    book_vistoria,
    day_appointments,
    free_slots,
    mark_appointment,
    save_place,
)
from inspector.vistorias.holders import book_for_holder, holder_vistorias, proof_for
from inspector.vistorias.queries import (
    certificate_state,
    certificate_view,
    figures,
    find_by_token,
    find_certificate,
    for_vehicle,
    latest_for_vehicle,
    result_of,
    to_fix,
)
from inspector.vistorias.reminders import reminders_for_vehicle, send_reminders
from inspector.vistorias.results import MAX_RETURN_DAYS, return_days, set_return_days, settle

__all__ = [
    "MAX_RETURN_DAYS", "WEEKDAYS", "agenda_places", "appointments_for_phone", "book_for_holder",
    "book_vistoria", "certificate_state", "certificate_view", "day_appointments", "figures",
    "find_by_token", "find_certificate", "for_vehicle", "free_slots", "holder_vistorias",
    "latest_for_vehicle", "mark_appointment", "proof_for", "reminders_for_vehicle", "result_of",
    "return_days", "save_place", "send_reminders", "set_return_days", "settle", "to_fix"
]
