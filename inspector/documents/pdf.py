"""Lay out a legal document (notice, warning, infraction record, decision) as an A4 PDF.

Knows nothing of the database or the law: `notice_content` fills a `Sheet` (title, header,
sections of rows, quotes, photos, a signature) and `render(sheet)` draws it with ReportLab.
Text is real text (searchable, copyable) in DejaVu Sans, which has every Portuguese letter;
without Debian's fonts-dejavu-core, ReportLab's bundled Bitstream Vera (DejaVu's ancestor,
same Latin coverage) is used. Output is byte-for-byte reproducible for the same sheet
(ReportLab's invariant mode), so the SHA-256 kept at issue time can be recomputed.
"""
from __future__ import annotations

import io
from dataclasses import dataclass, field
from pathlib import Path
from xml.sax.saxutils import escape

import qrcode
from PIL import Image as PILImage
from qrcode.constants import ERROR_CORRECT_M
from reportlab import rl_config
from reportlab.lib import colors
from reportlab.lib.enums import TA_CENTER
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.platypus import (
    Image,
    KeepTogether,
    Paragraph,
    SimpleDocTemplate,
    Spacer,
    Table,
    TableStyle,
)

FONT_DIRS = ("/usr/share/fonts/truetype/dejavu", "/usr/share/fonts/dejavu")
_FACES = {"Doc": ("DejaVuSans.ttf", "Vera.ttf"), "Doc-Bold": ("DejaVuSans-Bold.ttf", "VeraBd.ttf"),
          "Doc-Mono": ("DejaVuSansMono.ttf", None)}
MARGIN = 16 * mm
THUMB_W = 46 * mm
GREY = colors.HexColor("#555555")


# --- what a document is made of --------------------------------------------------------------
@dataclass(frozen=True)
class Rows:
    """Label / value pairs, one per line."""

    rows: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Text:
    """A paragraph; `style` is body, note (small grey) or strong."""

    text: str
    style: str = "body"


@dataclass(frozen=True)
class Quote:
    """An article of the law quoted word for word, under its citation."""

    citation: str   # "Lei 406/2001, Art. 29, parágrafo único"
    text: str


@dataclass(frozen=True)
class PhotoEntry:
    """One photo of the evidence: thumbnail (JPEG bytes or None), hash and what is known."""

    title: str
    sha256: str
    rows: tuple[tuple[str, str], ...]
    thumbnail: bytes | None


@dataclass(frozen=True)
class Signature:
    """The driver's "ciente": who, when, the drawn signature and its hash."""

    rows: tuple[tuple[str, str], ...]
    png: bytes | None
    sha256: str | None


@dataclass(frozen=True)
class Section:
    """A numbered part of the document."""

    title: str
    blocks: tuple


@dataclass(frozen=True)
class Sheet:
    """Everything printed on one document."""

    number: str
    title: str                      # "NOTIFICAÇÃO"
    header: tuple[str, ...]         # "PREFEITURA MUNICIPAL DE TAPURAH", ...
    lead: tuple[str, ...]           # lines under the title (act, issue date)
    sections: tuple[Section, ...]
    url: str                        # authenticity page (the QR encodes it)
    access_code: str | None         # the holder's code, printed once
    holder_url: str | None = None   # where the holder uses the code
    author: str = ""
    subject: str = ""
    footer: str = ""
    closing: tuple[Text, ...] = field(default_factory=tuple)
    copy_mark: str | None = None    # "CÓPIA — remetida à empresa ...": on every page


# --- fonts and styles --------------------------------------------------------------------------
def _font_path(name: str, fallback: str | None) -> str | None:
    for folder in FONT_DIRS:
        if (Path(folder) / name).exists():
            return str(Path(folder) / name)
    if fallback:
        import reportlab
        bundled = Path(reportlab.__file__).parent / "fonts" / fallback
        if bundled.exists():
            return str(bundled)
    return None


def fonts() -> dict[str, str]:
    """Register the document's fonts once; the names to use for body, bold and hashes."""
    out = {}
    for face, (name, fallback) in _FACES.items():
        if face not in pdfmetrics.getRegisteredFontNames():
            path = _font_path(name, fallback)
            if path is None:
                continue
            pdfmetrics.registerFont(TTFont(face, path))
        out[face] = face
    return {"body": out.get("Doc", "Helvetica"), "bold": out.get("Doc-Bold", "Helvetica-Bold"),
            "mono": out.get("Doc-Mono", "Courier")}


def _styles(f: dict[str, str]) -> dict[str, ParagraphStyle]:
    base = ParagraphStyle("body", fontName=f["body"], fontSize=9, leading=11.5)
    return {
        "body": base,
        "strong": ParagraphStyle("strong", parent=base, fontName=f["bold"]),
        "note": ParagraphStyle("note", parent=base, fontSize=7.5, leading=9.5, textColor=GREY),
        "label": ParagraphStyle("label", parent=base, fontSize=8, leading=10, textColor=GREY),
        "title": ParagraphStyle("title", parent=base, fontName=f["bold"], fontSize=15,
                                leading=19, alignment=TA_CENTER, spaceAfter=2),
        "lead": ParagraphStyle("lead", parent=base, alignment=TA_CENTER, fontSize=9.5,
                               leading=12),
        "h2": ParagraphStyle("h2", parent=base, fontName=f["bold"], fontSize=10.5, leading=13,
                             spaceBefore=7, spaceAfter=3),
        "quote": ParagraphStyle("quote", parent=base, fontSize=8.5, leading=11, leftIndent=8,
                                textColor=colors.HexColor("#222222")),
        "cite": ParagraphStyle("cite", parent=base, fontName=f["bold"], fontSize=8.5,
                               leading=11, leftIndent=8),
        "small": ParagraphStyle("small", parent=base, fontSize=8, leading=10),
        "mono": ParagraphStyle("mono", parent=base, fontName=f["mono"], fontSize=7,
                               leading=9),
        "code": ParagraphStyle("code", parent=base, fontName=f["mono"], fontSize=13,
                               leading=16),
    }


def _p(text: str, style: ParagraphStyle) -> Paragraph:
    return Paragraph(escape(text).replace("\n", "<br/>"), style)


# --- blocks -----------------------------------------------------------------------------------
def _rows(rows, st, width: float) -> Table:
    data = [[_p(k, st["label"]), _p(v, st["body"])] for k, v in rows]
    t = Table(data, colWidths=[40 * mm, width - 40 * mm])
    t.setStyle(TableStyle([("VALIGN", (0, 0), (-1, -1), "TOP"),
                           ("LEFTPADDING", (0, 0), (-1, -1), 0),
                           ("BOTTOMPADDING", (0, 0), (-1, -1), 1.5),
                           ("TOPPADDING", (0, 0), (-1, -1), 1.5)]))
    return t


def _quote(q: Quote, st, width: float) -> Table:
    inner = [[[_p(q.citation, st["cite"]), _p(f"“{q.text}”", st["quote"])]]]
    t = Table(inner, colWidths=[width])  # one row: the citation never parts from its words
    t.setStyle(TableStyle([("LINEBEFORE", (0, 0), (0, -1), 1.5, colors.HexColor("#999999")),
                           ("BACKGROUND", (0, 0), (-1, -1), colors.HexColor("#f3f3f3")),
                           ("LEFTPADDING", (0, 0), (-1, -1), 4),
                           ("TOPPADDING", (0, 0), (-1, -1), 2),
                           ("BOTTOMPADDING", (0, 0), (-1, -1), 2)]))
    return t


def _image(data: bytes | None, max_w: float, max_h: float) -> Image | None:
    if not data:
        return None
    try:
        with PILImage.open(io.BytesIO(data)) as im:
            w, h = im.size
            im.load()  # one cut short would only fail when the page is drawn: a 500
    except Exception:  # noqa: BLE001 - a picture that will not open is simply not shown
        return None
    scale = min(max_w / w, max_h / h)
    return Image(io.BytesIO(data), width=w * scale, height=h * scale)


def _photo(ph: PhotoEntry, st, width: float) -> Table:
    thumb = _image(ph.thumbnail, THUMB_W, THUMB_W) or _p("miniatura indisponível", st["note"])
    right = [_p(ph.title, st["strong"]), _p("SHA-256:", st["label"]), _p(ph.sha256, st["mono"])]
    right += [_p(f"{k}: {v}", st["small"]) for k, v in ph.rows]
    t = Table([[thumb, right]], colWidths=[THUMB_W + 4 * mm, width - THUMB_W - 4 * mm])
    t.setStyle(TableStyle([("VALIGN", (0, 0), (-1, -1), "TOP"),
                           ("LEFTPADDING", (0, 0), (-1, -1), 0),
                           ("LINEBELOW", (0, 0), (-1, -1), 0.3, colors.HexColor("#cccccc")),
                           ("BOTTOMPADDING", (0, 0), (-1, -1), 4)]))
    return t


def _signature(sig: Signature, st, width: float) -> Table:
    parts = [_rows(sig.rows, st, width)]
    img = _image(sig.png, 70 * mm, 25 * mm)
    if img is not None:
        boxed = Table([[img]])
        boxed.hAlign = "LEFT"
        boxed.setStyle(TableStyle([("BOX", (0, 0), (-1, -1), 0.4, GREY)]))
        parts += [Spacer(1, 2), _p("Assinatura do condutor:", st["label"]), boxed]
    if sig.sha256:
        parts += [_p("SHA-256 da assinatura:", st["label"]), _p(sig.sha256, st["mono"])]
    t = Table([[parts]], colWidths=[width])  # one row: never split across pages
    t.setStyle(TableStyle([("LEFTPADDING", (0, 0), (-1, -1), 0)]))
    return t


def _block(b, st, width: float):
    if isinstance(b, Rows):
        return [_rows(b.rows, st, width)]
    if isinstance(b, Text):
        return [_p(b.text, st.get(b.style, st["body"])), Spacer(1, 2)]
    if isinstance(b, Quote):
        return [_quote(b, st, width), Spacer(1, 3)]
    if isinstance(b, PhotoEntry):
        return [_photo(b, st, width), Spacer(1, 3)]
    if isinstance(b, Signature):
        return [_signature(b, st, width)]
    raise TypeError(f"unknown block {type(b).__name__}")


def qr_png(url: str, box: int = 6) -> bytes:
    """A QR code of the URL as PNG bytes (quiet zone included)."""
    # A fixed mask (valid by the standard) saves scoring all eight, the slowest step of qrcode.
    code = qrcode.QRCode(error_correction=ERROR_CORRECT_M, box_size=box, border=4,
                         mask_pattern=2)
    code.add_data(url)
    code.make(fit=True)
    out = io.BytesIO()
    code.make_image(fill_color="black", back_color="white").get_image().convert("L").save(
        out, "PNG", optimize=False)
    return out.getvalue()


def _authenticity(sheet: Sheet, st, width: float) -> Table:
    qr = Image(io.BytesIO(qr_png(sheet.url)), width=36 * mm, height=36 * mm)
    right = [_p("Autenticidade e situação deste documento", st["strong"]),
             _p("Aponte a câmera do celular para o código ao lado ou acesse:", st["body"]),
             _p(sheet.url, st["mono"]), Spacer(1, 3),
             _p("A página mostra o número, a situação atual e o SHA-256 deste arquivo PDF, "
                "para conferir uma cópia impressa ou encaminhada.", st["note"])]
    if sheet.access_code:
        right += [Spacer(1, 4), _p("Código de acesso do titular (consulta e avisos):",
                                   st["label"]), _p(sheet.access_code, st["code"])]
        if sheet.holder_url:
            right += [_p(f"Titular: acompanhe este documento e receba avisos do prazo em "
                         f"{sheet.holder_url}, com o código acima.", st["note"])]
    t = Table([[qr, right]], colWidths=[40 * mm, width - 40 * mm])
    t.setStyle(TableStyle([("VALIGN", (0, 0), (-1, -1), "TOP"),
                           ("BOX", (0, 0), (-1, -1), 0.6, colors.black),
                           ("LEFTPADDING", (0, 0), (-1, -1), 4),
                           ("TOPPADDING", (0, 0), (-1, -1), 4)]))
    return t


def _copy_mark(mark: str, st, width: float) -> Table:
    t = Table([[_p(mark, st["title"])]], colWidths=[width])
    t.setStyle(TableStyle([("BOX", (0, 0), (-1, -1), 1.2, colors.black),
                           ("TOPPADDING", (0, 0), (-1, -1), 3),
                           ("BOTTOMPADDING", (0, 0), (-1, -1), 3)]))
    return t


# --- the page ---------------------------------------------------------------------------------
def _decorate(sheet: Sheet, f: dict[str, str]):
    def on_page(canvas, doc):
        w, h = A4
        canvas.saveState()
        y = h - 12 * mm
        for i, line in enumerate(sheet.header):
            canvas.setFont(f["bold"] if i == 0 else f["body"], 11 if i == 0 else 8.5)
            canvas.drawString(MARGIN, y, line)
            y -= 13 if i == 0 else 10.5
        canvas.setFont(f["bold"], 10)
        canvas.drawRightString(w - MARGIN, h - 12 * mm, sheet.number)
        if sheet.copy_mark:
            canvas.setFont(f["bold"], 8.5)
            canvas.drawRightString(w - MARGIN, h - 12 * mm - 11, sheet.copy_mark)
        canvas.setLineWidth(0.8)
        canvas.line(MARGIN, y + 4, w - MARGIN, y + 4)
        canvas.setFont(f["body"], 7)
        canvas.setFillColor(GREY)
        canvas.drawString(MARGIN, 9 * mm, sheet.footer or sheet.number)
        canvas.drawRightString(w - MARGIN, 9 * mm, f"página {doc.page}")
        canvas.restoreState()
    return on_page


def render(sheet: Sheet) -> bytes:
    """The sheet as PDF bytes (A4, the same bytes every time for the same sheet)."""
    f = fonts()
    st = _styles(f)
    rl_config.useA85 = 0  # binary streams: ReportLab's pure-Python ASCII85 is slow, and bigger
    out = io.BytesIO()
    top = 12 * mm + 13 + 10.5 * max(0, len(sheet.header) - 1) + 8
    doc = SimpleDocTemplate(out, pagesize=A4, leftMargin=MARGIN, rightMargin=MARGIN,
                            topMargin=top, bottomMargin=16 * mm, title=f"{sheet.title} "
                            f"{sheet.number}", author=sheet.author, subject=sheet.subject,
                            creator="inspector", invariant=1, lang="pt-BR")
    width = doc.width - 12  # the frame pads 6 pt on each side
    story = [_p(f"{sheet.title} Nº {sheet.number}", st["title"])]
    story += [_p(line, st["lead"]) for line in sheet.lead]
    if sheet.copy_mark:
        story += [Spacer(1, 4), _copy_mark(sheet.copy_mark, st, width)]
    story += [Spacer(1, 6), _authenticity(sheet, st, width), Spacer(1, 2)]
    for n, sec in enumerate(sheet.sections, start=1):
        head = _p(f"{n}. {sec.title}", st["h2"])
        body = [x for b in sec.blocks for x in _block(b, st, width)]
        story.append(KeepTogether([head] + body[:1]))
        story += body[1:]
    story += [x for b in sheet.closing for x in _block(b, st, width)]
    page = _decorate(sheet, f)
    doc.build(story, onFirstPage=page, onLaterPages=page)
    return out.getvalue()
