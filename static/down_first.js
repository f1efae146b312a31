// « À terre en premier » (play/selectors.py down_first orders the page as it is served). A
// character who goes down or gets up in the middle of a fight keeps its place: moving a card
// under the GM's cursor would send the next click to another character. The page says the
// order is out of date and a button puts it right, when the GM chooses. Down is what the
// server marked on the card or row (`data-down`, play/_down.html), never decided here.
(function () {
  "use strict";
  var section = document.getElementById("characters");
  var button = document.querySelector("[data-testid=down-first-resort]");
  if (!section || !button) return;

  function slots() {
    return Array.prototype.filter.call(section.children, function (el) {
      return el.hasAttribute("data-character-id");
    });
  }
  function isDown(slot) {
    var card = slot.querySelector(":scope > article");
    return !!(card && card.querySelector("[data-down]"));
  }
  function outOfOrder() {
    var seenUp = false;
    return slots().some(function (slot) {
      if (!isDown(slot)) { seenUp = true; return false; }
      return seenUp;
    });
  }
  var pending = false;
  function check() {
    if (pending) return;
    pending = true;
    window.requestAnimationFrame(function () {
      pending = false;
      button.hidden = !outOfOrder();
    });
  }
  button.addEventListener("click", function () {
    var all = slots();
    var down = all.filter(isDown);
    var up = all.filter(function (slot) { return !isDown(slot); });
    down.concat(up).forEach(function (slot) { section.appendChild(slot); });
    button.hidden = true;
  });
  new MutationObserver(check).observe(section, { childList: true, subtree: true });
  check();
})();
