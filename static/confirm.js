// Actions that change much at once (an undo of many changes, removing a member, ending a
// fight) ask once before they go: a button with data-confirm="question" opens the page's
// <dialog id="confirm-dialog">. Enter confirms (the focus is on « Confirmer »), Escape or
// « Annuler » cancels; confirmed, the same button is pressed again and goes through as it
// would have (a plain form or htmx alike). Small actions have no data-confirm: they never ask.
(function () {
  "use strict";
  var pending = null;
  function dialog() {
    return document.getElementById("confirm-dialog");
  }
  document.addEventListener("click", function (evt) {
    var button = evt.target.closest ? evt.target.closest("[data-confirm]") : null;
    var box = dialog();
    if (!button || !box || typeof box.showModal !== "function") return;
    if (button.dataset.confirmed === "yes") {
      delete button.dataset.confirmed;
      return;
    }
    // Before htmx and the browser see the click: nothing is sent until it is confirmed.
    evt.preventDefault();
    evt.stopImmediatePropagation();
    pending = button;
    box.querySelector("[data-confirm-text]").textContent = button.dataset.confirm;
    box.returnValue = "";
    box.showModal();
    box.querySelector("[data-confirm-yes]").focus();
  }, true);
  document.addEventListener("close", function (evt) {
    var box = dialog();
    if (evt.target !== box || !pending) return;
    var button = pending;
    pending = null;
    if (box.returnValue === "yes") {
      button.dataset.confirmed = "yes";
      button.click();
    } else {
      button.focus();
    }
  }, true);
})();
