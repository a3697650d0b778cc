"""The law texts shipped with the package and in the extra folders (RULES_EXTRA_DIR), parsed
once, by slug (for `/leis/<law>`)."""
from __future__ import annotations

import functools
from pathlib import Path

from inspector.rules.lawtext import LawText, read_law
from inspector.rules.loader import RulePackError, laws_dirs


# bench/caches.py: reading the law texts costs 65-91 ms a call
@functools.lru_cache(maxsize=1)
def law_texts() -> dict[str, LawText]:
    """Every law by slug (its file name without `.txt`): the package's, then the extra
    folders'; a slug given twice is refused (a link to /leis/<slug> must name one text)."""
    out: dict[str, LawText] = {}
    where: dict[str, Path] = {}
    for d in laws_dirs():
        for p in sorted(d.glob("*.txt")):
            if p.stem in out:
                raise RulePackError(str(p), "(file name)", f"law '{p.stem}' is already "
                                    f"given by {where[p.stem]}")
            out[p.stem], where[p.stem] = read_law(p), p
    return out


def law_text(slug: str) -> LawText | None:
    """One shipped law by slug, or None (a page answers 404)."""
    return law_texts().get(slug)
