// The live roll feed under a sheet (journal/feed.py, templates/play/sheet.html #feed) and its
// toast. static/live.js hands every change it learns of (from the stream, its catch-up or the
// polling fallback) to `live:change`; when one is newer than the feed's newest entry, the feed
// refetches itself from its own URL, through the viewer's visibility (never from the event,
// which says only which characters changed). The entries new to the page that moved this
// sheet's numbers (data-toast) are then said in a toast: read out politely, placed where it
// covers neither the field in use nor the numbers, gone by itself.
(function () {
  "use strict";
  if (!document.getElementById("feed") || !window.htmx) return;

  var TOAST_MS = 7000; // a toast of one line stays this long…
  var EXTRA_LINE_MS = 2500; // …and this much longer for each other line
  var TOAST_LINES = 3;

  function feed() { return document.getElementById("feed"); }
  function newest(el) { return parseInt((el && el.getAttribute("data-log-id")) || "0", 10); }

  // One refetch at a time; a change announced meanwhile asks for one more after it.
  var asking = false;
  var again = false;
  function refetch() {
    var el = feed();
    if (!el) return;
    if (asking) { again = true; return; }
    asking = true;
    again = false;
    htmx.ajax("GET", el.getAttribute("data-url"), { target: "#feed", swap: "outerHTML" })
      .then(settled, settled);
  }
  function settled() {
    asking = false;
    if (again) refetch();
  }

  // The feed shows entries about its character only, and a change that brings one the viewer
  // may see names that character (live/stream.py, journal.visibility): any other change
  // leaves the feed as it is, and is not worth a request from every open sheet.
  function about(data) {
    var el = feed();
    var id = parseInt((el && el.getAttribute("data-character")) || "", 10);
    return isNaN(id) || (data.characters || []).indexOf(id) >= 0;
  }
  // The stream may bring the feed itself (live/stream.py `parts`): static/live.js swaps it in,
  // or refetches it if it does not come.
  document.addEventListener("live:change", function (evt) {
    var data = evt.detail || {};
    if ((data.parts || []).indexOf("feed") >= 0) return;
    if (!(newest(feed()) >= data.log_id) && about(data)) refetch();
  });
  // Back online: whatever was announced while the feed could not be fetched.
  window.addEventListener("online", refetch);

  // The feed swapped: never an older one over a newer one; the new entries told.
  var before = newest(feed());
  document.body.addEventListener("htmx:beforeSwap", function (evt) {
    var target = evt.detail.target;
    if (!target || target.id !== "feed") return;
    if (!evt.detail.xhr || evt.detail.xhr.status !== 200) {
      evt.detail.shouldSwap = false; // a refusal (no longer a member…): the page says it
      return;
    }
    var tpl = document.createElement("template");
    tpl.innerHTML = evt.detail.serverResponse;
    var incoming = tpl.content.getElementById("feed");
    if (incoming && newest(incoming) < newest(target)) evt.detail.shouldSwap = false;
    before = newest(target);
  });
  document.body.addEventListener("htmx:load", function (evt) {
    var el = evt.detail.elt;
    if (!el || el.id !== "feed") return;
    document.dispatchEvent(new CustomEvent("live:contact")); // the server answered
    document.dispatchEvent(new CustomEvent("feed:updated"));
    var lines = [];
    el.querySelectorAll("li[data-toast]").forEach(function (item) {
      if (newest(item) > before) lines.unshift(item.getAttribute("data-toast")); // oldest first
    });
    before = newest(el);
    if (lines.length) show(lines.slice(-TOAST_LINES));
  });

  // --- The toast ------------------------------------------------------------------------------
  var box = document.getElementById("toast");
  var text = box && box.querySelector("[data-toast-text]");
  var close = box && box.querySelector("[data-toast-close]");
  var timer = null;

  function overlaps(a, b) {
    return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  }
  // Below, unless it would cover the field in use or the sheet's numbers: then above, under
  // the offline mark when it shows (static/offline.js), which it must never hide.
  function place() {
    box.classList.remove("toast-top");
    box.style.top = "";
    var avoid = [document.activeElement];
    document.querySelectorAll(".sheet [data-testid=card] .bar").forEach(function (bar) { avoid.push(bar); });
    var rect = box.getBoundingClientRect();
    var covers = avoid.some(function (el) {
      return el && el !== document.body && el !== box && !box.contains(el) &&
        overlaps(rect, el.getBoundingClientRect());
    });
    if (!covers) return;
    box.classList.add("toast-top");
    var mark = document.querySelector("#stale-mark [data-stale-text]");
    if (mark && mark.textContent) {
      var below = document.getElementById("stale-mark").getBoundingClientRect().bottom;
      if (below > 0) box.style.top = Math.ceil(below + 8) + "px";
    }
  }

  function hide() {
    window.clearTimeout(timer);
    timer = null;
    box.classList.remove("shown");
    close.hidden = true;
    text.textContent = "";
  }

  function show(lines) {
    if (!box || !text) return;
    window.clearTimeout(timer);
    text.textContent = "";
    lines.forEach(function (line) {
      var p = document.createElement("p");
      p.textContent = line;
      text.appendChild(p);
    });
    close.hidden = false;
    box.classList.add("shown");
    place();
    timer = window.setTimeout(hide, TOAST_MS + EXTRA_LINE_MS * (lines.length - 1));
  }

  // The offline mark appearing under a toast already shown: the toast moves off it.
  window.addEventListener("offline", function () {
    if (box && box.classList.contains("shown")) place();
  });
  if (close) close.addEventListener("click", hide);
  document.addEventListener("keydown", function (evt) {
    if (evt.key === "Escape" && box && box.classList.contains("shown")) hide();
  });
})();
