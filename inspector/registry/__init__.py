"""The town's registry: holders, drivers, vehicles, permits, licences, insurance, stands;
their identifiers (CPF, CNPJ, plate, RG), the values forms give, and the law's limits each
record breaks."""

# The names other areas use. Modules of this area import each other's modules, never
# this face: that keeps the import order free of circles.
from inspector.registry.base import town_services
from inspector.registry.caps import (
    CAPS_REASON_FIELD,
    CapExceeded,
    caps_breached,
    caps_in_use,
    check_caps,
    clean_caps_reason,
)
from inspector.registry.decree_values import (
    FISCAL_UNIT_KEY,
    UNIT_LABELS,
    accepted_units,
    key_choices,
    parse_amount,
    set_value,
)
from inspector.registry.history import changed_fields, record_history, sanctions
from inspector.registry.limits import LIMIT_RULES, limits_for
from inspector.registry.lookup import Lookup
from inspector.registry.photos import PHOTO_MAX_BYTES, normalise_photo, photo_thumbnail, set_driver_photo
from inspector.registry.records import (
    as_data,
    change_status,
    save_driver,
    save_holder,
    save_insurance,
    save_licence,
    save_permit,
    save_stand,
    save_vehicle,
    search_drivers,
    search_holders,
    search_licences,
    search_permits,
    search_stands,
    search_vehicles,
    settle,
    unlink_driver,
)
from inspector.registry.rg import printed_rg
from inspector.registry.values import Fields, label, parse_choice, parse_date
from inspector.registry.vistoria_validity import (
    record_vistoria,
    vistoria_may_be_shortened,
    vistoria_valid_until,
)

__all__ = [
    "CAPS_REASON_FIELD", "CapExceeded", "FISCAL_UNIT_KEY", "Fields", "LIMIT_RULES", "Lookup",
    "PHOTO_MAX_BYTES", "UNIT_LABELS", "accepted_units", "as_data", "caps_breached", "caps_in_use",
    "change_status", "changed_fields", "check_caps", "clean_caps_reason", "key_choices", "label",
    "limits_for", "normalise_photo", "parse_amount", "parse_choice", "parse_date", "photo_thumbnail",
    "printed_rg", "record_history", "record_vistoria", "sanctions", "save_driver", "save_holder",
    "save_insurance", "save_licence", "save_permit", "save_stand", "save_vehicle", "search_drivers",
    "search_holders", "search_licences", "search_permits", "search_stands", "search_vehicles",
    "set_driver_photo", "set_value", "settle", "town_services", "unlink_driver",
    "vistoria_may_be_shortened", "vistoria_valid_until"
]
