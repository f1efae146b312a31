// R33: the fight starts in the GM's order. Ticking a character gives it the next place in
// the start form (its number box); unticking one takes its place away and closes the gap,
// the others keeping their order. The GM may type a place too; the server sorts by place.
(function () {
  "use strict";
  function boxes(form) {
    return Array.prototype.slice.call(form.querySelectorAll("input[name='fighters']"));
  }
  function placeOf(box) {
    return document.getElementById("fight-place-" + box.value);
  }
  function renumber(form) {
    var placed = boxes(form)
      .filter(function (box) { return box.checked && placeOf(box) && placeOf(box).value; })
      .sort(function (a, b) { return Number(placeOf(a).value) - Number(placeOf(b).value); });
    placed.forEach(function (box, index) { placeOf(box).value = String(index + 1); });
    return placed.length;
  }
  document.addEventListener("change", function (evt) {
    var box = evt.target;
    if (!box.matches || !box.matches(".fight-start input[name='fighters']")) return;
    var place = placeOf(box);
    if (!place) return;
    var form = box.form;
    if (box.checked) {
      place.value = "";
      place.value = String(renumber(form) + 1);
    } else {
      place.value = "";
      renumber(form);
    }
  });
})();
