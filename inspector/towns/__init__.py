"""A town from nothing: `towns create` and its first admin (onboarding), then what is still
missing before its agents can work (setup), for the "Configuração do município" page."""

# The names other areas use. Modules of this area import each other's modules, never
# this face: that keeps the import order free of circles.
from inspector.towns.accounts import (
    BADGE,
    MAX_PASSWORD,
    MIN_PASSWORD,
    accounts_of,
    badge_reason,
    create_account,
    deactivate,
)
from inspector.towns.onboarding import create_first_admin, create_town
from inspector.towns.setup import (
    DATED_KINDS,
    PHOTO_QUALITY_MAX,
    PHOTO_QUALITY_MIN,
    PHOTO_SIDES,
    set_dated_value,
    set_photo_size,
    setup_of,
)

__all__ = [
    "BADGE", "DATED_KINDS", "MAX_PASSWORD", "MIN_PASSWORD", "PHOTO_QUALITY_MAX", "PHOTO_QUALITY_MIN",
    "PHOTO_SIDES", "accounts_of", "badge_reason", "create_account", "create_first_admin", "create_town",
    "deactivate", "set_dated_value", "set_photo_size", "setup_of"
]
