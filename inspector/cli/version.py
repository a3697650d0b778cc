"""`flask --app inspector version`: the program's version and its newest migration."""
from __future__ import annotations

import click


@click.command("version")
def version_command() -> None:
    """The program's version and the database schema it brings (its newest migration)."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    from inspector.config import ROOT, version

    cfg = Config()
    cfg.set_main_option("script_location", str(ROOT / "inspector" / "migrations"))
    head = ScriptDirectory.from_config(cfg).get_current_head()
    click.echo(f"inspector {version()} (esquema {head})")
