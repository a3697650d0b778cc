from inspector.blueprints.opendata.routes import bp

__all__ = ["bp"]
