from inspector.blueprints.dashboard.routes import bp

__all__ = ["bp"]
