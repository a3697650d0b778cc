"""Import a town's registry from a spreadsheet: upload, dry run, then commit (admins only)."""
from inspector.blueprints.imports.routes import bp

__all__ = ["bp"]
