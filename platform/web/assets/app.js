// teamtext dashboard: small enhancements only; every flow works without it.
(function () {
  "use strict";
  // Forms with data-confirm ask before submitting (urgent alerts).
  document.addEventListener("submit", function (e) {
    var f = e.target, box = f.querySelector("[data-confirm-if]");
    var msg = f.getAttribute("data-confirm");
    if (box && !box.checked) msg = null;
    if (e.submitter && e.submitter.value === "preview") msg = null;
    if (msg && !window.confirm(msg)) e.preventDefault();
  });
  // Live preview on Compose: the server renders it (the same use case as
  // the Preview button), fetched as the coach types.
  var form = document.querySelector("form[data-preview]");
  if (form) {
    var out = document.getElementById("preview"), timer = null;
    var refresh = function () {
      var body = new URLSearchParams(new FormData(form));
      fetch(form.getAttribute("data-preview"), { method: "POST", body: body, credentials: "same-origin" })
        .then(function (r) { return r.ok ? r.text() : null; })
        .then(function (html) { if (html !== null && out) out.innerHTML = html; });
    };
    form.addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(refresh, 300); });
    form.addEventListener("change", function () { clearTimeout(timer); timer = setTimeout(refresh, 100); });
    // The send button reads Schedule when a time is set.
    var at = form.querySelector("[name=send_at]"), btn = form.querySelector("[data-schedule-label]");
    if (at && btn) at.addEventListener("input", function () {
      btn.textContent = btn.getAttribute(at.value ? "data-schedule-label" : "data-send-label");
    });
  }
  // Copy buttons (a new key, a new secret): hidden without JavaScript,
  // where the text is selected and copied by hand.
  document.querySelectorAll("[data-copy]").forEach(function (b) {
    var src = document.getElementById(b.getAttribute("data-copy"));
    if (!src || !navigator.clipboard) return;
    b.hidden = false;
    b.addEventListener("click", function () {
      navigator.clipboard.writeText(src.textContent.trim()).then(function () { b.textContent = "Copied"; });
    });
  });
  // A message's page polls its progress while texts are still going out.
  var prog = document.querySelector("[data-progress]");
  if (prog) {
    var tick = function () {
      fetch(prog.getAttribute("data-progress"), { credentials: "same-origin" })
        .then(function (r) { return r.ok ? r.text() : null; })
        .then(function (html) {
          if (html === null) return;
          prog.innerHTML = html;
          if (!prog.querySelector("[data-done]")) setTimeout(tick, 2000);
        });
    };
    if (!prog.querySelector("[data-done]")) setTimeout(tick, 2000);
  }
})();
