// The panel links of a card or a compact row (templates/play/_card.html, _row.html): each
// opens its form in the panel below the character, the selector its list of links names
// (`data-panel`), through htmx, the latest click replacing a request still on its way (as
// hx-sync "replace" would). One listener for them all instead of an hx-get repeating each
// link's href; without JavaScript, or with a modifier key, the link opens its page.
(function () {
  "use strict";
  document.addEventListener("click", function (evt) {
    if (evt.defaultPrevented || evt.button !== 0) return;
    if (evt.ctrlKey || evt.metaKey || evt.shiftKey || evt.altKey) return;
    var link = evt.target.closest ? evt.target.closest("a[href]") : null;
    var list = link && link.closest("[data-panel]");
    if (!list || !window.htmx) return;
    // A link with its own hx-get, or inside a menu drawn on demand (its links name their
    // target or open a page): htmx's or the browser's.
    var own = link.closest("[hx-get]");
    if (own && list.contains(own)) return;
    evt.preventDefault();
    htmx.trigger(list, "htmx:abort");
    htmx.ajax("GET", link.getAttribute("href"), {
      source: list,
      target: list.getAttribute("data-panel"),
      swap: "innerHTML",
    });
  });
})();
