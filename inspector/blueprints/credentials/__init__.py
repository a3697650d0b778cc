from inspector.blueprints.credentials.routes import bp

__all__ = ["bp"]
