"""The phone's data plan: what a photo size costs and what it still shows.

Builds the demo town (`demo seed`) in a temporary folder, serves it on a free loopback port
with a threaded WSGI server and drives Debian's Chromium with Playwright.

1. Legibility, by an objective proxy (no OCR here): a synthetic 12 MP phone photo (4032x3024)
   of a vehicle seen whole from about 2.5 m (1.15 px per mm) with a plate whose characters
   are 45 mm tall (a Mercosul plate; a car's are taller) and a 1 mm crack (a dark line 1 px
   wide). Each size is made by the field app's own code (static/js/field/photo_size.js, in
   Chromium: canvas, high-quality smoothing, JPEG at the quality), decoded with Pillow, and
   measured: the characters' height in pixels; how much of the plate survives (correlation of
   the plate, scaled back up, with the original's); the crack's contrast (its dip below the
   surface around it) as a share of the original's. A size "reads" when the characters are
   at least 20 px tall, the plate correlation is at least 0.90 and the crack keeps at least
   half its contrast; the default is the smallest size that reads.
2. Over the air: an inspection with three failed items and a photo each (three different
   synthetic 12 MP photos), saved offline in the field app, then synced through the real
   upload path (PUT inspection, PUT each photo) under Chromium's network emulation
   (CDP Network.emulateNetworkConditions), profile "3G" = 1.6 Mbit/s down, 750 kbit/s up,
   150 ms RTT. Bytes are what Chromium counts for every request of the sync (headers and
   bodies both ways); the time is from "Sincronizar" until nothing waits.

`python bench/photo_size.py [--sizes 0,1280,1600,2048]` (0: original). Prints the figures.
"""
from __future__ import annotations

import argparse
import io
import logging
import sys
import tempfile
import threading
import time
from pathlib import Path

from PIL import Image, ImageChops, ImageDraw, ImageFont, ImageStat
from werkzeug.serving import make_server

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.screenshots import ARGS, CHROMIUM, TOWN, build  # noqa: E402

W, H = 4032, 3024
PX_PER_MM = 1.15
CHAR_MM = 45
PLATE = (1500, 1700)            # top-left of the plate in the full photo
CRACK = ((2600, 900), (2900, 1150), (3200, 1300))
CRACK_DIP = 60                  # the crack's darkness below the surface, in grey levels
SENSOR_SIGMA = 6                # per-pixel noise of a phone sensor in daylight, grey levels
ROSE = 5                        # Rose criterion: a feature is seen when its signal is 5x the noise
QUALITY = 85
PROFILE_3G = {"offline": False, "latency": 150, "downloadThroughput": 1_600_000 / 8,
              "uploadThroughput": 750_000 / 8}
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"


def scene(seed: int) -> Image.Image:
    """A camera-like 12 MP photo: a lit surface with sensor noise, a plate and a crack."""
    base = Image.linear_gradient("L").resize((W, H)).point(lambda v: 90 + v // 3)
    noise = Image.effect_noise((W // 2, H // 2), 18 + seed).resize((W, H), Image.BILINEAR)
    grey = ImageChops.add(base, noise, scale=2.0, offset=-64)
    img = Image.merge("RGB", (grey, grey.point(lambda v: v * 0.95), grey.point(lambda v: v * 0.85)))
    draw = ImageDraw.Draw(img)
    for i in range(12):   # the vehicle's shapes: some large edges, as a real photo has
        x, y = 300 + i * 300 + seed * 17, 400 + (i * 577 + seed * 91) % 2000
        draw.ellipse((x, y, x + 260, y + 180), outline=(30, 30, 40), width=6)
    px, py = PLATE
    pw, ph = round(400 * PX_PER_MM), round(130 * PX_PER_MM)
    draw.rectangle((px, py, px + pw, py + ph), fill=(245, 245, 245), outline=(20, 20, 20), width=3)
    draw.rectangle((px, py, px + pw, py + round(ph * 0.22)), fill=(20, 60, 160))
    font = ImageFont.truetype(FONT, round(CHAR_MM * PX_PER_MM / 0.73))  # cap height ≈ 0.73 em
    draw.text((px + pw // 2, py + ph * 0.62), "QBA1D23", fill=(10, 10, 10), font=font,
              anchor="mm")
    for a, b in zip(CRACK, CRACK[1:]):     # on a light patch (a lamp's lens), 1 px wide
        draw.rectangle((a[0] - 40, min(a[1], b[1]) - 40, b[0] + 40, max(a[1], b[1]) + 40),
                       fill=(200, 200, 200))
    for a, b in zip(CRACK, CRACK[1:]):
        draw.line((a, b), fill=(200 - CRACK_DIP,) * 3, width=1)
    # the sensor's own noise, per pixel (a smaller size averages it away, as a real one does)
    sensor = Image.effect_noise((W, H), SENSOR_SIGMA)
    return Image.merge("RGB", [ImageChops.add(c, sensor, offset=-128) for c in img.split()])


def camera_bytes(img: Image.Image) -> bytes:
    out = io.BytesIO()
    img.save(out, "JPEG", quality=92)   # a phone camera's usual quality
    return out.getvalue()


def _plate_box(scale: float) -> tuple[float, float, float, float]:
    px, py = PLATE
    return (px * scale, py * scale, (px + round(400 * PX_PER_MM)) * scale,
            (py + round(130 * PX_PER_MM)) * scale)


def _correlation(a: Image.Image, b: Image.Image) -> float:
    """Pearson correlation of two same-size grey images."""
    sa, sb = ImageStat.Stat(a), ImageStat.Stat(b)
    ma, mb = sa.mean[0], sb.mean[0]
    pa, pb = list(a.getdata()), list(b.getdata())
    num = sum((x - ma) * (y - mb) for x, y in zip(pa, pb))
    den = (sum((x - ma) ** 2 for x in pa) * sum((y - mb) ** 2 for y in pb)) ** 0.5
    return num / den if den else 0.0


def _crack(img: Image.Image, scale: float) -> tuple[float, float]:
    """The crack's mean darkness below the surface around it, along its first segment, and
    that surface's noise (standard deviation), in grey levels."""
    (x0, y0), (x1, y1) = CRACK[0], CRACK[1]
    dips, surface = [], []
    for t in [i / 40 for i in range(4, 37)]:
        # the pixel column nearest the line's centre (at full size: the pixel drawn)
        cx = round((x0 + (x1 - x0) * t) * scale)
        cy = y0 * scale + (y1 - y0) / (x1 - x0) * (cx - x0 * scale)
        on = img.getpixel((cx, round(cy)))
        around = [img.getpixel((cx, round(cy + d))) for d in (-12, -9, -6, 6, 9, 12)]
        dips.append(sum(around) / len(around) - on)
        surface += around
    mean = sum(surface) / len(surface)
    sigma = (sum((v - mean) ** 2 for v in surface) / len(surface)) ** 0.5
    return sum(dips) / len(dips), sigma


def legibility(original: Image.Image, kept: bytes) -> dict:
    grey0 = original.convert("L")
    with Image.open(io.BytesIO(kept)) as im:
        grey = im.convert("L")
    scale = grey.width / W
    plate0 = grey0.crop(tuple(round(v) for v in _plate_box(1.0)))
    plate = grey.resize(plate0.size, Image.BICUBIC, box=_plate_box(scale))
    dip0, _ = _crack(grey0, 1.0)
    dip, sigma = _crack(grey, scale)
    return {"side": max(grey.size), "char_px": CHAR_MM * PX_PER_MM * scale,
            "plate_corr": _correlation(plate0, plate), "crack": dip / dip0,
            "crack_snr": dip / sigma if sigma else float("inf")}


def reads(m: dict) -> bool:
    return m["char_px"] >= 20 and m["plate_corr"] >= 0.90 and m["crack_snr"] >= ROSE


SHRINK = """async ([b64, side, quality]) => {
  const { shrunkPhoto } = await import("/static/js/field/photo_size.js");
  const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)).buffer;
  const out = await shrunkPhoto(bytes, "image/jpeg", { max_side: side, quality });
  const kept = new Uint8Array(out || bytes);
  let s = ""; for (let i = 0; i < kept.length; i += 0x8000)
    s += String.fromCharCode(...kept.subarray(i, i + 0x8000));
  return btoa(s);
}"""


def shrink_in_chromium(page, data: bytes, side: int) -> bytes:
    import base64

    out = page.evaluate(SHRINK, [base64.b64encode(data).decode(), side or None, QUALITY])
    return base64.b64decode(out)


def sign_in(page, username: str) -> None:
    from inspector.config import DEMO_PASSWORD

    page.goto("/entrar?next=/campo")
    page.fill("#username", username)
    page.fill("#password", DEMO_PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url("**/campo")


def set_town_photo(app, side: int) -> None:
    from sqlalchemy import select

    from inspector.extensions import db
    from inspector.models import Municipality

    with app.app_context():
        town = db.session.scalar(select(Municipality).filter_by(slug=TOWN))
        town.photo_max_side, town.photo_quality = side or None, QUALITY
        db.session.commit()


def a_plate(app) -> str:
    from sqlalchemy import select

    from inspector.extensions import db
    from inspector.models import Municipality, Vehicle

    with app.app_context():
        town = db.session.scalar(select(Municipality).filter_by(slug=TOWN))
        return db.session.scalar(select(Vehicle.plate).filter_by(municipality_id=town.id)
                                 .order_by(Vehicle.id))


def over_the_air(browser, base: str, app, side: int, photos: list[Path], plate: str) -> dict:
    """One inspection with three photos saved offline, then synced on the 3G profile."""
    set_town_photo(app, side)
    context = browser.new_context(base_url=base, locale="pt-BR")
    context.set_default_timeout(120_000)
    page = context.new_page()
    sign_in(page, f"agente.{TOWN}")
    for _ in range(2):   # the second load is under the service worker, snapshot stored
        page.goto("/campo")
        page.wait_for_function("() => document.body.dataset.ready === '1'")
    page.wait_for_function("async () => (await window.fieldApp.store.getMeta('town'))?.photo")
    context.set_offline(True)
    page.fill("#search-q", plate.lower())
    page.get_by_role("button", name="Buscar").click()
    page.get_by_role("button", name="Iniciar vistoria").click()
    items = page.locator("#checklist li.item")
    items.first.wait_for()
    for i in range(items.count()):
        item = items.nth(i)
        if i < len(photos):
            item.locator("label.choice.fail").click()
            item.locator(".note-box textarea").fill(f"Defeito {i + 1}")
            item.locator('input[type="file"]').set_input_files(str(photos[i]))
            item.locator(".thumb img").wait_for()
        else:
            item.locator("label.choice.ok").click()
    page.locator("#signature").scroll_into_view_if_needed()
    page.get_by_role("button", name="Salvar vistoria").click()
    page.wait_for_function("() => document.querySelector('#pending-text')?.textContent"
                           ".startsWith('1 vistoria e 3 fotos')")
    kept = page.evaluate("""async () => {
        const [entry] = await window.fieldApp.store.outboxEntries();
        return entry.body.items.flatMap(i => i.photos.map(p => p.size));
    }""")
    seen = []
    context.on("requestfinished", lambda r: seen.append(r))
    context.set_offline(False)
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.emulateNetworkConditions", PROFILE_3G)
    t0 = time.perf_counter()
    page.get_by_role("button", name="Sincronizar").click()
    page.wait_for_function("() => document.querySelector('#pending-text')?.textContent"
                           ".startsWith('0 vistorias e 0 fotos')", timeout=600_000)
    seconds = time.perf_counter() - t0
    total = 0
    for r in seen:
        s = r.sizes()
        total += (s["requestBodySize"] + s["requestHeadersSize"] + s["responseBodySize"]
                  + s["responseHeadersSize"])
    context.close()
    return {"photos": kept, "bytes": total, "seconds": seconds,
            "requests": len(seen)}


def main() -> None:
    from playwright.sync_api import sync_playwright

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="0,1280,1600,2048",
                    type=lambda v: [int(x) for x in v.split(",")])
    ap.add_argument("--parts", default="12", help="which figures: 1 legibility, 2 over the air")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        app = build(folder)
        for name in ("werkzeug", "inspector"):   # the figures only, not each request
            logging.getLogger(name).setLevel(logging.WARNING)
        server = make_server("127.0.0.1", 0, app, threaded=True)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        base = f"http://127.0.0.1:{server.server_port}"
        app.config["PUBLIC_BASE_URL"] = base
        scenes = [scene(s) for s in (1, 2, 3)]
        paths = []
        for n, img in enumerate(scenes):
            paths.append(folder / f"photo{n}.jpg")
            paths[-1].write_bytes(camera_bytes(img))
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
                page = browser.new_context(base_url=base).new_page()
                sign_in(page, f"agente.{TOWN}")
                original = paths[0].read_bytes()
                print(f"1. Legibility (photo {W}x{H}, {len(original):,} bytes at camera quality "
                      f"92; plate characters {CHAR_MM * PX_PER_MM:.0f} px tall, crack 1 px; "
                      f"JPEG quality {QUALITY} in Chromium)")
                readable = []
                for side in args.sizes:
                    kept = shrink_in_chromium(page, original, side)
                    m = legibility(scenes[0], kept)
                    ok = reads(m)
                    if ok and side:
                        readable.append(side)
                    print(f"   {side or 'original':>8}: {len(kept):>9,} bytes, longest side "
                          f"{m['side']} px, characters {m['char_px']:.1f} px, plate "
                          f"correlation {m['plate_corr']:.3f}, crack contrast "
                          f"{m['crack']:.0%} (signal/noise {m['crack_snr']:.1f}) -> "
                          f"{'reads' if ok else 'does not read'}")
                print(f"   default (smallest size that reads): {min(readable) if readable else 'original'}")
                if "2" not in args.parts:
                    return
                plate = a_plate(app)
                print("\n2. Over the air: one inspection, 3 failed items with a photo each, "
                      "synced on 3G (1.6 Mbit/s down, 750 kbit/s up, 150 ms RTT)")
                for side in args.sizes:
                    r = over_the_air(browser, base, app, side, paths, plate)
                    print(f"   {side or 'original':>8}: photos {', '.join(f'{b:,}' for b in r['photos'])}"
                          f" bytes; {r['bytes']:,} bytes over the air in {r['requests']} "
                          f"requests; sync {r['seconds']:.1f} s")
                browser.close()
        finally:
            server.shutdown()


if __name__ == "__main__":
    main()
