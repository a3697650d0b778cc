"""What a town's work adds up to (issue 19): the dashboard's figures over a period, the
exports of its lists as spreadsheets, and the open data any citizen may download.

- `period`: the period asked for (local days), its weeks or months.
- `dashboard`: inspections per week and agent, the most failed items, acts by kind and
  state, fines issued, paid and open, passenger reports; each read from indexes only.
- `fleet`: the share of the fleet regular today (the field snapshot's standing) and its trend.
- `exports`, `sheets`: rows of the town's lists, streamed as CSV or XLSX.
- `opendata`: monthly figures without any personal data.
"""
