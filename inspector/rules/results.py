"""What the engine answers: citations and violations (plain frozen dataclasses)."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date


@dataclass(frozen=True)
class Citation:
    """Where a rule comes from: the law, the article as it prints, its anchor and the words."""

    law: str            # "Lei 406/2001"
    law_slug: str       # file name of the law text: "tapurah-lei-406-2001-mototaxi"
    article: str        # "Art. 15, I"
    anchor: str         # "art-15-i", the id of that unit on /leis/<law_slug>
    quote: str          # the law's own words
    note: str | None = None  # the reading chosen where the text is unclear (docs/rule-packs.md)

    def as_dict(self) -> dict:
        """JSON-ready form: law, article, anchor, law_slug, quote (and note when there is one)."""
        out = {"law": self.law, "article": self.article, "anchor": self.anchor,
               "law_slug": self.law_slug, "quote": self.quote}
        if self.note:
            out["note"] = self.note
        return out


@dataclass(frozen=True)
class Violation:
    """A rule broken (or, with severity "warning", about to be) by a vehicle, driver or town."""

    rule_id: str        # stable id of the kind of rule: "vehicle.age", "licence.expired", ...
    message: str        # plain pt-BR a passenger understands
    citation: Citation | None  # None only for "no law in force" (there is nothing to cite)
    severity: str = "violation"   # violation | warning
    subject: str = ""             # "vehicle:12", "driver:3", "holder:4", "town"
    due_on: date | None = None    # the day it expires / expired / must be fixed by
    effect: str = "irregular"     # irregular | suspended (what it does to a vehicle's standing)

    def as_dict(self) -> dict:
        """JSON-ready form with rule_id, message and citation."""
        out = {"rule_id": self.rule_id, "message": self.message,
               "citation": self.citation.as_dict() if self.citation else None,
               "severity": self.severity}
        if self.subject:
            out["subject"] = self.subject
        if self.due_on:
            out["due_on"] = self.due_on.isoformat()
        return out
