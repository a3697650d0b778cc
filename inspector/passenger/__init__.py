"""The passenger's page behind a QR code (is this ride licensed right now?) and the reports
passengers send."""

# The names other areas use. Modules of this area import each other's modules, never
# this face: that keeps the import order free of circles.
from inspector.passenger.page import claimed_municipality, page_for, page_html, town_zone
from inspector.passenger.reports import close_report, create_forged_report, create_report, report_queue
from inspector.passenger.view import TITLES

__all__ = [
    "TITLES", "claimed_municipality", "close_report", "create_forged_report", "create_report", "page_for",
    "page_html", "report_queue", "town_zone"
]
