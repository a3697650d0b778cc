"""The law texts shipped with the package, parsed once, by slug (for `/leis/<law>`)."""
from __future__ import annotations

import functools

from inspector.rules.lawtext import LawText, read_law
from inspector.rules.loader import LAWS_DIR


@functools.lru_cache(maxsize=1)
def law_texts() -> dict[str, LawText]:
    """Every shipped law by slug (its file name without `.txt`)."""
    return {p.stem: read_law(p) for p in sorted(LAWS_DIR.glob("*.txt"))}


def law_text(slug: str) -> LawText | None:
    """One shipped law by slug, or None (a page answers 404)."""
    return law_texts().get(slug)
