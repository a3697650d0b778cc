"""A fake camera for Chromium: a Y4M file showing one image (a QR code), looped forever.

Chromium plays it with `--use-fake-device-for-media-stream
--use-file-for-fake-video-capture=<abs path>.y4m` (one file per browser launch).
"""
from __future__ import annotations

from pathlib import Path

import qrcode
from PIL import Image

WIDTH, HEIGHT = 640, 480


def qr_image(text: str, box: int = 400) -> Image.Image:
    """A QR code of `text` on a white 640x480 frame (quiet zone included)."""
    qr = qrcode.QRCode(error_correction=qrcode.constants.ERROR_CORRECT_M, border=4)
    qr.add_data(text)
    qr.make(fit=True)
    code = qr.make_image(fill_color="black", back_color="white").convert("RGB")
    code = code.resize((box, box), Image.NEAREST)
    frame = Image.new("RGB", (WIDTH, HEIGHT), "white")
    frame.paste(code, ((WIDTH - box) // 2, (HEIGHT - box) // 2))
    return frame


def write_y4m(image: Image.Image, path: Path) -> Path:
    """Write one 4:2:0 frame of `image` (resized to 640x480) as a Y4M file."""
    ycbcr = image.convert("RGB").resize((WIDTH, HEIGHT)).convert("YCbCr")
    y, cb, cr = ycbcr.split()
    half = (WIDTH // 2, HEIGHT // 2)
    with open(path, "wb") as out:
        out.write(f"YUV4MPEG2 W{WIDTH} H{HEIGHT} F10:1 Ip A1:1 C420jpeg\n".encode())
        out.write(b"FRAME\n")
        out.write(y.tobytes())
        out.write(cb.resize(half, Image.BILINEAR).tobytes())
        out.write(cr.resize(half, Image.BILINEAR).tobytes())
    return path


def qr_y4m(text: str, path: Path) -> Path:
    """A fake-camera file showing a QR code of `text`."""
    return write_y4m(qr_image(text), Path(path).resolve())


def camera_args(y4m: Path) -> list[str]:
    """Chromium flags that make `y4m` the camera."""
    return ["--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream",
            f"--use-file-for-fake-video-capture={Path(y4m).resolve()}"]
