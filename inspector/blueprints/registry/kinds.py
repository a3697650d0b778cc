"""What each registry screen shows and edits: one `Kind` per kind of record.

The list, form and status views are the same for every kind; what differs (fields,
labels, the service that saves it) is declared here once.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from inspector import registry
from inspector.blueprints.registry.labels import choices
from inspector.clock import default_day
from inspector.extensions import db
from inspector.models import (
    Driver,
    DriverCategory,
    Holder,
    HolderKind,
    InsurancePolicy,
    Licence,
    LicenceKind,
    Permit,
    PermitKind,
    Service,
    Stand,
    Vehicle,
)


@dataclass(frozen=True)
class Field:
    """One form field: its name is the key the service reads in `data`."""

    name: str
    label: str
    type: str = "text"  # text | select | date | number | checkbox | email | tel | file
    required: bool = False
    hint: str = ""
    options: tuple[tuple[str, str], ...] | Callable[[int], list[tuple[str, str]]] = ()
    attrs: dict[str, str] = field(default_factory=dict)
    shown: Callable[[int], bool] | None = None  # only in towns where it applies (None: all)

    def shown_in(self, town: int) -> bool:
        """Whether the form of this town shows the field."""
        return self.shown is None or self.shown(town)

    def choices_for(self, town: int, current: str = "") -> list[tuple[str, str]]:
        """The (value, label) options of a select, some of which depend on the town (a
        record's `current` value stays offered)."""
        return list(self.options(town, current) if callable(self.options) else self.options)


@dataclass(frozen=True)
class Kind:
    """A kind of registry record and how its screens treat it."""

    key: str            # singular, the service's keyword: save_vehicle(..., vehicle=)
    plural: str         # the list endpoint: registry.vehicles
    slug: str           # the URL segment: /cadastro/veiculos
    model: type
    title: str          # "Veículo"
    title_plural: str   # "Veículos"
    new_title: str      # "Novo veículo"
    fieldsets: tuple[tuple[str, tuple[Field, ...]], ...]
    search_hint: str = ""
    save_fn: Callable[..., Any] | None = None     # registry.save_<kind>
    search_fn: Callable[..., Any] | None = None   # registry.search_<kinds>
    has_status: bool = False
    listed: bool = True
    name_of: Callable[[Any], str] = str  # how one record is named in titles and messages
    feminine: bool = False  # "Permissão ... cadastrada"

    def done(self, editing: bool) -> str:
        """'cadastrado', 'atualizada': the participle for a saved record of this kind."""
        return ("atualizad" if editing else "cadastrad") + ("a" if self.feminine else "o")

    @property
    def fields(self) -> list[Field]:
        """Every field of the form, in order."""
        return [f for _, group in self.fieldsets for f in group]

    def label_of(self, name: str) -> str:
        """The Portuguese label of a field (the name itself if it is not a form field)."""
        return next((f.label for f in self.fields if f.name == name), name)

    @property
    def results_template(self) -> str:
        """The partial with this kind's result table (what a search swaps in)."""
        return f"registry/_{self.plural}_results.html"

    @property
    def detail_template(self) -> str:
        """The page of one record of this kind."""
        return f"registry/{self.key}.html"


def _offered(enum_cls: type[Enum], service_of: Callable[[Any], Service]):
    """A select's options limited to what the town's laws regulate (no moto-taxi in Sapezal,
    no taxi in Tapurah: the registry refuses them), plus the record's current value."""
    def options(town: int, current: str = "") -> list[tuple[str, str]]:
        from inspector.registry import town_services

        covered = town_services(town)
        return [("", "Escolha…")] + [(v, text) for v, text in choices(enum_cls)
                                     if v == current or service_of(enum_cls(v)).value in covered]
    return options


def _category_service(category: DriverCategory) -> Service:
    return Service.MOTOTAXI if category == DriverCategory.MOTOTAXISTA else Service.TAXI


def _stands(town: int, current: str = "") -> list[tuple[str, str]]:
    rows = db.session.execute(db.select(Stand.code, Stand.place)
                              .filter_by(municipality_id=town).order_by(Stand.code)).all()
    return [("", "Sem ponto")] + [(code, f"{code} — {place}") for code, place in rows]


def _vistoria_shortening(town: int) -> bool:
    from inspector import registry

    return registry.vistoria_may_be_shortened(town)


def _pick(enum_cls: type[Enum]) -> tuple[tuple[str, str], ...]:
    return (("", "Escolha…"),) + tuple(choices(enum_cls))


NUMERIC = {"inputmode": "numeric", "autocomplete": "off"}
PLATE = {"autocapitalize": "characters", "autocomplete": "off", "maxlength": "8",
         "spellcheck": "false"}
TAX_ID = {"inputmode": "numeric", "autocomplete": "off", "maxlength": "18"}

HOLDER = Kind(
    key="holder", plural="holders", slug="permissionarios", model=Holder,
    title="Permissionário", title_plural="Permissionários", new_title="Novo permissionário",
    search_hint="Nome, CPF ou CNPJ", save_fn=registry.save_holder, search_fn=registry.search_holders,
    name_of=lambda h: h.name,
    fieldsets=(("Permissionário", (
        Field("kind", "Tipo", "select", True, options=_pick(HolderKind)),
        Field("name", "Nome ou razão social", required=True, attrs={"autocomplete": "off"}),
        Field("tax_id", "CPF ou CNPJ", required=True, hint="Só os números ou com pontuação.",
              attrs=TAX_ID),
        Field("address", "Endereço"),
        Field("phone", "Telefone", "tel", attrs={"inputmode": "tel"}),
        Field("email", "E-mail", "email"),
    )),),
)

STAND = Kind(
    key="stand", plural="stands", slug="pontos", model=Stand,
    title="Ponto", title_plural="Pontos", new_title="Novo ponto",
    search_hint="Código ou local", save_fn=registry.save_stand, search_fn=registry.search_stands,
    name_of=lambda s: f"{s.code} — {s.place}",
    fieldsets=(("Ponto", (
        Field("code", "Código", required=True, attrs={"autocomplete": "off"}),
        Field("place", "Local", required=True),
        Field("capacity", "Vagas", "number", True, attrs={**NUMERIC, "min": "1"}),
        Field("service", "Serviço", "select", True, options=_offered(Service, Service)),
        Field("legal_basis", "Base legal", hint="Lei e artigo que criam o ponto, se houver."),
    )),),
)

VEHICLE = Kind(
    key="vehicle", plural="vehicles", slug="veiculos", model=Vehicle,
    title="Veículo", title_plural="Veículos", new_title="Novo veículo",
    search_hint="Placa, prefixo ou modelo", save_fn=registry.save_vehicle, search_fn=registry.search_vehicles,
    name_of=lambda v: v.plate,
    fieldsets=(
        ("Veículo", (
            Field("service", "Serviço", "select", True, options=_offered(Service, Service)),
            Field("plate", "Placa", required=True, hint="Formato antigo (ABC1234) ou Mercosul "
                  "(ABC1D23).", attrs=PLATE),
            Field("prefix", "Prefixo", hint="Número pintado nas portas, se houver.",
                  attrs=NUMERIC),
            Field("make_model", "Marca e modelo", required=True),
            Field("year_of_manufacture", "Ano de fabricação", "number", True,
                  # the browser's hint, drawn once with the form's table and before any town
                  # is known: the server checks the year on the town's day (registry.records)
                  attrs={**NUMERIC, "min": "1950", "max": str(default_day().year + 1)}),
            Field("manufactured_on", "Data de fabricação", "date",
                  hint="Se conhecida (CRLV): a idade conta dela. Em branco, só o ano: o veículo "
                  "sai do limite só quando o completou com certeza (1º de janeiro)."),
            Field("first_licensed_on", "Primeiro licenciamento", "date",
                  hint="Se conhecido: \"anos de uso\" contam dele (moto-táxi de Tapurah)."),
            Field("engine_cc", "Cilindrada (cc)", "number", attrs={**NUMERIC, "min": "50"}),
            Field("colour", "Cor", required=True),
            Field("doors", "Portas", "number", attrs={**NUMERIC, "min": "2", "max": "5"}),
            Field("is_trail", "Motocicleta trail (fora de estrada)", "checkbox"),
        )),
        ("Vistoria (correção auditada)", (
            Field("last_vistoria_on", "Última vistoria periódica", "date",
                  hint="A vistoria do veículo exigida pela lei do município a cada período, não "
                  "a fiscalização na rua. Registrada pela vistoria aprovada no aplicativo; "
                  "altere só para corrigir, com o motivo abaixo."),
            Field("vistoria_valid_until", "Vistoria periódica válida até (prazo reduzido)", "date",
                  hint="Só quando o responsável pela vistoria reduziu a validade dela por causa "
                  "do estado do veículo, como a lei do município permite. Em branco: a "
                  "validade normal da lei.", shown=_vistoria_shortening),
            Field("vistoria_correction_reason", "Motivo da correção da vistoria",
                  hint="Obrigatório quando as datas acima mudam: a correção fica registrada "
                  "no histórico do veículo.", attrs={"maxlength": "500", "autocomplete": "off"}),
        )),
        ("Vínculos", (
            Field("holder_tax_id", "CPF ou CNPJ do permissionário", required=True,
                  hint="O permissionário já precisa estar cadastrado.", attrs=TAX_ID),
            Field("stand_code", "Ponto", "select", options=_stands),
        )),
    ),
)

DRIVER = Kind(
    key="driver", plural="drivers", slug="condutores", model=Driver,
    title="Condutor", title_plural="Condutores", new_title="Novo condutor",
    search_hint="Nome, CPF ou registro", save_fn=registry.save_driver, search_fn=registry.search_drivers,
    has_status=True, name_of=lambda d: d.name,
    fieldsets=(
        ("Condutor", (
            Field("category", "Categoria", "select", True,
                  options=_offered(DriverCategory, _category_service)),
            Field("name", "Nome", required=True, attrs={"autocomplete": "off"}),
            Field("cpf", "CPF", required=True, attrs=TAX_ID),
            Field("registration_number", "Número do registro municipal", required=True,
                  attrs={"autocomplete": "off"}),
            Field("registration_expiry", "Registro válido até", "date", True),
        )),
        ("Identidade (RG)", (
            Field("rg_number", "Número do RG", hint="Como está no documento, ex.: 12.345.678-9.",
                  attrs={"autocomplete": "off", "autocapitalize": "characters",
                         "maxlength": "20"}),
            Field("rg_issuer", "Órgão expedidor", hint="Sigla e UF, ex.: SSP/MT.",
                  attrs={"autocomplete": "off", "autocapitalize": "characters",
                         "maxlength": "20"}),
        )),
        ("Habilitação (CNH)", (
            Field("cnh_number", "Número da CNH", required=True, attrs=NUMERIC),
            Field("cnh_category", "Categoria da CNH", required=True, hint="A, B, AB, C, D ou E.",
                  attrs={"autocapitalize": "characters", "maxlength": "3"}),
            Field("cnh_expiry", "CNH válida até", "date", True),
        )),
        ("Vínculos", (
            Field("holder_tax_id", "CPF ou CNPJ do permissionário",
                  hint="Auxiliares e mototaxistas: a quem estão vinculados.", attrs=TAX_ID),
            Field("vehicle_plate", "Placa do veículo que conduz", attrs=PLATE,
                  hint="Vincula o condutor a mais um veículo; os vínculos atuais continuam."),
        )),
        ("Foto", (
            Field("photo", "Foto do condutor", "file",
                  hint="JPEG, PNG ou WebP, até 5 MB. Rosto de frente, como na carteira.",
                  attrs={"accept": "image/jpeg,image/png,image/webp"}),
        )),
    ),
)

PERMIT = Kind(
    key="permit", plural="permits", slug="permissoes", model=Permit,
    title="Permissão", title_plural="Permissões", new_title="Nova permissão",
    search_hint="Número ou permissionário", save_fn=registry.save_permit, search_fn=registry.search_permits,
    has_status=True, name_of=lambda p: p.number, feminine=True,
    fieldsets=(("Termo de Permissão ou autorização", (
        Field("kind", "Tipo", "select", True, options=_pick(PermitKind)),
        Field("service", "Serviço", "select", True, options=_offered(Service, Service)),
        Field("number", "Número", required=True, attrs={"autocomplete": "off"}),
        Field("holder_tax_id", "CPF ou CNPJ do permissionário", required=True, attrs=TAX_ID),
        Field("valid_from", "Válida desde", "date", True),
        Field("valid_until", "Válida até", "date", hint="Em branco se não tiver prazo."),
    )),),
)

LICENCE = Kind(
    key="licence", plural="licences", slug="alvaras", model=Licence,
    title="Alvará", title_plural="Alvarás", new_title="Novo alvará",
    search_hint="Número do alvará ou placa", save_fn=registry.save_licence,
    search_fn=registry.search_licences,
    has_status=True, name_of=lambda lic: lic.number,
    fieldsets=(("Alvará", (
        Field("kind", "Tipo", "select", True, options=_pick(LicenceKind)),
        Field("number", "Número", required=True, attrs={"autocomplete": "off"}),
        Field("vehicle_plate", "Placa do veículo", required=True, attrs=PLATE),
        Field("permit_number", "Número da permissão", hint="Termo de Permissão ou autorização "
              "a que o alvará pertence, se houver."),
        Field("valid_from", "Válido desde", "date", True),
        Field("valid_until", "Válido até", "date", True),
    )),),
)

INSURANCE = Kind(
    key="insurance", plural="insurance_policies", slug="seguros", model=InsurancePolicy,
    title="Seguro", title_plural="Seguros", new_title="Novo seguro",
    save_fn=registry.save_insurance, listed=False, name_of=lambda p: p.policy_number,
    fieldsets=(("Seguro do mototáxi", (
        Field("vehicle_plate", "Placa do veículo", required=True, attrs=PLATE),
        Field("insurer", "Seguradora", required=True),
        Field("policy_number", "Número da apólice", required=True,
              attrs={"autocomplete": "off"}),
        Field("valid_from", "Vigência desde", "date", True),
        Field("valid_until", "Vigência até", "date", True),
    )),),
)

KINDS: dict[str, Kind] = {k.key: k for k in (VEHICLE, DRIVER, HOLDER, LICENCE, PERMIT, STAND,
                                             INSURANCE)}
LISTED = [k for k in KINDS.values() if k.listed]
