"""The vistorias' pages: the certificate's public check and the staff's list, detail, PDF and
settings."""
from inspector.blueprints.vistorias.routes import bp

__all__ = ["bp"]
