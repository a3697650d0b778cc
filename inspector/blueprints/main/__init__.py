from inspector.blueprints.main.routes import bp

__all__ = ["bp"]
