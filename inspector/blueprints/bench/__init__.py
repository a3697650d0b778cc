from inspector.blueprints.bench.routes import bp

__all__ = ["bp"]
