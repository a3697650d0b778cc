// "Ativar notificações": subscribe this browser to Web Push and tell the server.
// Used by the pages (a button with data-push-subscribe, data-url and, on a holder's
// notice page, data-notice) and by the field app (window.inspectorPush.subscribe).
// The service worker (/sw.js) shows every push as a notification.
"use strict";

(function () {
  const supported = "serviceWorker" in navigator && "PushManager" in window &&
    "Notification" in window;

  /** base64url text to the bytes pushManager.subscribe wants as applicationServerKey. */
  function keyBytes(text) {
    const b64 = text.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (text.length % 4)) % 4);
    const raw = atob(b64);
    return Uint8Array.from(raw, (c) => c.charCodeAt(0));
  }

  function sameKey(subscription, key) {
    const current = subscription.options && subscription.options.applicationServerKey;
    if (!current) return true;
    const a = new Uint8Array(current);
    return a.length === key.length && a.every((v, i) => v === key[i]);
  }

  function csrfFromPage() {
    const meta = document.querySelector('meta[name="csrf-token"]');
    return meta ? meta.content : "";
  }

  /** The worker's registration (registering /sw.js when this page has none yet). */
  async function registration() {
    const existing = await navigator.serviceWorker.getRegistration("/");
    if (!existing) await navigator.serviceWorker.register("/sw.js", { scope: "/" });
    return navigator.serviceWorker.ready;
  }

  /**
   * Ask permission, subscribe with the server's VAPID key and send the subscription to `url`.
   * Resolves to {ok, message}; never throws.
   */
  async function subscribe({ url, notice = null, csrfToken = csrfFromPage() }) {
    if (!supported) return { ok: false, message: "Este navegador não recebe notificações." };
    try {
      const permission = await Notification.requestPermission();
      if (permission !== "granted") {
        return { ok: false, message: "Notificações bloqueadas: permita nas configurações do navegador." };
      }
      const reg = await registration();
      const answer = await fetch("/api/push/public-key", { credentials: "same-origin" });
      if (!answer.ok) return { ok: false, message: "Servidor indisponível. Tente mais tarde." };
      const key = keyBytes((await answer.json()).publicKey);
      let sub = await reg.pushManager.getSubscription();
      if (sub && !sameKey(sub, key)) {
        await sub.unsubscribe();
        sub = null;
      }
      if (!sub) {
        sub = await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key });
      }
      const saved = await fetch(url, {
        method: "POST",
        credentials: "same-origin",
        headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken },
        body: JSON.stringify({ subscription: sub.toJSON(), notice }),
      });
      if (!saved.ok) {
        let message = "Não foi possível ativar as notificações.";
        try { message = (await saved.json()).error || message; } catch { /* keep */ }
        return { ok: false, message };
      }
      return { ok: true, message: "Notificações ativadas neste aparelho." };
    } catch {
      return { ok: false, message: "Não foi possível ativar as notificações neste aparelho." };
    }
  }

  window.inspectorPush = { supported, subscribe };

  for (const button of document.querySelectorAll("[data-push-subscribe]")) {
    const status = document.querySelector("[data-push-status]");
    if (!supported) {
      if (status) status.textContent = "Este navegador não recebe notificações.";
      continue;
    }
    button.hidden = false;
    button.addEventListener("click", async () => {
      button.disabled = true;
      const result = await subscribe({ url: button.dataset.url, notice: button.dataset.notice || null });
      if (status) status.textContent = result.message;
      button.disabled = false;
      if (result.ok) button.hidden = true;
    });
  }
})();
