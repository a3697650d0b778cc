"""Which folders the rule packs and law texts are read from: the program's own and those of
RULES_EXTRA_DIR. One setting of the process, made by each app at its start."""
from __future__ import annotations

import os
import sys
from pathlib import Path

from inspector import rules
from inspector.laws import pages
from inspector.rules import RulePackError, load_all


def forget_rules() -> None:
    """Drop what this area computed from the rule packs and law texts, after they were read
    again from other folders (RULES_EXTRA_DIR changed: a new app in the same process)."""
    for cached in (pages.law_index, pages.outline):
        cached.cache_clear()


def use_rules_dirs(value) -> None:
    """Read rule packs and law texts also from RULES_EXTRA_DIR (folders separated by ':',
    each with `packs/` and `laws/`: docs/adding-a-town.md), and load them all now: a bad
    folder or pack stops the start with its file and key (exit status 2)."""
    dirs = [Path(d) for d in (value if isinstance(value, (list, tuple))
                              else str(value or "").split(os.pathsep)) if str(d).strip()]
    for d in dirs:
        empty = d.is_dir() and not any(d.iterdir())   # a new folder a restore will fill
        if not empty and not (d / "packs").is_dir() and not (d / "laws").is_dir():
            print(f"erro: RULES_EXTRA_DIR={d}: a pasta não tem packs/ nem laws/ "
                  "(docs/adding-a-town.md)", file=sys.stderr)
            raise SystemExit(2)
    if rules.set_extra_dirs(dirs):
        rules.law_texts.cache_clear()
        forget_rules()
    try:
        load_all()
        rules.law_texts()
    except RulePackError as e:
        print(f"erro: pacote de regras recusado: {e}", file=sys.stderr)
        raise SystemExit(2) from None
