"""Every CSV the server gives (exports, the import's model sheet, open data) says its
encoding once: `text/csv; charset=utf-8`. The exports said `charset=utf-8; charset=utf-8`,
which a strict client reads as a malformed header."""
from __future__ import annotations

from inspector.extensions import db
from tests import factories


def test_every_csv_says_its_charset_once(app, client, make):
    with app.app_context():
        factories.town("tapurah")
        db.session.commit()
    client.login(make(factories.user, "admin", "tapurah").username)
    for path in ("/painel/exportar/cadastro.csv", "/painel/exportar/vistorias.csv",
                 "/cadastro/importar/modelo.csv", "/transparencia/dados/tapurah/frota.csv"):
        r = client.get(path)
        assert r.status_code == 200 and r.get_data().startswith(b"\xef\xbb\xbf"), path
        assert r.headers["Content-Type"] == "text/csv; charset=utf-8", path
