"""Where an image file's image ends: the container walks behind the evidence check.

A decoder stops when it has its pixels and never says what follows, so a photo with a ZIP,
an HTML page or a video appended still decodes. These functions walk each format's own
structure (JPEG markers, PNG chunks, the RIFF of WebP, the ISO boxes of HEIF), without
decoding pixels, to the offset where the image ends; `Damaged` when the structure is cut
short or broken before that. The caller decides what may follow (inspections/evidence.py).
Pure functions on bytes: no Pillow, no Flask.
"""
from __future__ import annotations

import re
import struct
import zlib


class Damaged(ValueError):
    """The file's structure is cut short or broken: it is not a whole image."""


# ------------------------------------------------------------------ JPEG
_SOI, _EOI, _SOS = 0xD8, 0xD9, 0xDA
_STANDALONE = {0x01, *range(0xD0, 0xD8)}   # TEM, RST0-7: markers without a length
# After a scan's header, the entropy-coded data runs to the next marker: a 0xFF that is not
# byte stuffing (FF 00) or a restart marker (FF D0-D7); fill bytes (FF FF) before it are
# skipped by jpeg_end. (Written as `\xff+[^...\xff]` the pattern loses re's fast scan for
# its first byte: 44 ms instead of 0.6 for a 2 MB photo.)
_NEXT_MARKER = re.compile(rb"\xff[^\x00\xd0-\xd7]")


def jpeg_end(data: bytes, start: int = 0) -> int:
    """The offset just after the EOI marker of the JPEG that starts at `start`."""
    n = len(data)
    if data[start:start + 2] != b"\xff\xd8":
        raise Damaged("JPEG sem o marcador de início (SOI)")
    pos = start + 2
    while True:
        if pos >= n:
            raise Damaged("JPEG cortado: termina antes do marcador de fim (EOI)")
        if data[pos] != 0xFF:
            raise Damaged(f"JPEG corrompido: esperava um marcador na posição {pos}")
        while pos < n and data[pos] == 0xFF:  # fill bytes before a marker
            pos += 1
        if pos >= n:
            raise Damaged("JPEG cortado: termina antes do marcador de fim (EOI)")
        marker = data[pos]
        pos += 1
        if marker == _EOI:
            return pos
        if marker in _STANDALONE:
            continue
        if marker in (0x00, _SOI):
            raise Damaged(f"JPEG corrompido: marcador inválido na posição {pos - 1}")
        if pos + 2 > n:
            raise Damaged("JPEG cortado no meio de um segmento")
        length = int.from_bytes(data[pos:pos + 2], "big")
        if length < 2:
            raise Damaged(f"JPEG corrompido: segmento de tamanho {length}")
        pos += length
        if pos > n:
            raise Damaged("JPEG cortado no meio de um segmento")
        if marker == _SOS:
            found = _NEXT_MARKER.search(data, pos)
            if found is None:
                raise Damaged("JPEG cortado: os dados da imagem terminam sem marcador de fim")
            pos = found.start()


def jpeg_mpf_offset(data: bytes) -> int | None:
    """Where the MPF index's own header starts in a JPEG (the origin of the offsets it gives
    for the file's other images), or None when the JPEG has no MPF segment (APP2 "MPF\\0")."""
    pos, n = 2, len(data)
    while pos + 4 <= n and data[pos] == 0xFF:
        marker = data[pos + 1]
        if marker in (_SOS, _EOI):
            return None
        length = int.from_bytes(data[pos + 2:pos + 4], "big")
        if marker == 0xE2 and data[pos + 4:pos + 8] == b"MPF\x00":
            return pos + 8
        pos += 2 + length
    return None


# ------------------------------------------------------------------ PNG
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_CHUNK = struct.Struct(">I4s")


def png_end(data: bytes) -> int:
    """The offset just after the IEND chunk; every chunk's CRC is checked on the way."""
    if not data.startswith(_PNG_SIGNATURE):
        raise Damaged("PNG sem a assinatura")
    pos, n = len(_PNG_SIGNATURE), len(data)
    view = memoryview(data)
    while True:
        if pos + 12 > n:
            raise Damaged("PNG cortado: termina antes do bloco IEND")
        length, kind = _CHUNK.unpack_from(data, pos)
        end = pos + 12 + length
        if end > n:
            raise Damaged(f"PNG cortado no bloco {kind.decode('latin-1')!r}")
        crc = int.from_bytes(data[end - 4:end], "big")
        if zlib.crc32(view[pos + 4:end - 4]) != crc:
            raise Damaged(f"PNG corrompido: CRC do bloco {kind.decode('latin-1')!r} não confere")
        pos = end
        if kind == b"IEND":
            return pos


# ------------------------------------------------------------------ WebP (RIFF)
def webp_end(data: bytes) -> int:
    """The offset just after the RIFF chunk that holds the WebP image; its chunks must tile
    it (each padded to an even size, as RIFF says)."""
    if len(data) < 12 or data[:4] != b"RIFF" or data[8:12] != b"WEBP":
        raise Damaged("WebP sem o cabeçalho RIFF")
    end = 8 + int.from_bytes(data[4:8], "little")
    if end > len(data):
        raise Damaged("WebP cortado: o arquivo é menor que o tamanho que declara")
    pos = 12
    while pos + 8 <= end:
        size = int.from_bytes(data[pos + 4:pos + 8], "little")
        pos += 8 + size + size % 2
    if pos != end:
        raise Damaged("WebP corrompido: os blocos não fecham com o tamanho declarado")
    return end


# ------------------------------------------------------------------ HEIF (ISO base media)
# Top-level boxes of a still HEIF/HEIC image. 'moov' (a sequence: animation) is not one.
HEIF_BOXES = {b"ftyp", b"meta", b"mdat", b"free", b"skip", b"uuid", b"pdin"}


def heif_end(data: bytes) -> int:
    """The offset just after the last top-level box of a still image, the boxes tiling the
    file from 'ftyp' on. A box cut short is `Damaged`; what follows the last box that a still
    HEIF has (bytes that do not read as one of HEIF_BOXES) is left to the caller."""
    n, pos = len(data), 0
    while pos + 8 <= n:
        size, kind = _CHUNK.unpack_from(data, pos)
        if kind not in HEIF_BOXES or (pos == 0) != (kind == b"ftyp"):
            if pos == 0:
                raise Damaged("HEIF sem a caixa 'ftyp' no início")
            return pos
        header = 8
        if size == 1:
            if pos + 16 > n:
                raise Damaged("HEIF cortado: cabeçalho de caixa incompleto")
            size, header = int.from_bytes(data[pos + 8:pos + 16], "big"), 16
        elif size == 0:  # "to the end of the file"
            size = n - pos
        if size < header or pos + size > n:
            raise Damaged(f"HEIF cortado na caixa {kind.decode('latin-1')!r}")
        pos += size
    if pos == 0:
        raise Damaged("HEIF sem a caixa 'ftyp' no início")
    return pos
