/* The site's few behaviours, without inline handlers (the Content-Security-Policy allows
   scripts from this site only):
   - a <select data-autosubmit> sends its form when changed (sort orders, language);
   - the header search box loads the suggestions script (data-script) the first time it gets
     focus, so pages where nobody searches pay nothing for it;
   - a <details data-open-wide> (the search filters) opens on wide screens, where it sits
     beside the results; narrow screens keep it closed, after which the results come first;
   - an open account menu closes when one clicks elsewhere or presses Escape;
   - the header's menu (a popover below 960px, opened without a script) closes when the window
     grows wide enough to show its content in the header row. */
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

  if (window.matchMedia && window.matchMedia("(min-width: 900px)").matches) {
    document.querySelectorAll("details[data-open-wide]").forEach(function (details) {
      details.open = true;
    });
  }

  function closeMenus(except) {
    document.querySelectorAll("details.account-menu[open]").forEach(function (menu) {
      if (menu !== except) { menu.open = false; }
    });
  }
  document.addEventListener("click", function (event) {
    var target = event.target;
    closeMenus(target && target.closest ? target.closest("details.account-menu") : null);
  });
  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape") { closeMenus(null); }
  });

  var siteMenu = document.getElementById("site-menu");
  if (siteMenu && siteMenu.hidePopover && window.matchMedia) {
    var wide = window.matchMedia("(min-width: 960px)");
    var closeSiteMenu = function () {
      if (wide.matches && siteMenu.matches(":popover-open")) { siteMenu.hidePopover(); }
    };
    if (wide.addEventListener) { wide.addEventListener("change", closeSiteMenu); }
  }
})();
