"""Santa Aurora do Norte, the fictitious sixth town whose law is a folder outside the package
(tests/production/santa_aurora/, docs/adding-a-town.md): where it lives, its fleet as the
registry import reads it."""
from __future__ import annotations

import shutil
from datetime import date, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parents[1] / "production" / "santa_aurora"
TOWN = "santa-aurora"
BASE = "https://fiscaliza.santa-aurora.example.gov.br"


def law_folder(tmp_path: Path) -> Path:
    """The town's law where an IT person would put it: a folder outside the package."""
    folder = tmp_path / "leis-santa-aurora"
    shutil.copytree(HERE, folder)
    return folder


def fleet_csv(today: date) -> bytes:
    """One moto-taxi of a company, its rider and alvará, in the registry import's format."""
    d = lambda n: (today + timedelta(days=n)).strftime("%d/%m/%Y")  # noqa: E731
    header = ("placa;servico;marca_modelo;ano_fabricacao;cor;cilindrada;portas;prefixo;trail;"
              "ponto;ultima_vistoria;vistoria_validade_reduzida;titular_documento;titular_nome;"
              "titular_tipo;titular_endereco;titular_telefone;titular_email;permissao_numero;"
              "permissao_tipo;permissao_inicio;permissao_fim;permissao_situacao;alvara_numero;"
              "alvara_tipo;alvara_inicio;alvara_fim;alvara_situacao;condutor_nome;condutor_cpf;"
              "condutor_rg;condutor_rg_orgao;condutor_categoria;condutor_cnh;"
              "condutor_cnh_categoria;condutor_cnh_validade;condutor_registro;"
              "condutor_registro_validade;condutor_situacao;seguro_seguradora;seguro_apolice;"
              "seguro_inicio;seguro_fim")
    row = (f"QBA1D23;mototaxi;Honda CG 160;{today.year - 2};Vermelha;160;;SA01;não;;{d(-30)};;"
           "11.222.333/0001-81;Aurora Moto Táxi Ltda;empresa;Av. Brasil, 100;(66) 99999-0000;;"
           f";;;;;ALV-001/{today.year};;{d(-10)};{d(355)};ativo;Rosa Aurora Pinheiro;"
           f"111.444.777-35;12.345.678-9;SSP/MT;mototaxista;01234567890;A;{d(900)};SA-001;"
           f"{d(300)};ativo;;;;")
    return (header + "\n" + row + "\n").encode()
