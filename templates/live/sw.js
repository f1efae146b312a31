{% autoescape off %}// Chroniqueur's service worker (live/offline.py): a player's sheet readable offline.
// Network first, always: the cache answers only when the network fails. It keeps the sheet
// pages (play/urls.py "character") the browser loads or a sheet asks it to keep
// (static/offline.js), the player's « Groupe » page (play/urls.py "campaign") when its answer
// says it may be kept (the GM's dashboard, at the same address, never is), the static files,
// and a small page for the rest: any other page opened offline says that it needs the
// connection and links to the pages kept here, rather than the browser's error page. It never
// touches anything else, POSTs least of all: an action typed offline is refused by the page,
// never queued here.
"use strict";
var CACHE = {{ cache }};
var CACHE_PREFIX = {{ cache_prefix }};
var ASSETS = {{ assets }};
var PAGES = new RegExp({{ pages }});
var HOMES = new RegExp({{ homes }});
var KEEP_HEADER = {{ keep_header }};
var OFFLINE = {{ offline }};
var STATIC = {{ static_prefix }};

self.addEventListener("install", function (event) {
  event.waitUntil(
    caches.open(CACHE)
      .then(function (cache) { return cache.addAll(ASSETS.concat([OFFLINE])); })
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
function isKept(path) { return PAGES.test(path) || HOMES.test(path); }

// A « Groupe » page is kept only when its answer says so: the same address is the GM's dashboard.
function keepable(key, response) {
  return !HOMES.test(new URL(key).pathname) || response.headers.get(KEEP_HEADER) === "keep";
}

function remember(key, response) {
  return caches.open(CACHE).then(function (cache) {
    if (response.ok && response.type === "basic") {
      return keepable(key, response) ? cache.put(key, response) : cache.delete(key);
    }
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

// The title of a kept page, as its HTML has it (already escaped there).
function titleOf(html) {
  var match = /<title>([^<]*)<\/title>/.exec(html);
  return match ? match[1].trim() : "";
}

// Any other page offline: the small page kept at install, with links to the pages kept here,
// the one the link was followed from first.
function offlinePage(request, error) {
  return caches.open(CACHE).then(function (cache) {
    return cache.match(OFFLINE).then(function (page) {
      if (!page) throw error;
      return cache.keys().then(function (requests) {
        var kept = requests.filter(function (r) { return isKept(new URL(r.url).pathname); });
        var from = request.referrer ? pageKey(new URL(request.referrer)) : "";
        kept.sort(function (a, b) { return (b.url === from) - (a.url === from); });
        return Promise.all(kept.map(function (r) {
          return cache.match(r).then(function (found) { return found.text(); }).then(function (html) {
            return '<li><a href="' + new URL(r.url).pathname + '">' + (titleOf(html) || r.url) + "</a></li>";
          });
        }));
      }).then(function (items) {
        return page.text().then(function (html) {
          html = items.length
            ? html.replace("<!--kept-->", items.join("")).replace(/<!--none:start-->[\s\S]*<!--none:end-->/, "")
            : html.replace(/<!--kept:start-->[\s\S]*<!--kept:end-->/, "");
          var headers = new Headers(page.headers);
          headers.delete("Content-Length");
          return new Response(html, { status: 200, headers: headers });
        });
      });
    });
  });
}

self.addEventListener("fetch", function (event) {
  var request = event.request;
  if (request.method !== "GET") return;
  var url = new URL(request.url);
  if (!sameOrigin(url)) return;
  if (request.mode === "navigate" && isKept(url.pathname)) {
    event.respondWith(networkFirst(event, pageKey(url), true).catch(function (error) {
      return offlinePage(request, error);
    }));
  } else if (request.mode === "navigate") {
    event.respondWith(fetch(request).catch(function (error) {
      return offlinePage(request, error);
    }));
  } else if (url.pathname.indexOf(STATIC) === 0) {
    event.respondWith(networkFirst(event, request.url, false));
  }
});

// From the pages: keep this sheet or « Groupe » page as it is now (its first visit, before this
// worker controlled it; after live changes), or forget every page kept (nobody is logged in any
// more).
self.addEventListener("message", function (event) {
  var data = event.data || {};
  if (data.type === "keep" && typeof data.url === "string") {
    var url = new URL(data.url, self.location.href);
    if (!sameOrigin(url) || !isKept(url.pathname)) return;
    event.waitUntil(
      fetch(pageKey(url), { credentials: "same-origin", redirect: "manual" })
        .then(function (response) { return remember(pageKey(url), response); })
        .catch(function () { /* offline: the copy kept stays */ })
    );
  } else if (data.type === "forget") {
    event.waitUntil(caches.open(CACHE).then(function (cache) {
      return cache.keys().then(function (requests) {
        return Promise.all(requests.filter(function (request) {
          return isKept(new URL(request.url).pathname);
        }).map(function (request) { return cache.delete(request); }));
      });
    }));
  }
});
{% endautoescape %}
