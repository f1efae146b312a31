// The GM's dashboard without a mouse, for speed and for keyboard users. Every shortcut presses a
// control the page already has (the card's `data-action` buttons and links, the fight's "next
// turn"), so the keyboard goes through the same htmx requests, permissions and rules as a click.
//   j / ↓, k / ↑   move between the character slots ([data-character-id], focusable)
//   d, h, f        damage, heal, spend Flux: the card's amount field, then Enter
//   r, c           the test panel, the condition panel (htmx focuses their first field)
//   u              undo the last change (the Undo beside the last result)
//   t              next turn, when a fight runs
//   x              tick or untick the character for a group action (static/group.js)
//   ?              the list of shortcuts (#keys-help, a <dialog>, worded in the template)
//   Escape         closes the open panel; focus goes back to what opened it
// No shortcut fires while a field has the focus, except Escape and Enter in the amount field
// a shortcut armed. The page's words come from the template (data-msg-*): no text here.
(function () {
  "use strict";
  var help = document.getElementById("keys-help");
  if (!help || !window.htmx) return;
  var announcer = document.getElementById("keys-announcer");

  var SLOT = "[data-character-id]";
  var QUICK = { d: "damage", h: "heal", f: "spend_flux" };
  var PANELS = { r: "check", c: "add_condition" };
  var openers = {}; // panel id -> the element focus goes back to when the panel closes
  var beforeHelp = null;

  function say(text) {
    if (!announcer || !text) return;
    announcer.textContent = "";
    window.setTimeout(function () { announcer.textContent = text; }, 50);
  }

  // Other scripts of the page say things the same way (static/group.js).
  document.addEventListener("keys:say", function (event) { say(event.detail); });

  function slots() {
    return Array.prototype.slice.call(document.querySelectorAll(SLOT));
  }

  function currentSlot() {
    var el = document.activeElement;
    return el && el.closest ? el.closest(SLOT) : null;
  }

  function typing(el) {
    if (!el || el === document.body) return false;
    if (el.isContentEditable) return true;
    var tag = el.tagName;
    if (tag === "TEXTAREA" || tag === "SELECT") return true;
    if (tag !== "INPUT") return false;
    return ["button", "submit", "reset", "checkbox", "radio"].indexOf(el.type) < 0;
  }

  function focusSlot(slot) {
    if (!slot) return;
    slot.focus();
    slot.scrollIntoView({ block: "nearest" });
  }

  function move(step) {
    var all = slots();
    if (!all.length) return;
    var index = all.indexOf(currentSlot());
    if (index < 0) index = step > 0 ? -1 : all.length;
    focusSlot(all[Math.min(all.length - 1, Math.max(0, index + step))]);
  }

  function control(slot, action) {
    return slot.querySelector('[data-action="' + action + '"]');
  }

  function unavailable() {
    say(help.dataset.msgUnavailable);
  }

  function disarm(form) {
    if (!form) return;
    delete form.dataset.keyAction;
    var armed = form.querySelectorAll(".key-armed");
    for (var i = 0; i < armed.length; i++) armed[i].classList.remove("key-armed");
  }

  // d, h, f: the amount field of the card's quick form, armed so that Enter presses the
  // shortcut's button (Enter alone would press the form's first one, Damage).
  function quick(slot, action) {
    var button = control(slot, action);
    var form = button && button.form;
    var amount = form && form.querySelector("input[name=amount]");
    if (!amount) return unavailable();
    disarm(form);
    form.dataset.keyAction = action;
    button.classList.add("key-armed");
    amount.focus();
    amount.select();
    say(button.textContent.trim());
  }

  // The hx-target an element's request goes to, as htmx reads it: its own, or the nearest
  // ancestor's, unless an ancestor on the way keeps its attributes to itself (hx-disinherit).
  // The cards and rows name their panel once on their list of links (data-panel, static/panels.js).
  // "this" names the element that says it.
  function targetOf(el) {
    for (var node = el; node && node.getAttribute; node = node.parentElement) {
      if (node !== el) {
        var kept = (node.getAttribute("hx-disinherit") || "").split(" ");
        if (kept.indexOf("*") >= 0 || kept.indexOf("hx-target") >= 0) return null;
      }
      var target = node.getAttribute("hx-target");
      if (target === null) target = node.getAttribute("data-panel"); // static/panels.js
      if (target === null) continue;
      return target === "this" ? (node.id ? "#" + node.id : null) : target;
    }
    return null;
  }

  function panelTarget(el) {
    var target = targetOf(el);
    return target && /^#panel-/.test(target) ? target.replace(/^#/, "") : null;
  }

  function openPanel(slot, action, drawn) {
    var link = control(slot, action);
    // A compact row's menu draws its links when it opens (play/views.py character_menu):
    // drawn now, then pressed once htmx has settled them (their hx-get processed).
    var menu = !link && !drawn && slot.querySelector(".row-menu .menu[hx-get]:empty");
    if (menu) {
      menu.addEventListener("htmx:afterSettle", function () { openPanel(slot, action, true); }, { once: true });
      htmx.ajax("GET", menu.getAttribute("hx-get"), { source: menu, target: menu, swap: "innerHTML" })
        .catch(unavailable);
      return;
    }
    if (!link) return unavailable();
    var target = targetOf(link);
    if (target) openers[target.replace(/^#/, "")] = slot;
    link.click();
  }

  function undo(slot) {
    var button = slot.querySelector(".result-slot [data-testid=undo]") ||
      document.querySelector(".result-slot [data-testid=undo]");
    if (!button) return say(help.dataset.msgNothingToUndo);
    button.click();
  }

  // t: the next turn; the selection then follows it to the character whose turn it is.
  var followTurn = false;

  function nextTurn() {
    var button = document.querySelector('[data-action="fight-next"]');
    if (!button || button.disabled) return say(help.dataset.msgNoFight);
    followTurn = true;
    button.click();
  }

  document.body.addEventListener("htmx:afterSettle", function () {
    if (!followTurn) return;
    followTurn = false;
    var card = document.querySelector(SLOT + " .its-turn, " + SLOT + " .current-turn");
    if (card) focusSlot(card.closest(SLOT));
  });

  function openHelp() {
    if (help.open) return;
    beforeHelp = document.activeElement;
    help.showModal();
  }

  var hint = document.querySelector('[data-action="keys-help"]');
  if (hint) hint.addEventListener("click", openHelp);

  help.addEventListener("close", function () {
    if (beforeHelp && document.contains(beforeHelp)) beforeHelp.focus();
    beforeHelp = null;
  });

  function panelOf(el) {
    return el && el.closest ? el.closest(".panel-slot") : null;
  }

  // Escape: the panel holding the focus, or else the focused card's open panel.
  function closePanel() {
    var panel = panelOf(document.activeElement);
    var slot = currentSlot();
    if (!panel && slot) panel = slot.querySelector(".panel-slot:not(:empty)");
    if (!panel || !panel.firstElementChild) return false;
    if (!openers[panel.id]) openers[panel.id] = slot || document.activeElement;
    var cancel = panel.querySelector("a.button.secondary[hx-get]");
    if (cancel) {
      cancel.click();
    } else {
      panel.innerHTML = "";
      restore(panel.id);
    }
    return true;
  }

  function restore(panelId) {
    var opener = openers[panelId];
    delete openers[panelId];
    if (!opener) return;
    if (!document.contains(opener)) {
      // The card was redrawn (live update): the same control in its new markup, or its slot.
      var slot = document.getElementById(panelId) && document.getElementById(panelId).closest(SLOT);
      var action = opener.getAttribute && opener.getAttribute("data-action");
      opener = (slot && action && control(slot, action)) || slot;
    }
    if (opener) opener.focus();
  }

  // A panel opened with the mouse or Enter on its link goes back to that link (a shortcut's
  // own click, not trusted, keeps the card's slot).
  document.addEventListener("click", function (event) {
    if (!event.isTrusted || !event.target.closest) return;
    var link = event.target.closest("a[hx-get], [data-panel] a[href]");
    var panel = link && panelTarget(link);
    if (panel) openers[panel] = link;
  }, true);

  // A panel emptied by an answer aimed at it (Escape or its Cancel link): focus goes back to
  // its opener. A success empties it out of band, and the result beside the card takes the
  // focus (autofocus), as with the mouse.
  document.body.addEventListener("htmx:afterSettle", function (event) {
    var target = event.detail && event.detail.target;
    if (!target || !target.classList || !target.classList.contains("panel-slot")) return;
    if (!target.firstElementChild) restore(target.id);
  });

  // Enter in an armed amount field presses the shortcut's button; Escape gives up.
  document.addEventListener("keydown", function (event) {
    var el = event.target;
    var form = el && el.form;
    if (!form || el.name !== "amount" || !form.dataset.keyAction) return;
    if (event.key === "Enter") {
      var button = form.querySelector('[data-action="' + form.dataset.keyAction + '"]');
      disarm(form);
      if (button) {
        event.preventDefault();
        button.click();
      }
    } else if (event.key === "Escape") {
      event.preventDefault();
      disarm(form);
      focusSlot(el.closest(SLOT));
    }
  }, true);

  document.addEventListener("focusout", function (event) {
    var el = event.target;
    if (el && el.name === "amount" && el.form && el.form.dataset.keyAction) {
      var form = el.form;
      // Pressing the armed button with the mouse still counts: disarm only once it is done.
      window.setTimeout(function () {
        if (document.activeElement !== el) disarm(form);
      }, 0);
    }
  });

  document.addEventListener("keydown", function (event) {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
    if (help.open) return; // the dialog handles its own keys (Escape closes it)
    var key = event.key;
    if (key === "Escape") {
      if (closePanel()) event.preventDefault();
      return;
    }
    if (typing(event.target)) return;
    var slot = currentSlot();
    var handled = true;
    if (key === "j" || (key === "ArrowDown" && slot)) move(1);
    else if (key === "k" || (key === "ArrowUp" && slot)) move(-1);
    else if (key === "?") openHelp();
    else if (key === "t") nextTurn();
    else if (slot && QUICK[key]) quick(slot, QUICK[key]);
    else if (slot && PANELS[key]) openPanel(slot, PANELS[key]);
    else if (slot && key === "u") undo(slot);
    else if (slot && key === "x") {
      document.dispatchEvent(new CustomEvent("group:toggle", { detail: { slot: slot } }));
    }
    else handled = false;
    if (handled) event.preventDefault();
  });

  // The skip link lands on the first character, ready for j/k.
  var skip = document.querySelector(".skip-link");
  if (skip) {
    skip.addEventListener("click", function (event) {
      var first = slots()[0];
      if (!first) return;
      event.preventDefault();
      focusSlot(first);
    });
  }
})();
