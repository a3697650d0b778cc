"""Between a submitted form and the registry services: read, prefill, save."""
from __future__ import annotations

from werkzeug.datastructures import FileStorage, MultiDict

from inspector import registry
from inspector.blueprints.registry.kinds import Kind
from inspector.errors import ValidationFailed


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


def initial(kind: Kind, service, obj) -> dict[str, str]:
    """The form values of a saved record, as the service writes them back."""
    values = service.as_data(obj)
    for f in kind.fields:
        if f.type == "checkbox":
            values[f.name] = "1" if getattr(obj, f.name) else ""
    return values


def prefill(kind: Kind, args: MultiDict) -> dict[str, str]:
    """Empty form values, with any that a link passed in the query string (?vehicle_plate=)."""
    return {f.name: args.get(f.name, "").strip()[:200] for f in kind.fields if f.type != "file"}


def save(kind: Kind, service, town: int, data: dict[str, str], files: MultiDict, obj, actor):
    """Save through the service; a driver's photo is checked and stored in the same step.

    Every problem is reported at once: a bad photo and a bad CPF come back together.
    """
    upload: FileStorage | None = files.get("photo") if kind.key == "driver" else None
    jpeg, photo_errors = None, {}
    if upload is not None and upload.filename:
        try:
            jpeg = registry.normalise_photo(upload.read(registry.PHOTO_MAX_BYTES + 1))
        except ValidationFailed as e:
            photo_errors = e.errors
    save_fn = getattr(service, kind.save_fn)
    try:
        saved = save_fn(town, data, actor=actor, **{kind.key: obj})
    except ValidationFailed as e:
        raise ValidationFailed({**e.errors, **photo_errors}) from None
    if photo_errors:
        raise ValidationFailed(photo_errors)
    if jpeg is not None:
        registry.set_driver_photo(saved, jpeg, actor=actor)
    return saved
