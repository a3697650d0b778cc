"""Inspections sent by the field app: the JSON they arrive as, storing them once, and their
evidence photos (checked, hashed, kept in packs, rendered for review)."""

# The names other areas use. Modules of this area import each other's modules, never
# this face: that keeps the import order free of circles.
from inspector.inspections.evidence import PhotoRefused, check_photo
from inspector.inspections.evidence_moves import move_evidence, town_by_slug
from inspector.inspections.evidence_objects import NotConfigured, StoreError, object_store
from inspector.inspections.evidence_store import (
    IN_S3,
    PACK_HEADER,
    PACK_MAGIC,
    check_evidence_files,
    evidence_root,
    photo_blocks,
)
from inspector.inspections.input import bulk_answers, driver_told, grant_told, vistoria_plan
from inspector.inspections.records import (
    Conflict,
    NotFound,
    WrongAuthor,
    evidence_state,
    find_inspection,
    inspection_summary,
    photo_bytes,
    receive_inspection,
    receive_photo,
)
from inspector.inspections.registry_check import check_registry
from inspector.inspections.renditions import RENDITION_SIZES, Unrenderable, rendition
from inspector.inspections.schemas import InspectionBody, VistoriaTold

__all__ = [
    "Conflict", "IN_S3", "InspectionBody", "NotConfigured", "NotFound", "PACK_HEADER", "PACK_MAGIC",
    "PhotoRefused", "RENDITION_SIZES", "StoreError", "Unrenderable", "VistoriaTold", "WrongAuthor",
    "bulk_answers", "check_evidence_files", "check_photo", "check_registry", "driver_told", "evidence_root",
    "evidence_state", "find_inspection", "grant_told", "inspection_summary", "move_evidence",
    "object_store", "photo_blocks", "photo_bytes", "receive_inspection", "receive_photo", "rendition",
    "town_by_slug", "vistoria_plan"
]
