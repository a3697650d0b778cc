"""Build registry spreadsheets for the import tests: n good moto-taxi rows, optionally spoiled."""
from __future__ import annotations

import csv
import io

from sqlalchemy import func, select

from inspector.extensions import db
from inspector.identifiers import make_cnpj, make_cpf
from inspector.imports.csv_format import COLUMNS
from inspector.models import (
    AuditEntry,
    Driver,
    Holder,
    InsurancePolicy,
    Licence,
    Permit,
    StatusChange,
    Vehicle,
    vehicle_drivers,
)

HEADER = [c.name for c in COLUMNS]


def plate(i: int) -> str:
    """A distinct Mercosul plate for each i below 2,600."""
    return f"QB{chr(65 + i // 100)}{i % 10}{chr(65 + i // 10 % 10)}{i % 100:02d}"


def row(i: int) -> dict[str, str]:
    """Vehicle i: ten motorcycles per company, one rider each, all in order."""
    company = i // 10
    return {
        "placa": plate(i), "servico": "mototaxi", "marca_modelo": "Honda CG 160",
        "ano_fabricacao": "2023", "cor": "Vermelha", "cilindrada": "160", "portas": "",
        "prefixo": f"{i:04d}", "trail": "não", "ponto": "", "ultima_vistoria": "15/01/2026",
        "titular_documento": make_cnpj(f"{1000 + company:08d}0001"),
        "titular_nome": f"Moto Empresa {company} Ltda", "titular_tipo": "empresa",
        "titular_endereco": f"Rua {company}, Centro", "titular_telefone": "(65) 3333-0000",
        "titular_email": "",
        "permissao_numero": f"AUT-{company:03d}", "permissao_tipo": "autorização",
        "permissao_inicio": "01/02/2024", "permissao_fim": "", "permissao_situacao": "ativa",
        # one year at most where the law sets it (Nortelândia Lei 030/1998 Art. 6; Lei 810/1949:
        # from a day to the same day of the next year)
        "alvara_numero": f"ALV-{i:04d}", "alvara_tipo": "", "alvara_inicio": "01/03/2026",
        "alvara_fim": "01/03/2027", "alvara_situacao": "",
        "condutor_nome": f"Condutor {i}", "condutor_cpf": make_cpf(f"{300000000 + i:09d}"),
        "condutor_categoria": "mototaxista", "condutor_cnh": f"{50000000000 + i:011d}",
        "condutor_cnh_categoria": "A", "condutor_cnh_validade": "31/12/2030",
        "condutor_registro": f"MT-{i:04d}", "condutor_registro_validade": "30/06/2027",
        "condutor_situacao": "",
        "seguro_seguradora": "Seguradora Exemplo", "seguro_apolice": f"AP-{i:05d}",
        "seguro_inicio": "01/03/2025", "seguro_fim": "28/02/2027",
        "vistoria_validade_reduzida": "",
    }


def taxi_row(i: int) -> dict[str, str]:
    """Taxi i: an owner-driver (the holder's CPF is the driver's), a car, no insurance."""
    cpf = make_cpf(f"{400000000 + i:09d}")
    r = {**row(i), "servico": "taxi", "marca_modelo": "Chevrolet Onix", "cilindrada": "",
         "portas": "4", "titular_documento": cpf, "titular_nome": f"Taxista {i}",
         "titular_tipo": "pessoa", "permissao_numero": f"TP-{i:03d}",
         "permissao_tipo": "permissão", "condutor_nome": f"Taxista {i}", "condutor_cpf": cpf,
         "condutor_categoria": "autonomo", "condutor_cnh_categoria": "B",
         # a taxi's Alvará lasts the exercício in Sapezal (Lei 060/1998 Art. 10) and a year in
         # Nova Santa Helena (Lei 535/2013 Art. 4 § 2º): longer is refused
         "alvara_inicio": "01/01/2026", "alvara_fim": "31/12/2026"}
    r.update(dict.fromkeys(("seguro_seguradora", "seguro_apolice", "seguro_inicio",
                            "seguro_fim"), ""))
    return r


def to_csv(rows: list[dict[str, str]], header: list[str] | None = None, delimiter: str = ";",
           bom: bool = True) -> bytes:
    """The rows as a spreadsheet would save them (UTF-8 with BOM, ';', CRLF)."""
    header = header or HEADER
    out = io.StringIO()
    writer = csv.writer(out, delimiter=delimiter, lineterminator="\r\n")
    writer.writerow(header)
    for r in rows:
        writer.writerow([r.get(h, "") for h in header])
    return (b"\xef\xbb\xbf" if bom else b"") + out.getvalue().encode()


def sheet(n: int, **spoil: dict[str, str]) -> bytes:
    """n good rows; `spoil={"line_251": {"alvara_fim": "01/01/2020"}}` spoils a line."""
    rows = [row(i) for i in range(n)]
    for key, changes in spoil.items():
        rows[int(key.split("_")[1]) - 2].update(changes)
    return to_csv(rows)


def counts() -> dict[str, int]:
    """Rows in every table an import writes to, audit log included."""
    tables = {"holders": Holder, "vehicles": Vehicle, "drivers": Driver, "permits": Permit,
              "licences": Licence, "insurance": InsurancePolicy, "status": StatusChange,
              "audit": AuditEntry}
    out = {name: db.session.scalar(select(func.count()).select_from(m))
           for name, m in tables.items()}
    out["links"] = db.session.scalar(select(func.count()).select_from(vehicle_drivers))
    return out


def upload(client, data: bytes, name: str = "frota.csv"):
    token = client.csrf_token("/cadastro/importar")
    return client.post("/cadastro/importar", content_type="multipart/form-data",
                       data={"csrf_token": token, "arquivo": (io.BytesIO(data), name)})
