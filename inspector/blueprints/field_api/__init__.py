"""The field app's JSON API (/api/field/...) and the OpenAPI document (/api/openapi.json)."""
