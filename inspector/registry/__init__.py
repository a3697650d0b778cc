"""The town's registry: holders, drivers, vehicles, permits, licences, insurance, stands;
their identifiers (CPF, CNPJ, plate, RG), the values forms give, and the law's limits each
record breaks."""

# The names other areas use. Modules of this area import each other's modules, never
# this face: that keeps the import order free of circles.
from inspector.registry import caps as law_caps
from inspector.registry.base import town_services
from inspector.registry.caps import CapExceeded
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
    NOT_FOUND,
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
    "CapExceeded", "FISCAL_UNIT_KEY", "Fields", "LIMIT_RULES", "Lookup", "NOT_FOUND", "PHOTO_MAX_BYTES",
    "UNIT_LABELS", "accepted_units", "as_data", "change_status", "changed_fields", "key_choices",
    "label", "law_caps", "limits_for", "normalise_photo", "parse_amount", "parse_choice", "parse_date",
    "photo_thumbnail", "printed_rg", "record_history", "sanctions", "save_driver", "save_holder",
    "save_insurance", "save_licence", "save_permit", "save_stand", "save_vehicle", "search_drivers",
    "search_holders", "search_licences", "search_permits", "search_stands", "search_vehicles",
    "set_driver_photo", "set_value", "settle", "town_services", "unlink_driver",
    "vistoria_may_be_shortened", "vistoria_valid_until"
]
__all__ += ["record_vistoria"]  # the one writer of a vehicle's vistoria dates
