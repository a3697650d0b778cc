"""JSON request bodies: one pydantic model per body is the single source of its validation and
of its schema in `/api/openapi.json`.

Every model is strict (a number is not a string, `1.0` is not an id), refuses unknown fields,
bounds every string, array and number, and refuses NaN and infinities. A refusal is
`ValidationFailed({"items[2].photos[0].sha256": "motivo em português"})`: the field's path
as the phone wrote it, and a reason a person understands (HTTP 422, nothing stored).

Moments sent by a phone must fall in a window around the server's clock (`Moment`):
at most `FUTURE` ahead (a phone's clock may be wrong by hours) and at most `PAST` behind
(docs/sync.md says why). Any offset is accepted; the moment is kept in UTC.
"""
from __future__ import annotations

import types
import typing
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    AwareDatetime,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    TypeAdapter,
)
from pydantic import ValidationError as PydanticError
from pydantic.json_schema import GenerateJsonSchema
from pydantic_core import PydanticCustomError

from inspector import clock
from inspector.errors import ValidationFailed

MAX_ID = 2**31 - 1            # an INTEGER column: PostgreSQL's and the ids SQLite hands out here
FUTURE = timedelta(hours=24)  # a phone's clock set wrong by hours, or a time zone mistaken
PAST = timedelta(days=5 * 365 + 1)  # five years: no act can come of an older inspection
MAX_REPORTED = 20             # a refusal names at most this many fields
MAX_PATH = 120                # a field's path is cut to this length in a refusal


class Body(BaseModel):
    """Base of every JSON body: strict, closed, finite."""

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False, frozen=True)


@dataclass(frozen=True)
class Refusal:
    """The one pt-BR message a field answers whatever is wrong with it (Annotated metadata),
    where the app or a test already knows the wording."""

    message: str


def _in_window(moment: datetime) -> datetime:
    now = clock.now()
    if moment > now + FUTURE:
        raise PydanticCustomError(
            "moment_future", "data e hora no futuro (mais de 24 horas à frente do relógio do "
            "servidor): confira a data e a hora do celular")
    if moment < now - PAST:
        raise PydanticCustomError(
            "moment_past", "data e hora de mais de 5 anos atrás: confira a data e a hora do "
            "celular")
    # in UTC: SQLite keeps a datetime's wall time and drops its offset, so 05:40-04:00 would
    # be read back as 05:40 UTC (four hours early)
    return moment.astimezone(UTC)


Moment = Annotated[AwareDatetime, AfterValidator(_in_window)]


def _integral(value: Any) -> Any:
    """JSON Schema counts 12.0 as the integer 12 (a phone's JSON may write it so): take it as
    one; 12.5, "12" and true stay refused."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**63:
        return int(value)
    return value


def int_in(low: int, high: int) -> Any:
    """An integer from `low` to `high` (the bounds before the validator: pydantic then states
    them in the JSON Schema as minimum/maximum)."""
    return Annotated[int, Field(ge=low, le=high), BeforeValidator(_integral)]


Id = int_in(1, MAX_ID)  # a row's id: an INTEGER primary key


# ------------------------------------------------------------------ refusals in Portuguese
_MOMENT = "data e hora inválidas (use ISO 8601 com fuso, ex. 2026-11-30T13:02:11Z)"
_REASONS = {
    "missing": "obrigatório",
    "extra_forbidden": "campo desconhecido: não faz parte do formato aceito",
    "string_type": "deve ser texto",
    "string_too_short": "não pode ficar vazio",
    "string_pattern_mismatch": "formato inválido",
    "int_type": "deve ser um número inteiro",
    "int_parsing": "deve ser um número inteiro",
    "int_from_float": "deve ser um número inteiro",
    "float_type": "deve ser um número",
    "float_parsing": "deve ser um número",
    "finite_number": "deve ser um número finito",
    "bool_type": "deve ser true ou false",
    "list_type": "deve ser uma lista",
    "model_type": "deve ser um objeto",
    "dict_type": "deve ser um objeto",
    "model_attributes_type": "deve ser um objeto",
    "datetime_type": _MOMENT,
    "datetime_parsing": _MOMENT,
    "datetime_from_date_parsing": _MOMENT,
    "timezone_aware": _MOMENT,
    "uuid_type": "identificador inválido (UUID)",
    "uuid_parsing": "identificador inválido (UUID)",
    "union_tag_invalid": "formato não reconhecido",
    "union_tag_not_found": "formato não reconhecido",
}


def _reason(err: dict) -> str:
    """Why a value is refused, in Portuguese, from pydantic's error type and context."""
    kind, ctx = err["type"], err.get("ctx") or {}
    if kind == "json_invalid":
        return "O corpo do pedido não é um JSON válido."
    if kind in ("string_too_long", "too_long"):
        limit = ctx.get("max_length")
        unit = "caracteres" if kind == "string_too_long" else "itens"
        return f"grande demais (até {limit} {unit})"
    if kind == "too_short":
        return f"precisa de pelo menos {ctx.get('min_length')}"
    if kind in ("greater_than_equal", "greater_than"):
        return f"deve ser no mínimo {_number(ctx.get('ge', ctx.get('gt')))}"
    if kind in ("less_than_equal", "less_than"):
        return f"deve ser no máximo {_number(ctx.get('le', ctx.get('lt')))}"
    if kind == "literal_error":
        return "deve ser " + str(ctx.get("expected", "")).replace("'", "").replace(" or ", " ou ")
    if kind in _REASONS:
        return _REASONS[kind]
    if kind.startswith("moment_") or "error" not in ctx:
        return err["msg"]  # our own PydanticCustomError: already in Portuguese
    return "valor inválido"


def _number(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return f"{value:_}".replace("_", ".") if isinstance(value, int) else str(value)


def _members(tp: Any) -> list:
    """The types inside Optional / list / Annotated / a union, the tagged ones with their tag."""
    origin = typing.get_origin(tp)
    if origin is Annotated:
        inner, *meta = typing.get_args(tp)
        return _members(inner)
    if origin in (typing.Union, types.UnionType, list, tuple):
        return [m for arg in typing.get_args(tp) for m in _members(arg)]
    return [tp]


def _tags(tp: Any) -> dict[str, Any]:
    """{tag: member} of a tagged union (pydantic's Tag), {} otherwise."""
    out = {}
    if typing.get_origin(tp) is Annotated:
        tp = typing.get_args(tp)[0]
    for arg in typing.get_args(tp) if typing.get_origin(tp) in (typing.Union,
                                                                 types.UnionType) else ():
        if typing.get_origin(arg) is Annotated:
            inner, *meta = typing.get_args(arg)
            for m in meta:
                if getattr(m, "tag", None):
                    out[m.tag] = inner
    return out


def _field_at(root: Any, loc: tuple) -> tuple[Any, tuple]:
    """The FieldInfo a pydantic error's location names (None when not a declared field), and
    the location without union tags."""
    info, current, path = None, root, []
    for n, part in enumerate(loc):
        tags = _tags(current)
        if isinstance(part, str) and part in tags:
            current = tags[part]
            continue
        path.append(part)
        if isinstance(part, int):
            continue
        model = next((m for m in _members(current)
                      if isinstance(m, type) and issubclass(m, BaseModel)), None)
        info = model.model_fields.get(part) if model is not None else None
        if info is None:
            return None, tuple(path) + tuple(loc[n + 1:])
        current = info.annotation if not info.metadata else Annotated[(info.annotation,
                                                                       *info.metadata)]
    return info, tuple(path)


def path_text(loc: tuple) -> str:
    """("items", 2, "photos", 0, "sha256") -> "items[2].photos[0].sha256"; () -> "body"."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return (out or "body")[:MAX_PATH]


def refusal(error: PydanticError, root: Any) -> ValidationFailed:
    """pydantic's errors as ValidationFailed: {path: pt-BR reason naming the field}."""
    fields: dict[str, str] = {}
    for err in error.errors(include_url=False, include_input=False):
        info, loc = _field_at(root, tuple(err["loc"]))
        key = path_text(loc)
        if key in fields:
            continue
        if len(fields) == MAX_REPORTED:
            break
        own = next((m.message for m in (info.metadata if info else ())
                    if isinstance(m, Refusal)), None)
        title = info.title if info is not None and info.title else None
        if own is not None:
            fields[key] = own
        elif err["type"] == "extra_forbidden":
            fields[key] = f"campo desconhecido “{key.rsplit('.', 1)[-1][:40]}”: não é aceito"
        elif title:
            fields[key] = f"{title}: {_reason(err)}"
        else:
            fields[key] = _reason(err)
    return ValidationFailed(fields or {"body": "dados inválidos"})


_ADAPTERS: dict[Any, TypeAdapter] = {}


def parse(tp: Any, raw: bytes | str):
    """Validate a raw JSON body against its type (a model, or an Annotated tagged union of
    models); ValidationFailed naming every bad field."""
    data = raw.encode() if isinstance(raw, str) else raw
    if b"\\u0000" in data or b"\x00" in data:
        # PostgreSQL text cannot hold NUL: refused at the door, as in forms and URLs
        raise ValidationFailed({"body": "O pedido contém um caractere inválido (NUL)."})
    adapter = _ADAPTERS.get(tp)
    if adapter is None:
        adapter = _ADAPTERS[tp] = TypeAdapter(tp)
    try:
        return adapter.validate_json(raw, strict=True)
    except PydanticError as e:
        raise refusal(e, tp) from None


# ------------------------------------------------------------------ the schemas for OpenAPI
# What `parse` refuses in any string of any body, said in each string's schema.
NO_NUL = "^[^\\u0000]*$"


class _OpenApiSchema(GenerateJsonSchema):
    """JSON Schema for OpenAPI 3.1: a nullable scalar is `type: [t, "null"]`; a string with no
    pattern of its own says it holds no NUL (`parse` refuses one anywhere in a body)."""

    def str_schema(self, schema):
        out = super().str_schema(schema)
        out.setdefault("pattern", NO_NUL)
        return out

    def nullable_schema(self, schema):
        inner = self.generate_inner(schema["schema"])
        if set(inner) - {"title", "description"} and isinstance(inner.get("type"), str) \
                and "$ref" not in inner:
            out = dict(inner, type=[inner["type"], "null"])
            if "enum" in out:
                out["enum"] = [*out["enum"], None]
            return out
        return super().nullable_schema(schema)


def _inline_nullable_refs(node: Any, defs: dict) -> Any:
    """`anyOf: [{$ref: X}, {type: null}]` -> X inlined with `type: [object, null]`, so a reader
    (and a fuzzer) sees one object that may be null."""
    if isinstance(node, list):
        return [_inline_nullable_refs(n, defs) for n in node]
    if not isinstance(node, dict):
        return node
    node = {k: _inline_nullable_refs(v, defs) for k, v in node.items()}
    any_of = node.get("anyOf")
    if isinstance(any_of, list) and len(any_of) == 2 and {"type": "null"} in any_of:
        other = next(n for n in any_of if n != {"type": "null"})
        ref = other.get("$ref", "") if isinstance(other, dict) else ""
        name = ref.rsplit("/", 1)[-1]
        if name in defs and defs[name].get("type") == "object":
            merged = dict(defs[name], type=["object", "null"])
            merged.pop("title", None)
            rest = {k: v for k, v in node.items() if k != "anyOf"}
            return merged | rest
    return node


def openapi_schemas(bodies: dict[str, Any]) -> tuple[dict[str, dict], dict[str, dict]]:
    """({name: the body's schema or $ref}, {component name: schema}) for `bodies`
    ({name: type}), $refs under #/components/schemas/."""
    inputs = [(name, "validation", TypeAdapter(tp)) for name, tp in bodies.items()]
    keyed, top = TypeAdapter.json_schemas(inputs, ref_template="#/components/schemas/{model}",
                                          schema_generator=_OpenApiSchema)
    defs = top.get("$defs", {})
    defs = {name: _inline_nullable_refs(d, defs) for name, d in defs.items()}
    refs = {name: keyed[(name, "validation")] for name in bodies}
    return refs, defs


__all__ = ["FUTURE", "MAX_ID", "NO_NUL", "PAST", "Body", "Id", "Moment", "Refusal", "openapi_schemas",
           "int_in", "parse", "path_text", "refusal"]
