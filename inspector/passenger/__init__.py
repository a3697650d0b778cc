"""The passenger's page behind a QR code (is this ride licensed right now?) and the reports
passengers send."""

# The names other areas use. Modules of this area import each other's modules, never
# this face: that keeps the import order free of circles.
from inspector.passenger.page import claimed_municipality, town_zone
from inspector.passenger.page import html as page_html
from inspector.passenger.page import page as page_for
from inspector.passenger.reports import close as close_report
from inspector.passenger.reports import create as create_report
from inspector.passenger.reports import create_forged as create_forged_report
from inspector.passenger.reports import queue as report_queue
from inspector.passenger.view import TITLES

__all__ = [
    "TITLES", "claimed_municipality", "close_report", "create_forged_report", "create_report",
    "page_for", "page_html", "report_queue", "town_zone"
]
