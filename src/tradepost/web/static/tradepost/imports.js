/* The progress bar of a catalogue import's page (an enhancement: without this script the
   page shows where the work stood when it was opened, and a reload shows more). While the
   file is checked or imported, the page asks the import's status every two seconds (a small
   JSON answer) and moves the bar; when the work is done, it reloads to show the preview or
   the result. Nothing here is inline: the Content-Security-Policy allows scripts from this
   site only. */
(function () {
  "use strict";

  var box = document.querySelector("[data-import-status][data-working]");
  if (!box || !window.fetch) { return; }
  var url = box.getAttribute("data-import-status");
  var bar = box.querySelector("[data-import-progress]");
  var count = box.querySelector("[data-import-count]");
  var label = box.querySelector("[data-import-status-label]");
  var INTERVAL = 2000;

  function later() { window.setTimeout(poll, INTERVAL); }

  function show(status) {
    if (bar) { bar.value = status.percent; bar.textContent = status.percent + "%"; }
    if (count) { count.textContent = status.count_text; }
    if (label) { label.textContent = status.status_label; }
  }

  function poll() {
    window.fetch(url, { credentials: "same-origin", headers: { "Accept": "application/json" } })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (status) {
        if (!status) { later(); return; }
        show(status);
        if (status.working) { later(); } else { window.location.reload(); }
      })
      .catch(later);
  }

  later();
})();
