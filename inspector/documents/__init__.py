"""Legal documents: what a notice says, its PDF, its stored versions and the company's
copy."""

# The names other areas use. Modules of this area import each other's modules, never
# this face: that keeps the import order free of circles.
from inspector.documents.content import APPEAL_TO
from inspector.documents.copies import (
    AlreadyRemitted,
    CopyNotAllowed,
    copy_citation,
    copy_of,
    copy_view,
    mark_remitted,
    pending_copies,
    record_remittance,
    remittance_text,
)
from inspector.documents.issuing import (
    check_copy,
    current_document,
    find_notice,
    install_document_hooks,
    public_status,
    public_view,
)

__all__ = [
    "APPEAL_TO", "AlreadyRemitted", "CopyNotAllowed", "check_copy", "copy_citation", "copy_of", "copy_view",
    "current_document", "find_notice", "install_document_hooks", "mark_remitted", "pending_copies",
    "public_status", "public_view", "record_remittance", "remittance_text"
]
