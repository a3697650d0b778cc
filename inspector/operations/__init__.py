"""Running the product for a real town: the checks a production start must pass, and the
backup and restore of everything a town would lose (database, evidence, keys)."""

# The names other areas use. Modules of this area import each other's modules, never
# this face: that keeps the import order free of circles.
from inspector.operations.backup import BackupError
from inspector.operations.backup import create as create_backup
from inspector.operations.database import CONNECTION_ERRORS as DATABASE_ERRORS
from inspector.operations.database import explain as explain_database_error
from inspector.operations.packs import loaded as loaded_packs
from inspector.operations.packs import problems as pack_problems
from inspector.operations.packs import record as record_packs
from inspector.operations.packs import recorded as recorded_packs
from inspector.operations.production import problems as production_problems
from inspector.operations.production import refuse_unsafe_start
from inspector.operations.restore import RestoreRefused
from inspector.operations.restore import restore as restore_backup
from inspector.operations.restore import verify as verify_backup

__all__ = [
    "BackupError", "RestoreRefused", "create_backup", "production_problems", "refuse_unsafe_start",
    "restore_backup", "verify_backup", "DATABASE_ERRORS", "explain_database_error",
    "pack_problems", "record_packs", "loaded_packs", "recorded_packs",
]
