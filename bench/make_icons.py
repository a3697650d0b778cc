"""Draw the field app's icons (run once; the PNGs are committed in static/icons/).

A white check mark over a stylised QR corner on the app's dark green. The "maskable"
variants keep everything inside the central 80 % safe zone and paint the full square,
so any launcher mask (circle, squircle) cuts only background.
"""
from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw

OUT = Path(__file__).resolve().parent.parent / "static" / "icons"
GREEN = (11, 61, 46)
YELLOW = (255, 204, 0)
WHITE = (255, 255, 255)


def draw(size: int, maskable: bool) -> Image.Image:
    """One icon of `size` pixels; maskable ones keep a wider margin."""
    scale = 4  # draw large, shrink once: smooth edges without antialiasing support
    s = size * scale
    im = Image.new("RGB", (s, s), GREEN)
    d = ImageDraw.Draw(im)
    if not maskable:  # a rounded tile on transparent corners reads as an app icon
        im = Image.new("RGBA", (s, s), (0, 0, 0, 0))
        d = ImageDraw.Draw(im)
        d.rounded_rectangle((0, 0, s - 1, s - 1), radius=s // 6, fill=GREEN)
    margin = s * (0.22 if maskable else 0.14)
    box = s - 2 * margin
    # three QR finder squares
    f = box * 0.30
    for x, y in ((0, 0), (box - f, 0), (0, box - f)):
        x0, y0 = margin + x, margin + y
        d.rectangle((x0, y0, x0 + f, y0 + f), fill=WHITE)
        w = f / 7
        d.rectangle((x0 + w, y0 + w, x0 + f - w, y0 + f - w), fill=GREEN)
        d.rectangle((x0 + 2 * w, y0 + 2 * w, x0 + f - 2 * w, y0 + f - 2 * w), fill=WHITE)
    # the check mark in the fourth corner
    line = [(margin + box * 0.40, margin + box * 0.72), (margin + box * 0.58, margin + box * 0.90),
            (margin + box * 0.98, margin + box * 0.42)]
    d.line(line, fill=YELLOW, width=int(box * 0.11), joint="curve")
    return im.resize((size, size), Image.LANCZOS)


def main() -> None:
    """Write the four PNGs the manifest names."""
    OUT.mkdir(parents=True, exist_ok=True)
    for size in (192, 512):
        draw(size, False).save(OUT / f"icon-{size}.png", optimize=True)
        draw(size, True).save(OUT / f"icon-maskable-{size}.png", optimize=True)
        print(f"wrote icon-{size}.png, icon-maskable-{size}.png")


if __name__ == "__main__":
    main()
