// R34: a roll the GM asks of this player arrives in their card (live/stream.py pushes it).
// The card's section says it to screen readers (aria-labelledby, in the card's aria-live);
// here only what markup cannot do: a short vibration where the phone allows it (and only once
// the person has touched the page: browsers refuse it before), and the prompt brought into
// view, once per request.
(function () {
  "use strict";
  var seen = {};
  function notice(root, alert) {
    var prompts = root.querySelectorAll ? root.querySelectorAll("[data-roll-request][data-pending]") : [];
    var fresh = [];
    prompts.forEach(function (el) {
      var id = el.getAttribute("data-roll-request");
      if (seen[id]) return;
      seen[id] = true;
      fresh.push(el);
    });
    if (!alert || !fresh.length) return;
    var active = navigator.userActivation ? navigator.userActivation.hasBeenActive : false;
    if (active && typeof navigator.vibrate === "function") navigator.vibrate([120, 60, 120]);
    var field = fresh[0].querySelector("input[name='die']");
    var typing = document.activeElement && document.activeElement.tagName === "INPUT";
    fresh[0].scrollIntoView({ block: "center", behavior: "smooth" });
    if (field && !typing) field.focus({ preventScroll: true });
  }
  // Those on the page when it opens were seen with it; those that arrive later are news.
  notice(document, false);
  document.body.addEventListener("htmx:load", function (evt) {
    notice(evt.detail.elt, true);
  });
})();
