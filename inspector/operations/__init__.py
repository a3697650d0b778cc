"""Running the product for a real town: the checks a production start must pass, and the
backup and restore of everything a town would lose (database, evidence, keys)."""

# The names other areas use. Modules of this area import each other's modules, never
# this face: that keeps the import order free of circles.
from inspector.operations.backup import BackupError, create_backup
from inspector.operations.database import DATABASE_ERRORS, explain_database_error
from inspector.operations.packs import loaded_packs, record_packs, recorded_packs
from inspector.operations.production import production_problems, refuse_unsafe_start
from inspector.operations.restore import RestoreRefused, restore_backup, verify_backup

__all__ = [
    "BackupError", "DATABASE_ERRORS", "RestoreRefused", "create_backup", "explain_database_error",
    "loaded_packs", "production_problems", "record_packs", "recorded_packs", "refuse_unsafe_start",
    "restore_backup", "verify_backup"
]
