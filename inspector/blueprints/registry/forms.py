"""Between a submitted form and the registry services: read, prefill, save."""
from __future__ import annotations

from werkzeug.datastructures import FileStorage, MultiDict

from inspector import registry
from inspector.blueprints.registry.kinds import Kind
from inspector.errors import ValidationFailed
from inspector.extensions import db
from inspector.models import Municipality


def read(kind: Kind, form: MultiDict) -> dict[str, str]:
    """The submitted values of this kind's fields only, as strings (files excluded)."""
    data = {}
    for f in kind.fields:
        if f.type == "file":
            continue
        if f.type == "checkbox":
            data[f.name] = "1" if form.get(f.name) else ""
        else:
            data[f.name] = form.get(f.name, "").strip()
    return data


def initial(kind: Kind, obj) -> dict[str, str]:
    """The form values of a saved record, as the registry writes them back."""
    values = registry.as_data(obj)
    for f in kind.fields:
        if f.type == "checkbox":
            values[f.name] = "1" if getattr(obj, f.name) else ""
    return values


def prefill(kind: Kind, args: MultiDict) -> dict[str, str]:
    """Empty form values, with any that a link passed in the query string (?vehicle_plate=)."""
    return {f.name: args.get(f.name, "").strip()[:200] for f in kind.fields if f.type != "file"}


# The records whose save may pass a cap of the law (the fleet, a company's share, a stand).
CAPPED = ("vehicle", "licence")


def save(kind: Kind, town: int, data: dict[str, str], files: MultiDict, obj, actor,
         override_reason: str = ""):
    """Save through the service; a driver's photo is checked and stored in the same step.

    Every problem is reported at once: a bad photo and a bad CPF come back together. A
    vehicle or licence that would pass a cap of the law is refused (registry.CapExceeded),
    or saved with the reason where the law lets the town pass it (registry.caps).
    """
    if kind.key in CAPPED:
        municipality = db.session.get(Municipality, town)
        before = registry.caps_in_use(municipality)
        saved = _save(kind, town, data, files, obj, actor)
        registry.check_caps(municipality, before, reason=override_reason, actor=actor,
                            what=f"{kind.key} {kind.name_of(saved)}")
        return saved
    return _save(kind, town, data, files, obj, actor)


def _save(kind: Kind, town: int, data: dict[str, str], files: MultiDict, obj, actor):
    upload: FileStorage | None = files.get("photo") if kind.key == "driver" else None
    jpeg, photo_errors = None, {}
    if upload is not None and upload.filename:
        try:
            jpeg = registry.normalise_photo(upload.read(registry.PHOTO_MAX_BYTES + 1))
        except ValidationFailed as e:
            photo_errors = e.errors
    try:
        saved = kind.save_fn(town, data, actor=actor, **{kind.key: obj})
    except ValidationFailed as e:
        raise ValidationFailed({**e.errors, **photo_errors}) from None
    if photo_errors:
        raise ValidationFailed(photo_errors)
    if jpeg is not None:
        registry.set_driver_photo(saved, jpeg, actor=actor)
    return saved
