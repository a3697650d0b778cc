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
