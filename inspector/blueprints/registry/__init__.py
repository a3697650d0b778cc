"""Registry admin: the town's fleet records, searched, edited and their status changed."""
from inspector.blueprints.registry.routes import bp

__all__ = ["bp"]
