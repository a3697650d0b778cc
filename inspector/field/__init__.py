"""What the field app keeps on the phone: the town snapshot and its deltas, each vehicle's
standing, the open notices and the supervisor's answers."""

# The names other areas use. Modules of this area import each other's modules, never
# this face: that keeps the import order free of circles.
from inspector.field.reviews import build_reviews
from inspector.field.snapshot import build_snapshot
from inspector.field.standing import town_standing

__all__ = [
    "build_reviews", "build_snapshot", "town_standing"
]
