// The app's menu: the way back to the site (Notificações, Leis, Senha, Início) and "Sair".
// Phones are shared between agents, so "Sair" ends the session on the server (POST /sair with
// the CSRF token the app got from /api/field/session) and keeps everything unsent: the outbox
// and its photos stay on the phone until the agent who made each inspection signs in again
// (docs/field-app.md, "Sair"). It needs the network: offline it says so and changes nothing.
// The phone's push subscription goes with the agent: /sair gets its endpoint (the server stops
// sending that agent's notifications here) and the browser unsubscribes, so the next agent
// starts with "Ativar notificações" and never sees the previous one's.

import { csrfTokenValue, fetchSession, hasCsrfToken } from "./api.js";
import * as store from "./db.js";
import * as sync from "./sync.js";
import { plural } from "./ui.js";

/** The meta key that says nobody is signed in on this phone since someone pressed "Sair". */
export const SIGNED_OUT_KEY = "signedOut";

export const OFFLINE_MESSAGE = "Sem internet: para sair é preciso conexão. A sessão continua aberta " +
  "neste aparelho; tente de novo quando houver sinal. As vistorias continuam guardadas.";

/** Whether someone pressed "Sair" on this phone and nobody signed in since. */
export async function signedOutHere() {
  return Boolean(await store.getMeta(SIGNED_OUT_KEY));
}

/** Forget the "Sair" mark: someone is signed in again. */
export async function clearSignedOut() {
  if (await signedOutHere()) await store.setMeta(SIGNED_OUT_KEY, null);
}

/** "1 vistoria sua ainda não foi enviada. Ela fica guardada … Sair mesmo assim?" */
export function unsentQuestion(n) {
  const one = n === 1;
  return `${plural(n, "vistoria sua ainda não foi enviada", "vistorias suas ainda não foram enviadas")}. ` +
    `${one ? "Ela fica guardada" : "Elas ficam guardadas"} neste aparelho e ${one ? "será enviada" : "serão enviadas"} ` +
    "quando você entrar de novo nele. Sair mesmo assim?";
}

/** This browser's push subscription, or null (no worker, no Push, none yet). */
async function pushSubscription() {
  try {
    if (!("serviceWorker" in navigator)) return null;
    const registration = await navigator.serviceWorker.getRegistration("/");
    return registration && registration.pushManager ? await registration.pushManager.getSubscription() : null;
  } catch {
    return null;
  }
}

/**
 * POST /sair with the CSRF token (and the push endpoint, to detach it from the agent):
 * "done", "csrf" (stale token), "offline" or "failed".
 */
async function postSignOut(pushEndpoint) {
  const token = csrfTokenValue();
  const form = { csrf_token: token };
  if (pushEndpoint) form.push_endpoint = pushEndpoint;
  let response;
  try {
    response = await fetch("/sair", {
      method: "POST", credentials: "same-origin", cache: "no-store", redirect: "manual",
      headers: { "Content-Type": "application/x-www-form-urlencoded", "X-CSRFToken": token },
      body: new URLSearchParams(form).toString(),
    });
  } catch {
    return "offline";
  }
  // The server answers a redirect to the login page ("Você saiu.").
  if (response.type === "opaqueredirect" || response.ok) return "done";
  return response.status === 400 ? "csrf" : "failed";
}

/**
 * Sign `user` out of this phone. Their own unsent inspections are tried once first; if some
 * still wait, the agent confirms. Resolves to {ok, message}; nothing local is deleted but the
 * supervisor's answers to this agent ("Minhas vistorias").
 */
export async function signOut(user) {
  if (!navigator.onLine) return { ok: false, message: OFFLINE_MESSAGE };
  if (user) {
    let mine = (await store.pendingCounts(user.id)).inspections;
    if (mine) {
      await sync.syncOutbox({ manual: true });
      mine = (await store.pendingCounts(user.id)).inspections;
    }
    if (mine && !window.confirm(unsentQuestion(mine))) {
      return { ok: false, message: "" };
    }
  }
  const subscription = await pushSubscription();
  let outcome = "csrf";
  for (let attempt = 0; attempt < 2 && outcome === "csrf"; attempt += 1) {
    if (attempt > 0 || !hasCsrfToken()) {
      const session = await fetchSession();
      if (session.signedOut) { outcome = "done"; break; } // the server already forgot the session
      if (session.networkError) { outcome = "offline"; break; }
    }
    outcome = await postSignOut(subscription && subscription.endpoint);
  }
  if (outcome === "offline") return { ok: false, message: OFFLINE_MESSAGE };
  if (outcome !== "done") return { ok: false, message: "O servidor não confirmou a saída. Tente de novo." };
  await store.setMeta(SIGNED_OUT_KEY, { at: new Date().toISOString(), userId: user ? user.id : null });
  await store.clearReviews(); // the supervisor's answers are this agent's, not the next one's
  // The push service forgets the endpoint too (also when the server had already ended the
  // session and never saw it): nothing of this agent's reaches the phone any more.
  if (subscription) await Promise.resolve().then(() => subscription.unsubscribe()).catch(() => false);
  return { ok: true, message: "" };
}

/**
 * Wire the menu (a <details>: it opens with no script): close it on a tap outside or on
 * Escape; its "Sair" signs `currentUser()` out, then calls `onSignedOut()`, or says why not.
 */
export function setupMenu(menu, { currentUser, onSignedOut }) {
  document.addEventListener("click", (event) => {
    if (menu.open && !menu.contains(event.target)) menu.open = false;
  });
  menu.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && menu.open) {
      menu.open = false;
      menu.querySelector("summary").focus();
    }
  });
  const button = menu.querySelector("#sign-out");
  const status = menu.querySelector("#sign-out-status");
  button.addEventListener("click", async () => {
    button.disabled = true;
    status.hidden = true;
    try {
      const result = await signOut(await currentUser());
      if (result.ok) {
        menu.open = false;
        await onSignedOut();
      } else if (result.message) {
        status.textContent = result.message;
        status.hidden = false;
      }
    } finally {
      button.disabled = false;
    }
  });
}
