/* Suggestions while typing in the header search box (progressive: the form works without it).
   Loaded by the box itself the first time it gets focus (no cost for pages where nobody
   searches). Asks the suggest API after a short pause and offers the answers in the input's
   datalist. */
(function () {
  "use strict";
  var DELAY_MS = 180;
  var MIN_LATIN = 2;

  function setUp(input) {
    var list = document.getElementById(input.getAttribute("list"));
    var url = input.getAttribute("data-suggest-url");
    if (!list || !url || !window.fetch) { return; }
    var language = input.getAttribute("data-language") || "en";
    var timer = null;
    var pending = null;
    var lastAsked = "";

    function show(items) {
      while (list.firstChild) { list.removeChild(list.firstChild); }
      items.forEach(function (text) {
        var option = document.createElement("option");
        option.value = text;
        list.appendChild(option);
      });
    }

    function ask() {
      var text = input.value.trim();
      if (text === lastAsked) { return; }
      lastAsked = text;
      var cjk = /[\u3400-\u9fff\uf900-\ufaff]/.test(text);
      if (!text || (!cjk && text.length < MIN_LATIN)) { show([]); return; }
      if (pending) { pending.abort(); }
      pending = window.AbortController ? new AbortController() : null;
      var query = "?q=" + encodeURIComponent(text.slice(0, 100)) + "&language=" + encodeURIComponent(language);
      fetch(url + query, { headers: { Accept: "application/json" }, signal: pending ? pending.signal : undefined })
        .then(function (response) { return response.ok ? response.json() : { suggestions: [] }; })
        .then(function (data) {
          if (input.value.trim() === text) { show(data.suggestions || []); }
        })
        .catch(function () { /* offline or aborted: no suggestions, the form still works */ });
    }

    input.addEventListener("input", function () {
      if (timer) { window.clearTimeout(timer); }
      timer = window.setTimeout(ask, DELAY_MS);
    });
    // The script is loaded when the box first gets focus: what was typed meanwhile counts.
    if (input.value.trim()) { timer = window.setTimeout(ask, DELAY_MS); }
  }

  function start() {
    var inputs = document.querySelectorAll("input[data-suggest-url]");
    Array.prototype.forEach.call(inputs, setUp);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
