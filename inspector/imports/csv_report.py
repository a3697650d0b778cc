"""What a registry import found: each bad row's line, column and reason, what was (or
would be) created or changed, and the law's limits the file breaks; in Portuguese for
people and as JSON for machines. Filled by `csv_import.import_registry`."""
from __future__ import annotations

from dataclasses import dataclass, field

from inspector.rules import Violation

GROUP_LABELS = {"holder": "permissionários", "vehicle": "veículos", "permit": "permissões",
                "licence": "alvarás", "driver": "condutores", "insurance": "seguros"}
# Each record's name in the singular, and whether it is feminine (for "criada(s)").
_SINGULAR = {"holder": "permissionário", "vehicle": "veículo", "permit": "permissão",
             "licence": "alvará", "driver": "condutor", "insurance": "seguro"}
_FEMININE = {"permit"}


@dataclass(frozen=True)
class RowError:
    """One thing wrong with one row: line as a spreadsheet shows it, column, reason."""

    line: int
    column: str
    reason: str

    def __str__(self) -> str:
        return f"linha {self.line}, campo {self.column}: {self.reason}"


@dataclass
class ImportReport:
    """What an import found and (unless refused or a dry run) wrote."""

    rows: int = 0
    dry_run: bool = False
    written: bool = False
    created: dict[str, int] = field(default_factory=lambda: dict.fromkeys(GROUP_LABELS, 0))
    updated: dict[str, int] = field(default_factory=lambda: dict.fromkeys(GROUP_LABELS, 0))
    status_changes: int = 0
    errors: list[RowError] = field(default_factory=list)
    # The law's limits the file breaks (warnings: the rows are saved), as the forms show
    # them: the town's (fleet cap, quotas) once for the file, the rest by line.
    file_limits: list[Violation] = field(default_factory=list)
    row_limits: list[tuple[int, Violation]] = field(default_factory=list)
    # The caps of the law the file passes (registry.caps.Breach): none may be passed, or,
    # where the law lets the town, only with the reason (the decree), kept in the audit log.
    caps: list = field(default_factory=list)
    override_reason: str = ""

    @property
    def cap_refused(self) -> bool:
        """A cap the law lets nobody pass: the file cannot be imported as it is."""
        return any(not b.overridable for b in self.caps)

    @property
    def needs_reason(self) -> bool:
        """Every cap passed may be passed by decree, and the decree and reason are missing."""
        return bool(self.caps) and not self.cap_refused and not self.override_reason

    @property
    def ok(self) -> bool:
        return not self.errors and not self.cap_refused and (self.dry_run or not self.needs_reason)

    @property
    def bad_lines(self) -> list[int]:
        """The lines with at least one error, in order."""
        return sorted({e.line for e in self.errors})

    def summary(self) -> str:
        """One line in Portuguese: how many rows, what was (or would be) created or changed."""
        text = count(self.rows, "linha", "linhas")
        created = _done(self.created, "criad", self.dry_run)
        text += f"; {created}" if created else "; nada novo"
        changed = _done(self.updated, "alterad", self.dry_run)
        if changed:
            text += f"; {changed}"
        if self.status_changes:
            text += "; " + count(self.status_changes, "mudança de situação",
                                 "mudanças de situação")
        return text

    def bad_summary(self) -> str:
        """'1 linha com problemas' / 'N linhas com problemas'."""
        return count(len(self.bad_lines), "linha", "linhas") + " com problemas"

    def limits_summary(self) -> str:
        """'A lei aponta 2 avisos' ('' when none), as the forms say it."""
        n = len(self.file_limits) + len(self.row_limits)
        return f"A lei aponta {count(n, 'aviso', 'avisos')}" if n else ""

    def limits_json(self) -> dict:
        """The limits for machines and pages: {"file": [...], "rows": [{"line": n, ...}]}."""
        return {"file": [v.as_dict() for v in self.file_limits],
                "rows": [{"line": line, **v.as_dict()} for line, v in self.row_limits]}

    def as_json(self) -> dict:
        """The report for machines (the CLI's --json)."""
        return {"ok": self.ok, "dry_run": self.dry_run, "written": self.written,
                "rows": self.rows, "created": self.created, "updated": self.updated,
                "status_changes": self.status_changes,
                "errors": [{"line": e.line, "column": e.column, "reason": e.reason}
                           for e in self.errors],
                "limits": self.limits_json(),
                "caps": [{**b.as_dict(), "text": b.text()} for b in self.caps],
                "override_reason": self.override_reason}


def count(n: int, singular: str, plural: str) -> str:
    """'1 veículo', '2 veículos' (and '0 veículos')."""
    return f"{n} {singular if n == 1 else plural}"


def _done(counts: dict[str, int], stem: str, dry_run: bool) -> str:
    """'foram criados: 2 veículos, 1 permissão', 'seria criada: 1 permissão', '' if none."""
    groups = [g for g, n in counts.items() if n]
    if not groups:
        return ""
    many = len(groups) > 1 or counts[groups[0]] > 1
    verb = ("seriam" if dry_run else "foram") if many else ("seria" if dry_run else "foi")
    ending = "a" if all(g in _FEMININE for g in groups) else "o"
    things = ", ".join(count(counts[g], _SINGULAR[g], GROUP_LABELS[g]) for g in groups)
    return f"{verb} {stem}{ending}{'s' if many else ''}: {things}"
