from inspector.blueprints.auth.routes import bp

__all__ = ["bp"]
