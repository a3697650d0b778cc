"""Supervisor review: the queue of inspections, an inspection with its photos and
proposed acts, the acts list and what expires soon. Supervisors and admins, own town only."""
# registers its routes on the review blueprint (routes.py registers the others)
from inspector.blueprints.review import grants  # noqa: F401
