"""Template helpers that turn a citation into a link to its article on /leis/<law>.

Registered on the app by the laws blueprint (`app_template_global`), so every template
can call them; `templates/_citation.html` wraps them in the `citation_link(c)` macro.
A citation may be a `rules.Citation`, its `as_dict()` form or None.
"""
from __future__ import annotations

from typing import Any

from flask import url_for


def _field(c: Any, name: str) -> str:
    if c is None:
        return ""
    value = c.get(name) if isinstance(c, dict) else getattr(c, name, None)
    return "" if value is None else str(value)


def citation_url(c: Any) -> str:
    """`/leis/<law_slug>#<anchor>` for a citation, '' when it names no law page."""
    slug = _field(c, "law_slug")
    if not slug:
        return ""
    return url_for("laws.law", law_slug=slug, _anchor=_field(c, "anchor") or None)


def citation_text(c: Any, short: bool = False) -> str:
    """"Lei 406/2001, Art. 15, I" (or just "Art. 15, I" when `short`)."""
    law, article = _field(c, "law"), _field(c, "article")
    if short or not law:
        return article
    return f"{law}, {article}" if article else law
