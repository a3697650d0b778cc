"""The agent's field app: the offline shell at /campo, its manifest and service worker."""
from inspector.blueprints.field.routes import bp

__all__ = ["bp"]
