"""A town's law is data, outside the package: a fictitious sixth town,
Santa Aurora do Norte, with its own law text and rule pack in a folder of its own
(RULES_EXTRA_DIR), runs the whole flow with no code change — `rules validate`, `towns
create`, its registry imported, credentials, the passenger page, the field checklist, a
sync, the proposed act citing its law, the confirmed act's PDF, the law's page."""
from __future__ import annotations

import json
import shutil
import subprocess
import uuid
from pathlib import Path

from sqlalchemy import select

from inspector import create_app
from inspector.clock import default_day
from inspector.extensions import db
from inspector.models import Municipality, Notice, Sanction
from inspector.rules import load_all
from tests import factories
from tests.support.enforcement import enforcement_worker
from tests.support.field_api import Api, body, jpeg
from tests.support.sixth_town import BASE, TOWN, fleet_csv, law_folder


def sixth_town_app(schema, tmp_path, folder, client_class=None):
    app = create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": schema, "LOG_LEVEL": "ERROR",
                      "SECRET_KEY": "test-secret", "EVIDENCE_DIR": str(tmp_path / "evidence"),
                      "RULES_EXTRA_DIR": str(folder), "PUBLIC_BASE_URL": BASE})
    if client_class is not None:
        app.test_client_class = client_class   # the suite's client (it signs in)
    return app


def test_a_sixth_town_from_a_folder_runs_the_whole_flow(app, schema, tmp_path):
    folder = law_folder(tmp_path)
    town_app = sixth_town_app(schema, tmp_path, folder, app.test_client_class)
    runner = town_app.test_cli_runner()
    assert "santa-aurora-101-2020" in {p.id for p in load_all()}

    checked = runner.invoke(args=["rules", "validate", str(folder)])
    assert checked.exit_code == 0, checked.output
    made = runner.invoke(args=[
        "towns", "create", "--ibge", "5109996", "--name", "Santa Aurora do Norte", "--slug",
        TOWN, "--population-seat", "8000", "--population-interior", "2500",
        "--population-source", "fictícia (teste)", "--fiscal-unit", "UFM",
        "--pack", "santa-aurora-101-2020"])
    assert made.exit_code == 0, made.output

    # the registry, as a town loads it: the CSV import
    csv = tmp_path / "frota.csv"
    today = default_day()
    csv.write_bytes(fleet_csv(today))
    imported = runner.invoke(args=["registry", "import", "--town", TOWN, str(csv)])
    assert imported.exit_code == 0, imported.output

    # credentials, and the passenger's page behind the vehicle's QR
    assert runner.invoke(args=["credentials", "issue", "--town", TOWN]).exit_code == 0
    listed = runner.invoke(args=["credentials", "list", "--town", TOWN, "--json"])
    urls = [c["url"] for c in json.loads(listed.output)["credentials"]]
    assert urls and all(u.startswith(f"{BASE}/v/") for u in urls)
    client = town_app.test_client()
    page = client.get(urls[0].removeprefix(BASE)).get_data(as_text=True)
    assert "REGULAR" in page and "QBA" in page

    # the field app: the checklist of the town's own law, a sync with a failed item
    with town_app.app_context():
        town_id = db.session.scalar(select(Municipality.id).filter_by(slug=TOWN))
        factories.user("agent", TOWN, username="agente.aurora", badge_number="SA-1")
        factories.user("supervisor", TOWN, username="supervisor.aurora")
        db.session.commit()
    assert client.login("agente.aurora").status_code == 302
    api = Api(client)
    snapshot = api.get("/api/field/snapshot").json
    checklist = next(c for c in snapshot["checklists"] if c["service"] == "mototaxi")
    assert checklist["law"] == "Lei 101/2020"
    assert [i["id"] for i in checklist["items"]] == ["mirrors", "leg-guard", "passenger-helmet",
                                                     "vest"]
    vehicle_id = snapshot["vehicles"][0]["id"]
    photo = jpeg(3)
    iid = str(uuid.uuid4())
    b = body(vehicle_id, ok=("leg-guard", "passenger-helmet", "vest"), fail={"mirrors": [photo]})
    assert api.put_inspection(iid, b).status_code == 201
    assert api.put_photo(iid, b["items"][-1]["photos"][0]["id"], photo).status_code in (200, 201)

    # the proposed act cites the town's law, and once confirmed its PDF does too
    enforcement_worker(town_app)
    with town_app.app_context():
        act = db.session.scalar(select(Sanction).where(Sanction.municipality_id == town_id))
        assert (act.kind, act.law, act.pack_id) == ("written_warning", "Lei 101/2020",
                                                    "santa-aurora-101-2020")
        assert act.citation["article"] == "Art. 5, I" and "advertência por escrito" in str(act.citation)
        assert act.breach_citation["article"] == "Art. 3, I"
        act_id = act.id
    sup = town_app.test_client()
    assert sup.login("supervisor.aurora").status_code == 302
    done = sup.post_form(f"/revisao/atos/{act_id}/confirmar", {}, token_from="/revisao")
    assert done.status_code in (200, 302, 303), done.get_data(as_text=True)[:500]
    with town_app.app_context():
        number = db.session.scalar(select(Notice.number).where(Notice.sanction_id == act_id))
    pdf = sup.get(f"/documentos/{TOWN}/{number}/pdf")
    assert pdf.status_code == 200 and pdf.data.startswith(b"%PDF")
    (tmp_path / "act.pdf").write_bytes(pdf.data)
    text = " ".join(subprocess.run(["pdftotext", str(tmp_path / "act.pdf"), "-"], check=True,
                                   capture_output=True, text=True).stdout.split())
    assert "Lei 101/2020" in text and "Santa Aurora do Norte" in text
    assert "advertência por escrito, na primeira infração" in text

    # the law's own page, with what the product enforces from each article
    law = client.get("/leis/santa-aurora-lei-101-2020-mototaxi").get_data(as_text=True)
    assert "Secretário Municipal de Obras" in law and 'id="art-3-i"' in law


def test_a_pack_with_mistakes_is_refused_with_every_problem_and_its_line(app, tmp_path):
    folder = law_folder(tmp_path)
    pack = folder / "packs" / "santa-aurora-101-2020.yaml"
    text = pack.read_text(encoding="utf-8")
    text = text.replace("quote: dois retrovisores", "quote: três retrovisores")
    text = text.replace("{article: 4, quote:", "{article: 44, quote:")
    text = text.replace("    checks: driver\n", "    checks: driver\n    cheks: vehicle\n")
    pack.write_text(text, encoding="utf-8")
    done = app.test_cli_runner().invoke(args=["rules", "validate", str(folder)])
    assert done.exit_code == 2
    lines = done.output.strip().splitlines()
    assert lines[-1] == "erro: 3 problema(s) em 1 pacote(s)"
    numbered = text.splitlines()
    found = {}
    for line in lines[:-1]:
        where, key, message = line.split(": ", 2)
        found[key] = (int(where.rsplit(":", 1)[1]), message)
    assert found["checklist[mirrors].citation.quote"][1].startswith("quote not found in Art. 3, I")
    assert found["checklist[vest].citation.article"][1] == \
        "Art. 44 not found in santa-aurora-lei-101-2020-mototaxi"
    assert found["checklist[3].cheks"] == (numbered.index("    cheks: vehicle") + 1, "unknown key")
    assert "três retrovisores" in numbered[found["checklist[mirrors].citation.quote"][0] - 1]


def test_a_law_named_like_a_built_in_one_or_a_wrong_folder_stops_the_start(app, schema,
                                                                            tmp_path, capsys):
    folder = law_folder(tmp_path)
    builtin = Path(__file__).resolve().parents[2] / "inspector/rules/laws"
    shutil.copy(builtin / "tapurah-lei-406-2001-mototaxi.txt", folder / "laws")
    try:
        sixth_town_app(schema, tmp_path, folder)
        raise AssertionError("started")
    except SystemExit as stop:
        assert stop.code == 2
    assert "law 'tapurah-lei-406-2001-mototaxi' is already given by" in capsys.readouterr().err
    try:
        sixth_town_app(schema, tmp_path, tmp_path / "nada")
        raise AssertionError("started")
    except SystemExit as stop:
        assert stop.code == 2
    assert "a pasta não tem packs/ nem laws/" in capsys.readouterr().err
