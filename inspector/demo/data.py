"""Fixed facts behind the demo data: the four towns, the stands their laws name, the
minimum wage by date, and the pools of names the generator draws from.

Population (Censo Demográfico 2022, IBGE). The totals are the census counts as IBGE
published them, read from the `POP22` column of `poptcu2010-2022new.csv` in the public
repository lsbastos/popBR_mun (IBGE's municipal series 2010-2022; its 2022 column is the
census, e.g. Cuiabá 650,912 and Sinop 196,067, the published census counts). The IBGE
codes were checked against INPE's fire-hotspot tables, which name each municipality
with its code:

    Nortelândia        5106000   5,956
    Nova Santa Helena  5106190   4,239
    Sapezal            5107875  28,944
    Tapurah            5108006  14,370

The split between the seat ("sede") and the interior is an ESTIMATE, not an IBGE figure:
the Censo 2022 counts by urban/rural situation for these towns could not be found in
the sources at hand. The share living in the seat is a stated assumption per town
(`seat_share` below; Nortelândia's town council writes that nearly everyone lives in
the town itself). Replace both numbers with the IBGE urban/rural counts before any
count-based rule (Tapurah Art. 5, Nova Santa Helena Art. 3 §3 and Art. 13 §ú) is used
for real.

Fiscal unit: Tapurah's Lei 406/2001 counts fines in UFIM (Art. 14 §ú), Nortelândia's Lei
030/1998 in UFM (Arts. 14, 16); the taxi laws of Nova Santa Helena and Sapezal name no
unit, so they keep the default label UFM. No law gives the unit's BRL value: none is set.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from inspector.config import DEMO_PASSWORD  # noqa: F401  (the demo's logins, README)

POPULATION_SOURCE = (
    "IBGE, Censo Demográfico 2022: total {total} (série municipal do IBGE, coluna POP22 de "
    "poptcu2010-2022new.csv em github.com/lsbastos/popBR_mun). Divisão sede/interior "
    "ESTIMADA ({share}% na sede), não é número do IBGE: substituir pela contagem "
    "urbana/rural do Censo 2022.")


@dataclass(frozen=True)
class TownFacts:
    """A town as the demo creates it."""

    slug: str
    name: str
    ibge_code: str
    population_total: int
    seat_share: float      # assumption, see the module docstring
    fiscal_unit_name: str
    area_code: str         # telephone DDD, for plausible phone numbers

    @property
    def population_seat(self) -> int:
        return round(self.population_total * self.seat_share)

    @property
    def population_interior(self) -> int:
        return self.population_total - self.population_seat

    @property
    def population_source(self) -> str:
        total = f"{self.population_total:,}".replace(",", ".")
        return POPULATION_SOURCE.format(total=total, share=round(self.seat_share * 100))


TOWNS = (
    TownFacts("nortelandia", "Nortelândia", "5106000", 5956, 0.90, "UFM", "65"),
    TownFacts("nova-santa-helena", "Nova Santa Helena", "5106190", 4239, 0.65, "UFM", "66"),
    TownFacts("sapezal", "Sapezal", "5107875", 28944, 0.85, "UFM", "65"),
    TownFacts("tapurah", "Tapurah", "5108006", 14370, 0.70, "UFIM", "66"),
)

# National minimum wage, by the decree that set it (one row per town: DatedValue is per town).
MINIMUM_WAGE = (
    (date(2024, 1, 1), Decimal("1412.00"), "Decreto nº 11.864/2023"),
    (date(2025, 1, 1), Decimal("1518.00"), "Decreto nº 12.342/2024"),
    (date(2026, 1, 1), Decimal("1621.00"), "Decreto nº 12.797/2025 (DOU de 24/12/2025)"),
)

# (code, place, capacity). Sapezal Lei 060/1998 Art. 14 lists six stands with their cars.
SAPEZAL_STANDS = (
    ("01", "Av. Surubim Jaú - Ponto de Ônibus", 4),
    ("02", "Rua do Cascudo - Centro de Saúde", 2),
    ("03", "Av. Dourado - Banco HSBC Bamerindus", 2),
    ("04", "Av. Tucunaré - Hosp. Mat. Sapezal", 4),
    ("05", "Av. Surubim - Mercado Sapezal", 1),
    ("06", "Loteamento Popular - Mercado Polinski", 2),
)
SAPEZAL_BASIS = "Lei 060/1998 (Sapezal), Art. 14"

# Nortelândia Lei 127/2009 Art. 24 names two stands and no capacity, no code: the codes are
# ours, and each capacity is the town's whole fleet of 6 taxis (Art. 3).
NORTELANDIA_STANDS = (
    ("01", "Praça Edgar Araújo, lateral leste", 6),
    ("02", "Rodoviária Municipal (embarque e desembarque, Art. 24 §ú)", 6),
)
NORTELANDIA_BASIS = "Lei 127/2009 (Nortelândia), Art. 24"

MALE = ("José", "João", "Antônio", "Francisco", "Carlos", "Paulo", "Pedro", "Lucas", "Luiz",
        "Marcos", "Gabriel", "Rafael", "Daniel", "Marcelo", "Bruno", "Eduardo", "Felipe",
        "Rodrigo", "Manoel", "Sebastião", "Adilson", "Valdir", "Gilmar", "Claudiomiro",
        "Edson", "Juliano", "Leandro", "Anderson", "Ronaldo", "Cleiton")
FEMALE = ("Maria", "Ana", "Francisca", "Antônia", "Adriana", "Juliana", "Márcia", "Fernanda",
          "Patrícia", "Aline", "Sandra", "Camila", "Luciana", "Rosângela", "Simone", "Cláudia",
          "Elaine", "Daiane", "Jéssica", "Marlene")
SURNAMES = ("Silva", "Santos", "Oliveira", "Souza", "Rodrigues", "Ferreira", "Alves", "Pereira",
            "Lima", "Gomes", "Costa", "Ribeiro", "Martins", "Carvalho", "Almeida", "Lopes",
            "Soares", "Fernandes", "Vieira", "Barbosa", "Rocha", "Dias", "Nascimento",
            "Andrade", "Moreira", "Nunes", "Marques", "Machado", "Mendes", "Freitas",
            "Cardoso", "Ramos", "Schneider", "Dal Maso", "Barella", "Zanetti", "Casagrande",
            "Pavan", "Rauber", "Scariot")
STREETS = ("Rua das Flores", "Av. Brasil", "Rua Mato Grosso", "Av. Presidente Vargas",
           "Rua Tiradentes", "Rua São Paulo", "Av. Tancredo Neves", "Rua Paraná",
           "Rua Rio Grande do Sul", "Av. Getúlio Vargas", "Rua Cuiabá", "Rua Goiás")
DISTRICTS = ("Centro", "Jardim Primavera", "Bela Vista", "Vila Nova", "Jardim das Palmeiras",
             "Residencial Esperança")

CARS = (("Chevrolet Onix Plus 1.0", 999), ("Fiat Cronos 1.3", 1332),
        ("Volkswagen Virtus 1.6", 1598), ("Toyota Corolla 2.0", 1987),
        ("Hyundai HB20S 1.0", 998), ("Renault Logan 1.6", 1598), ("Chevrolet Spin 1.8", 1796),
        ("Nissan Versa 1.6", 1598))
CAR_COLOURS = ("Branca", "Prata", "Preta", "Vermelha", "Cinza")
MOTOS = (("Honda CG 160 Fan", 162), ("Honda CG 160 Titan", 162), ("Yamaha Factor 150", 149),
         ("Yamaha YBR 150", 149), ("Honda CG 160 Start", 162), ("Yamaha Fazer 150", 149))
TRAIL = ("Honda NXR 160 Bros", 162)  # a trail bike: fine in Nortelândia, barred in Tapurah
MOTO_COLOURS = ("Vermelha", "Preta", "Azul", "Branca", "Prata")
INSURERS = ("Porto Seguro", "Mapfre Seguros", "Bradesco Seguros", "Tokio Marine", "Sompo Seguros")

# Plate letters in ranges Mato Grosso has issued (old format, then Mercosul).
OLD_PLATE_PREFIXES = ("NJK", "NPC", "NTR", "NUA", "OAZ", "OBK", "QBA", "QCD")
MERCOSUL_PLATE_PREFIXES = ("QBX", "QCZ", "RAY", "RBC", "SAF", "SBE")

# Companies per town and service: (name, short code for prefixes and vests, vehicles).
COMPANIES = {
    ("nortelandia", "mototaxi"): (("Moto Táxi Santana Ltda", "MTS", 8),
                                  ("Nortão Moto Táxi ME", "NMT", 7),
                                  ("Garimpeiro Express Moto Táxi Ltda", "GEX", 5)),
    ("tapurah", "mototaxi"): (("Tapurah Moto Táxi Ltda", "TMT", 7),
                              ("Moto Táxi Cravari ME", "MTC", 6),
                              ("Arinos Moto Serviços Ltda", "AMS", 5)),
    # Nova Santa Helena Art. 5: a company holds at most 1/3 of the 5 taxis, so 1.
    ("nova-santa-helena", "taxi"): (("Táxi Santa Helena Ltda", "TSH", 1),),
    # Sapezal Art. 3 §ú: a company holds at most 20% of the 15 taxis, so 3.
    ("sapezal", "taxi"): (("Rádio Táxi Sapezal Ltda", "RTS", 3),
                          ("Transportes Chapadão Ltda ME", "TCH", 2)),
}

ROLES = (("agent", "agente"), ("supervisor", "supervisor"), ("admin", "admin"))
