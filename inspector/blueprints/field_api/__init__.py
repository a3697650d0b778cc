"""The field app's JSON API (/api/field/...) and the OpenAPI document (/api/openapi.json)."""
from inspector.blueprints.field_api.routes import bp

__all__ = ["bp"]
