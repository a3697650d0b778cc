"""Smaller JPEG renditions of evidence photos for the review gallery, and the hash check.

The stored original is never touched: a thumbnail (gallery) and a larger rendition (zoom)
are made from it on demand, with Pillow's `draft()` so a 12-megapixel JPEG is decoded at
a fraction of its size, and kept in a small in-memory cache keyed by the photo's SHA-256.

A stored photo that cannot be rendered (cut short, broken: evidence kept before the sync
checked photos whole) raises `Unrenderable`, never a 500: the review shows
"imagem danificada" with its hash and the original bytes instead, and this process remembers
the hash (`known_damaged`) so the next page says it at once.
"""
from __future__ import annotations

import struct
import threading
import warnings
from collections import OrderedDict
from collections.abc import Callable
from io import BytesIO

from PIL import Image, ImageOps, UnidentifiedImageError

from inspector.inspections import evidence

RENDITION_SIZES = {"mini": 320, "zoom": 1600}
# bench/caches.py: a thumbnail drawn anew costs 60-68 ms
CACHE_BYTES = 48 * 1024 * 1024
DAMAGED_KEPT = 4096               # hashes of photos found unrenderable, newest kept
_cache: OrderedDict[tuple[str, int], bytes] = OrderedDict()
_cache_size = 0
_damaged: OrderedDict[str, None] = OrderedDict()
_lock = threading.Lock()
# What Pillow raises for bytes it cannot open or decode (a bomb refused: ValueError too).
_BROKEN = (UnidentifiedImageError, OSError, ValueError, SyntaxError, EOFError, IndexError,
           KeyError, TypeError, ZeroDivisionError, RuntimeError, struct.error,
           Image.DecompressionBombWarning, Image.DecompressionBombError)


class Unrenderable(Exception):
    """The stored bytes are not an image that can be drawn (damaged evidence)."""


def known_damaged(sha256: str) -> bool:
    """Whether this process already failed to render the photo with this hash."""
    return sha256 in _damaged


def render(data: bytes, box: int) -> bytes:
    """A JPEG of at most `box` × `box` pixels, upright, from an evidence photo's bytes."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        img = Image.open(BytesIO(data), formats=sorted(set(evidence.MIME_FORMATS.values())))
        with img:
            if img.width * img.height > evidence.MAX_PIXELS:
                raise ValueError("too many pixels")
            if img.format in ("JPEG", "MPO"):  # MPO: a JPEG with an MPF gain map
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


def rendition(sha256: str, size: str, load: Callable[[], bytes | None]) -> bytes | None:
    """The `size` rendition ("mini" | "zoom") of the photo with this hash (None: no bytes);
    Unrenderable when its bytes cannot be drawn."""
    global _cache_size
    box = RENDITION_SIZES[size]
    key = (sha256, box)
    with _lock:
        if key in _cache:
            _cache.move_to_end(key)
            return _cache[key]
    data = load()
    if data is None:
        return None
    try:
        out = render(data, box)
    except _BROKEN as e:
        with _lock:
            _damaged[sha256] = None
            while len(_damaged) > DAMAGED_KEPT:
                _damaged.popitem(last=False)
        raise Unrenderable(sha256) from e
    with _lock:
        if key not in _cache:
            _cache[key] = out
            _cache_size += len(out)
            while _cache_size > CACHE_BYTES and _cache:
                _, old = _cache.popitem(last=False)
                _cache_size -= len(old)
    return out
