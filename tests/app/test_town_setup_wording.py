"""/municipio ("Configuração do município"): money in Brazilian reais (R$ 1.621,00, as the
documents write it, never "1621.00"), and a summary that says how many setup items are
pending and what each leaves incomplete, without claiming the agents cannot work (they may
be working already)."""
from __future__ import annotations

import re
from datetime import date

import pytest

from inspector.extensions import db
from inspector.models import DatedValue
from tests import factories


@pytest.fixture
def admin(app, make):
    """Tapurah's admin, signed in nowhere yet; the town without a minimum wage (the factory
    gives it this year's)."""
    make(factories.user, "admin", "tapurah", username="admin.t")
    with app.app_context():
        db.session.execute(db.delete(DatedValue))
        db.session.commit()
    return "admin.t"


def _row(html: str, key: str) -> str:
    return html.split(f'id="passo-{key}"')[1].split("</tr>")[0]


def _post_wage(client, value: str, day: date):
    return client.post_form("/municipio/valores", {"kind": "minimum_wage", "value": value,
                                                   "valid_from": day.isoformat(),
                                                   "source": "Decreto nº 12.797/2025"},
                            token_from="/municipio")


def test_money_is_written_in_reais(client, admin):
    client.login(admin)
    last_year = date.today().year - 1
    assert _post_wage(client, "1.412,00", date(last_year, 1, 1)).status_code == 302
    html = client.get("/municipio").get_data(as_text=True)
    wage = _row(html, "minimum_wage")
    assert "(R$ 1.412,00): informe o de" in wage and "1412.00" not in html
    ok = _post_wage(client, "1.621,00", date(date.today().year, 1, 1))
    assert ok.status_code == 302
    html = client.get("/municipio", follow_redirects=True).get_data(as_text=True)
    assert "R$ 1.621,00 a partir de" in html                            # the flash
    assert "R$ 1.621,00 desde" in _row(html, "minimum_wage")
    values = html.split('id="valores"')[1].split("</table>")[0]
    assert '<td data-label="Em reais">R$ 1.621,00</td>' in values
    assert '<td data-label="Em reais">R$ 1.412,00</td>' in values
    assert not re.search(r"\b\d{4}\.\d{2}\b", html)                     # no 1621.00 anywhere


def test_the_summary_counts_setup_items_and_says_what_each_leaves_incomplete(client, admin,
                                                                             make):
    make(factories.user, "agent", "tapurah")                            # agents at work
    client.login(admin)
    html = client.get("/municipio").get_data(as_text=True)
    summary = html.split('class="setup-summary"')[1].split("</div>")[0]
    assert "antes que os agentes possam trabalhar" not in html
    pending = html.count('<span class="badge badge-warn">pendente</span>')
    assert pending >= 2
    assert f"{pending} itens de configuração pendentes" in summary
    items = re.findall(r"<li><strong>(.*?)</strong>: (.*?)</li>", summary)
    assert len(items) == pending
    said = dict(items)
    assert said["Salário mínimo"] == ("as multas contadas em salários mínimos ficam sem valor "
                                      "em reais.")
    assert said["Calendário de feriados e pontos facultativos do município"].startswith(
        "um prazo que passa por um feriado")
    assert "agente" not in said.get("Contas por perfil", "")            # one is there
