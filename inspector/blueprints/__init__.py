"""Blueprints: one package per area of the site."""
from flask import Flask


def register_blueprints(app: Flask) -> None:
    """Attach every blueprint to the app."""
    from .auth.routes import bp as auth_bp
    from .main.routes import bp as main_bp

    app.register_blueprint(main_bp)
    app.register_blueprint(auth_bp)
    try:
        from .registry.routes import bp as registry_bp
    except ImportError:  # pragma: no cover - registry admin lands separately
        registry_bp = None
    if registry_bp is not None:
        app.register_blueprint(registry_bp)
