"""Read-only lookups for the registry screens: a page of search results, which links to show."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from inspector.blueprints.registry.kinds import Kind

PER_PAGE = 25


@dataclass(frozen=True)
class ResultPage:
    """One page of search results and whether there is another after it."""

    rows: list[Any]
    page: int
    has_next: bool

    @property
    def has_prev(self) -> bool:
        """Whether a page comes before this one."""
        return self.page > 1


def search(kind: Kind, town: int, q: str, page: int) -> ResultPage:
    """One page of the kind's search, asking for one row more to know if a next page exists."""
    rows = list(kind.search_fn(town, q, limit=PER_PAGE + 1, offset=(page - 1) * PER_PAGE))
    return ResultPage(rows[:PER_PAGE], page, len(rows) > PER_PAGE)


def allowed(endpoint: str) -> bool:
    """Whether the signed-in user's role may open a view (its @roles_required list), so a
    page links only to what its reader may see."""
    from flask import current_app, g

    access = getattr(current_app.view_functions.get(endpoint), "access", None)
    user = getattr(g, "user", None)
    if user is None or access is None:
        return False
    return access in ("login", "public") or (isinstance(access, tuple)
                                             and user.role.value in access)
