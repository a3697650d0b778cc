"""Blueprints: one package per area of the site."""
from flask import Flask


def register_blueprints(app: Flask) -> None:
    """Attach every blueprint to the app (one line each; keep them in this order)."""
    from inspector.blueprints.auth.routes import bp as auth_bp
    from inspector.blueprints.bench.routes import bp as bench_bp
    from inspector.blueprints.credentials.routes import bp as credentials_bp
    from inspector.blueprints.dashboard.routes import bp as dashboard_bp
    from inspector.blueprints.documents import bp as documents_bp
    from inspector.blueprints.field.routes import bp as field_bp
    from inspector.blueprints.field_api.routes import bp as field_api_bp
    from inspector.blueprints.imports.routes import bp as imports_bp
    from inspector.blueprints.laws import bp as laws_bp
    from inspector.blueprints.main.routes import bp as main_bp
    from inspector.blueprints.notifications import bp as notifications_bp
    from inspector.blueprints.opendata.routes import bp as opendata_bp
    from inspector.blueprints.public.routes import bp as public_bp
    from inspector.blueprints.registry.routes import bp as registry_bp
    from inspector.blueprints.review import bp as review_bp
    from inspector.blueprints.towns.routes import bp as towns_bp
    from inspector.blueprints.transparency.routes import bp as transparency_bp
    from inspector.blueprints.vistorias.routes import bp as vistorias_bp

    app.register_blueprint(main_bp)
    app.register_blueprint(auth_bp)
    app.register_blueprint(registry_bp)
    app.register_blueprint(public_bp)
    app.register_blueprint(credentials_bp)
    app.register_blueprint(field_bp)
    app.register_blueprint(field_api_bp)
    app.register_blueprint(imports_bp)
    app.register_blueprint(laws_bp)
    app.register_blueprint(review_bp)
    app.register_blueprint(notifications_bp)
    app.register_blueprint(documents_bp)
    app.register_blueprint(transparency_bp)
    app.register_blueprint(towns_bp)
    app.register_blueprint(dashboard_bp)
    app.register_blueprint(opendata_bp)
    app.register_blueprint(vistorias_bp)
    if app.config.get("BENCH_ENDPOINTS"):  # bench/field.py only, never in production
        app.register_blueprint(bench_bp)
