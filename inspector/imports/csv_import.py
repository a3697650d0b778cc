"""Import a town's registry from a spreadsheet: all rows or nothing.

Every row goes through the same `save_*` services as the admin forms, inside one
transaction. If any row is bad (or this is a dry run) the session is rolled back and
nothing is written, audit entries included; the report names every bad row by the
line a spreadsheet shows (header = line 1), the column and the reason. Rows are matched
to what is already registered by natural key (plate, CPF/CNPJ, permit, licence and
registration numbers), so importing the same file twice changes nothing the second time.
"""
from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from typing import Any

from sqlalchemy.exc import IntegrityError

from inspector import clock, laws, registry
from inspector.errors import ValidationFailed
from inspector.extensions import db
from inspector.identifiers import digits, format_cpf, normalise_plate
from inspector.imports.csv_format import COLUMNS, FileRefused, column_for, read_rows, zeros_hint  # noqa: F401
from inspector.imports.csv_report import GROUP_LABELS, ImportReport, RowError, count  # noqa: F401
from inspector.imports.workbook import read_any
from inspector.models import (
    Driver,
    Holder,
    InsurancePolicy,
    Licence,
    Municipality,
    Permit,
    Service,
    Stand,
    Status,
    Vehicle,
)
from inspector.registry import Lookup, label, parse_choice
from inspector.rules import Violation

_NOUN = {"holder": "titular", "permit": "número de permissão", "driver": "condutor"}
# Where a service's complaint about an implicit link is best shown in the spreadsheet.
_LINK_COLUMNS = {("driver", "vehicle_plate"): "condutor_categoria",
                 ("insurance", "vehicle_plate"): "seguro_apolice"}
# Cells that may be blank because a default follows (from the service, the document).
_DEFAULTED = {("holder", "kind"), ("permit", "kind"), ("licence", "kind"),
              ("driver", "category")}
_STATUS_COLUMNS = {"permit": "permissao_situacao", "licence": "alvara_situacao",
                   "driver": "condutor_situacao"}
_SAVE: dict[str, Callable] = {
    "holder": registry.save_holder, "vehicle": registry.save_vehicle,
    "permit": registry.save_permit, "licence": registry.save_licence,
    "driver": registry.save_driver, "insurance": registry.save_insurance,
}


def import_registry(town_id: int, data: bytes, *, actor, dry_run: bool = False,
                    source: str = "planilha", override_reason: str = "") -> ImportReport:
    """Validate and save every row in the session's transaction.

    Raises FileRefused when the file itself is unreadable (nothing was touched). When any
    row is bad, the file passes a cap of the law (registry.caps: refused, or passed only
    with `override_reason` where the law lets the town), or on a dry run, the session is
    rolled back before returning; otherwise the rows are flushed and the caller commits.
    """
    _, rows, problems = read_any(data)   # CSV, or .xlsx / .ods / .xls (workbook.py)
    town = db.session.get(Municipality, town_id)
    before = registry.caps_in_use(town)     # the caps' use before the file
    report = ImportReport(rows=len({line for line, _ in rows} | {p[0] for p in problems}),
                          dry_run=dry_run)
    read_errors = [RowError(p[0], p[1] if len(p) == 3 else "(linha)", p[-1]) for p in problems]
    lookup = Lookup(town_id, batch=True)
    _prime(lookup, [cells for _, cells in rows])
    run = _Run(town_id, lookup, actor, report, source)
    try:
        for line, cells in rows:
            run.row(line, cells)
        # A cell the reader refused (a code typed as a number) is explained by the reader;
        # the services' word on the same cell would only repeat it less clearly.
        read_cells = {(e.line, e.column) for e in read_errors}
        report.errors = read_errors + [e for e in report.errors
                                       if (e.line, e.column) not in read_cells]
        report.errors.sort(key=lambda e: e.line)
        if not report.errors:
            registry.settle(lookup)  # a dry run too: the database checks what we checked
            whole = _limits(town_id, run, report)
            _caps(town, before, whole, report, actor, source, override_reason)
    except IntegrityError:
        db.session.rollback()
        raise FileRefused("o cadastro mudou durante a importação (outra pessoa gravou os "
                          "mesmos registros); envie o arquivo de novo") from None
    except BaseException:
        db.session.rollback()
        raise
    if not report.ok or dry_run:
        db.session.rollback()
    else:
        report.written = True
    return report


def _caps(town: Municipality, before, whole, report: ImportReport, actor, source: str,
          reason: str) -> None:
    """The caps of the law the file passes (registry.caps): listed on a dry run; on the
    import, refused, or passed with the reason (audited) where the law lets the town. They
    leave the warnings, since they are not saved as such."""
    try:
        if report.dry_run:
            report.caps = registry.caps_breached(town, before, whole)
        else:
            report.caps = registry.check_caps(town, before, reason=reason, actor=actor,
                                              run=whole, what=f"importação ({source})")
            report.override_reason = registry.clean_caps_reason(reason) if report.caps else ""
    except registry.CapExceeded as e:
        report.caps = e.breaches
    passed = {b.violation for b in report.caps}
    report.file_limits = [v for v in report.file_limits if v not in passed]
    report.row_limits = [(line, v) for line, v in report.row_limits if v not in passed]


def _limits(town_id: int, run: _Run, report: ImportReport):
    """The law's limits the saved rows break, picked by `registry.limits_for` (what
    the forms show) from one compliance run for the whole file, afresh since the rows are
    not committed yet. The town's own (fleet cap, quota) are listed once for the file."""
    town = db.session.get(Municipality, town_id)
    whole = laws.town_compliance(town, clock.today(town), reuse=False)
    keep = lambda found: [v for v in found if v.rule_id in registry.LIMIT_RULES]  # noqa: E731
    whole = dataclasses.replace(whole, reports=[  # the limits only: fewer to pick from per row
        dataclasses.replace(r, violations=keep(r.violations), warnings=keep(r.warnings))
        for r in whole.reports])
    town_wide = {v for v in whole.violations + whole.warnings if v.subject == "town"}
    for line, records in sorted(run.saved.items()):
        seen: set[Violation] = set()
        for record in records:
            if isinstance(record, (Permit, Licence, InsurancePolicy)):
                continue  # their limits are their holder's or vehicle's, saved on the row
            for v in registry.limits_for(record, run=whole):
                if v in town_wide:
                    if v not in report.file_limits:
                        report.file_limits.append(v)
                elif v not in seen:
                    seen.add(v)
                    report.row_limits.append((line, v))
    return whole


def _code(value: str) -> str:
    return re.sub(r"\s+", " ", value or "").strip().upper()


def _prime(lookup: Lookup, rows: list[dict[str, str]]) -> None:
    """Load everything the file names in a few queries, instead of several per row."""
    col = lambda name, norm: [norm(r.get(name, "")) for r in rows]  # noqa: E731
    lookup.prime(Holder, "tax_id", col("titular_documento", digits))
    lookup.prime(Stand, "code", col("ponto", _code))
    lookup.prime(Vehicle, "plate", col("placa", normalise_plate))
    lookup.prime(Permit, "number", col("permissao_numero", _code))
    lookup.prime(Licence, "number", col("alvara_numero", _code))
    lookup.prime(Driver, "cpf", col("condutor_cpf", digits))
    lookup.prime(Driver, "registration_number", col("condutor_registro", _code))


class _Run:
    """One import: the rows seen so far, by natural key, and what each one did."""

    def __init__(self, town_id: int, lookup: Lookup, actor, report: ImportReport, source: str):
        self.town_id, self.lookup, self.actor, self.report = town_id, lookup, actor, report
        self.source = source
        self.first_line: dict[tuple[str, Any], int] = {}  # (group, row id) -> first line
        self.once: dict[tuple[str, str], int] = {}  # plates and licence numbers -> line
        self.saved: dict[int, list[Any]] = {}  # line -> the records it saved

    # -- one row ---------------------------------------------------------------
    def row(self, line: int, cells: dict[str, str]) -> None:
        """Save the row's records in order; collect every error, one per column."""
        errors: dict[str, str] = {}
        failed: set[str] = set()
        tax_id = cells["titular_documento"]
        plate = normalise_plate(cells["placa"])
        service = parse_choice(Service, cells["servico"])

        self.save("holder", line, cells, errors, failed, self.values(cells, "holder"),
                  self.lookup.get(Holder, "tax_id", digits(tax_id)) if digits(tax_id) else None)

        vehicle = self.lookup.get(Vehicle, "plate", plate) if plate else None
        holder = self.lookup.get(Holder, "tax_id", digits(tax_id)) if digits(tax_id) else None
        if plate and self.once.setdefault(("placa", plate), line) != line:
            errors["placa"] = (f"placa repetida: o veículo já está na linha "
                               f"{self.once[('placa', plate)]} (uma linha por veículo)")
            failed.add("vehicle")
        elif (vehicle and vehicle.holder and holder and "holder" not in failed
              and vehicle.holder is not holder):  # a typo would hand the vehicle over
            errors["placa"] = (
                f"o veículo {vehicle.plate} é de {vehicle.holder.name}, não de {holder.name}: "
                "a planilha não passa um veículo para outro permissionário (confira a placa; "
                "a mudança se faz na página do veículo)")
            failed.add("vehicle")
        else:
            self.save("vehicle", line, cells, errors, failed,
                      {**self.values(cells, "vehicle"), "holder_tax_id": tax_id}, vehicle)

        permit_number = ""
        if self.filled(cells, "permit"):
            permit_number = cells.get("permissao_numero", "")
            permit = self.lookup.get(Permit, "number", _code(permit_number))
            holder = self.lookup.get(Holder, "tax_id", digits(tax_id))
            if permit and holder and "holder" not in failed and permit.holder is not holder:
                errors["permissao_numero"] = (  # a typo would hand a company's permit over
                    f"a permissão {permit.number} é de {permit.holder.name}: a planilha não "
                    "passa uma permissão a outro titular (confira o número; uma transferência "
                    "se faz na página da permissão)")
                failed.add("permit")
            else:
                self.save("permit", line, cells, errors, failed,
                          {**self.values(cells, "permit"), "holder_tax_id": tax_id,
                           "service": cells["servico"]}, permit)

        if self.filled(cells, "licence"):
            number = _code(cells.get("alvara_numero", ""))
            licence = self.lookup.get(Licence, "number", number)
            if number and self.once.setdefault(("alvara", number), line) != line:
                errors["alvara_numero"] = (f"alvará repetido: já está na linha "
                                           f"{self.once[('alvara', number)]}")
            elif licence and plate and licence.vehicle_id != getattr(vehicle, "id", None):
                errors["alvara_numero"] = (  # a typo would leave that vehicle unlicensed
                    f"o alvará {licence.number} é do veículo {licence.vehicle.plate}: a "
                    "planilha não passa um alvará para outro veículo (confira o número; "
                    "uma transferência se faz na página do alvará)")
            else:
                self.save("licence", line, cells, errors, failed,
                          {**self.values(cells, "licence"), "vehicle_plate": plate,
                           "permit_number": permit_number}, licence)

        if self.filled(cells, "driver"):
            driver = self.lookup.get(Driver, "cpf", digits(cells.get("condutor_cpf", "")))
            data = {**self.values(cells, "driver"), "holder_tax_id": tax_id,
                    "vehicle_plate": "" if "vehicle" in failed else plate}
            if driver is None and not data.get("category"):
                data["category"] = _default_category(service, tax_id, cells)
            moved = "holder" not in failed and _moved_driver(
                driver, self.lookup.get(Holder, "tax_id", digits(tax_id)))
            if moved:
                errors["condutor_cpf"] = moved
                failed.add("driver")
            else:
                self.save("driver", line, cells, errors, failed, data, driver)

        if self.filled(cells, "insurance"):
            policy = None
            if vehicle is not None:
                number = _code(cells.get("seguro_apolice", ""))
                policy = next((p for p in vehicle.insurance_policies
                               if p.policy_number == number), None)
            self.save("insurance", line, cells, errors, failed,
                      {**self.values(cells, "insurance"), "vehicle_plate": plate}, policy)

        self.report.errors += [RowError(line, col, reason) for col, reason in errors.items()]

    # -- helpers ---------------------------------------------------------------
    @staticmethod
    def values(cells: dict[str, str], group: str) -> dict[str, str]:
        """The group's cells as service fields (status is handled apart)."""
        return {c.field: cells[c.name] for c in COLUMNS
                if c.group == group and c.name in cells and c.field != "status"}

    @staticmethod
    def filled(cells: dict[str, str], group: str) -> bool:
        """Whether any of the group's cells has a value (an all-blank group is skipped)."""
        return any(cells.get(c.name) for c in COLUMNS if c.group == group)

    @staticmethod
    def state(row: Any) -> dict | None:
        """What a row looks like, to tell created, changed and unchanged apart."""
        if row is None:
            return None
        state = registry.as_data(row)
        if isinstance(row, Driver):
            state["vehicles"] = ",".join(sorted(v.plate for v in row.vehicles))
        return state

    def save(self, group: str, line: int, cells: dict[str, str], errors: dict[str, str],
             failed: set[str], data: dict[str, str], existing: Any) -> Any:
        """Run one service; map its errors to columns; count what it did."""
        status_col = _STATUS_COLUMNS.get(group, "")
        status_raw = cells.get(status_col, "")
        if existing is not None:  # a blank "follows the service" cell keeps what is there
            data = {k: v for k, v in data.items() if v or (group, k) not in _DEFAULTED}
        if existing is None and status_raw:
            data = {**data, "status": status_raw}
        skip = {"holder_tax_id"} if "holder" in failed else set()
        if "vehicle" in failed:  # and the permit's match with the vehicle's holder
            skip |= {"vehicle_plate"} | ({"permit_number"} if group == "licence" else set())
        if "permit" in failed:
            skip.add("permit_number")
        if existing is not None and status_raw:  # first, so the save's snapshot includes it
            self.change_status(existing, group, status_col, status_raw, line,
                               self.first_line.get((group, id(existing)), line), errors)
        before = self.state(existing)
        try:
            row = _SAVE[group](self.town_id, data, actor=self.actor, lookup=self.lookup,
                               **{group: existing})
        except ValidationFailed as e:
            failed.add(group)
            for name, reason in e.errors.items():
                if name not in skip:
                    col = _LINK_COLUMNS.get((group, name)) or column_for(group, name)
                    errors.setdefault(col, reason + zeros_hint(col, cells.get(col, "")))
            return None
        after = self.state(row)
        self.saved.setdefault(line, []).append(row)
        first = self.first_line.setdefault((group, id(row)), line)
        differ = [k for k in after if k != "vehicles" and after[k] != (before or {}).get(k)]
        if first != line and differ:
            for name in differ:
                errors.setdefault(column_for(group, name), f"diferente da linha {first}, "
                                  f"que traz o mesmo {_NOUN.get(group, 'registro')}")
            failed.add(group)
            # Put the first line's values back, so later rows are compared with them.
            _SAVE[group](self.town_id, before, actor=self.actor, lookup=self.lookup,
                         **{group: row})
            return row
        if before is None:
            self.report.created[group] += 1
        elif before != after:
            self.report.updated[group] += 1
        return row

    def change_status(self, row: Any, group: str, column: str, raw: str, line: int,
                      first: int, errors: dict[str, str]) -> None:
        """A status column that differs from the registered one is a status change."""
        target = parse_choice(Status, raw)
        if target is None:
            errors.setdefault(column, f"valor desconhecido: {raw!r} (use "
                                      f"{', '.join(label(s) for s in Status)})")
        elif target != row.status:
            if first != line:
                errors.setdefault(column, f"diferente da linha {first}, que traz o mesmo "
                                          f"{_NOUN.get(group, 'registro')}")
                return
            registry.change_status(row, target, f"Importação de {self.source}, linha {line}",
                                   actor=self.actor)
            self.report.status_changes += 1


def _moved_driver(driver: Driver | None, holder: Holder | None) -> str:
    """Why a row may not name a registered driver under another holder ('' when it may): a
    typo or a copied row would move the driver, and link them to that holder's vehicle,
    without anyone seeing it (like permits and alvarás, a move is made on the record's page)."""
    if driver is None or holder is None:
        return ""
    current = [driver.holder] if driver.holder else list({v.holder for v in driver.vehicles})
    if not current or holder in current:
        return ""
    names = " e ".join(sorted(h.name for h in current))
    return (f"o condutor {driver.name} (CPF {format_cpf(driver.cpf)}) é de "
            f"{names}, não de {holder.name}: a planilha não passa um condutor para outro "
            "permissionário (confira o CPF; a mudança se faz na página do condutor)")


def _default_category(service: Service | None, tax_id: str, cells: dict[str, str]) -> str:
    """A new driver's category when the sheet leaves it blank: the rider of a moto-taxi,
    or the owner-driver of a taxi when the CPFs match (an auxiliary otherwise)."""
    if service == Service.MOTOTAXI:
        return "mototaxista"
    if service == Service.TAXI:
        return "autonomo" if digits(tax_id) == digits(cells.get("condutor_cpf", "")) \
            else "auxiliar"
    return ""
