"""Blueprints: one package per area of the site."""

from inspector.blueprints.wiring import register_blueprints

__all__ = ["register_blueprints"]
