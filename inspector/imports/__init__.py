"""The registry import: CSV decoding and columns, the all-or-nothing import and its
report."""

# The names other areas use. Modules of this area import each other's modules, never
# this face: that keeps the import order free of circles.
from inspector.imports.csv_format import COLUMNS, MAX_BYTES, MAX_ROWS, FileRefused, examples, template_csv
from inspector.imports.csv_import import ImportReport, import_registry

__all__ = [
    "COLUMNS", "FileRefused", "ImportReport", "MAX_BYTES", "MAX_ROWS", "examples", "import_registry",
    "template_csv"
]
