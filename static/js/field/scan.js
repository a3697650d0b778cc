// Reading QR codes: the camera with a detector loop, or a photo of the code.
// The native BarcodeDetector is used where it reads QR; elsewhere the zxing-wasm ponyfill,
// loaded from this server with its .wasm (never from a CDN: CSP and offline use).

const PONYFILL_URL = "/static/vendor/barcode-detector.js";
const WASM_URL = "/static/vendor/zxing_reader.wasm";
const SCAN_INTERVAL_MS = 120;

let detectorPromise = null;

function loadScript(src) {
  return new Promise((resolve, reject) => {
    const existing = document.querySelector(`script[src="${src}"]`);
    if (existing && globalThis.BarcodeDetectionAPI) return resolve();
    const script = document.createElement("script");
    script.src = src;
    script.onload = () => resolve();
    script.onerror = () => reject(new Error(`não foi possível carregar ${src}`));
    document.head.appendChild(script);
  });
}

async function nativeReadsQr() {
  if (!("BarcodeDetector" in globalThis)) return false;
  try {
    const formats = await globalThis.BarcodeDetector.getSupportedFormats();
    return formats.includes("qr_code");
  } catch {
    return false;
  }
}

/** A QR detector: native where it reads QR, the self-hosted zxing-wasm ponyfill elsewhere. */
export function getDetector() {
  if (!detectorPromise) {
    detectorPromise = (async () => {
      if (await nativeReadsQr()) {
        return { kind: "native", detector: new globalThis.BarcodeDetector({ formats: ["qr_code"] }) };
      }
      await loadScript(PONYFILL_URL);
      const api = globalThis.BarcodeDetectionAPI;
      api.prepareZXingModule({
        overrides: {
          locateFile: (path, prefix) => (path.endsWith(".wasm") ? WASM_URL : prefix + path),
        },
        fireImmediately: true,
      });
      return { kind: "zxing-wasm", detector: new api.BarcodeDetector({ formats: ["qr_code"] }) };
    })().catch((error) => {
      detectorPromise = null;
      throw error;
    });
  }
  return detectorPromise;
}

/**
 * Open the rear camera in `video` and call onCode(text) with the first QR read.
 * Returns a function that stops the camera. onStatus(text) reports what is going on.
 */
export async function startCameraScan(video, { onCode, onStatus }) {
  let stopped = false;
  let stream = null;
  let timer = null;
  const stop = () => {
    stopped = true;
    clearTimeout(timer);
    if (stream) stream.getTracks().forEach((t) => t.stop());
    video.srcObject = null;
  };
  if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
    onStatus("Este aparelho não dá acesso à câmera aqui. Use “Fotografar o código” ou digite a placa.");
    return stop;
  }
  try {
    const { detector } = await getDetector();
    stream = await navigator.mediaDevices.getUserMedia({
      audio: false,
      video: { facingMode: { ideal: "environment" }, width: { ideal: 1280 }, height: { ideal: 720 } },
    });
    if (stopped) {
      stop();
      return stop;
    }
    video.srcObject = stream;
    await video.play();
    onStatus("Aponte a câmera para o QR code.");
    const tick = async () => {
      if (stopped) return;
      try {
        if (video.readyState >= 2 && video.videoWidth > 0) {
          const codes = await detector.detect(video);
          const hit = codes.find((c) => c.rawValue);
          if (hit && !stopped) {
            stop();
            onCode(hit.rawValue);
            return;
          }
        }
      } catch (error) {
        console.warn("leitura falhou", error);
      }
      timer = setTimeout(tick, SCAN_INTERVAL_MS);
    };
    tick();
  } catch (error) {
    console.warn("câmera indisponível", error);
    onStatus("Não foi possível usar a câmera. Use “Fotografar o código” ou digite a placa.");
    stop();
  }
  return stop;
}

/** Read a QR code from a photo file (the fallback when live video fails); null if none. */
export async function decodeImageFile(file) {
  const { detector } = await getDetector();
  const bitmap = await createImageBitmap(file);
  try {
    const codes = await detector.detect(bitmap);
    const hit = codes.find((c) => c.rawValue);
    return hit ? hit.rawValue : null;
  } finally {
    bitmap.close();
  }
}

/** Normalise what the agent typed as a plate or a prefix: upper case, letters and digits. */
export function normaliseQuery(text) {
  return (text || "").toUpperCase().replace(/[^A-Z0-9]/g, "");
}
