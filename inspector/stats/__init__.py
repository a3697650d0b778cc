"""What a town's work adds up to: the dashboard's figures over a period, the
exports of its lists as spreadsheets, and the open data any citizen may download.

- `period`: the period asked for (local days), its weeks or months.
- `dashboard`: inspections per week and agent, the most failed items, acts by kind and
  state, fines issued, paid and open, passenger reports; each read from indexes only.
- `fleet`: the share of the fleet regular today (the field snapshot's standing) and its trend.
- `causes`: why vehicles are not regular today (by cause), and documents falling due soon.
- `exports`, `sheets`: rows of the town's lists, streamed as CSV or XLSX.
- `opendata`: monthly figures without any personal data.
"""

# The names other areas use. Modules of this area import each other's modules, never
# this face: that keeps the import order free of circles.
from inspector.stats.causes import (
    CAUSE_LABELS,
    DOCUMENTS,
    WINDOWS,
    cause_label,
    expiring,
    falling_due,
    irregular_by_cause,
)
from inspector.stats.dashboard import (
    ACT_STATES,
    FINE_LABELS,
    ZERO_BRL,
    act_figures,
    failed_items,
    fine_figures,
    inspection_figures,
    report_figures,
)
from inspector.stats.exports import EXPORT_DATASETS, ExportFilters
from inspector.stats.fleet import (
    SERVICE_LABELS,
    STANDING_LABELS,
    fleet_today,
    fleet_trend,
    record_fleet_day,
    standing_today,
    vehicles_in,
)
from inspector.stats.opendata import (
    OPEN_DATA_DICTIONARY,
    OPEN_DATA_MONTHS,
    OpenData,
    open_data,
    open_data_json,
)
from inspector.stats.period import PERIOD_PRESETS, Period, parse_day, period_from_args, preset_period
from inspector.stats.sheets import csv_stream, xlsx_stream

__all__ = [
    "ACT_STATES", "CAUSE_LABELS", "DOCUMENTS", "EXPORT_DATASETS", "ExportFilters",
    "FINE_LABELS", "OPEN_DATA_DICTIONARY", "OPEN_DATA_MONTHS", "OpenData", "PERIOD_PRESETS", "Period",
    "SERVICE_LABELS", "STANDING_LABELS", "WINDOWS", "ZERO_BRL", "act_figures", "cause_label", "csv_stream",
    "expiring", "failed_items", "falling_due", "fine_figures", "fleet_today", "fleet_trend",
    "inspection_figures", "irregular_by_cause", "open_data", "open_data_json", "parse_day",
    "period_from_args", "preset_period", "record_fleet_day", "report_figures", "standing_today",
    "vehicles_in", "xlsx_stream"
]
