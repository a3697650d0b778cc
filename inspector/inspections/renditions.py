"""Smaller JPEG renditions of evidence photos for the review gallery, and the hash check.

The stored original is never touched: a thumbnail (gallery) and a larger rendition (zoom)
are made from it on demand, with Pillow's `draft()` so a 12-megapixel JPEG is decoded at
a fraction of its size, and kept in a small in-memory cache keyed by the photo's SHA-256.
"""
from __future__ import annotations

import threading
import warnings
from collections import OrderedDict
from collections.abc import Callable
from io import BytesIO

from PIL import Image, ImageOps

from inspector.inspections import evidence

SIZES = {"mini": 320, "zoom": 1600}
CACHE_BYTES = 48 * 1024 * 1024
_cache: OrderedDict[tuple[str, int], bytes] = OrderedDict()
_cache_size = 0
_lock = threading.Lock()


def render(data: bytes, box: int) -> bytes:
    """A JPEG of at most `box` × `box` pixels, upright, from an evidence photo's bytes."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        img = Image.open(BytesIO(data), formats=sorted(set(evidence.MIME_FORMATS.values())))
        with img:
            if img.width * img.height > evidence.MAX_PIXELS:
                raise ValueError("too many pixels")
            if img.format == "JPEG":
                img.draft("RGB", (box, box))  # decode at 1/2, 1/4 or 1/8 scale
            img = ImageOps.exif_transpose(img)
            if img.mode not in ("RGB", "L"):
                img = img.convert("RGBA")
                flat = Image.new("RGB", img.size, "white")
                flat.paste(img, mask=img.getchannel("A"))
                img = flat
            img.thumbnail((box, box), Image.Resampling.LANCZOS)
            out = BytesIO()
            img.convert("RGB").save(out, "JPEG", quality=82, optimize=True)
            return out.getvalue()


def cached(sha256: str, size: str, load: Callable[[], bytes | None]) -> bytes | None:
    """The `size` rendition ("mini" | "zoom") of the photo with this hash (None: no bytes)."""
    global _cache_size
    box = SIZES[size]
    key = (sha256, box)
    with _lock:
        if key in _cache:
            _cache.move_to_end(key)
            return _cache[key]
    data = load()
    if data is None:
        return None
    out = render(data, box)
    with _lock:
        if key not in _cache:
            _cache[key] = out
            _cache_size += len(out)
            while _cache_size > CACHE_BYTES and _cache:
                _, old = _cache.popitem(last=False)
                _cache_size -= len(old)
    return out
