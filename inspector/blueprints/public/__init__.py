from inspector.blueprints.public.routes import bp

__all__ = ["bp"]
