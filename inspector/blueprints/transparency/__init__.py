from inspector.blueprints.transparency.routes import bp

__all__ = ["bp"]
