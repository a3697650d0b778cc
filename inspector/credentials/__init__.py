"""QR credentials: the signing keys, the signed tokens, issuing, reissuing and revoking
them, and the sheets printed for stickers and badges."""

# The names other areas use. Modules of this area import each other's modules, never
# this face: that keeps the import order free of circles.
from inspector.credentials.issuing import (
    DEFAULT_BASE_URL,
    MAX_QUERY,
    MIN_REASON,
    Lookup,
    check_sheet,
    check_signature,
    decide_token,
    eligible_subjects,
    for_town,
    issue,
    issue_missing,
    load_for_page,
    missing_subjects,
    offered_sheets,
    public_url,
    reissue,
    revoke,
    search,
    service_of,
    sheet_of,
    sign,
    subject_of,
    token_hash,
)
from inspector.credentials.keys import public_key_set, rotate_keys
from inspector.credentials.sheets import GREEN, LABEL_GREY, SHEETS, WHITE, SheetPen, printable, render_pdf
from inspector.credentials.tokens import claimed_kind, claimed_town

__all__ = [
    "DEFAULT_BASE_URL", "GREEN", "LABEL_GREY", "Lookup", "MAX_QUERY", "MIN_REASON", "SHEETS", "SheetPen",
    "WHITE", "check_sheet", "check_signature", "claimed_kind", "claimed_town", "decide_token",
    "eligible_subjects", "for_town", "issue", "issue_missing", "load_for_page", "missing_subjects",
    "offered_sheets", "printable", "public_key_set", "public_url", "reissue", "render_pdf", "revoke",
    "rotate_keys", "search", "service_of", "sheet_of", "sign", "subject_of", "token_hash"
]
