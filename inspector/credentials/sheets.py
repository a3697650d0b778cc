"""Print-ready A4 sheets of credentials, drawn with Pillow at 300 dpi and saved as PDF.

- `vehicle`: stickers for taxis and motorcycles (QR, plate, prefix, town,
  "Confira este táxi" / "Confira este moto-táxi"), 8 per page.
- `rider`: vest badges for moto-taxi riders (QR, photo, name, company and its code,
  registration number and validity, the motorcycle's number in the company), 2 per page:
  Tapurah Lei 406/2001 Art. 15 II and Art. 22, Nortelândia Lei 030/1998 Art. 10 IV.
- `card`: taxi drivers' ID cards (photo, name, DETRAN record, identity document,
  category and municipal registration, validity, stand address, QR), 8 per page:
  Nortelândia Lei 127/2009 Art. 10.
"""
from __future__ import annotations

import io
from pathlib import Path

import qrcode
from PIL import Image, ImageDraw, ImageFont, ImageOps
from qrcode.constants import ERROR_CORRECT_M

from inspector.credentials.issuing import public_url, sheet_of
from inspector.identifiers import format_plate
from inspector.models import Credential, Driver, Municipality, Service
from inspector.registry import rg

DPI = 300
A4 = (2480, 3508)        # 210 x 297 mm at 300 dpi
MARGIN = 118             # 10 mm
FONT_DIRS = ("/usr/share/fonts/truetype/dejavu", "/usr/share/fonts/dejavu")
SHEETS = ("vehicle", "rider", "card")
CATEGORY_LABELS = {"autonomo": "Autônomo", "auxiliar": "Auxiliar", "mototaxista": "Mototaxista"}


def mm(value: float) -> int:
    """Millimetres to pixels at the sheet's resolution."""
    return round(value * DPI / 25.4)


def _font(size: int, bold: bool = False) -> ImageFont.ImageFont:
    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    for folder in FONT_DIRS:
        path = Path(folder) / name
        if path.exists():
            return ImageFont.truetype(str(path), size)
    return ImageFont.load_default(size)  # Pillow's own scalable font


def qr_image(url: str, size_px: int) -> Image.Image:
    """A QR code of exactly size_px square (quiet zone included), black on white."""
    code = qrcode.QRCode(error_correction=ERROR_CORRECT_M, box_size=1, border=4)
    code.add_data(url)
    code.make(fit=True)
    img = code.make_image(fill_color="black", back_color="white").get_image().convert("L")
    modules = img.size[0]
    box = max(1, size_px // modules)
    img = img.resize((modules * box, modules * box), Image.NEAREST)
    canvas = Image.new("L", (size_px, size_px), 255)
    offset = (size_px - img.size[0]) // 2
    canvas.paste(img, (offset, offset))
    return canvas


def _photo(driver: Driver | None, size: tuple[int, int]) -> Image.Image:
    """The driver's photo cropped to size, or a grey placeholder saying it is missing."""
    if driver is not None and driver.photo:
        try:
            with Image.open(io.BytesIO(driver.photo), formats=("JPEG", "PNG", "WEBP")) as im:
                return ImageOps.fit(im.convert("RGB"), size)
        except OSError:
            pass
    ph = Image.new("RGB", size, (225, 225, 225))
    d = ImageDraw.Draw(ph)
    d.text((size[0] // 2, size[1] // 2), "sem foto", fill=(90, 90, 90), font=_font(mm(3)),
           anchor="mm")
    return ph


def _cut_box(draw: ImageDraw.ImageDraw, box: tuple[int, int, int, int]) -> None:
    """A thin grey frame to cut along."""
    draw.rectangle(box, outline=(150, 150, 150), width=2)


def _fit_text(draw, xy, text, max_width, size, bold=False, fill=(0, 0, 0), anchor="la"):
    """Draw text, shrinking the font until it fits max_width."""
    while size > 10:
        font = _font(size, bold)
        if draw.textlength(text, font=font) <= max_width:
            break
        size -= 2
    draw.text(xy, text, font=_font(size, bold), fill=fill, anchor=anchor)


def _sticker(c: Credential, town: Municipality, w: int, h: int) -> Image.Image:
    v = c.vehicle
    img = Image.new("RGB", (w, h), "white")
    d = ImageDraw.Draw(img)
    title = "Confira este moto-táxi" if v.service == Service.MOTOTAXI else "Confira este táxi"
    band = mm(12)
    d.rectangle((0, 0, w, band), fill=(11, 61, 46))
    _fit_text(d, (w // 2, band // 2), title, w - mm(6), mm(7), True, (255, 255, 255), "mm")
    q = h - band - mm(6)
    img.paste(qr_image(public_url(c.token), q), (mm(3), band + mm(3)))
    x = mm(3) + q + mm(3)
    tw = w - x - mm(3)
    y = band + mm(5)
    d.text((x, y), "Placa", font=_font(mm(3)), fill=(70, 70, 70))
    _fit_text(d, (x, y + mm(4)), format_plate(v.plate), tw, mm(9), True)
    y += mm(16)
    d.text((x, y), "Prefixo", font=_font(mm(3)), fill=(70, 70, 70))
    _fit_text(d, (x, y + mm(4)), v.prefix or "—", tw, mm(9), True)
    y += mm(16)
    _fit_text(d, (x, y), town.name, tw, mm(4.5), True)
    _fit_text(d, (x, y + mm(7)), "Aponte a câmera do", tw, mm(3.2))
    _fit_text(d, (x, y + mm(11)), "celular para o código", tw, mm(3.2))
    _cut_box(d, (0, 0, w - 1, h - 1))
    return img


def _wrap(d, text: str, width: int, font) -> list[str]:
    """Split text into lines no wider than width (words kept whole)."""
    lines, line = [], ""
    for word in text.split():
        trial = f"{line} {word}".strip()
        if line and d.textlength(trial, font=font) > width:
            lines.append(line)
            line = word
        else:
            line = trial
    return lines + [line] if line else lines


def _lines(d, x, y, rows, width, label_size, value_size, gap):
    """Label-over-value rows (a long value takes two lines); returns the y after the last."""
    for label, value in rows:
        d.text((x, y), label, font=_font(label_size), fill=(70, 70, 70))
        y += label_size + mm(0.5)
        font = _font(value_size, True)
        wrapped = _wrap(d, value or "", width, font) or [""]
        if len(wrapped) > 2:
            wrapped = [wrapped[0], " ".join(wrapped[1:])]
        for line in wrapped:
            _fit_text(d, (x, y), line, width, value_size, True)
            y += value_size + mm(0.3)
        y += gap
    return y


def _badge(c: Credential, town: Municipality, w: int, h: int) -> Image.Image:
    drv = c.driver
    v = drv.vehicles[0] if drv.vehicles else None
    company = v.holder if v is not None else drv.holder
    permit = next((p for p in (company.permits if company else []) if p.service ==
                   Service.MOTOTAXI), None)
    img = Image.new("RGB", (w, h), "white")
    d = ImageDraw.Draw(img)
    band = mm(16)
    d.rectangle((0, 0, w, band), fill=(255, 214, 0))
    _fit_text(d, (w // 2, band // 2), "MOTO-TÁXI · " + town.name.upper(), w - mm(8), mm(9),
              True, (0, 0, 0), "mm")
    photo = _photo(drv, (mm(30), mm(40)))
    img.paste(photo, (mm(5), band + mm(5)))
    q = mm(62)
    img.paste(qr_image(public_url(c.token), q), (w - q - mm(4), band + mm(4)))
    x = mm(40)
    rows = [("Condutor", drv.name),
            ("Empresa", company.name if company else ""),
            ("Código da empresa", permit.number if permit else ""),
            ("Matrícula (inscrição municipal)", drv.registration_number),
            ("Válida até", drv.registration_expiry.strftime("%d/%m/%Y")),
            ("Nº da motocicleta na empresa", v.prefix if v is not None else "")]
    _lines(d, x, band + mm(4), rows, w - x - q - mm(8), mm(3.2), mm(6), mm(1.6))
    d.text((mm(5), h - mm(8)), "Confira este moto-táxi: aponte a câmera do celular para o código",
           font=_font(mm(3.2)), fill=(40, 40, 40))
    _cut_box(d, (0, 0, w - 1, h - 1))
    return img


def card_rows(drv: Driver, stand) -> list[tuple[str, str]]:
    """The (label, value) lines of a taxi driver's ID card, Nortelândia 127/2009 Art. 10 I-VI
    (the photo and the QR aside); a missing RG prints a line to fill in by hand."""
    return [("Nome", drv.name),
            ("Prontuário DETRAN (CNH)", f"{drv.cnh_number} · cat. {drv.cnh_category}"),
            ("Identidade / órgão expedidor",
             rg.printed(drv.rg_number, drv.rg_issuer) or "____________________"),
            ("Categoria e registro municipal",
             f"{CATEGORY_LABELS.get(drv.category.value, drv.category.value)} · "
             f"{drv.registration_number}"),
            ("Validade", drv.registration_expiry.strftime("%d/%m/%Y")),
            ("Ponto", stand.place if stand else "")]


def _card(c: Credential, town: Municipality, w: int, h: int) -> Image.Image:
    drv = c.driver
    v = drv.vehicles[0] if drv.vehicles else None
    stand = v.stand if v is not None else None
    img = Image.new("RGB", (w, h), "white")
    d = ImageDraw.Draw(img)
    band = mm(8)
    d.rectangle((0, 0, w, band), fill=(11, 61, 46))
    _fit_text(d, (w // 2, band // 2), f"TÁXI · {town.name.upper()} · CARTEIRA DO MOTORISTA",
              w - mm(4), mm(3.6), True, (255, 255, 255), "mm")
    img.paste(_photo(drv, (mm(24), mm(32))), (mm(3), band + mm(2)))  # 3 x 4
    q = mm(30)
    img.paste(qr_image(public_url(c.token), q), (w - q - mm(1), band + mm(1)))
    x = mm(29)
    rows = card_rows(drv, stand)
    _lines(d, x, band + mm(1.5), rows, w - x - q - mm(2), mm(2), mm(2.8), mm(0.4))
    _cut_box(d, (0, 0, w - 1, h - 1))
    return img


LAYOUT = {  # cell size (mm), columns, rows, drawer
    "vehicle": ((95, 66), 2, 4, _sticker),
    "rider": ((190, 120), 1, 2, _badge),
    "card": ((95, 60), 2, 4, _card),
}


def render_pages(creds: list[Credential], town: Municipality, sheet: str) -> list[Image.Image]:
    """The sheet's pages as RGB images at 300 dpi."""
    (cw, ch), cols, rows, draw = LAYOUT[sheet]
    w, h = mm(cw), mm(ch)
    gap_x = (A4[0] - 2 * MARGIN - cols * w) // max(1, cols - 1) if cols > 1 else 0
    gap_y = (A4[1] - 2 * MARGIN - rows * h) // max(1, rows - 1) if rows > 1 else 0
    pages: list[Image.Image] = []
    for i, c in enumerate(creds):
        slot = i % (cols * rows)
        if slot == 0:
            pages.append(Image.new("RGB", A4, "white"))
        col, row = slot % cols, slot // cols
        pages[-1].paste(draw(c, town, w, h), (MARGIN + col * (w + gap_x),
                                              MARGIN + row * (h + gap_y)))
    return pages


def render_pdf(creds: list[Credential], town: Municipality, sheet: str) -> bytes:
    """An A4 PDF of the credentials (one image per page), or a page saying there are none."""
    if sheet not in SHEETS:
        raise ValueError(sheet)
    pages = render_pages(creds, town, sheet)
    if not pages:
        blank = Image.new("RGB", A4, "white")
        ImageDraw.Draw(blank).text((MARGIN, MARGIN), "Nenhuma credencial ativa para imprimir.",
                                   font=_font(mm(6)), fill=(0, 0, 0))
        pages = [blank]
    out = io.BytesIO()
    pages[0].save(out, "PDF", save_all=True, append_images=pages[1:], resolution=DPI,
                  quality=92, title=f"Credenciais {town.name} ({sheet})",
                  producer="inspector")
    return out.getvalue()


def printable(creds: list[Credential], sheet: str, on) -> list[Credential]:
    """The active credentials that belong on a sheet, in print order."""
    keep = [c for c in creds if c.status_on(on) == "active" and sheet_of(c) == sheet]
    if sheet == "vehicle":
        return sorted(keep, key=lambda c: (c.vehicle.service.value, c.vehicle.prefix,
                                           c.vehicle.plate))
    return sorted(keep, key=lambda c: c.driver.name)
