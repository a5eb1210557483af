/* The site's few behaviours, without inline handlers (the Content-Security-Policy allows
   scripts from this site only):
   - a <select data-autosubmit> sends its form when changed (sort orders, language);
   - the header search box loads the suggestions script (data-script) the first time it gets
     focus, so pages where nobody searches pay nothing for it. */
(function () {
  "use strict";

  document.addEventListener("change", function (event) {
    var target = event.target;
    if (target && target.matches && target.matches("select[data-autosubmit]") && target.form) {
      target.form.submit();
    }
  });

  document.addEventListener("focusin", function (event) {
    var input = event.target;
    if (!input || !input.getAttribute || !input.getAttribute("data-script")) { return; }
    if (input.dataset.loaded) { return; }
    input.dataset.loaded = "1";
    var script = document.createElement("script");
    script.src = input.getAttribute("data-script");
    document.head.appendChild(script);
  });
})();
