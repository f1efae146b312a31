// Live updates (campaign/stream.py): every card on the page follows its character.
// The stream names the characters that changed, and which of the cards this page said it
// shows it will bring right after, rendered for this viewer as the card's own URL would.
// Anything else (a party row, a change caught up on after a reconnection, a card whose HTML
// does not come) refetches its own partial through htmx, so what a viewer sees always goes
// through their permissions.
(function () {
  "use strict";
  var root = document.getElementById("live");
  if (!root || !window.htmx) return;
  // Only pages that show characters follow them.
  if (!document.querySelector("[id^='character-'], [id^='party-']")) return;

  var FAILURES_BEFORE_POLLING = 4;
  var POLL_EVERY_MS = 4000;
  var RETRY_STREAM_EVERY_MS = 30000;
  var HIGHLIGHT_MS = 2500;
  var CARD_WAIT_MS = 3000; // how long an announced card may take before it is refetched

  var lastId = root.dataset.after || "";
  var failures = 0;
  var source = null;
  var pollTimer = null;
  var retryTimer = null;
  var pending = {}; // character id -> true while its refetch, started by an event, is on its way
  var coming = {}; // character id -> the timer that refetches it if its announced HTML is late
  var text = root.querySelector("[data-live-text]");
  var announcer = document.getElementById("live-announcer");

  function setState(state) {
    if (root.dataset.state === state) return;
    root.dataset.state = state;
    text.textContent = state === "ok" ? "" : text.dataset[state] || "";
  }

  function version(el) {
    var v = el && el.getAttribute("data-version");
    return v === null || v === undefined || v === "" ? null : parseInt(v, 10);
  }

  // The cards whose new HTML the stream may bring: those with a partial of their own.
  function shownCards() {
    var ids = [];
    document.querySelectorAll("[id^='character-'][hx-get]").forEach(function (card) {
      var match = /^character-(\d+)$/.exec(card.id);
      if (match) ids.push(match[1]);
    });
    return ids.join(",");
  }

  // A change: wait for the cards the stream announced, refetch the rest.
  function changed(data) {
    var announced = data.cards || [];
    (data.characters || []).forEach(function (id) {
      if (announced.indexOf(id) < 0 || !document.getElementById("character-" + id)) {
        refresh(id);
        return;
      }
      window.clearTimeout(coming[id]);
      coming[id] = window.setTimeout(function () { delete coming[id]; refresh(id); }, CARD_WAIT_MS);
      if (document.getElementById("party-" + id)) refetchFromPage("party-" + id);
    });
  }

  // The announced cards' HTML.
  function arrived(data) {
    Object.keys(data.cards || {}).forEach(function (key) {
      var id = parseInt(key, 10);
      window.clearTimeout(coming[id]);
      delete coming[id];
      if (!place(id, data.cards[key])) refresh(id);
    });
  }

  // A card's new HTML from the stream, with the same care as a refetched one (below). False
  // when it does not fit this page: the card is then refetched.
  function place(id, html) {
    var card = document.getElementById("character-" + id);
    if (!card) return false;
    var tpl = document.createElement("template");
    tpl.innerHTML = html;
    var incoming = tpl.content.firstElementChild;
    if (!incoming || incoming.id !== card.id) return false;
    var mine = version(card), theirs = version(incoming);
    if (mine !== null && theirs !== null && theirs <= mine) return true; // nothing new here
    if (card.querySelector(".htmx-request")) {
      window.setTimeout(function () { refresh(id); }, 300); // see htmx:beforeSwap
      return true;
    }
    pending[id] = true;
    keepTyping(card);
    htmx.swap(card, html, { swapStyle: "outerHTML" });
    return true;
  }

  function refresh(id) {
    pending[id] = true;
    var card = document.getElementById("character-" + id);
    if (card && card.hasAttribute("hx-get")) {
      htmx.trigger(document.body, "refresh-" + id); // the card refetches its own partial
    } else if (card) {
      refetchFromPage("character-" + id);
    }
    // The player's party list shows others as rows of this very page.
    if (document.getElementById("party-" + id)) refetchFromPage("party-" + id);
  }

  // A refetch that failed (the phone went offline between the event and the fetch) is
  // retried until it lands: the stream will not announce that change again.
  var retryStale = null;
  function failed(evt) {
    var el = evt.detail && (evt.detail.target || evt.detail.elt);
    var match = el && el.id && /^(?:character|party)-(\d+)$/.exec(el.id);
    if (!match || !pending[match[1]]) return;
    var status = evt.detail.xhr ? evt.detail.xhr.status : 0;
    if (status >= 400 && status < 500) { delete pending[match[1]]; return; } // not theirs now
    if (!retryStale) retryStale = window.setTimeout(refreshPending, 2000);
  }
  function refreshPending() {
    retryStale = null;
    Object.keys(pending).forEach(function (id) { refresh(id); });
  }
  document.body.addEventListener("htmx:sendError", failed);
  document.body.addEventListener("htmx:responseError", failed);

  // An element with no partial of its own: this page again, keeping only that element.
  function refetchFromPage(elementId) {
    htmx.ajax("GET", window.location.pathname + window.location.search, {
      target: "#" + elementId, select: "#" + elementId, swap: "outerHTML"
    });
  }

  // Never let an older fragment replace a newer one (a slow refetch, a reordered response).
  function older(incoming, current) {
    var a = version(incoming), b = version(current);
    return a !== null && b !== null && a < b;
  }

  document.body.addEventListener("htmx:beforeSwap", function (evt) {
    var target = evt.detail.target;
    if (!target || !target.id || !evt.detail.serverResponse) return;
    if (target.id.indexOf("character-") !== 0) return;
    var tpl = document.createElement("template");
    tpl.innerHTML = evt.detail.serverResponse;
    var incoming = tpl.content.getElementById
      ? tpl.content.getElementById(target.id)
      : tpl.content.querySelector("#" + target.id);
    if (incoming && older(incoming, target)) {
      evt.detail.shouldSwap = false;
      return;
    }
    // An action posted from this card is on its way (the GM's own click): replacing the card
    // now would detach the form its response answers to. That response updates the card;
    // refetch once it is done.
    var match = /^character-(\d+)$/.exec(target.id);
    if (match && target.querySelector(".htmx-request")) {
      evt.detail.shouldSwap = false;
      window.setTimeout(function () { refresh(match[1]); }, 300);
      return;
    }
    keepTyping(target);
  });

  // What the person was typing in the card survives its refresh: values, focus, caret.
  var typed = {}; // card id -> the fields typed in when its refresh arrived
  function keepTyping(card) {
    var fields = [];
    card.querySelectorAll("input[id], textarea[id], select[id]").forEach(function (field) {
      var changed = field.type === "checkbox" || field.type === "radio"
        ? field.checked !== field.defaultChecked : field.value !== field.defaultValue;
      if (changed || field === document.activeElement) fields.push(field);
    });
    if (!fields.length) return;
    typed[card.id] = fields.map(function (field) {
      return {
        id: field.id, value: field.value, checked: field.checked,
        focused: field === document.activeElement,
        start: field.selectionStart, end: field.selectionEnd
      };
    });
  }
  function restoreTyping(card) {
    var saved = typed[card.id];
    delete typed[card.id];
    (saved || []).forEach(function (saved) {
      var field = document.getElementById(saved.id);
      if (!field || !card.contains(field)) return;
      field.value = saved.value;
      field.checked = saved.checked;
      if (saved.focused) {
        field.focus();
        try { field.setSelectionRange(saved.start, saved.end); } catch (e) { /* number inputs */ }
      }
    });
  }

  document.body.addEventListener("htmx:oobBeforeSwap", function (evt) {
    var target = evt.detail.target, fragment = evt.detail.fragment;
    if (!target || !fragment || !target.id || target.id.indexOf("character-") !== 0) return;
    var incoming = fragment.id === target.id ? fragment
      : fragment.querySelector && fragment.querySelector("#" + target.id);
    if (incoming && older(incoming, target)) evt.detail.shouldSwap = false;
  });

  // The card that just changed: highlighted for a moment and announced to screen readers.
  document.body.addEventListener("htmx:load", function (evt) {
    var el = evt.detail.elt;
    if (!el || !el.id) return;
    restoreTyping(el);
    var match = /^(?:character|party)-(\d+)$/.exec(el.id);
    if (!match || !pending[match[1]]) return;
    delete pending[match[1]];
    el.classList.add("live-changed");
    window.setTimeout(function () { el.classList.remove("live-changed"); }, HIGHLIGHT_MS);
    var name = el.querySelector("h2, strong");
    if (announcer && name) {
      announcer.textContent = root.dataset.msgChanged.replace("%(name)s", name.textContent.trim());
    }
  });

  function receive(id, data) {
    if (id) lastId = String(id);
    changed(data);
  }

  // --- The stream -------------------------------------------------------------------------
  function connect() {
    if (source) source.close();
    var query = [];
    var cards = shownCards();
    if (cards) query.push("cards=" + cards);
    if (lastId) query.push("after=" + encodeURIComponent(lastId));
    var url = root.dataset.stream + (query.length ? "?" + query.join("&") : "");
    source = new EventSource(url);
    source.addEventListener("open", function () {
      failures = 0;
      root.dataset.connected = "stream";
      stopPolling();
      setState("ok");
    });
    source.addEventListener("change", function (evt) {
      receive(evt.lastEventId, JSON.parse(evt.data));
    });
    source.addEventListener("cards", function (evt) { arrived(JSON.parse(evt.data)); });
    source.addEventListener("error", function () {
      failures += 1;
      delete root.dataset.connected;
      setState("down");
      // EventSource reconnects by itself (with Last-Event-ID) unless the server refused it.
      if (source.readyState === EventSource.CLOSED || failures >= FAILURES_BEFORE_POLLING) {
        source.close();
        source = null;
        startPolling();
      }
    });
  }

  // --- The fallback: polling the same changes as JSON ---------------------------------------
  function poll() {
    var url = root.dataset.poll + "?after=" + encodeURIComponent(lastId || "0");
    fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (response) {
        if (!response.ok) throw new Error(String(response.status));
        return response.json();
      })
      .then(function (body) {
        body.changes.forEach(function (change) { receive(change.log_id, change); });
        if (body.last_id !== null) lastId = String(body.last_id);
      })
      .catch(function () { /* still down: the indicator says so */ });
  }

  function startPolling() {
    setState("polling");
    if (pollTimer) return;
    poll();
    pollTimer = window.setInterval(poll, POLL_EVERY_MS);
    // Try the stream again now and then; it takes over as soon as it opens.
    retryTimer = window.setInterval(function () { failures = 0; connect(); }, RETRY_STREAM_EVERY_MS);
  }

  function stopPolling() {
    if (pollTimer) window.clearInterval(pollTimer);
    if (retryTimer) window.clearInterval(retryTimer);
    pollTimer = retryTimer = null;
  }

  // Back online (a phone waking up): reconnect at once rather than wait for the next retry.
  window.addEventListener("online", function () {
    refreshPending();
    if (!source || source.readyState === EventSource.CLOSED) {
      failures = 0;
      connect();
    }
  });

  if (root.dataset.stream && window.EventSource) {
    connect();
  } else {
    startPolling();
  }
})();
