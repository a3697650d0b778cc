// "Ativar notificações" in the field app: the button shows only where this browser can
// receive Web Push and is not subscribed yet; the line under it always says the state.
// Subscribing is done by /static/js/push.js (window.inspectorPush), shared with the pages;
// the CSRF token comes from GET /api/field/session (the cached shell carries none).

import { SIGNED_OUT, csrfTokenValue, fetchSession } from "./api.js";

const TEXT = {
  unsupported: "Este aparelho não recebe notificações.",
  denied: "Notificações bloqueadas: permita nas configurações do navegador.",
  subscribed: "Notificações ativadas neste aparelho.",
  offer: "Ative para saber quando a supervisão responder às suas vistorias.",
};

async function currentSubscription() {
  const registration = await navigator.serviceWorker.getRegistration("/");
  return registration ? registration.pushManager.getSubscription() : null;
}

/** Show the state and, when it makes sense, the button. */
export async function setupPushButton(button, state) {
  const push = window.inspectorPush;
  button.hidden = true;
  if (!push || !push.supported) {
    state.textContent = TEXT.unsupported;
    state.dataset.state = "unsupported";
    return;
  }
  if (Notification.permission === "denied") {
    state.textContent = TEXT.denied;
    state.dataset.state = "denied";
    return;
  }
  const subscription = await currentSubscription().catch(() => null);
  if (subscription) {
    state.textContent = TEXT.subscribed;
    state.dataset.state = "subscribed";
    return;
  }
  state.textContent = TEXT.offer;
  state.dataset.state = "off";
  button.hidden = false;
  button.onclick = async () => {
    button.disabled = true;
    state.textContent = "Ativando…";
    const session = await fetchSession();
    if (!session.ok) {
      state.textContent = session.signedOut ? SIGNED_OUT : "Sem internet: ative quando houver conexão.";
      button.disabled = false;
      return;
    }
    const result = await push.subscribe({ url: button.dataset.url, csrfToken: csrfTokenValue() });
    state.textContent = result.message;
    state.dataset.state = result.ok ? "subscribed" : "failed";
    button.disabled = false;
    button.hidden = result.ok;
  };
}
