// Several targets at once, on the GM's dashboard: a box per character slot (name="selected",
// outside the card, which answers and live updates redraw), shift-click for a range, x for the
// focused slot (static/keys.js), and the group bar (#group-bar), shown while any box is
// ticked, fixed at the foot of the window. Its forms send the ticked boxes along themselves
// (hx-include): this script only counts, shows, ranges and unticks. Words come from the
// template (data-msg-*).
(function () {
  "use strict";
  var bar = document.getElementById("group-bar");
  var list = document.getElementById("characters");
  if (!bar || !list) return;
  var count = bar.querySelector("[data-testid=group-count]");
  var BOX = "input[name=selected]";
  var last = null; // the box clicked last, where a shift-click's range starts

  function boxes() {
    return Array.prototype.slice.call(list.querySelectorAll(BOX));
  }

  function ticked() {
    return boxes().filter(function (box) { return box.checked; });
  }

  // The page keeps room at its foot for the bar, so that the last card is never under it.
  function keepRoom() {
    var height = bar.hidden ? 0 : bar.getBoundingClientRect().height;
    document.documentElement.style.setProperty("--group-bar", Math.ceil(height) + "px");
  }

  function update() {
    var n = ticked().length;
    bar.hidden = n === 0;
    if (n === 0) {
      document.getElementById("panel-group").innerHTML = "";
      document.getElementById("result-group").innerHTML = "";
    }
    count.textContent = n === 1 ? bar.dataset.msgOne : bar.dataset.msgMany.replace("{n}", n);
    keepRoom();
  }

  list.addEventListener("click", function (event) {
    var box = event.target;
    if (!box.matches || !box.matches(BOX)) return;
    var all = boxes();
    if (event.shiftKey && last && last !== box && all.indexOf(last) >= 0) {
      var from = all.indexOf(last), to = all.indexOf(box);
      var step = from < to ? 1 : -1;
      for (var i = from; i !== to; i += step) all[i].checked = box.checked;
    }
    last = box;
  });

  list.addEventListener("change", function (event) {
    if (event.target.matches && event.target.matches(BOX)) update();
  });

  // x on a slot (static/keys.js) ticks or unticks it: the same as a click, said aloud.
  document.addEventListener("group:toggle", function (event) {
    var slot = event.detail && event.detail.slot;
    var box = slot && slot.querySelector(BOX);
    if (!box) return;
    box.checked = !box.checked;
    last = box;
    update();
    var name = slot.getAttribute("aria-label") || "";
    var said = box.checked ? bar.dataset.msgTicked : bar.dataset.msgUnticked;
    document.dispatchEvent(new CustomEvent("keys:say", { detail: said.replace("{name}", name) }));
  });

  bar.querySelector("[data-action=group-clear]").addEventListener("click", function () {
    boxes().forEach(function (box) { box.checked = false; });
    last = null;
    update();
    var first = list.querySelector("[data-character-id]");
    if (first) first.focus({ preventScroll: true });
  });

  // The GM acts elsewhere (a card's button, the party bar, the fight): the bar's last result
  // and open form step aside, so that they never cover the answer she now waits for. The
  // selection stays; the result stays in the log, and the history can still undo it. Live
  // refetches (no control of the GM's) leave them be. A card's panel link asks as its panel
  // (static/panels.js).
  var CONTROL = "a, button, form, input, select, .panel-slot";
  document.body.addEventListener("htmx:beforeRequest", function (event) {
    var elt = event.detail && event.detail.elt;
    if (!elt || !elt.matches || bar.hidden || bar.contains(elt) || !elt.matches(CONTROL)) return;
    document.getElementById("panel-group").innerHTML = "";
    document.getElementById("result-group").innerHTML = "";
  });

  // A panel or a result opening in the bar changes its height.
  if (window.ResizeObserver) new ResizeObserver(keepRoom).observe(bar);
  // Boxes the browser kept ticked over a reload (form restoration) count from the start.
  update();
})();
