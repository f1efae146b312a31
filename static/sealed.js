// Sealed rolls (journal/sealing.py): a roll the GM alone saw reaches players as a
// commitment, SHA-256 of "chroniqueur-sealed-roll-v1:<salt>:<opening>", never its result.
// This device remembers every commitment it is shown (localStorage, per campaign: in a page,
// or in the live stream's `sealed`), and when the GM reveals the roll, checks the revealed
// opening and salt against the commitment it saw BEFORE the reveal, then says so in words.
// crypto.subtle exists only in secure contexts (https, localhost): a phone on the table's
// network over plain http has none, so a SHA-256 of our own (FIPS 180-4) stands in for it.
(function () {
  "use strict";
  var PREFIX = "chroniqueur-sealed-roll-v1";
  var KEPT = 500; // commitments kept per campaign on this device

  // --- SHA-256 (FIPS 180-4), for when crypto.subtle is missing -----------------------------
  var K = [
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2
  ];

  function rotr(x, n) { return (x >>> n) | (x << (32 - n)); }

  function utf8(text) {
    if (window.TextEncoder) return new TextEncoder().encode(text);
    var binary = unescape(encodeURIComponent(text)), bytes = new Uint8Array(binary.length);
    for (var i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes;
  }

  function hex(words) {
    var out = "";
    for (var i = 0; i < words.length; i++) out += ("00000000" + (words[i] >>> 0).toString(16)).slice(-8);
    return out;
  }

  function sha256Bytes(bytes) {
    var length = bytes.length;
    var padded = new Uint8Array(((length + 9 + 63) >> 6) << 6);
    padded.set(bytes);
    padded[length] = 0x80;
    var view = new DataView(padded.buffer);
    view.setUint32(padded.length - 8, Math.floor(length / 0x20000000)); // bit length, high word
    view.setUint32(padded.length - 4, (length << 3) >>> 0); // and low word
    var H = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];
    var W = new Array(64);
    for (var offset = 0; offset < padded.length; offset += 64) {
      var t;
      for (t = 0; t < 16; t++) W[t] = view.getUint32(offset + t * 4) | 0;
      for (t = 16; t < 64; t++) {
        var w15 = W[t - 15], w2 = W[t - 2];
        var s0 = rotr(w15, 7) ^ rotr(w15, 18) ^ (w15 >>> 3);
        var s1 = rotr(w2, 17) ^ rotr(w2, 19) ^ (w2 >>> 10);
        W[t] = (W[t - 16] + s0 + W[t - 7] + s1) | 0;
      }
      var a = H[0], b = H[1], c = H[2], d = H[3], e = H[4], f = H[5], g = H[6], h = H[7];
      for (t = 0; t < 64; t++) {
        var t1 = (h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[t] + W[t]) | 0;
        var t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
        h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      }
      H[0] = (H[0] + a) | 0; H[1] = (H[1] + b) | 0; H[2] = (H[2] + c) | 0; H[3] = (H[3] + d) | 0;
      H[4] = (H[4] + e) | 0; H[5] = (H[5] + f) | 0; H[6] = (H[6] + g) | 0; H[7] = (H[7] + h) | 0;
    }
    return hex(H);
  }

  function sha256(text) { return sha256Bytes(utf8(text)); }

  // The browser's own SHA-256 where it has one (secure contexts), else ours.
  // `api.method` says which one the last check used ("subtle" or "own").
  function digest(text) {
    var subtle = window.isSecureContext && window.crypto && window.crypto.subtle;
    if (!subtle) { api.method = "own"; return Promise.resolve(sha256(text)); }
    api.method = "subtle";
    return subtle.digest("SHA-256", utf8(text)).then(function (buffer) {
      var words = [], view = new DataView(buffer);
      for (var i = 0; i < 32; i += 4) words.push(view.getUint32(i));
      return hex(words);
    }, function () { api.method = "own"; return sha256(text); });
  }

  // For the browser tests (known vectors) and anyone curious, from the console.
  var api = window.chroniqueurSeal = { sha256: sha256, digest: digest, prefix: PREFIX, method: "" };

  // --- What this device saw --------------------------------------------------------------
  function storeKey(campaign) { return "chroniqueur.sealed." + campaign; }

  function seen(campaign) {
    try {
      var kept = JSON.parse(window.localStorage.getItem(storeKey(campaign)) || "{}");
      return kept && typeof kept === "object" ? kept : {};
    } catch (e) { return {}; }
  }

  // The first commitment seen for a roll is the one kept: a later, different one is a warning.
  function remember(campaign, rollId, commitment) {
    var kept = seen(campaign);
    if (kept[rollId]) return kept[rollId];
    kept[rollId] = commitment;
    var ids = Object.keys(kept);
    if (ids.length > KEPT) {
      ids.sort(function (x, y) { return parseInt(x, 10) - parseInt(y, 10); });
      ids.slice(0, ids.length - KEPT).forEach(function (id) { delete kept[id]; });
    }
    try { window.localStorage.setItem(storeKey(campaign), JSON.stringify(kept)); } catch (e) { /* private mode */ }
    return commitment;
  }

  // --- Checking a seal on the page (templates/journal/_seal.html) -------------------------
  function say(box, state, message) {
    box.setAttribute("data-seal-state", state);
    var status = box.querySelector("[data-seal-status]");
    if (!status) {
      status = document.createElement("p");
      status.setAttribute("data-seal-status", "");
      status.setAttribute("data-testid", "seal-check");
      box.appendChild(status);
    }
    status.className = "seal-check " + (state === "verified" ? "ok" : state === "checking" ? "" : "errors");
    status.setAttribute("role", state === "verified" || state === "checking" ? "status" : "alert");
    status.textContent = message;
  }

  function check(box) {
    if (box.hasAttribute("data-seal-state")) return;
    var campaign = box.getAttribute("data-campaign");
    var rollId = box.getAttribute("data-sealed-roll");
    var shown = box.getAttribute("data-commitment") || "";
    var known = seen(campaign)[rollId];
    var opening = box.getAttribute("data-opening");
    if (opening === null) { // still sealed: keep its commitment
      if (known && known !== shown) say(box, "changed", box.getAttribute("data-msg-changed"));
      else { remember(campaign, rollId, shown); box.setAttribute("data-seal-state", "sealed"); }
      return;
    }
    say(box, "checking", box.getAttribute("data-msg-checking"));
    var expected = known || shown;
    var salt = box.getAttribute("data-salt") || "";
    digest(PREFIX + ":" + salt + ":" + opening).then(function (hash) {
      var total = null;
      try { total = JSON.parse(opening).roll.total; } catch (e) { total = null; }
      if (hash !== expected || shown !== expected || total === null || total === undefined) {
        say(box, "failed", box.getAttribute("data-msg-fail"));
        return;
      }
      remember(campaign, rollId, expected);
      var message = box.getAttribute(known ? "data-msg-ok" : "data-msg-ok-new");
      say(box, "verified", message.replace("%(total)s", String(total)));
    });
  }

  function scan(root) {
    if (!root || !root.querySelectorAll) return;
    if (root.hasAttribute && root.hasAttribute("data-sealed-roll")) check(root);
    root.querySelectorAll("[data-sealed-roll]").forEach(check);
  }

  // The stream (or a poll) tells of sealed rolls as they are written (live/stream.py `sealed`).
  document.addEventListener("live:change", function (evt) {
    var live = document.getElementById("live");
    var sealed = evt.detail && evt.detail.sealed;
    if (!live || !sealed) return;
    Object.keys(sealed).forEach(function (rollId) {
      remember(live.getAttribute("data-campaign"), rollId, sealed[rollId]);
    });
  });
  document.addEventListener("htmx:load", function (evt) { scan(evt.detail && evt.detail.elt); });
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () { scan(document); });
  } else {
    scan(document);
  }
})();
