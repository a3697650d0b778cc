// The field app's service worker, served at /sw.js with scope "/".
// It keeps the app shell in a versioned cache so /campo opens with no network.
// It never stores API answers: registry data and the outbox live in IndexedDB,
// written by the page, where nothing is dropped or expired behind the agent's back.
"use strict";

// Written in by the server when /sw.js is served: a hash of every precached byte,
// and the list of URLs that make up the shell.
const VERSION = /*@VERSION*/"dev";
const PRECACHE_URLS = /*@PRECACHE*/[];
const CACHE_PREFIX = "campo-shell-";
const CACHE_NAME = CACHE_PREFIX + VERSION;
const SHELL_URL = "/campo";

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
  return null;
}

/** The cached copy of `key`, or the network when it is missing from the cache. */
async function cacheFirst(key, request) {
  const cache = await caches.open(CACHE_NAME);
  const cached = await cache.match(key, { ignoreVary: true, ignoreSearch: true });
  if (cached) return cached;
  return fetch(request);
}
