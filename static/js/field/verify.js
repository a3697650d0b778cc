// Offline verification of a scanned credential (format: docs/credentials.md and
// inspector/credentials/tokens.py). The token is 94 bytes in base64url:
//   0 version(1) | 1 kid(2) | 3 kind(1) | 4 town IBGE(4) | 8 subject(4) | 12 expiry day(2)
//   | 14 nonce(16) | 30 Ed25519 signature(64) over bytes 0..29, all big-endian.
// The signature tells a forged or altered code from a real one with no network; the stored
// snapshot tells revoked, expired and unknown codes apart.

import * as store from "./db.js";

const TOKEN_CHARS = 126;
const SIGNED_LEN = 30;
const TOKEN_BYTES = 94;
const KINDS = { 1: "vehicle", 2: "driver" };
const DAY_MS = 86400000;

/** Verdicts, each with the words the agent reads. */
export const VERDICTS = {
  valid: "Credencial válida",
  forged: "Código FALSO ou adulterado",
  revoked: "Credencial CANCELADA",
  expired: "Credencial VENCIDA",
  unknown: "Credencial desconhecida",
  other_town: "Credencial de outro município",
  malformed: "Este QR não é uma credencial",
  wrong_host: "Possível FRAUDE: QR com endereço não oficial",
};

/** The banner's words for a credential behind an address that is not the official one. */
export function foreignHostText(host) {
  return `QR aponta para outro endereço (${host}): não é o endereço oficial — possível fraude`;
}

/** The address printed in the town's QR codes: the snapshot's `town.public_base_url` (the
 * server's PUBLIC_BASE_URL), or this app's own origin on a phone whose data predates it. */
async function officialBase() {
  const town = await store.getMeta("town");
  try {
    return new URL((town && town.public_base_url) || location.origin);
  } catch {
    return new URL(location.origin);
  }
}

/** Whether a scanned URL is the official /v/ address: same host (and port), under its path. */
function isOfficial(url, base) {
  const root = base.pathname.replace(/\/+$/, "");
  return url.host.toLowerCase() === base.host.toLowerCase() && url.pathname.startsWith(`${root}/v/`);
}

/** base64url (no padding) to bytes; null when the text is not strict base64url. */
export function b64urlDecode(text) {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return null;
  const b64 = text.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (text.length % 4)) % 4);
  try {
    const bin = atob(b64);
    return Uint8Array.from(bin, (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}

function b64urlEncode(bytes) {
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The token inside a scanned text: the last path segment of a /v/<token> URL, or the text. */
export function tokenFromCode(text) {
  const value = (text || "").trim();
  try {
    const url = new URL(value);
    const match = url.pathname.match(/\/v\/([A-Za-z0-9_-]+)\/?$/);
    return match ? match[1] : null;
  } catch {
    return /^[A-Za-z0-9_-]+$/.test(value) ? value : null;
  }
}

/** The claims of a token (no signature check yet), or null when it is not well formed. */
export function parseToken(token) {
  if (!token || token.length !== TOKEN_CHARS) return null;
  const raw = b64urlDecode(token);
  if (!raw || raw.length !== TOKEN_BYTES || b64urlEncode(raw) !== token) return null;
  const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  if (view.getUint8(0) !== 1 || !KINDS[view.getUint8(3)]) return null;
  const expiryDay = view.getUint16(12);
  return {
    kid: view.getUint16(1),
    kind: KINDS[view.getUint8(3)],
    townIbge: String(view.getUint32(4)).padStart(7, "0"),
    subjectId: view.getUint32(8),
    expiryDay,
    expiresOn: new Date(expiryDay * DAY_MS).toISOString().slice(0, 10),
    signed: raw.slice(0, SIGNED_LEN),
    signature: raw.slice(SIGNED_LEN),
  };
}

/** Today as days since 1970-01-01 on Mato Grosso's calendar (America/Cuiaba, as the server). */
export function todayDay(now = new Date()) {
  try {
    const parts = new Intl.DateTimeFormat("en-CA", { timeZone: "America/Cuiaba", year: "numeric",
      month: "2-digit", day: "2-digit" }).format(now); // 2026-11-30
    return Math.floor(Date.parse(parts + "T00:00:00Z") / DAY_MS);
  } catch {
    return Math.floor(Date.UTC(now.getFullYear(), now.getMonth(), now.getDate()) / DAY_MS);
  }
}

/** SHA-256 of text or bytes, as lower-case hex. */
export async function sha256Hex(data) {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

const importedKeys = new Map();

async function publicKey(record) {
  const x = record.x || record.public_key;
  const cacheKey = `${record.kid}:${x}`;
  if (!importedKeys.has(cacheKey)) {
    const raw = b64urlDecode(x || "");
    importedKeys.set(cacheKey, raw && raw.length === 32
      ? crypto.subtle.importKey("raw", raw, { name: "Ed25519" }, false, ["verify"]).catch(() => null)
      : Promise.resolve(null));
  }
  return importedKeys.get(cacheKey);
}

function dayOf(isoDate) {
  return isoDate ? Math.floor(Date.parse(isoDate.slice(0, 10) + "T00:00:00Z") / DAY_MS) : null;
}

/**
 * Verify a scanned text against the stored keys and registry, offline.
 * Resolves to {verdict, reason, token, claims, credential}. A genuine token inside a URL that
 * is not the official address (a sticker swapped for a phishing one) is `wrong_host`, with
 * `host` and what the token itself is (`tokenVerdict`); a bare token (typed) has no address.
 */
export async function verifyCode(text, options = {}) {
  const result = await verifyToken(text, options);
  let url;
  try {
    url = new URL((text || "").trim());
  } catch {
    return result; // a bare token
  }
  const base = await officialBase();
  if (isOfficial(url, base) || result.verdict === "malformed") return result;
  const warning = `${foreignHostText(url.host)}. Quem lê este QR com a câmera do celular vai para ${url.host}, não para ${base.host}.`;
  if (result.verdict === "forged") return { ...result, host: url.host, reason: `${result.reason} ${warning}` };
  return { ...result, verdict: "wrong_host", tokenVerdict: result.verdict, host: url.host,
    reason: `${warning} O código dentro dele é verdadeiro (${VERDICTS[result.verdict]}: ${result.reason})` };
}

async function verifyToken(text, { today = todayDay() } = {}) {
  const token = tokenFromCode(text);
  const claims = token && parseToken(token);
  if (!claims) return { verdict: "malformed", reason: "O código lido não tem o formato de uma credencial.", token };
  const keyRecord = await store.getRow("keys", claims.kid);
  const key = keyRecord ? await publicKey(keyRecord) : null;
  if (!key) {
    return { verdict: "forged", token, claims,
      reason: `Assinado por uma chave (${claims.kid}) que o aparelho não conhece. Se os dados estão atualizados, o código é falso.` };
  }
  const ok = await crypto.subtle.verify({ name: "Ed25519" }, key, claims.signature, claims.signed);
  if (!ok) return { verdict: "forged", token, claims, reason: "A assinatura não confere: o código foi forjado ou alterado." };
  const keyUntil = dayOf(keyRecord.verify_until || keyRecord.valid_until);
  if (keyUntil !== null && claims.expiryDay > keyUntil) {
    return { verdict: "forged", token, claims, reason: "A chave que assinou este código não podia emiti-lo." };
  }
  const tokenHash = await sha256Hex(token);
  const [credential] = await store.rowsBy("credentials", "token_hash", tokenHash);
  if (credential && credential.status === "revoked") {
    const why = credential.revoked_reason ? ` Motivo: ${credential.revoked_reason}.` : "";
    return { verdict: "revoked", token, claims, credential, reason: `Esta credencial foi cancelada.${why}` };
  }
  if (today > claims.expiryDay || (credential && credential.status === "expired")) {
    return { verdict: "expired", token, claims, credential, reason: `Venceu em ${formatDay(claims.expiresOn)}.` };
  }
  if (!credential) {
    const town = await store.getMeta("town");
    const townIbge = town && (town.ibge_code || town.ibge);
    if (townIbge && String(townIbge) !== claims.townIbge) {
      return { verdict: "other_town", token, claims, reason: "Código verdadeiro, mas emitido por outro município." };
    }
    return { verdict: "unknown", token, claims,
      reason: "Assinatura verdadeira, mas a credencial não está nos dados do aparelho. Atualize os dados quando houver internet." };
  }
  return { verdict: "valid", token, claims, credential, reason: `Válida até ${formatDay(claims.expiresOn)}.` };
}

/** 2026-11-30 → 30/11/2026. */
export function formatDay(iso) {
  if (!iso) return "—";
  const [y, m, d] = iso.slice(0, 10).split("-");
  return `${d}/${m}/${y}`;
}
