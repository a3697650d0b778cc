"""The body of `PUT /api/field/inspections/<uuid>` (docs/sync.md §2) as one pydantic model:
what the field app sends, bounded; the source of its validation and of its OpenAPI schema.

Shapes and bounds live here; what needs the database or the law (the vehicle is the town's,
the item is in the checklist of that day, a failed item has its photo, a photo is not used
twice, the signature is a PNG) is checked by `inspections.input`.
"""
from __future__ import annotations

from datetime import date
from typing import Annotated, Literal
from uuid import UUID

from pydantic import Field

from inspector.bodies import MAX_ID, Body, Id, Moment, Refusal, int_in
from inspector.inspections import evidence

MAX_ITEMS = 200
MAX_PHOTOS = 60          # per inspection (checked across items by inspections.input)
MAX_NOTE = 2000
MAX_NAME = 200
MAX_TOKEN = 200
MAX_ITEM_ID = 120        # inspection_items.item_id is VARCHAR(120)
MAX_GRANT_DAYS = 30      # a shape bound only: the law's own maximum is checked against the pack
MIN_GRANT_REASON, MAX_GRANT_REASON = 3, 500
MAX_HOST = 259           # a DNS name (253) and a port
EARTH_HALF_CIRCUMFERENCE_M = 20_004_000  # no position is wrong by more than this
_SIGNATURE_PREFIX = "data:image/png;base64,"
MAX_SIGNATURE_CHARS = len(_SIGNATURE_PREFIX) + evidence.MAX_SIGNATURE_BYTES * 4 // 3 + 4
HOST_PATTERN = r"^[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?(?::[0-9]{1,5})?$"
MIMES = tuple(sorted(evidence.MIME_FORMATS))


class Location(Body):
    """Where the inspection was made, as the phone's GPS said."""

    lat: float = Field(ge=-90, le=90, title="latitude")
    lon: float = Field(ge=-180, le=180, title="longitude")
    accuracy_m: float | None = Field(None, ge=0, le=EARTH_HALF_CIRCUMFERENCE_M,
                                     title="precisão da posição (metros)")


class PhotoDeclaration(Body):
    """A photo of a failed item, declared here; its bytes arrive later, one PUT each."""

    id: Annotated[UUID, Refusal("identificador da foto inválido (UUID)")] = Field(
        title="identificador da foto")
    sha256: Annotated[str, Refusal("SHA-256 inválido (64 algarismos hexadecimais minúsculos)")] \
        = Field(pattern=r"^[0-9a-f]{64}$", min_length=64, max_length=64, title="SHA-256")
    mime: Literal[MIMES] = Field(title="tipo da imagem")  # type: ignore[valid-type]
    size: int_in(1, evidence.MAX_PHOTO_BYTES) = Field(title="tamanho da foto (bytes)")
    taken_at: Moment | None = Field(None, title="momento da foto")


class RegistryKnew(Body):
    """What the registry on the phone already said about an item when the checklist opened
    (an expired insurance, a revoked permit...): the item came pre-marked "não conforme"."""

    reason: str = Field(min_length=1, max_length=MAX_NOTE, title="o que o cadastro apontava",
                        description="The card's reason(s) with their article, as the agent "
                                    "saw them.")
    overruled: bool = Field(title="o agente discordou do cadastro",
                            description="true when the agent answered other than 'fail'; "
                                        "the item's note then says why (required).")


class RepairGrant(Body):
    """A longer deadline to repair, granted by the agent at their discretion (Tapurah Lei
    406/2001 Art. 19: up to 10 days for a defect of the vehicle that does not affect safety)."""

    days: Annotated[int_in(1, MAX_GRANT_DAYS),
                    Refusal(f"dias concedidos: um número inteiro de 1 a {MAX_GRANT_DAYS}")] = \
        Field(title="dias concedidos",
              description="1 to the maximum the law in force allows (Tapurah Art. 19: 10); more "
                          "is refused naming items[i].grant.days")
    reason: str = Field(min_length=MIN_GRANT_REASON, max_length=MAX_GRANT_REASON,
                        title="motivo da concessão")


class Item(Body):
    """One checklist answer."""

    item_id: str = Field(min_length=1, max_length=MAX_ITEM_ID, title="item do checklist")
    result: Annotated[Literal["ok", "fail", "na"], Refusal("resultado deve ser ok, fail ou na")] \
        = Field(title="resultado")
    note: str | None = Field("", max_length=MAX_NOTE, title="observação")
    photos: list[PhotoDeclaration] | None = Field(None, max_length=MAX_PHOTOS, title="fotos")
    grant: RepairGrant | None = Field(
        None, title="prazo concedido",
        description="Optional, on a failed item only: the discretionary deadline the agent "
                    "grants (docs/sync.md §2). Refused (422, nothing stored) when the item is "
                    "not eligible (a safety item, not a defect of the vehicle), the town's law "
                    "has no such grant, or the days exceed the law's maximum.")
    registry: RegistryKnew | None = Field(
        None, title="o que o cadastro já apontava",
        description="Optional: present when the registry already knew the item failing; "
                    "absent in older apps' bodies. Kept in the stored body for the review.")
    bulk: bool = Field(
        False, title="marcado com “Marcar os demais como conformes”",
        description="Optional: true when the agent marked this item 'ok' with the one tap "
                    "that answers every item still open, not one by one; only with result "
                    "'ok'. Absent (false) in older apps' bodies. Kept in the stored body.")


class Acknowledgement(Body):
    """The driver's "ciente": a name and an on-screen signature (both optional)."""

    name: str | None = Field(None, max_length=MAX_NAME, title="nome de quem assinou o ciente")
    signature_png: str | None = Field(None, max_length=MAX_SIGNATURE_CHARS,
                                      title="assinatura do ciente",
                                      description="data:image/png;base64,...")


class DriverTold(Body):
    """Who was driving, as the agent chose it: a registered driver, or a typed name."""

    id: Annotated[Id | None, Refusal("identificação do condutor inválida")] = Field(
        None, title="condutor",
        description="A driver of the town (the vehicle's linked drivers on the phone); "
                    "null: 'outro / não cadastrado'.")
    name: str | None = Field(None, max_length=MAX_NAME, title="nome do condutor",
                             description="The name the phone showed or the agent typed "
                                         "(required when id is null).")


MIN_SHORTEN_REASON, MAX_SHORTEN_REASON = 10, 500


class VistoriaTold(Body):
    """What the inspector decided beyond the checklist in a vistoria: a shorter validity
    where the law allows it (Nova Santa Helena Lei 535/2013 Art. 32 § 3º), with the reason."""

    shorten_until: date = Field(title="validade reduzida até",
                                description="The last valid day the inspector sets: after the "
                                            "vistoria's day, before its normal end; refused "
                                            "where the law does not allow shortening.")
    reason: str = Field(min_length=MIN_SHORTEN_REASON, max_length=MAX_SHORTEN_REASON,
                        title="motivo da redução")


class InspectionBody(Body):
    """An inspection as the field app sends it (docs/sync.md §2)."""

    vehicle_id: Id = Field(title="veículo")
    kind: Annotated[Literal["street", "prior", "periodic"],
                    Refusal("tipo de inspeção deve ser street, prior ou periodic")] = Field(
        "street", title="tipo de inspeção",
        description="street: a fiscalização (the default: bodies without this key, from older "
                    "apps, are street inspections); prior / periodic: a vistoria prévia or "
                    "periódica where the town's law sets it (docs/vistoria.md). A vistoria "
                    "answers every item its kind checks and nothing else; its result is decided "
                    "from the answers when it arrives.")
    agent_id: Annotated[Id | None, Refusal("identificação do agente inválida")] = Field(
        None, title="agente",
        description="The agent who made it, as the phone knew them; another agent's session "
                    "is answered 403")
    credential_token: Annotated[str | None, Refusal("código de credencial inválido")] = Field(
        None, min_length=1, max_length=MAX_TOKEN, title="código da credencial")
    started_at: Moment = Field(title="início da vistoria")
    finished_at: Moment = Field(title="fim da vistoria")
    snapshot_version: Annotated[int_in(0, MAX_ID) | None,
                                Refusal("versão do cadastro inválida")] = Field(
        None, title="versão do cadastro")
    location: Location | None = Field(None, title="posição")
    items: list[Item] = Field(min_length=1, max_length=MAX_ITEMS, title="itens da vistoria")
    acknowledgement: Acknowledgement | None = Field(
        None, title="ciente",
        description="Who signed. The app requires a name with a signature; bodies of older "
                    "apps with a signature and no name are still accepted.")
    driver: DriverTold | None = Field(
        None, title="quem conduzia",
        description="Optional: who was driving, as the agent chose it. Absent in older apps' "
                    "bodies (the server then guesses as before).")
    vistoria: VistoriaTold | None = Field(
        None, title="decisão do responsável pela vistoria",
        description="Optional, in a prior or periodic vistoria only: a shortened validity with "
                    "its reason.")
    scanned_host: Annotated[str | None, Refusal("endereço do QR inválido")] = Field(
        None, max_length=MAX_HOST, pattern=HOST_PATTERN, title="endereço do QR",
        description="Optional: the web address (host[:port]) of the scanned QR when it is not "
                    "the town's official one (a genuine code on a swapped sticker: possible "
                    "fraud). The review shows it.")


__all__ = ["MAX_ITEMS", "MAX_NAME", "MAX_NOTE", "MAX_PHOTOS", "MIMES", "Acknowledgement",
           "DriverTold", "InspectionBody", "Item", "Location", "PhotoDeclaration",
           "RegistryKnew", "VistoriaTold"]
