// Page behaviour shared by every page. No inline script anywhere (CSP).
"use strict";

// htmx requests carry the CSRF token like forms do.
document.addEventListener("htmx:configRequest", (event) => {
  const meta = document.querySelector('meta[name="csrf-token"]');
  if (meta) event.detail.headers["X-CSRFToken"] = meta.content;
});

// Let the server's 422 answers (inline validation errors) be swapped in like 200s.
document.addEventListener("htmx:beforeSwap", (event) => {
  const status = event.detail.xhr.status;
  if (status === 422 || status === 409) {
    event.detail.shouldSwap = true;
    event.detail.isError = false;
  }
});

// Buttons that ask before a destructive action: data-confirm="..." on the form.
document.addEventListener("submit", (event) => {
  const message = event.target.dataset && event.target.dataset.confirm;
  if (message && !window.confirm(message)) event.preventDefault();
});

// "Sair" in the top bar: this browser's push subscription stops being the user's (its endpoint
// goes with the form, the server drops it, the browser unsubscribes), so whoever uses this
// device next gets none of the signed-out user's notifications (the field app does the same).
document.addEventListener("submit", (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement) || !/\/sair$/.test(form.getAttribute("action") || "")) return;
  if (form.dataset.pushChecked || !("serviceWorker" in navigator) || event.defaultPrevented) return;
  event.preventDefault();
  form.dataset.pushChecked = "1";
  const give = (subscription) => {
    if (!subscription) return null;
    const input = document.createElement("input");
    input.type = "hidden";
    input.name = "push_endpoint";
    input.value = subscription.endpoint;
    form.appendChild(input);
    return subscription.unsubscribe();
  };
  navigator.serviceWorker.getRegistration("/")
    .then((reg) => (reg && reg.pushManager ? reg.pushManager.getSubscription() : null))
    .then(give)
    .catch(() => null)
    .then(() => form.submit());
});

// A filter set or a search typed before htmx was ready (a slow connection, a busy phone) reached
// no listener: once htmx has processed the page, ask for what the form now says.
const edited = (field) => {
  if (!field.matches("input:not([type=submit]):not([type=button]), select, textarea")) return false;
  if (field.type === "checkbox" || field.type === "radio") return field.checked !== field.defaultChecked;
  if (!field.options) return field.value !== field.defaultValue;
  const options = [...field.options];
  // a single select with no option marked `selected` shows its first one by default
  if (!field.multiple && !options.some((o) => o.defaultSelected)) return field.selectedIndex > 0;
  return options.some((o) => o.selected !== o.defaultSelected);
};
htmx.onLoad((root) => {
  root.querySelectorAll("form[hx-get]").forEach((form) => {
    if ([...form.elements].some((f) => f.name && edited(f))) htmx.trigger(form, "submit");
  });
  root.querySelectorAll("input[type=search][hx-get]").forEach((input) => {
    if (!input.closest("form[hx-get]") && edited(input)) htmx.trigger(input, "search");
  });
});
