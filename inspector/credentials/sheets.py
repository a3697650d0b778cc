"""Print-ready A4 sheets of credentials, drawn as a vector PDF with ReportLab.

- `vehicle`: stickers for taxis and motorcycles (QR, plate, prefix, town,
  "Confira este táxi" / "Confira este moto-táxi"), 8 per page.
- `rider`: vest badges for moto-taxi riders (QR, photo, name, company and its code,
  registration number and validity, the motorcycle's number in the company), 2 per page:
  Tapurah Lei 406/2001 Art. 15 II and Art. 22, Nortelândia Lei 030/1998 Art. 10 IV.
- `card`: taxi drivers' ID cards (photo, name, DETRAN record, identity document,
  category and municipal registration, validity, stand address, QR), 8 per page:
  Nortelândia Lei 127/2009 Art. 10.

Why vector: a print shop takes a file of a few hundred kilobytes, not one 300 dpi raster per
page (25 vest badges were 9.5 MB). Text is real text in DejaVu Sans, bands and frames are
paths, each QR module is a filled square (sharp at any printer resolution), and only the
photos are images: JPEG at 300 dpi of their printed size.
"""
from __future__ import annotations

import io
from pathlib import Path

import qrcode
from PIL import Image, ImageOps
from qrcode.constants import ERROR_CORRECT_M
from reportlab.lib.colors import Color
from reportlab.lib.pagesizes import A4
from reportlab.lib.units import mm
from reportlab.lib.utils import ImageReader
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen.canvas import Canvas

from inspector import registry
from inspector.credentials.issuing import public_url, sheet_of
from inspector.identifiers import format_plate
from inspector.models import Credential, Driver, Municipality, Service

DPI = 300                # photos are resampled to this resolution at their printed size
PHOTO_QUALITY = 85       # JPEG quality of a printed photo: no visible loss at 300 dpi
MARGIN = 10              # mm
FONT_DIRS = ("/usr/share/fonts/truetype/dejavu", "/usr/share/fonts/dejavu")
_FACES = {"Sheet": ("DejaVuSans.ttf", "Vera.ttf"), "Sheet-Bold": ("DejaVuSans-Bold.ttf", "VeraBd.ttf")}
SHEETS = ("vehicle", "rider", "card")
CATEGORY_LABELS = {"autonomo": "Autônomo", "auxiliar": "Auxiliar", "mototaxista": "Mototaxista"}
BLACK, WHITE = (0, 0, 0), (255, 255, 255)
GREEN, YELLOW = (11, 61, 46), (255, 214, 0)
LABEL_GREY, CUT_GREY = (70, 70, 70), (150, 150, 150)


def _font_path(name: str, fallback: str) -> str | None:
    for folder in FONT_DIRS:
        if (Path(folder) / name).exists():
            return str(Path(folder) / name)
    import reportlab
    bundled = Path(reportlab.__file__).parent / "fonts" / fallback
    return str(bundled) if bundled.exists() else None


def _fonts() -> tuple[str, str]:
    """Register DejaVu Sans once (every Portuguese letter); the regular and bold names."""
    names = []
    for face, (name, fallback) in _FACES.items():
        if face not in pdfmetrics.getRegisteredFontNames():
            path = _font_path(name, fallback)
            if path is None:
                names.append("Helvetica-Bold" if "Bold" in face else "Helvetica")
                continue
            pdfmetrics.registerFont(TTFont(face, path))
        names.append(face)
    return names[0], names[1]


def _pt(size_mm: float) -> float:
    """A font size given as its em height in millimetres, in points."""
    return size_mm * mm


def qr_matrix(url: str) -> list[list[bool]]:
    """The QR code's modules, quiet zone (4 modules) included; True is dark."""
    code = qrcode.QRCode(error_correction=ERROR_CORRECT_M, box_size=1, border=4)
    code.add_data(url)
    code.make(fit=True)
    return code.get_matrix()


class SheetPen:
    """Draws one cell (sticker, badge, card) in millimetres from its top-left corner, the
    way the layout was designed (y grows downwards)."""

    def __init__(self, canvas: Canvas, left: float, top: float, w: float, h: float):
        self.c, self.left, self.top, self.w, self.h = canvas, left, top, w, h
        self.regular, self.bold = _fonts()

    def _x(self, x: float) -> float:
        return (self.left + x) * mm

    def _y(self, y: float) -> float:  # from the cell's top, in mm, to the page's points
        return A4[1] - (self.top + y) * mm

    def font(self, bold: bool) -> str:
        return self.bold if bold else self.regular

    def width(self, text: str, size: float, bold: bool = False) -> float:
        """Text width in mm."""
        return pdfmetrics.stringWidth(text, self.font(bold), _pt(size)) / mm

    def rect(self, x, y, w, h, fill=None, stroke=None, line=0.17):
        c = self.c
        if fill:
            c.setFillColor(Color(*(v / 255 for v in fill)))
        if stroke:
            c.setStrokeColor(Color(*(v / 255 for v in stroke)))
            c.setLineWidth(line * mm)
        c.rect(self._x(x), self._y(y + h), w * mm, h * mm, fill=1 if fill else 0,
               stroke=1 if stroke else 0)

    def text(self, x, y, text, size, bold=False, fill=BLACK, anchor="la"):
        """Text at (x, y): anchor 'la' puts its ascender line at y and its left at x,
        'mm' centres it both ways on (x, y) (Pillow's anchors, which the layout used)."""
        font, pts = self.font(bold), _pt(size)
        ascent = pdfmetrics.getAscent(font, pts) / mm
        descent = -pdfmetrics.getDescent(font, pts) / mm
        if anchor == "mm":
            baseline = y + (ascent - descent) / 2
            x -= self.width(text, size, bold) / 2
        else:
            baseline = y + ascent
        self.c.setFillColor(Color(*(v / 255 for v in fill)))
        self.c.setFont(font, pts)
        self.c.drawString(self._x(x), self._y(baseline), text)

    def fit_text(self, x, y, text, max_width, size, bold=False, fill=BLACK, anchor="la"):
        """Draw text, shrinking the font until it fits max_width (mm)."""
        while size > 1 and self.width(text, size, bold) > max_width:
            size -= 0.2
        self.text(x, y, text, size, bold, fill, anchor)

    def qr(self, url: str, x, y, size):
        """A QR code of exactly `size` mm square, quiet zone included: one filled square per
        run of dark modules, so it is as sharp as the printer allows."""
        matrix = qr_matrix(url)
        unit = size / len(matrix)
        self.rect(x, y, size, size, fill=WHITE)
        path = self.c.beginPath()
        for r, row in enumerate(matrix):
            col = 0
            while col < len(row):
                if not row[col]:
                    col += 1
                    continue
                start = col
                while col < len(row) and row[col]:
                    col += 1
                path.rect(self._x(x + start * unit), self._y(y + (r + 1) * unit),
                          (col - start) * unit * mm, unit * mm)
        self.c.setFillColor(Color(0, 0, 0))
        self.c.drawPath(path, stroke=0, fill=1)

    def photo(self, driver: Driver | None, x, y, w, h):
        """The driver's photo cropped to w x h mm, as a JPEG of 300 dpi at that size, or a
        grey box saying it is missing."""
        jpeg = _photo_jpeg(driver, (round(w / 25.4 * DPI), round(h / 25.4 * DPI)))
        if jpeg is None:
            self.rect(x, y, w, h, fill=(225, 225, 225))
            self.text(x + w / 2, y + h / 2, "sem foto", 3, fill=(90, 90, 90), anchor="mm")
            return
        self.c.drawImage(ImageReader(io.BytesIO(jpeg)), self._x(x), self._y(y + h), w * mm, h * mm)

    def cut_box(self):
        """A thin grey frame to cut along."""
        self.rect(0, 0, self.w, self.h, stroke=CUT_GREY)


def _photo_jpeg(driver: Driver | None, size: tuple[int, int]) -> bytes | None:
    if driver is None or not driver.photo:
        return None
    try:
        with Image.open(io.BytesIO(driver.photo), formats=("JPEG", "PNG", "WEBP")) as im:
            fitted = ImageOps.fit(im.convert("RGB"), size, Image.LANCZOS)
    except OSError:
        return None
    out = io.BytesIO()
    fitted.save(out, "JPEG", quality=PHOTO_QUALITY, optimize=True)
    return out.getvalue()


def _sticker(p: SheetPen, c: Credential, town: Municipality) -> None:
    v = c.vehicle
    w, h = p.w, p.h
    title = "Confira este moto-táxi" if v.service == Service.MOTOTAXI else "Confira este táxi"
    band = 12
    p.rect(0, 0, w, band, fill=GREEN)
    p.fit_text(w / 2, band / 2, title, w - 6, 7, True, WHITE, "mm")
    q = h - band - 6
    p.qr(public_url(c.token), 3, band + 3, q)
    x = 3 + q + 3
    tw = w - x - 3
    y = band + 5
    p.text(x, y, "Placa", 3, fill=LABEL_GREY)
    p.fit_text(x, y + 4, format_plate(v.plate), tw, 9, True)
    y += 16
    p.text(x, y, "Prefixo", 3, fill=LABEL_GREY)
    p.fit_text(x, y + 4, v.prefix or "—", tw, 9, True)
    y += 16
    p.fit_text(x, y, town.name, tw, 4.5, True)
    p.fit_text(x, y + 7, "Aponte a câmera do", tw, 3.2)
    p.fit_text(x, y + 11, "celular para o código", tw, 3.2)
    p.cut_box()


def _wrap(p: SheetPen, text: str, width: float, size: float) -> list[str]:
    """Split text into lines no wider than width (words kept whole)."""
    lines, line = [], ""
    for word in text.split():
        trial = f"{line} {word}".strip()
        if line and p.width(trial, size, True) > width:
            lines.append(line)
            line = word
        else:
            line = trial
    return lines + [line] if line else lines


def _lines(p: SheetPen, x, y, rows, width, label_size, value_size, gap):
    """Label-over-value rows (a long value takes two lines); returns the y after the last."""
    for label, value in rows:
        p.text(x, y, label, label_size, fill=LABEL_GREY)
        y += label_size + 0.5
        wrapped = _wrap(p, value or "", width, value_size) or [""]
        if len(wrapped) > 2:
            wrapped = [wrapped[0], " ".join(wrapped[1:])]
        for line in wrapped:
            p.fit_text(x, y, line, width, value_size, True)
            y += value_size + 0.3
        y += gap
    return y


def _badge(p: SheetPen, c: Credential, town: Municipality) -> None:
    drv = c.driver
    v = drv.vehicles[0] if drv.vehicles else None
    company = v.holder if v is not None else drv.holder
    permit = next((x for x in (company.permits if company else []) if x.service ==
                   Service.MOTOTAXI), None)
    w, h = p.w, p.h
    band = 16
    p.rect(0, 0, w, band, fill=YELLOW)
    p.fit_text(w / 2, band / 2, "MOTO-TÁXI · " + town.name.upper(), w - 8, 9, True, BLACK, "mm")
    p.photo(drv, 5, band + 5, 30, 40)
    q = 62
    p.qr(public_url(c.token), w - q - 4, band + 4, q)
    x = 40
    rows = [("Condutor", drv.name),
            ("Empresa", company.name if company else ""),
            ("Código da empresa", permit.number if permit else ""),
            ("Matrícula (inscrição municipal)", drv.registration_number),
            ("Válida até", drv.registration_expiry.strftime("%d/%m/%Y")),
            ("Nº da motocicleta na empresa", v.prefix if v is not None else "")]
    _lines(p, x, band + 4, rows, w - x - q - 8, 3.2, 6, 1.6)
    p.text(5, h - 8, "Confira este moto-táxi: aponte a câmera do celular para o código", 3.2,
           fill=(40, 40, 40))
    p.cut_box()


def card_rows(drv: Driver, stand) -> list[tuple[str, str]]:
    """The (label, value) lines of a taxi driver's ID card, Nortelândia 127/2009 Art. 10 I-VI
    (the photo and the QR aside); a missing RG prints a line to fill in by hand."""
    return [("Nome", drv.name),
            ("Prontuário DETRAN (CNH)", f"{drv.cnh_number} · cat. {drv.cnh_category}"),
            ("Identidade / órgão expedidor",
             registry.printed_rg(drv.rg_number, drv.rg_issuer) or "____________________"),
            ("Categoria e registro municipal",
             f"{CATEGORY_LABELS.get(drv.category.value, drv.category.value)} · "
             f"{drv.registration_number}"),
            ("Validade", drv.registration_expiry.strftime("%d/%m/%Y")),
            ("Ponto", stand.place if stand else "")]


def _card(p: SheetPen, c: Credential, town: Municipality) -> None:
    drv = c.driver
    v = drv.vehicles[0] if drv.vehicles else None
    stand = v.stand if v is not None else None
    w = p.w
    band = 8
    p.rect(0, 0, w, band, fill=GREEN)
    p.fit_text(w / 2, band / 2, f"TÁXI · {town.name.upper()} · CARTEIRA DO MOTORISTA",
               w - 4, 3.6, True, WHITE, "mm")
    p.photo(drv, 3, band + 2, 24, 32)  # 3 x 4
    q = 30
    p.qr(public_url(c.token), w - q - 1, band + 1, q)
    x = 29
    _lines(p, x, band + 1.5, card_rows(drv, stand), w - x - q - 2, 2, 2.8, 0.4)
    p.cut_box()


LAYOUT = {  # cell size (mm), columns, rows, drawer
    "vehicle": ((95, 66), 2, 4, _sticker),
    "rider": ((190, 120), 1, 2, _badge),
    "card": ((95, 60), 2, 4, _card),
}
PAGE_MM = (210, 297)


def render_pdf(creds: list[Credential], town: Municipality, sheet: str) -> bytes:
    """An A4 PDF of the credentials, or a page saying there are none."""
    if sheet not in SHEETS:
        raise ValueError(sheet)
    (w, h), cols, rows, draw = LAYOUT[sheet]
    gap_x = (PAGE_MM[0] - 2 * MARGIN - cols * w) / (cols - 1) if cols > 1 else 0
    gap_y = (PAGE_MM[1] - 2 * MARGIN - rows * h) / (rows - 1) if rows > 1 else 0
    out = io.BytesIO()
    canvas = Canvas(out, pagesize=A4, pageCompression=1, invariant=1)
    canvas.setTitle(f"Credenciais {town.name} ({sheet})")
    canvas.setProducer("inspector")
    per_page = cols * rows
    for i, c in enumerate(creds):
        slot = i % per_page
        if slot == 0 and i:
            canvas.showPage()
        col, row = slot % cols, slot // cols
        draw(SheetPen(canvas, MARGIN + col * (w + gap_x), MARGIN + row * (h + gap_y), w, h), c, town)
    if not creds:
        SheetPen(canvas, MARGIN, MARGIN, 190, 20).text(0, 0, "Nenhuma credencial ativa para imprimir.", 6)
    canvas.showPage()
    canvas.save()
    return out.getvalue()


def printable(creds: list[Credential], sheet: str, on) -> list[Credential]:
    """The active credentials that belong on a sheet, in print order."""
    keep = [c for c in creds if c.status_on(on) == "active" and sheet_of(c) == sheet]
    if sheet == "vehicle":
        return sorted(keep, key=lambda c: (c.vehicle.service.value, c.vehicle.prefix,
                                           c.vehicle.plate))
    return sorted(keep, key=lambda c: c.driver.name)
