// The panel links of a card or a compact row (templates/play/_card.html, _row.html): each
// opens its form in the panel below the character, the one its list of links names
// (`data-panel`), through htmx. The request is the panel's, as hx-sync="#panel:replace" makes
// it: the latest click, or the panel's own Cancel, replaces any still on its way. One
// listener for them all instead of an hx-get repeating each link's href; without JavaScript,
// with a modifier key, or where the page has no such panel, the link opens its page.
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
    var panel = document.querySelector(list.getAttribute("data-panel"));
    if (!panel) return;
    evt.preventDefault();
    htmx.trigger(panel, "htmx:abort");
    htmx.ajax("GET", link.getAttribute("href"), { source: panel, target: panel, swap: "innerHTML" })
      .catch(function () { /* replaced by a later click, or failed: htmx says so */ });
  });
  // A link chosen in a « Plus… » menu closes it: the panel it opens is not left under the menu.
  // (Its buttons leave it open: the fight's order may be moved by more than one place.)
  document.addEventListener("click", function (evt) {
    var link = evt.target.closest ? evt.target.closest("a[href]") : null;
    var menu = link && link.closest("details.row-menu, details.more-menu");
    if (menu) menu.open = false;
  });
})();
