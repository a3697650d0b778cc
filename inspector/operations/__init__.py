"""Running the product for a real town: the checks a production start must pass, and the
backup and restore of everything a town would lose (database, evidence, keys)."""

# The names other areas use. Modules of this area import each other's modules, never
# this face: that keeps the import order free of circles.
from inspector.operations.backup import BackupError
from inspector.operations.backup import create as create_backup
from inspector.operations.database_errors import CONNECTION_ERRORS, explain_database_error
from inspector.operations.packs import loaded_packs, record_pack_versions, recorded_pack_versions
from inspector.operations.production import problems as production_problems
from inspector.operations.production import refuse_unsafe_start
from inspector.operations.restore import RestoreRefused
from inspector.operations.restore import restore as restore_backup
from inspector.operations.restore import verify as verify_backup

__all__ = [
    "BackupError", "CONNECTION_ERRORS", "RestoreRefused", "create_backup", "explain_database_error",
    "loaded_packs", "production_problems", "record_pack_versions", "recorded_pack_versions",
    "refuse_unsafe_start", "restore_backup", "verify_backup"
]
