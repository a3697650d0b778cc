"""Evidence photos for the reviewer: a thumbnail, a larger rendition to zoom, the original
bytes on demand (exactly as the phone sent them, with their SHA-256). A stored photo that
cannot be drawn never breaks a page: its renditions are a placeholder saying "imagem
danificada" with the start of its hash, its zoom says it with the whole hash and the link
to the original bytes."""
from __future__ import annotations

from flask import Response, abort, make_response, render_template, request

from inspector import inspections
from inspector.blueprints.review.common import VIEWERS
from inspector.extensions import db
from inspector.inspections import evidence_state, photo_bytes
from inspector.models import Photo
from inspector.security import roles_required, town_id

EXTENSIONS = {"image/jpeg": "jpg", "image/png": "png", "image/webp": "webp",
              "image/heic": "heic", "image/heif": "heif"}


def _photo(ident: int) -> Photo:
    photo = db.session.get(Photo, ident)
    if photo is None or photo.inspection.municipality_id != town_id() or photo.received_at is None:
        abort(404)
    return photo


_PLACEHOLDER = """<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 320 240">
<rect width="320" height="240" fill="#fde2e4" stroke="#a4000f" stroke-width="4"/>
<text x="160" y="112" text-anchor="middle" font-family="sans-serif" font-size="26"
 fill="#a4000f">imagem danificada</text>
<text x="160" y="150" text-anchor="middle" font-family="monospace" font-size="15"
 fill="#333">SHA-256 {sha}…</text></svg>"""


def _damaged(photo: Photo, size: str) -> Response:
    """What stands for a rendition of a photo that cannot be drawn (an SVG, 200 so that the
    gallery's <img> shows it)."""
    box = inspections.RENDITION_SIZES[size]
    response = make_response(_PLACEHOLDER.format(w=box, h=box * 3 // 4, sha=photo.sha256[:16]))
    response.headers["Content-Type"] = "image/svg+xml; charset=utf-8"
    response.headers["Cache-Control"] = "private, no-cache"
    return response


def _image(data: bytes, mime: str, etag: str) -> Response:
    response = make_response(data)
    response.headers["Content-Type"] = mime
    response.set_etag(etag)
    response.headers["Cache-Control"] = "private, max-age=86400"
    return response.make_conditional(request)


@roles_required(*VIEWERS)
def photo_rendition(ident: int, size: str):
    """A JPEG rendition of an evidence photo (mini: gallery, zoom: the larger view)."""
    photo = _photo(ident)
    try:
        data = inspections.rendition(photo.sha256, size, lambda: photo_bytes(photo))
    except inspections.Unrenderable:
        return _damaged(photo, size)
    if data is None:
        abort(404)
    return _image(data, "image/jpeg", f"{photo.sha256}-{size}")


@roles_required(*VIEWERS)
def photo_original(ident: int):
    """The original bytes, never re-encoded (download with the hash in the name)."""
    photo = _photo(ident)
    if photo.pack == inspections.IN_S3:  # streamed from the object store, block by block
        blocks = inspections.photo_blocks(photo.sha256, photo.pack, photo.pack_offset,
                                             photo.size, photo.inspection.municipality_id)
        if blocks is None:
            abort(404)
        response = Response(blocks, mimetype=photo.mime)
        response.headers["Content-Length"] = str(photo.size)
        response.set_etag(photo.sha256)
        response.headers["Cache-Control"] = "private, max-age=86400"
        response = response.make_conditional(request)
    else:
        data = photo_bytes(photo)
        if data is None:
            abort(404)
        response = _image(data, photo.mime, photo.sha256)
    response.headers["Content-Disposition"] = (
        f'inline; filename="foto-{photo.uuid}-{photo.sha256[:12]}.'
        f'{EXTENSIONS.get(photo.mime, "bin")}"')
    return response


@roles_required(*VIEWERS)
def photo_zoom(ident: int):
    """The zoom panel: the larger rendition, the photo's facts and the link to the original."""
    photo = _photo(ident)
    state = evidence_state(photo)
    if state == "matches":  # whole, as far as its structure says: can it be drawn?
        try:  # the thumbnail, usually cached by the gallery already
            inspections.rendition(photo.sha256, "mini", lambda: photo_bytes(photo))
        except inspections.Unrenderable:
            state = "damaged"
    response = make_response(render_template(
        "review/_zoom.html" if request.headers.get("HX-Request") else "review/zoom.html",
        photo=photo, state=state))
    response.vary.add("HX-Request")
    return response


@roles_required(*VIEWERS)
def empty():
    """Nothing: what closes the zoom panel (htmx swaps it in)."""
    response = make_response("")
    response.vary.add("HX-Request")
    return response
