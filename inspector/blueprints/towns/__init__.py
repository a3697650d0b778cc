from inspector.blueprints.towns.routes import bp

__all__ = ["bp"]
