/* The table screen (templates/play/screen.html): refetch its part every few seconds and put
   it in place; no controls, no stream. A link revoked or replaced answers 404: the page then
   says so and stops asking. Without contact, it keeps what it showed and says so. */
(function () {
  "use strict";
  var root = document.getElementById("screen");
  if (!root || !root.dataset.partUrl) return;
  var every = parseInt(root.dataset.refreshMs, 10) || 2000;
  var lost = document.getElementById("screen-lost");
  var timer = null;

  function show(message) {
    lost.textContent = message;
    lost.hidden = !message;
  }

  function gone(message) {
    window.clearInterval(timer);
    var part = document.getElementById("screen-part");
    var note = document.createElement("p");
    note.className = "screen-gone";
    note.setAttribute("role", "alert");
    note.setAttribute("data-testid", "screen-gone");
    note.textContent = message;
    part.replaceWith(note);
    show("");
  }

  function refresh() {
    fetch(root.dataset.partUrl, { credentials: "same-origin", cache: "no-store" })
      .then(function (response) {
        if (response.status === 404 || response.status === 403) { gone(root.dataset.goneText); return null; }
        // The GM's own screen after a logout: the login page answers instead of the part.
        if (response.redirected) { gone(root.dataset.endedText); return null; }
        if (!response.ok) throw new Error(String(response.status));
        return response.text();
      })
      .then(function (html) {
        if (html === null) return;
        var part = document.getElementById("screen-part");
        if (!part) return;
        var next = document.createElement("template");
        next.innerHTML = html.trim();
        var fresh = next.content.firstElementChild;
        if (fresh && fresh.outerHTML !== part.outerHTML) part.replaceWith(fresh);
        show("");
      })
      .catch(function () { show(root.dataset.lostText); });
  }

  timer = window.setInterval(refresh, every);
  document.addEventListener("visibilitychange", function () {
    if (!document.hidden) refresh();
  });
})();
