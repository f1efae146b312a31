// The sheet offline: a phone at the table loses the network. The service worker (live/offline.py,
// /sw.js) keeps the sheet and the static files, and answers from them only when the network fails.
// Here, on the sheet ([data-offline]): the worker registered, and told to keep this sheet as it is
// now; the data's age shown once the connection is lost ("Hors ligne — données d’il y a 3 min"),
// counted from the last moment the page heard from the server (static/live.js says when:
// `live:contact`, `live:lost`); every POST refused meanwhile, with a message, and nothing queued;
// requests that cannot go out not even tried (a failed request is a console error). Back online,
// the live updates catch up and the mark goes at their first answer, without a reload. On a page
// nobody is logged in to, the worker forgets every sheet it kept.
(function () {
  "use strict";
  var script = document.currentScript;
  var workers = "serviceWorker" in navigator ? navigator.serviceWorker : null;
  if (script && script.hasAttribute("data-anonymous")) {
    if (workers && workers.controller) workers.controller.postMessage({ type: "forget" });
    return;
  }
  // The sheet, or a player's « Groupe » page: both kept by the worker.
  var sheet = document.querySelector("[data-offline]");
  if (!sheet) return;

  var TICK_MS = 15000; // the age shown is updated this often

  // --- The service worker -------------------------------------------------------------------
  function keep() {
    if (workers && workers.controller && navigator.onLine !== false) {
      workers.controller.postMessage({ type: "keep", url: window.location.href });
    }
  }
  if (workers && sheet.dataset.worker) {
    // A page the worker did not serve (the first visit) is kept once the worker runs.
    var first = !workers.controller;
    workers.register(sheet.dataset.worker).then(function () {
      return workers.ready;
    }).then(function (registration) {
      if (first && registration.active) {
        registration.active.postMessage({ type: "keep", url: window.location.href });
      }
    }).catch(function () { /* no worker (private mode, plain HTTP): no offline copy */ });
  }
  // Every load of the sheet through the worker is kept; after live changes, the copy is
  // brought up to date when the page goes out of sight (the phone locked, another app), the
  // moment before the connection is likely to go.
  var changed = false;
  document.addEventListener("feed:updated", function () { changed = true; });
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState !== "hidden" || !changed) return;
    changed = false;
    keep();
  });

  // --- How old the data is -----------------------------------------------------------------
  var mark = document.getElementById("stale-mark");
  var text = mark && mark.querySelector("[data-stale-text]");
  var feed = document.getElementById("feed");
  var stamp = sheet.dataset.renderedAt || (feed && feed.dataset.renderedAt);
  var renderedAt = stamp ? parseInt(stamp, 10) * 1000 : NaN;
  // Until the server answers, the data is as old as the page (served from the worker's copy,
  // it may be hours old).
  var lastGood = isNaN(renderedAt) ? Date.now() : Math.min(renderedAt, Date.now());
  var contact = false; // the server answered since the page loaded
  // The service worker's copy (live/offline.py): stale until the server answers, and the
  // messages it carries (a roll's result) were news when it was kept, not now.
  var copy = sheet.hasAttribute("data-offline-copy");
  var lost = copy; // the live updates cannot reach the server
  if (copy) {
    document.querySelectorAll(".messages").forEach(function (el) { el.hidden = true; });
  }

  function isStale() { return navigator.onLine === false || lost; }

  function age(ms) {
    var minutes = Math.floor(ms / 60000);
    if (minutes < 1) return sheet.dataset.msgNow;
    if (minutes < 60) return sheet.dataset.msgMinutes.replace("%(n)s", minutes);
    return sheet.dataset.msgHours.replace("%(n)s", Math.floor(minutes / 60));
  }

  var wasStale = false;
  function update() {
    var stale = isStale();
    if (stale && !wasStale && contact) lastGood = Date.now(); // fresh until this moment
    if (!stale && contact) lastGood = Date.now();
    wasStale = stale;
    document.body.classList.toggle("is-offline", stale);
    sheet.classList.toggle("stale", stale);
    if (text) {
      var message = stale ? sheet.dataset.msgStale.replace("%(age)s", age(Date.now() - lastGood)) : "";
      // Said once when the connection goes; the age then grows on screen, not in the ear.
      mark.setAttribute("aria-live", stale && text.textContent ? "off" : "polite");
      if (text.textContent !== message) text.textContent = message;
    }
    if (!stale) clearRefusals();
  }

  document.addEventListener("live:contact", function () {
    contact = true;
    lost = false;
    update();
  });
  document.addEventListener("live:lost", function () {
    lost = true;
    update();
  });
  window.addEventListener("offline", update);
  window.addEventListener("online", update);
  window.setInterval(update, TICK_MS);

  // --- Nothing sent while offline, and said so ---------------------------------------------
  function refuse(anchor) {
    var form = anchor && anchor.closest ? anchor.closest("form") || anchor : null;
    if (!form) return;
    var note = form.querySelector("[data-offline-refusal]");
    if (!note) {
      note = document.createElement("p");
      note.className = "msg error offline-refusal";
      note.setAttribute("role", "alert");
      note.setAttribute("data-offline-refusal", "");
      note.setAttribute("data-testid", "offline-refusal");
      form.appendChild(note);
    }
    note.textContent = sheet.dataset.msgRefused;
  }
  function clearRefusals() {
    document.querySelectorAll("[data-offline-refusal]").forEach(function (note) { note.remove(); });
  }

  // Any form's POST on this page (a roll, and whatever else a sheet offers): not sent.
  document.addEventListener("submit", function (evt) {
    var form = evt.target;
    if (!isStale() || (form.getAttribute("method") || "get").toLowerCase() !== "post") return;
    evt.preventDefault();
    evt.stopImmediatePropagation();
    refuse(form);
  }, true);
  // htmx's own requests: a change (hx-post…) is refused the same way; a read that cannot
  // reach the server is not tried (live.js fetches again once back online). On the worker's
  // copy, a read waits for the server's first answer: the phone may say it is online while
  // the network is gone (that is why the copy was served), and a read tried then only fails.
  var waiting = [];
  document.body.addEventListener("htmx:beforeRequest", function (evt) {
    var config = evt.detail.requestConfig || {};
    var verb = (config.verb || "get").toLowerCase();
    var held = copy && !contact;
    if (verb === "get" ? navigator.onLine !== false && !held : !isStale()) return;
    evt.preventDefault();
    if (verb !== "get") {
      refuse(evt.detail.elt);
    } else if (waiting.indexOf(evt.detail.elt) < 0) {
      waiting.push(evt.detail.elt);
    }
  });
  // Back in contact: the reads held meanwhile (the sheet's odds), once each.
  function retry() {
    if (isStale() || (copy && !contact)) return;
    var held = waiting;
    waiting = [];
    held.forEach(function (elt) {
      if (!elt.isConnected) return;
      var form = elt.closest("form");
      if (form) htmx.trigger(form, "change");
    });
  }
  document.addEventListener("live:contact", retry);
  window.addEventListener("online", retry);

  update();
})();
