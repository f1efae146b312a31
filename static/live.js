// Live updates (live/stream.py): every card on the page follows its character.
// The stream names the characters that changed (`change`), then brings the new HTML of the
// cards this page shows, rendered for this viewer as the card's own URL would (`cards`).
// htmx's SSE extension holds the stream (#live-stream, templates/live/_live.html): it opens
// the EventSource, opens another when the browser gives up on one, and swaps the pushed cards
// out of band. Here is only what it cannot do: the page's position, cards and parts in the
// stream's address; swapping the pushed rows of a player's home and the pushed parts (the
// GM's log, clock bar and fight section, a player's fight strip: `parts`); waiting for what
// was announced and refetching everything else (a change caught up on, a card or part whose
// HTML does not come) through the viewer's permissions;
// no older card, no lost typing, no swap under an action in flight; the indicator, polling,
// the highlight and its announcement.
(function () {
  "use strict";
  // The GM's dashboard shows its characters as cards or as compact rows: every htmx request
  // of the page names that view (play/parts.py VIEW_HEADER), and so does the stream's address
  // (below), so that answers and pushes bring the partials this page shows.
  var viewElement = document.querySelector("[data-dashboard-view]");
  var view = viewElement ? viewElement.getAttribute("data-dashboard-view") : "";
  if (view) {
    document.body.addEventListener("htmx:configRequest", function (evt) {
      evt.detail.headers["X-Dashboard-View"] = view;
    });
  }
  // An action's result takes the focus (read out, its Undo one Tab away) without scrolling:
  // the card's name and bars stay where the GM was looking, and a card's result sticks to the
  // bottom of the window while its card is on screen (static/app.css). A result with no card
  // (the party's, the fight's) is brought into view, the least it takes.
  document.body.addEventListener("htmx:load", function (evt) {
    var el = evt.detail && evt.detail.elt;
    if (!el || !el.matches) return;
    // A refused form: its first message in view, clear of the sticky odds and Apply.
    var refused = el.matches(".action-form") ? el : el.querySelector(".action-form");
    var message = refused && refused.querySelector(".errors");
    if (message) message.scrollIntoView({ block: "nearest" });
    var result = el.matches("[data-focus-quietly]") ? el : el.querySelector("[data-focus-quietly]");
    if (!result) return;
    result.focus({ preventScroll: true });
    if (!result.closest(".card-slot, .row-slot, .group-bar")) result.scrollIntoView({ block: "nearest" });
  });
  // The card whose action was posted stays where it was on screen too, although the answer empties the
  // other results (one at a time) and may reshape the cards above or beside it: the page
  // keeps its height (CSSOM, which the CSP allows) and scrolls back by what the card moved.
  var anchor = null;
  document.body.addEventListener("htmx:beforeRequest", function (evt) {
    var elt = evt.detail && evt.detail.elt;
    var post = evt.detail.requestConfig && evt.detail.requestConfig.verb === "post";
    var card = post && elt && elt.closest && elt.closest("article[id^='character-']");
    anchor = card ? { id: card.id, top: card.getBoundingClientRect().top } : null;
    if (card) {
      var main = document.getElementById("main");
      if (main) main.style.minHeight = main.getBoundingClientRect().height + "px";
    }
  });
  document.body.addEventListener("htmx:afterSettle", function (evt) {
    // A refusal opens the action's panel with its message, which is brought into view.
    var xhr = evt.detail && evt.detail.xhr;
    if (xhr && xhr.status >= 400) anchor = null;
    var card = anchor && document.getElementById(anchor.id);
    if (!card) return;
    var moved = card.getBoundingClientRect().top - anchor.top;
    anchor = null;
    if (Math.abs(moved) >= 1) window.scrollBy(0, moved);
  });
  var root = document.getElementById("live");
  var stream = document.getElementById("live-stream");
  if (!root || !stream || !window.htmx) return;
  // Only pages that show characters follow them.
  if (!document.querySelector("[id^='character-'], [id^='party-'], [id^='own-']")) return;

  var FAILURES_BEFORE_POLLING = 4;
  var POLL_EVERY_MS = 4000;
  var HIGHLIGHT_MS = 2500;
  var CARD_WAIT_MS = 3000; // how long an announced card may take before it is refetched

  var lastId = root.dataset.after || "";
  var failures = 0;
  var pollTimer = null;
  var pending = {}; // character id -> true while its update, started by an event, is on its way
  var coming = {}; // character id -> the timer that refetches it if its announced HTML is late
  var pushing = false; // htmx is swapping the stream's `cards` message
  var source = null; // the stream's EventSource, once the extension opened it
  var over = false; // the server ended the stream for good (`end`): no reconnecting, no polling
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

  function seat(el) {
    return (el && el.getAttribute("data-seat")) || "";
  }

  // The GM's card counts the player's proposals waiting (play/proposals.py), which come and
  // go without a new version of the character: compared like the seat.
  function proposals(el) {
    return (el && el.getAttribute("data-proposals")) || "0";
  }

  function cardId(el) {
    var match = el && el.id && /^character-(\d+)$/.exec(el.id);
    return match ? match[1] : null;
  }

  // The cards whose new HTML the stream may bring: those with a partial of their own.
  function shownCards() {
    var ids = [];
    document.querySelectorAll("[id^='character-'][data-src]").forEach(function (card) {
      var id = cardId(card);
      if (id) ids.push(id);
    });
    return ids.join(",");
  }

  // A change: wait for the cards the stream announced, refetch the rest.
  function changed(data) {
    var announced = data.cards || [];
    if (document.getElementById("own-characters")) {
      homeChanged(data);
      return;
    }
    (data.characters || []).forEach(function (id) {
      if (announced.indexOf(id) < 0 || !document.getElementById("character-" + id)) {
        refresh(id);
        ownProposals(id, data);
        return;
      }
      window.clearTimeout(coming[id]);
      coming[id] = window.setTimeout(function () { delete coming[id]; refresh(id); }, CARD_WAIT_MS);
      refetchPart("party-" + id);
      ownProposals(id, data);
    });
  }

  // A player's home: the stream brings the rows of the characters it covers (`rows`, in a
  // message of its own just after the change); a change it does not cover (caught up on,
  // polled, too large) redraws both lists, once for them all.
  var homeRows = {}; // log id -> {ids, timer}: the rows announced, until their message comes
  function homeChanged(data) {
    var characters = data.characters || [], rows = data.rows || [];
    if (!characters.length) return;
    if (characters.some(function (id) { return rows.indexOf(id) < 0; })) {
      refresh(characters[0]);
      return;
    }
    var timer = window.setTimeout(function () {
      delete homeRows[data.log_id];
      refresh(characters[0]); // the rows are late: the lists, as without them
    }, CARD_WAIT_MS);
    homeRows[data.log_id] = { ids: rows, timer: timer };
  }
  // Each row replaces the page's own, unless older (a slower refetch already brought a newer
  // one); a row that is not the page's (the GM gave or took the character: it moves between
  // the lists) or is no longer drawn redraws both lists.
  function rowsCame(message) {
    var waiting = homeRows[message.log_id];
    if (!waiting) return;
    window.clearTimeout(waiting.timer);
    delete homeRows[message.log_id];
    var again = false;
    waiting.ids.forEach(function (id) {
      var html = message.rows[String(id)] || "";
      var current = document.getElementById("own-" + id) || document.getElementById("party-" + id);
      var tpl = document.createElement("template");
      tpl.innerHTML = html;
      var incoming = tpl.content.firstElementChild;
      if (!current && !incoming) return; // on no home: an NPC
      if (!current || !incoming || current.id !== incoming.id) { again = true; return; }
      if (older(incoming, current)) return;
      pending[id] = true;
      htmx.swap(current, html, { swapStyle: "outerHTML" });
    });
    if (again) refetchPart("own-characters");
  }

  // The lists redrawn (above) were drawn when asked: a row pushed since, of a later version,
  // stays (versions never go back), whatever the order the answers came in.
  document.body.addEventListener("htmx:beforeSwap", function (evt) {
    var target = evt.detail.target;
    if (!target || target.id !== "own-characters" || !evt.detail.serverResponse) return;
    var tpl = document.createElement("template");
    tpl.innerHTML = evt.detail.serverResponse;
    var kept = false;
    tpl.content.querySelectorAll("[id^='own-'], [id^='party-']").forEach(function (row) {
      var current = /^(?:own|party)-\d+$/.test(row.id) && document.getElementById(row.id);
      if (!current || !older(row, current)) return;
      row.replaceWith(current.cloneNode(true));
      kept = true;
    });
    if (kept) evt.detail.serverResponse = tpl.innerHTML;
  });

  // The owner's list of their proposals, on their sheet: the GM's decision shows at once. The
  // stream says when the change has no step of a proposal (`proposals: false`): nothing to redraw.
  function ownProposals(id, data) {
    if (data.proposals === false) return;
    refetchPart("proposals-" + id);
  }

  // A card or compact row refetched from its own partial (its data-src), in its place; a
  // refetch still on its way is followed by this one (htmx's queue, as for any trigger).
  function refetchCard(card) {
    htmx.ajax("GET", card.getAttribute("data-src"), {
      source: card, target: card, swap: "outerHTML",
    }).catch(function () { /* failed: htmx:sendError retries it (below) */ });
  }

  function refresh(id) {
    // A player's home: the change may be the GM giving or taking this character, which
    // moves it between their own list and the party's, so both lists are redrawn whole, in
    // one request: the answer aimed at the own list brings the party's out of band
    // (play/views.py campaign_detail).
    if (document.getElementById("own-characters")) {
      refetchPart("own-characters");
      return;
    }
    pending[id] = true;
    var card = document.getElementById("character-" + id);
    if (card && card.hasAttribute("data-src")) {
      refetchCard(card); // the card refetches its own partial
    } else if (card) {
      refetchPart("character-" + id);
    }
    // The player's party list shows others as rows of this very page, and their own
    // characters with the roll the GM asks of them (R34).
    refetchPart("party-" + id);
    refetchPart("own-" + id);
  }

  // A refetch that failed (the phone went offline between the event and the fetch) is
  // retried until it lands: the stream will not announce that change again.
  var retryStale = null;
  function failed(evt) {
    var el = evt.detail && (evt.detail.target || evt.detail.elt);
    var match = el && el.id && /^(?:character|party|own)-(\d+)$/.exec(el.id);
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

  // An element with no partial of its own, if this page shows it: this page again, keeping
  // only that element. The element is the request's source, so that each part's refetch waits
  // only for its own: from the body, htmx kept the first and the last of several refetches
  // sent at once and dropped the others (a second dashboard missed the fight's start).
  function refetchPart(id) {
    if (!document.getElementById(id)) return;
    htmx.ajax("GET", window.location.pathname + window.location.search, {
      source: "#" + id, target: "#" + id, select: "#" + id, swap: "outerHTML"
    });
  }

  // Never let an older fragment replace a newer one (a slow refetch, a reordered response).
  function older(incoming, current) {
    var a = version(incoming), b = version(current);
    return a !== null && b !== null && a < b;
  }

  // An action posted from this card is on its way (the GM's own click): replacing the card
  // now would detach the form its response answers to. That response updates the card;
  // refetch once it is done.
  function busy(card, id) {
    if (!card.querySelector(".htmx-request")) return false;
    window.setTimeout(function () { refresh(id); }, 300);
    return true;
  }

  // The fight section redrawn (a live refetch, another action's answer) while the GM ticks
  // who starts a fight: the ticks and the open form survive it.
  var fightOpen = false;
  function keepFight(target) {
    // The GM's list of proposals keeps the word being typed to refuse one, the same way.
    if (target && target.id === "proposals") keepTyping(target);
    if (!target || target.id !== "fight") return;
    fightOpen = !!target.querySelector("details[open]");
    keepTyping(target);
  }
  document.body.addEventListener("htmx:beforeSwap", function (evt) { keepFight(evt.detail.target); });
  document.body.addEventListener("htmx:oobBeforeSwap", function (evt) { keepFight(evt.detail.target); });

  // A card refetched: its own partial, or this page again.
  document.body.addEventListener("htmx:beforeSwap", function (evt) {
    var target = evt.detail.target, id = cardId(target);
    if (!id || !evt.detail.serverResponse) return;
    var tpl = document.createElement("template");
    tpl.innerHTML = evt.detail.serverResponse;
    var incoming = tpl.content.getElementById(target.id);
    if ((incoming && older(incoming, target)) || busy(target, id)) {
      evt.detail.shouldSwap = false;
      return;
    }
    keepTyping(target);
  });

  // A card swapped out of band: pushed by the stream, or in the response to an action.
  document.body.addEventListener("htmx:oobBeforeSwap", function (evt) {
    var target = evt.detail.target, fragment = evt.detail.fragment, id = cardId(target);
    if (!id || !fragment) return;
    var incoming = fragment.id === target.id ? fragment : fragment.querySelector("#" + target.id);
    if (!pushing) {
      if (incoming && older(incoming, target)) evt.detail.shouldSwap = false;
      // An action's answer: who sees the quick actions stays as the GM chose it.
      else keepTyping(target, "select.visibility");
      return;
    }
    window.clearTimeout(coming[id]);
    delete coming[id];
    var mine = version(target), theirs = version(incoming);
    // This page has it already: an older version, or the same one in the same fight seat (a
    // turn passing moves seats, R33, without a new version of the character).
    var known = mine !== null && theirs !== null && (theirs < mine ||
      (theirs === mine && seat(incoming) === seat(target) &&
        proposals(incoming) === proposals(target)));
    if (known || busy(target, id)) {
      evt.detail.shouldSwap = false;
      return;
    }
    pending[id] = true;
    keepTyping(target);
  });

  // What the person was typing in the card survives its refresh: values, focus, caret.
  var typed = {}; // card id -> the fields typed in when its refresh arrived
  function keepTyping(card, selector) {
    var fields = [];
    card.querySelectorAll(selector || "input[id], textarea[id], select[id]").forEach(function (field) {
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
    // A form drawn when its part is opened (the fight's start, play/fight_views.py) is not
    // there yet: what was typed in it waits for it (below).
    if (saved && card.querySelector("[data-drawn-on-open]:empty")) return;
    delete typed[card.id];
    (saved || []).forEach(function (saved) {
      var field = document.getElementById(saved.id);
      if (!field || !card.contains(field)) return;
      // A choice the redrawn list no longer offers (one who joined the fight) is not kept.
      if (field.tagName === "SELECT" && !Array.prototype.some.call(field.options, function (option) {
        return option.value === saved.value;
      })) return;
      field.value = saved.value;
      field.checked = saved.checked;
      if (saved.focused) {
        field.focus();
        try { field.setSelectionRange(saved.start, saved.end); } catch (e) { /* number inputs */ }
      }
    });
  }

  // That form drawn: what was ticked and typed in it before the part was redrawn comes back.
  document.body.addEventListener("htmx:load", function (evt) {
    var el = evt.detail.elt;
    var drawn = el && el.parentElement && el.parentElement.closest("[data-drawn-on-open]");
    var part = drawn && drawn.closest("[id]");
    if (part && typed[part.id]) restoreTyping(part);
  });

  // The card that just changed: highlighted for a moment and announced to screen readers.
  document.body.addEventListener("htmx:load", function (evt) {
    var el = evt.detail.elt;
    if (!el || !el.id) return;
    restoreTyping(el);
    var match = /^(?:character|party|own)-(\d+)$/.exec(el.id);
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
    // The seal watch (below), the sheet's feed (static/feed.js) and the sealed rolls
    // (static/sealed.js: `data.sealed`).
    document.dispatchEvent(new CustomEvent("live:change", { detail: data }));
    changed(data);
    followCampaign(data); // the parts that are not a card, see below
  }

  // --- Campaign-level parts ---------------------------------------------------------------
  // Without them a clock move or an end of scene left every other open dashboard, and the
  // GM's own, showing the old time until a reload.
  // The GM's clock and scene bar (#party-bar) and the log (#roll-log) follow the campaign,
  // not one character. An event with `campaign: true` (the clock, the scene or the hour rests
  // changed: no character id says so) refetches the bar; an event newer than the entry the
  // log shows (its data-log-id) refetches the log. The dashboard answers an htmx request
  // aimed at either with that part alone (play/views.py, _dashboard).
  function followCampaign(data) {
    var pushed = data.parts || [];
    if (pushed.length) awaitParts(data.log_id, pushed);
    function follow(id) { if (pushed.indexOf(id) < 0) refetchPart(id); }
    if (data.campaign) {
      follow("party-bar");
      // The fight (R33) is the campaign's: the GM's section, a player's strip.
      follow("fight");
      follow("fight-strip");
    }
    // Parts about one character that are not its card (a sheet's sealed rolls):
    // refetched when a change of that character brings a sealed roll, or may reveal one the
    // part shows still sealed.
    document.querySelectorAll("[data-follow-character]").forEach(function (part) {
      var id = parseInt(part.getAttribute("data-follow-character"), 10);
      if ((data.characters || []).indexOf(id) < 0 || !part.id) return;
      if (data.sealed || part.querySelector("[data-sealed-roll]:not([data-opening])")) refetchPart(part.id);
    });
    var log = document.getElementById("roll-log");
    if (log && !(parseInt(log.dataset.logId || "0", 10) >= data.log_id)) follow("roll-log");
  }

  // The parts the stream pushes (live/stream.py, `parts`: asked with `parts=` in its address,
  // named in the change, brought in a message of its own just after it): each replaces the
  // page's own, drawn as this page's GET aimed at it would draw it; a part that does not come
  // in time is refetched as without them.
  var PUSHED_PARTS = ["roll-log", "party-bar", "fight", "fight-strip", "feed"];
  var partsWaiting = {}; // log id -> {ids, timer}: the parts announced, until their message comes
  function awaitParts(logId, ids) {
    var timer = window.setTimeout(function () {
      delete partsWaiting[logId];
      ids.forEach(refetchOwn); // late: refetched, as without them
    }, CARD_WAIT_MS);
    partsWaiting[logId] = { ids: ids, timer: timer };
  }
  function partsCame(message) {
    var waiting = partsWaiting[message.log_id];
    if (!waiting) return;
    window.clearTimeout(waiting.timer);
    delete partsWaiting[message.log_id];
    waiting.ids.forEach(function (id) {
      var current = document.getElementById(id);
      var html = message.parts[id];
      if (!current) return;
      if (!html) { refetchOwn(id); return; }
      var tpl = document.createElement("template");
      tpl.innerHTML = html;
      var incoming = tpl.content.firstElementChild;
      if (!incoming || incoming.id !== id) { refetchOwn(id); return; }
      // The log: never an older one (the answer to the GM's own action may have brought a newer).
      var shown = parseInt(current.getAttribute("data-log-id") || "", 10);
      var theirs = parseInt(incoming.getAttribute("data-log-id") || "", 10);
      if (shown >= 0 && theirs >= 0 && theirs < shown) return;
      // An action posted from the part is on its way: its answer redraws the part.
      if (current.querySelector(".htmx-request")) return;
      keepFight(current); // the fight's open form and what was typed in it stay
      htmx.swap(current, html, { swapStyle: "outerHTML" });
    });
  }
  // A part refetched: the sheet's feed from its own URL (static/feed.js), any other from this page.
  function refetchOwn(id) {
    var feed = id === "feed" && document.getElementById("feed");
    if (!feed) { refetchPart(id); return; }
    htmx.ajax("GET", feed.getAttribute("data-url"), { source: "#feed", target: "#feed", swap: "outerHTML" });
  }
  // The parts of this page the stream may push, and which page a fight strip is on (its links).
  function shownParts() {
    return PUSHED_PARTS.filter(function (id) { return document.getElementById(id); });
  }
  function stripPage() {
    if (!document.getElementById("fight-strip")) return "";
    if (document.getElementById("own-characters")) return "home";
    var card = document.querySelector("[id^='character-']");
    return (card && cardId(card)) || "";
  }
  // The fight's seats (R33) move without a new version of any character, and a change read
  // from the log (polling, catching up) does not say whose seat moved: once the fight's part
  // is redrawn, every card whose data-seat differs from the seat the part gives it refetches.
  function checkSeats(part) {
    var seats = {};
    part.querySelectorAll("[data-fighter-seat]").forEach(function (el) {
      seats[el.getAttribute("data-character")] = el.getAttribute("data-fighter-seat");
    });
    document.querySelectorAll("[id^='character-'][data-seat]").forEach(function (card) {
      var id = cardId(card);
      if (!id || pending[id] || coming[id]) return;
      if (card.getAttribute("data-seat") !== (seats[id] || "")) refresh(id);
    });
  }
  document.body.addEventListener("htmx:load", function (evt) {
    var el = evt.detail.elt;
    if (el && el.id === "fight" && fightOpen) {
      var details = el.querySelector("details");
      if (details) details.open = true;
      fightOpen = false;
    }
    if (el && (el.id === "fight" || el.id === "fight-strip")) {
      window.setTimeout(function () { checkSeats(el); }, 0);
    }
    if (el && cardId(el)) {
      checkProposals(el);
      checkConscious(el);
    }
  });

  // A sheet's test form (play/player.py) exists only while the character is conscious: when
  // a card comes back in another state than the form's part was drawn for (a fall into the
  // coma, a death, a waking), the part is redrawn; otherwise what is typed there stays.
  function checkConscious(card) {
    var id = cardId(card);
    document.querySelectorAll("[data-conscious-part='" + id + "']").forEach(function (part) {
      var vitals = (part.getAttribute("data-conscious-vitals") || "").split(" ");
      var conscious = vitals.some(function (vital) { return vital && card.classList.contains("vital-" + vital); });
      if (String(conscious) !== part.getAttribute("data-conscious")) refetchPart(part.id);
    });
  }

  // A GM's card come with a count of proposals (data-proposals) that the dashboard's list
  // (#proposals) does not hold: a player proposed, or another tab decided. The list refetches.
  function checkProposals(card) {
    var list = document.getElementById("proposals");
    if (!list) return;
    var listed = list.querySelectorAll("[data-proposal-character='" + cardId(card) + "']").length;
    if (String(listed) !== proposals(card)) refetchPart("proposals");
  }

  // --- The stream: htmx's SSE extension ---------------------------------------------------
  // When the browser gives up on a stream (the server refused it), the extension opens a new
  // EventSource, and a new one sends no Last-Event-ID: its address says where the page is.
  var createEventSource = htmx.createEventSource;
  htmx.createEventSource = function (url) {
    var query = [];
    var cards = shownCards();
    if (cards) query.push("cards=" + cards);
    if (view) query.push("view=" + encodeURIComponent(view));
    if (document.getElementById("own-characters")) query.push("rows=1"); // a player's home
    var parts = shownParts(), strip = stripPage();
    if (parts.length) query.push("parts=" + parts.join(","));
    if (strip) query.push("strip=" + strip);
    var feed = document.getElementById("feed"), of = feed && feed.getAttribute("data-character");
    if (of) query.push("feed=" + of); // a sheet's feed: of its character
    if (lastId) query.push("after=" + encodeURIComponent(lastId));
    source = createEventSource(url + (query.length ? "?" + query.join("&") : ""));
    source.addEventListener("end", function (evt) { end(JSON.parse(evt.data).reason); });
    source.addEventListener("rows", function (evt) { rowsCame(JSON.parse(evt.data)); });
    source.addEventListener("parts", function (evt) { partsCame(JSON.parse(evt.data)); });
    return source;
  };

  // The stream's last message (live/stream.py, `end`): this account holds too many streams
  // here (`busy`: poll instead), or its session or membership ended: say so, with the way
  // back, and stop. Closing the EventSource before the server's close reaches it keeps the
  // browser and the extension from reconnecting.
  function end(reason) {
    if (source) source.close();
    delete root.dataset.connected;
    if (reason === "busy") {
      startPolling();
      setState("busy"); // polling, and why
      return;
    }
    over = true;
    stopPolling();
    setState(text.dataset[reason] ? reason : "logout");
    var link = root.querySelector(reason === "removed" ? "[data-live-home]" : "[data-live-login]");
    if (link) link.hidden = false;
  }

  // Whether the server can be reached, for the sheet's offline mark (static/offline.js).
  function contact() { document.dispatchEvent(new CustomEvent("live:contact")); }
  function lost() { document.dispatchEvent(new CustomEvent("live:lost")); }

  stream.addEventListener("htmx:sseOpen", function () {
    contact();
    failures = 0;
    root.dataset.connected = "stream";
    stopPolling();
    setState("ok");
  });
  // The browser reconnects by itself (with Last-Event-ID), the extension once the browser has
  // given up; the page polls when the server refused the stream or it keeps failing.
  stream.addEventListener("htmx:sseError", function (evt) {
    if (over) return;
    lost();
    failures += 1;
    delete root.dataset.connected;
    var closed = evt.detail.source && evt.detail.source.readyState === EventSource.CLOSED;
    if (closed || failures >= FAILURES_BEFORE_POLLING) {
      startPolling();
    } else if (!pollTimer) {
      setState("down");
    }
  });
  stream.addEventListener("sse:change", function (evt) {
    contact();
    receive(evt.detail.lastEventId, JSON.parse(evt.detail.data));
  });
  // htmx swaps a message synchronously: the cards swapped until the next microtask are the
  // stream's, not an action's response.
  stream.addEventListener("htmx:sseBeforeMessage", function () {
    pushing = true;
    window.queueMicrotask(function () { pushing = false; });
  });

  // --- The fallback: polling the same changes as JSON ---------------------------------------
  function poll() {
    // Offline, a request would only fail (and log an error): the next tick asks again.
    if (navigator.onLine === false) { lost(); return; }
    var url = root.dataset.poll + "?after=" + encodeURIComponent(lastId || "0");
    fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (response) {
        if (!response.ok) throw new Error(String(response.status));
        return response.json();
      })
      .then(function (body) {
        contact();
        body.changes.forEach(function (change) { receive(change.log_id, change); });
        if (body.last_id !== null) lastId = String(body.last_id);
      })
      .catch(function () { lost(); /* still down: the indicator says so */ });
  }

  // Until the stream opens again (htmx:sseOpen).
  function startPolling() {
    if (over) return;
    setState("polling");
    if (pollTimer) return;
    poll();
    pollTimer = window.setInterval(poll, POLL_EVERY_MS);
  }

  function stopPolling() {
    window.clearInterval(pollTimer);
    pollTimer = null;
  }

  // Back online (a phone waking up): the refetches that failed meanwhile, at once.
  window.addEventListener("online", refreshPending);

  if (root.dataset.stream && window.EventSource && createEventSource) {
    stream.setAttribute("sse-connect", root.dataset.stream);
    htmx.process(stream);
  } else {
    startPolling();
  }
})();

// The log's seal (journal/seals.py): every open page remembers, per campaign, the
// last seal of the log it saw (localStorage) and asks the server, on load, after each change
// and when it comes back to the screen, whether today's log still extends it. If not (the end
// of the log was deleted, or history rewritten), a banner says so until the person accepts
// the log as it is now; the old seal stays shown, to be noted as proof.
(function () {
  "use strict";
  var root = document.getElementById("live");
  var banner = document.getElementById("seal-warning");
  if (!root || !banner || !root.dataset.seal || !window.fetch) return;
  var key = "chroniqueur.seal." + root.dataset.campaign;
  var CHECK_AFTER_CHANGE_MS = 600;
  var timer = null;
  var latest = null;

  function seen() {
    try { return window.localStorage.getItem(key) || ""; } catch (e) { return ""; }
  }
  function remember(seal) {
    try { window.localStorage.setItem(key, seal); } catch (e) { /* private mode: no memory */ }
  }

  function check() {
    timer = null;
    if (navigator.onLine === false) return; // offline: checked again after the next change
    var old = seen();
    var url = root.dataset.seal + (old ? "?seal=" + encodeURIComponent(old) : "");
    fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (response) {
        return response.ok || response.status === 400 ? response.json() : null;
      })
      .then(function (body) {
        if (!body || !body.seal) return;
        latest = body.seal;
        // Nothing kept yet, or what was kept is not a seal: start from today's.
        if (body.error || body.extends !== false) {
          remember(body.seal);
          return;
        }
        warn(old, body.message);
      })
      .catch(function () { /* offline: the next change or visit checks again */ });
  }

  function warn(old, message) {
    banner.querySelector("[data-seal-message]").textContent = message || "";
    banner.querySelector("[data-seal-seen]").textContent = old;
    banner.hidden = false;
  }

  banner.querySelector("[data-seal-accept]").addEventListener("click", function () {
    if (latest) remember(latest);
    banner.hidden = true;
  });

  function soon() {
    if (!timer) timer = window.setTimeout(check, CHECK_AFTER_CHANGE_MS);
  }
  // The stream checks each change once for every page (live/stream.py `log_seal`): the log
  // extends the seal it had before that change, up to a new one. A page that kept that very
  // seal keeps the new one without asking; any other (a change missed, caught up on or
  // polled, a warning shown) asks the server.
  document.addEventListener("live:change", function (evt) {
    var told = evt.detail && evt.detail.log_seal;
    if (told && !timer && banner.hidden && told.from && told.from === seen()) {
      latest = told.to;
      remember(told.to);
      return;
    }
    soon();
  });
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") soon();
  });
  check();
})();
