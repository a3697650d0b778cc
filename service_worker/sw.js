// The field app's service worker, served at /sw.js with scope "/".
// It keeps the app shell in a versioned cache so /campo opens with no network, and the
// law pages (/leis/<law>, with their style sheets) so a checklist item's citation opens
// its article offline (the fragment #art-15-i is the browser's: :target still works).
// It never stores API answers: registry data and the outbox live in IndexedDB,
// written by the page, where nothing is dropped or expired behind the agent's back.
"use strict";

// Written in by the server when /sw.js is served: a hash of every precached byte (law
// pages included: a changed law text makes a new worker), and the list of URLs.
const VERSION = /*@VERSION*/"dev";
const PRECACHE_URLS = /*@PRECACHE*/[];
const CACHE_PREFIX = "campo-shell-";
const CACHE_NAME = CACHE_PREFIX + VERSION;
const SHELL_URL = "/campo";
const OFFLINE_URL = "/campo/sem-internet"; // the app's own page for a site page out of reach

self.addEventListener("install", (event) => {
  event.waitUntil(precacheShell());
});

self.addEventListener("activate", (event) => {
  event.waitUntil(removeOldCaches().then(() => self.clients.claim()));
});

self.addEventListener("fetch", (event) => {
  const response = answerFromShell(event.request);
  if (response) event.respondWith(response);
});

self.addEventListener("message", (event) => {
  if (event.data && event.data.type === "SKIP_WAITING") self.skipWaiting();
  if (event.data && event.data.type === "VERSION" && event.ports[0]) {
    event.ports[0].postMessage({ version: VERSION });
  }
});

// --- Web Push (docs/notifications.md) -----------------------------------------------------------
// Every push shows a notification (browsers require it, and a silent one would be lost):
// title, body and url come from the JSON the server sends; an empty or unreadable payload
// still shows the fallback text. A click focuses a window already on that page, or opens it.
const PUSH_FALLBACK = {
  title: "Inspector",
  body: "Você tem uma nova notificação da fiscalização.",
  url: "/notificacoes",
};

self.addEventListener("push", (event) => {
  const message = readPush(event.data);
  event.waitUntil(self.registration.showNotification(message.title, {
    body: message.body,
    tag: message.tag,
    lang: "pt-BR",
    icon: "/static/icons/icon-192.png",
    data: { url: message.url },
  }));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = sameOriginUrl(event.notification.data && event.notification.data.url);
  event.waitUntil(focusOrOpen(url));
});

/** The push payload as {title, body, url, tag}, with the fallback for anything missing. */
function readPush(data) {
  let payload = {};
  if (data) {
    try {
      payload = data.json();
    } catch {
      try { payload = { body: data.text() }; } catch { payload = {}; }
    }
  }
  if (!payload || typeof payload !== "object") payload = {};
  const text = (value, fallback) => (typeof value === "string" && value.trim() ? value : fallback);
  return {
    title: text(payload.title, PUSH_FALLBACK.title),
    body: text(payload.body, PUSH_FALLBACK.body),
    url: sameOriginUrl(payload.url),
    tag: typeof payload.tag === "string" ? payload.tag : undefined,
  };
}

/** An absolute URL on this origin (anything else becomes the notifications page). */
function sameOriginUrl(url) {
  try {
    const target = new URL(url || PUSH_FALLBACK.url, self.location.origin);
    if (target.origin === self.location.origin) return target.href;
  } catch { /* fall through */ }
  return new URL(PUSH_FALLBACK.url, self.location.origin).href;
}

/** Focus a window of ours already showing `url`, or open a new one. */
async function focusOrOpen(url) {
  const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  const open = windows.find((client) => client.url === url && "focus" in client);
  if (open) return open.focus();
  return self.clients.openWindow(url);
}

/** Fetch every shell URL past the HTTP cache and store them; any failure fails the install. */
async function precacheShell() {
  const cache = await caches.open(CACHE_NAME);
  const requests = PRECACHE_URLS.map((url) => new Request(url, { cache: "reload" }));
  await cache.addAll(requests);
}

/** Delete the caches of earlier versions (the outbox is in IndexedDB, never here). */
async function removeOldCaches() {
  const names = await caches.keys();
  await Promise.all(
    names
      .filter((name) => name.startsWith(CACHE_PREFIX) && name !== CACHE_NAME)
      .map((name) => caches.delete(name)),
  );
}

/** A cached answer for shell requests (or null: the request goes to the network untouched). */
function answerFromShell(request) {
  if (request.method !== "GET") return null;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return null;
  if (url.pathname.startsWith("/api/")) return null;
  const isShellNavigation = request.mode === "navigate" && url.pathname === SHELL_URL;
  if (isShellNavigation) return cacheFirst(SHELL_URL, request);
  if (url.search === "" && PRECACHE_URLS.includes(url.pathname)) {
    return cacheFirst(url.pathname, request);
  }
  if (request.mode === "navigate") return networkOrOffline(request);
  return null;
}

/** The network's answer to a page load; when there is no network, the app's offline page
 * (never the browser's error page). */
async function networkOrOffline(request) {
  try {
    return await fetch(request);
  } catch {
    const cached = await (await caches.open(CACHE_NAME)).match(OFFLINE_URL, { ignoreVary: true });
    return cached || Response.error();
  }
}

/** The cached copy of `key`, or the network when it is missing from the cache. */
async function cacheFirst(key, request) {
  const cache = await caches.open(CACHE_NAME);
  const cached = await cache.match(key, { ignoreVary: true, ignoreSearch: true });
  if (cached) return cached;
  return fetch(request);
}
