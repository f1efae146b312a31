{% autoescape off %}// Chroniqueur's service worker (live/offline.py): a player's sheet readable offline.
// Network first, always: the cache answers only when the network fails. It keeps the sheet
// pages (play/urls.py "character") the browser loads or a sheet asks it to keep
// (static/offline.js), and the static files; it never touches anything else, POSTs least of
// all: an action typed offline is refused by the page, never queued here.
"use strict";
var CACHE = {{ cache }};
var CACHE_PREFIX = {{ cache_prefix }};
var ASSETS = {{ assets }};
var PAGES = new RegExp({{ pages }});
var STATIC = {{ static_prefix }};

self.addEventListener("install", function (event) {
  event.waitUntil(
    caches.open(CACHE)
      .then(function (cache) { return cache.addAll(ASSETS); })
      .then(function () { return self.skipWaiting(); })
  );
});

// The caches of older versions go once this one takes over.
self.addEventListener("activate", function (event) {
  event.waitUntil(
    caches.keys()
      .then(function (names) {
        return Promise.all(names.filter(function (name) {
          return name.indexOf(CACHE_PREFIX) === 0 && name !== CACHE;
        }).map(function (name) { return caches.delete(name); }));
      })
      .then(function () { return self.clients.claim(); })
  );
});

function sameOrigin(url) { return url.origin === self.location.origin; }
function pageKey(url) { return url.origin + url.pathname; } // a sheet, whatever its query

function remember(key, response) {
  return caches.open(CACHE).then(function (cache) {
    if (response.ok && response.type === "basic") return cache.put(key, response);
    // Gone or refused now (logged out, removed from the campaign): not kept any longer.
    if (response.type === "opaqueredirect" || response.status === 403 || response.status === 404) {
      return cache.delete(key);
    }
  });
}

// A sheet answered from the cache says so (data-offline-copy): the page then knows its data is
// as old as the copy, and that the messages it carries are not news (static/offline.js).
function asCopy(response) {
  return response.text().then(function (html) {
    return new Response(html.replace(" data-offline ", " data-offline data-offline-copy "), {
      status: response.status, statusText: response.statusText, headers: response.headers
    });
  });
}

function networkFirst(event, key, page) {
  var request = event.request;
  return fetch(request).then(function (response) {
    event.waitUntil(remember(key, response.clone()));
    return response;
  }).catch(function (error) {
    return caches.open(CACHE)
      .then(function (cache) { return cache.match(key); })
      .then(function (found) {
        if (!found) throw error;
        return page ? asCopy(found) : found;
      });
  });
}

self.addEventListener("fetch", function (event) {
  var request = event.request;
  if (request.method !== "GET") return;
  var url = new URL(request.url);
  if (!sameOrigin(url)) return;
  if (request.mode === "navigate" && PAGES.test(url.pathname)) {
    event.respondWith(networkFirst(event, pageKey(url), true));
  } else if (url.pathname.indexOf(STATIC) === 0) {
    event.respondWith(networkFirst(event, request.url, false));
  }
});

// From the pages: keep this sheet as it is now (its first visit, before this worker
// controlled it; after live changes), or forget every sheet (nobody is logged in any more).
self.addEventListener("message", function (event) {
  var data = event.data || {};
  if (data.type === "keep" && typeof data.url === "string") {
    var url = new URL(data.url, self.location.href);
    if (!sameOrigin(url) || !PAGES.test(url.pathname)) return;
    event.waitUntil(
      fetch(pageKey(url), { credentials: "same-origin", redirect: "manual" })
        .then(function (response) { return remember(pageKey(url), response); })
        .catch(function () { /* offline: the copy kept stays */ })
    );
  } else if (data.type === "forget") {
    event.waitUntil(caches.open(CACHE).then(function (cache) {
      return cache.keys().then(function (requests) {
        return Promise.all(requests.filter(function (request) {
          return PAGES.test(new URL(request.url).pathname);
        }).map(function (request) { return cache.delete(request); }));
      });
    }));
  }
});
{% endautoescape %}
