"""Every blueprint attached to the app, in one place: each package of blueprints/ creates its
own (or takes it from its routes module) and exports it as `bp`."""
from flask import Flask


def register_blueprints(app: Flask) -> None:
    """Attach every blueprint to the app (one line each; keep them in this order)."""
    from inspector.blueprints import (
        auth,
        bench,
        credentials,
        dashboard,
        documents,
        field,
        field_api,
        imports,
        laws,
        main,
        notifications,
        opendata,
        public,
        registry,
        review,
        towns,
        transparency,
        vistorias,
    )

    for package in (main, auth, registry, public, credentials, field, field_api, imports, laws, review,
                    notifications, documents, transparency, towns, dashboard, opendata, vistorias):
        app.register_blueprint(package.bp)
    if app.config.get("BENCH_ENDPOINTS"):  # bench/field.py only, never in production
        app.register_blueprint(bench.bp)
