// The size a photo is kept at: the town's setting (snapshot town.photo:
// longest side in px, JPEG quality) shrinks a camera photo in the browser BEFORE it is hashed
// and stored, so the SHA-256 declared is of the bytes kept and sent. A canvas re-encode drops
// the camera's EXIF, which the server reads (date and GPS printed with the evidence,
// inspector/inspections/evidence.py): the original's EXIF (APP1) segment is copied into the
// new JPEG with its Orientation set to 1, the pixels being drawn upright already, and without
// the camera's thumbnail.

const SOI = [0xff, 0xd8];
const EXIF_ID = [0x45, 0x78, 0x69, 0x66, 0x00, 0x00]; // "Exif\0\0"

/** The whole APP1 "Exif" segment (marker and length included) of a JPEG, or null. */
export function exifSegment(bytes) {
  const b = new Uint8Array(bytes);
  if (b[0] !== SOI[0] || b[1] !== SOI[1]) return null;
  let pos = 2;
  while (pos + 4 <= b.length && b[pos] === 0xff) {
    const marker = b[pos + 1];
    if (marker === 0xda || marker === 0xd9) return null; // image data: no header left
    const length = (b[pos + 2] << 8) | b[pos + 3];
    if (length < 2 || pos + 2 + length > b.length) return null;
    if (marker === 0xe1 && EXIF_ID.every((v, i) => b[pos + 4 + i] === v)) {
      return b.slice(pos, pos + 2 + length);
    }
    pos += 2 + length;
  }
  return null;
}

/** A copy of an APP1 Exif segment with IFD0's Orientation (0x0112) set to 1 ("upright"). */
export function uprightExif(segment) {
  const out = new Uint8Array(segment);
  const tiff = 10; // FFE1, length (2), "Exif\0\0" (6)
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  if (out.length < tiff + 8) return out;
  const little = out[tiff] === 0x49 && out[tiff + 1] === 0x49; // "II"; "MM" is big-endian
  if (!little && !(out[tiff] === 0x4d && out[tiff + 1] === 0x4d)) return out;
  const ifd0 = tiff + view.getUint32(tiff + 4, little);
  if (ifd0 + 2 > out.length) return out;
  const count = view.getUint16(ifd0, little);
  for (let i = 0; i < count; i += 1) {
    const entry = ifd0 + 2 + i * 12;
    if (entry + 12 > out.length) break;
    // a SHORT held in the entry's own value field
    if (view.getUint16(entry, little) === 0x0112 && view.getUint16(entry + 2, little) === 3) {
      view.setUint16(entry + 8, 1, little);
    }
  }
  return out;
}

/** A copy of an APP1 Exif segment without the camera's thumbnail (IFD1): IFD0 no longer links
 * it, and its JPEG bytes are cut off when they end the segment (where cameras put them). A
 * phone's thumbnail is 10 to 60 KB: a fifth of a photo kept at 1600 px. */
export function withoutThumbnail(segment) {
  const out = new Uint8Array(segment);
  const tiff = 10;
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  if (out.length < tiff + 8) return out;
  const little = out[tiff] === 0x49 && out[tiff + 1] === 0x49;
  if (!little && !(out[tiff] === 0x4d && out[tiff + 1] === 0x4d)) return out;
  const ifd0 = tiff + view.getUint32(tiff + 4, little);
  if (ifd0 + 2 > out.length) return out;
  const next = ifd0 + 2 + view.getUint16(ifd0, little) * 12;
  if (next + 4 > out.length) return out;
  const ifd1 = tiff + view.getUint32(next, little);
  if (ifd1 === tiff || ifd1 + 2 > out.length) return out;
  view.setUint32(next, 0, little);
  let start = null;
  let length = null;
  for (let i = 0; i < view.getUint16(ifd1, little); i += 1) {
    const entry = ifd1 + 2 + i * 12;
    if (entry + 12 > out.length) break;
    const tag = view.getUint16(entry, little);
    if (tag === 0x0201) start = tiff + view.getUint32(entry + 8, little);   // JPEGInterchangeFormat
    if (tag === 0x0202) length = view.getUint32(entry + 8, little);         // ...Length
  }
  if (start === null || length === null || start + length !== out.length || start <= next) {
    return out;
  }
  const cut = out.slice(0, start);
  cut[2] = ((start - 2) >> 8) & 0xff; // the segment's length field counts itself, not the marker
  cut[3] = (start - 2) & 0xff;
  return cut;
}

/** A JPEG with an APP1 segment put right after its SOI (where EXIF readers look first). */
export function withExif(jpeg, segment) {
  const b = new Uint8Array(jpeg);
  if (!segment || b[0] !== SOI[0] || b[1] !== SOI[1]) return b;
  const out = new Uint8Array(b.length + segment.length);
  out.set(b.subarray(0, 2), 0);
  out.set(segment, 2);
  out.set(b.subarray(2), 2 + segment.length);
  return out;
}

/** The bytes to keep for a photo under the town's setting ({max_side, quality}), or null to
 * keep the camera's own: no setting or "original" (max_side null), a photo already that
 * small, or one the browser cannot decode (the server then judges the original). */
export async function shrunkPhoto(bytes, mime, setting) {
  const side = setting && Number(setting.max_side);
  if (!side || typeof createImageBitmap !== "function") return null;
  let bitmap;
  try {
    bitmap = await createImageBitmap(new Blob([bytes], { type: mime }),
      { imageOrientation: "from-image" });
  } catch {
    return null;
  }
  try {
    const longest = Math.max(bitmap.width, bitmap.height);
    if (longest <= side) return null;
    const scale = side / longest;
    const width = Math.max(1, Math.round(bitmap.width * scale));
    const height = Math.max(1, Math.round(bitmap.height * scale));
    const canvas = new OffscreenCanvas(width, height);
    const ctx = canvas.getContext("2d");
    ctx.imageSmoothingEnabled = true;
    ctx.imageSmoothingQuality = "high"; // a 12 MP photo shrunk 2-3x: no aliasing of thin lines
    ctx.drawImage(bitmap, 0, 0, width, height);
    const quality = Math.min(95, Math.max(50, Number(setting.quality) || 85)) / 100;
    const blob = await canvas.convertToBlob({ type: "image/jpeg", quality });
    const jpeg = new Uint8Array(await blob.arrayBuffer());
    const exif = mime === "image/jpeg" ? exifSegment(bytes) : null;
    const kept = exif ? withExif(jpeg, withoutThumbnail(uprightExif(exif))) : jpeg;
    return kept.buffer.slice(kept.byteOffset, kept.byteOffset + kept.byteLength);
  } finally {
    bitmap.close();
  }
}
