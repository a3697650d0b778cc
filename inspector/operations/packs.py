"""The rule packs a town's acts are judged under, as files: which ones the database needs,
their SHA-256, and what is wrong when one is missing or changed.

A town needs every pack whose `town` is its slug (docs/adding-a-town.md), and every pack an
act of it names (`sanctions.pack_id`). The database records the SHA-256 of each pack in use
(`rule_pack_versions`): a production start records a pack the first time it sees it, and
records again a pack shipped inside the program when a new version of the program changed
it (the program's version and CHANGELOG.md vouch for it). A pack from RULES_EXTRA_DIR that
differs from its recorded version stops the start, `production check` and a restore, until
it is put back as it was or an operator takes the new version into use with
`flask --app inspector rules accept PACK` (the law changed: docs/adding-a-town.md, 6).
"""
from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import inspect, select

from inspector import clock, rules
from inspector.extensions import db
from inspector.rules import PACKS_DIR


@dataclass(frozen=True)
class PackFile:
    """One pack in use, as a file."""

    id: str
    town: str
    path: Path
    sha256: str

    @property
    def shipped(self) -> bool:
        """Whether the pack comes with the program (inspector/rules/packs/)."""
        return self.path.parent.resolve() == PACKS_DIR.resolve()


def extra_folders(app) -> list[Path]:
    """The folders of RULES_EXTRA_DIR this app reads (separated by ':'), in order."""
    value = app.config.get("RULES_EXTRA_DIR") or ""
    return [Path(d).resolve() for d in (value if isinstance(value, (list, tuple))
                                        else str(value).split(os.pathsep)) if str(d).strip()]


def sha256_of(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def loaded_packs() -> dict[str, PackFile]:
    """Every pack the program reads now, by id (a file gone since it was read is not)."""
    return {p.id: PackFile(p.id, p.town, Path(p.path), sha256_of(Path(p.path)))
            for p in rules.load_all() if Path(p.path).is_file()}


def recorded_packs() -> dict[str, str]:
    """The newest recorded SHA-256 of each pack id ({} before the table exists)."""
    from inspector.models import RulePackVersion

    if not inspect(db.engine).has_table("rule_pack_versions"):
        return {}
    out = {}
    for pack_id, digest in db.session.execute(select(
            RulePackVersion.pack_id, RulePackVersion.sha256).order_by(RulePackVersion.id)):
        out[pack_id] = digest
    return out


def needed() -> dict[str, set[str]]:
    """Per town slug, the pack ids its acts name (an empty set: the town has no act yet)."""
    from inspector.models import Municipality, Sanction

    out: dict[str, set[str]] = {slug: set() for slug in db.session.scalars(
        select(Municipality.slug))}
    for slug, pack_id in db.session.execute(
            select(Municipality.slug, Sanction.pack_id).distinct()
            .join(Municipality, Municipality.id == Sanction.municipality_id)):
        out.setdefault(slug, set()).add(pack_id)
    return out


def problems() -> list[str]:
    """Why the town's law on disk is not the law its records were made under, one pt-BR
    line each: a town with no pack, a pack an act names that is not there, a pack from
    RULES_EXTRA_DIR that differs from its recorded version."""
    have = loaded_packs()
    known = recorded_packs()
    out = []
    for slug, acts in sorted(needed().items()):
        mine = sorted(p.id for p in have.values() if p.town == slug)
        if not mine:
            out.append(f"o município '{slug}' não tem pacote de regras carregado: restaure a "
                       "pasta de leis do backup e defina RULES_EXTRA_DIR (docs/operations.md); "
                       "sem ela os QR dos passageiros mostram \"Verificação indisponível\"")
            continue
        for pack_id in sorted(acts - set(mine)):
            out.append(f"os atos de '{slug}' foram emitidos sob o pacote {pack_id}, que não "
                       "está carregado: restaure-o em RULES_EXTRA_DIR (docs/operations.md)")
    for pack_id, digest in sorted(known.items()):
        pack = have.get(pack_id)
        if pack is None:
            if not any(f"pacote {pack_id}," in line for line in out):
                out.append(f"o pacote {pack_id}, registrado como em uso, não está carregado: "
                           "restaure-o em RULES_EXTRA_DIR (docs/operations.md)")
        elif pack.sha256 != digest and not pack.shipped:
            out.append(f"o pacote {pack_id} ({pack.path}) difere do registrado em uso "
                       f"(SHA-256 {pack.sha256[:12]}…, registrado {digest[:12]}…): restaure o "
                       "arquivo do backup ou, se a lei mudou, registre a nova versão com "
                       f"`flask --app inspector rules accept {pack_id}`")
    return out


def record_packs(by: str, pack_ids=None) -> list[str]:
    """Record the SHA-256 of the packs in use that have no recorded version yet, and of
    shipped packs whose file changed with the program (the caller commits); `pack_ids`
    records exactly those (an operator's `rules accept`). The ids recorded."""
    from inspector.models import RulePackVersion

    if not inspect(db.engine).has_table("rule_pack_versions"):
        return []   # a schema before 0030: `db upgrade` first (make serve runs it)
    have = loaded_packs()
    known = recorded_packs()
    if pack_ids is None:
        slugs = needed()
        wanted = [p for p in have.values() if p.town in slugs
                  and (p.id not in known or (p.shipped and known[p.id] != p.sha256))]
    else:
        wanted = [have[i] for i in pack_ids if have[i].sha256 != known.get(i)]
    now = clock.now()
    for p in sorted(wanted, key=lambda p: p.id):
        db.session.add(RulePackVersion(pack_id=p.id, sha256=p.sha256, recorded_at=now,
                                       recorded_by=by))
    return [p.id for p in wanted]
