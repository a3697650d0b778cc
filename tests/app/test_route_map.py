"""docs/routes.md is the route map the command makes from the URL map, never stale."""
from __future__ import annotations

from pathlib import Path

from inspector.cli.docs import route_map

DOC = Path(__file__).resolve().parents[2] / "docs" / "routes.md"


def test_the_committed_route_map_is_what_the_command_makes_today(app):
    """A route added, removed or given another template or service without running
    `flask --app inspector docs routes --output docs/routes.md` fails here."""
    with app.test_request_context():
        assert DOC.read_text(encoding="utf-8") == route_map(app)


def test_the_map_names_every_route_of_the_app_with_its_access(app):
    """Every rule (bench and static aside) is a row, with who may use it."""
    with app.test_request_context():
        text = route_map(app)
    rules = {r.rule for r in app.url_map.iter_rules()
             if r.endpoint != "static" and not r.endpoint.startswith("bench.")}
    for rule in rules:
        assert f"| `{rule}` |" in text
    assert "| `/v/<token>` | GET | public | public |" in text
    assert "| `/revisao` | GET | review |" in text
