"""What `flask demo seed` prints about the records that break a rule on purpose agrees with
what a passenger sees on each vehicle's page: the article printed is the one the page cites,
and the taxi with a third auxiliary (Nortelândia Lei 127/2009 Art. 9, a limit on admitting
auxiliaries, not on the Alvará) is printed, and shown, as REGULAR."""
from __future__ import annotations

import json
import re

from tests.support.credentials import banner


def _pages(app, client, output: str, town: str) -> dict[str, str]:
    listing = app.test_cli_runner().invoke(args=["credentials", "list", "--town", town,
                                                 "--json"])
    assert listing.exit_code == 0, listing.output
    pages = {}
    for c in json.loads(listing.output)["credentials"]:
        if c["kind"] == "vehicle":
            path = c["url"].split("://", 1)[1].split("/", 1)[1]
            pages[c["plate"]] = client.get("/" + path).get_data(as_text=True)
    return pages


def _line(output: str, words: str) -> tuple[str, str]:
    line = next(x for x in output.splitlines() if words in x)
    return line, re.search(r"táxi (\w+):", line).group(1)


def _reasons(html: str) -> list[str]:
    return [re.sub(r"<[^>]+>", "", li) for li in re.findall(r"<li>(.*?)</li>", html)]


def test_the_printout_and_the_passenger_pages_agree(app, runner, client):
    result = runner.invoke(args=["demo", "seed"])
    assert result.exit_code == 0, result.output
    out = result.output

    line, plate = _line(out, "3 motoristas auxiliares")
    assert "segue REGULAR" in line and "(Lei 127/2009 Art. 9)" in line
    assert banner(_pages(app, client, out, "nortelandia")[plate]) == "REGULAR"

    sapezal = _pages(app, client, out, "sapezal")
    line, plate = _line(out, "vencido há 35 dias")
    assert "(Lei 060/1998 Art. 10)" in line
    assert banner(sapezal[plate]) == "IRREGULAR"
    assert any(r.endswith("(Lei 060/1998, Art. 10)") and "venceu em" in r
               for r in _reasons(sapezal[plate]))
    line, plate = _line(out, "suspenso (Lei 060/1998 Art. 20 IV)")
    assert banner(sapezal[plate]) == "SUSPENSO"
    assert any(r.endswith("suspenso. (Lei 060/1998, Art. 20, IV)")
               for r in _reasons(sapezal[plate]))
