// Talking to the server: the session, the CSRF token, JSON and byte requests with timeouts.
// Every request goes to this origin only. A redirect (a login page in front of the API) and
// a 401 mean the session expired: `connectivity` tells it with a "signed-out" event, and
// nothing is ever read as a success from an answer that is not the API's JSON.

let csrfToken = null;

/** Whether the server answered the last request ("reachable" events when that changes). */
export const connectivity = new EventTarget();
let reachable = null;

function setReachable(value) {
  if (value === reachable) return;
  reachable = value;
  connectivity.dispatchEvent(new CustomEvent("reachable", { detail: { reachable: value } }));
}

/** True when the last request reached the server, false when it failed, null before any. */
export function serverReachable() {
  return reachable;
}

/** What a request came back as: ok, or why not (network, http status, message). */
export class ApiResult {
  constructor({ status = 0, data = null, networkError = null } = {}) {
    this.status = status;
    this.data = data;
    this.networkError = networkError;
  }

  /** The session expired (401, or the answer was a redirect to the login page). */
  get signedOut() {
    return this.status === 401;
  }

  get ok() {
    return this.status >= 200 && this.status < 300;
  }

  /** A network error, a timeout or a 5xx: worth trying again later. */
  get retryable() {
    return this.networkError !== null || this.status >= 500 || this.status === 429 || this.status === 408;
  }

  /** The server's message in Portuguese, or one of ours. */
  get message() {
    if (this.networkError) return "Sem conexão com o servidor.";
    if (this.signedOut) return SIGNED_OUT;
    if (this.data && this.data.error) return this.data.error;
    return `Erro ${this.status} no servidor.`;
  }
}

export const SIGNED_OUT = "Sessão expirada — entre novamente.";

/** Fetch with a timeout; network failures come back as an ApiResult, never thrown. */
export async function request(method, path, { json, body, headers = {}, timeoutMs = 30000 } = {}) {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const init = { method, headers: { Accept: "application/json", ...headers }, signal: controller.signal,
    credentials: "same-origin", cache: "no-store", redirect: "manual" };
  if (json !== undefined) {
    init.body = JSON.stringify(json);
    init.headers["Content-Type"] = "application/json";
  } else if (body !== undefined) {
    init.body = body;
  }
  if (method !== "GET" && csrfToken) init.headers["X-CSRFToken"] = csrfToken;
  let response;
  try {
    response = await fetch(path, init);
  } catch (error) {
    setReachable(false);
    return new ApiResult({ networkError: error });
  } finally {
    clearTimeout(timer);
  }
  setReachable(true);
  if (response.type === "opaqueredirect" || response.status === 401) {
    // The API never redirects: a redirect is a login page in front of it (session expired).
    connectivity.dispatchEvent(new CustomEvent("signed-out"));
    return new ApiResult({ status: 401, data: { error: SIGNED_OUT, status: 401 } });
  }
  let data = null;
  try {
    const type = response.headers.get("Content-Type") || "";
    if (type.includes("json")) data = await response.json();
  } catch (error) {
    return new ApiResult({ networkError: error });
  }
  if (response.ok && data === null) {
    // A 2xx that is not the API's JSON (a proxy's page): never read it as a confirmation.
    return new ApiResult({ networkError: new Error(`resposta inesperada (${response.status})`) });
  }
  return new ApiResult({ status: response.status, data });
}

/** Who is signed in (and a fresh CSRF token); status 401 when nobody is. */
export async function fetchSession() {
  const result = await request("GET", "/api/field/session", { timeoutMs: 15000 });
  if (result.ok && result.data) {
    csrfToken = result.data.csrf_token || csrfToken;
    connectivity.dispatchEvent(new CustomEvent("signed-in"));
  }
  return result;
}

/** The CSRF token for unsafe requests made outside this module ("" when none yet). */
export function csrfTokenValue() {
  return csrfToken || "";
}

/** Whether a CSRF token is known for unsafe requests. */
export function hasCsrfToken() {
  return Boolean(csrfToken);
}

/** Whether a 400 answer means the CSRF token went stale (fetch a new one and retry). */
export function isCsrfFailure(result) {
  return result.status === 400 && Boolean(result.data) && /formul[aá]rio|csrf/i.test(result.data.error || "");
}
