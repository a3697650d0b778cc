"""Benchmark: what checking an evidence photo whole costs, per photo, in one process.
Prints figures; asserts nothing.

    .venv/bin/python bench/evidence_check.py [--repeat 15]

Parsing only a photo's header and EXIF (`header`) is set against what the sync does: every photo
walked to its end and decoded pixel by pixel (`whole`, inspections.evidence.decode_photo).
The difference is what each photo of a sync costs more, in CPU of the server process. Photos:
the two of bench/field.py (noise JPEGs, as incompressible as a real photo: the worst case
for a decoder), and a 12-megapixel camera-like JPEG and HEIC (smooth scene, sensor noise).
Medians of `--repeat` runs, interleaved.
"""
from __future__ import annotations

import argparse
import io
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from field_data import evidence_photo  # noqa: E402


def camera_like(fmt: str, size=(4000, 3000)) -> bytes:
    """A 12 MP picture with gradients, shapes and sensor noise, saved as a phone would."""
    from PIL import Image, ImageDraw

    w, h = size
    scene = Image.merge("RGB", [Image.linear_gradient("L").resize(size),
                                Image.linear_gradient("L").rotate(90).resize(size),
                                Image.new("L", size, 120)])
    d = ImageDraw.Draw(scene)
    for k in range(40):
        x, y = (k * 977) % w, (k * 613) % h
        d.ellipse((x, y, x + 300, y + 200), fill=((k * 50) % 256, (k * 90) % 256, 60))
    scene = Image.blend(scene, Image.effect_noise(size, 40).convert("RGB"), 0.12)
    out = io.BytesIO()
    scene.save(out, fmt, quality=90 if fmt == "JPEG" else 60)  # ~3 MB each, as phones write
    return out.getvalue()


def header_only(data: bytes) -> None:
    """What the check did before: open the header, read EXIF (no pixel decoded)."""
    from inspector.inspections import evidence

    with evidence._open(data, sorted(set(evidence.MIME_FORMATS.values())),
                        evidence.MAX_PIXELS, "foto") as img:
        evidence._exif(img)


def walk_only(data: bytes) -> None:
    """The structure walk alone (what the review page runs on every photo it shows)."""
    from inspector.inspections import evidence

    fmt = "HEIF" if data[4:8] == b"ftyp" else "JPEG"
    evidence.image_end(data, fmt)


def main() -> None:
    """Build the photos, time both checks, print."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=15)
    args = ap.parse_args()
    from inspector.inspections import evidence

    photos = {
        "bench/field.py 720x540 noise JPEG": evidence_photo(1),
        "bench/field.py 1920x1440 noise JPEG": evidence_photo(2, (1920, 1440)),
        "12 MP camera-like JPEG": camera_like("JPEG"),
        "12 MP camera-like HEIC": camera_like("HEIF"),
    }
    print(f"Evidence check per photo, one process, median of {args.repeat}")
    for label, data in photos.items():
        evidence.decode_photo(data)  # warm up (and it must pass)
        before, walk, after = [], [], []
        for _ in range(args.repeat):
            t = time.perf_counter()
            header_only(data)
            before.append(time.perf_counter() - t)
            t = time.perf_counter()
            walk_only(data)
            walk.append(time.perf_counter() - t)
            t = time.perf_counter()
            evidence.decode_photo(data)
            after.append(time.perf_counter() - t)
        b, w, a = (statistics.median(x) * 1000 for x in (before, walk, after))
        print(f"  {label:38s} {len(data) / 1024:6.0f} KB  header {b:5.2f} ms  "
              f"walk {w:5.2f} ms  whole {a:7.2f} ms  added {a - b:7.2f} ms")


if __name__ == "__main__":
    main()
