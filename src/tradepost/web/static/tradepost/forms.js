/* Behaviours of the long dashboard forms (product, quotation). Each is an enhancement: the
   page works without this script (the Content-Security-Policy allows scripts from this site
   only, so nothing here is inline).
   - Error summary: gets the focus when the page opens; its links put the focus in the field.
   - Category picker: a box above the category <select> that filters the leaf categories as
     you type (any name of the category or of those above it, in English or Chinese) and shows
     each one's full path; plus suggestions for the title typed, from the server.
   - Repeated rows (volume prices): "Add a row" copies the blank row of the <template>,
     "Remove" hides a row and ticks its removal box. */
(function () {
  "use strict";

  function focusField(id) {
    var field = document.getElementById(id);
    if (!field) { return false; }
    var label = document.querySelector('label[for="' + id + '"]');
    field.focus();
    (label || field).scrollIntoView({ block: "center" });
    return true;
  }

  function setUpErrorSummary() {
    var summary = document.querySelector("[data-error-summary]");
    if (!summary) { return; }
    if (!window.location.hash) { summary.focus(); }
    summary.addEventListener("click", function (event) {
      var link = event.target.closest ? event.target.closest("a[data-focus-field]") : null;
      if (link && focusField(link.getAttribute("data-focus-field"))) {
        event.preventDefault();
      }
    });
  }

  // --- category picker ---------------------------------------------------------------------

  var MAX_SHOWN = 40;

  function element(tag, attributes, text) {
    var node = document.createElement(tag);
    Object.keys(attributes || {}).forEach(function (name) { node.setAttribute(name, attributes[name]); });
    if (text) { node.textContent = text; }
    return node;
  }

  function getJson(url) {
    return fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then(function (response) { return response.ok ? response.json() : null; });
  }

  function setUpPicker(box) {
    var select = box.querySelector("select");
    if (!select || !window.fetch) { return; }
    var text = box.dataset;
    var listId = select.id + "-filter-list";
    var wrapper = element("div", { "class": "category-picker" });
    var label = element("label", { "for": select.id + "-filter" }, text.labelFilter);
    var input = element("input", {
      id: select.id + "-filter",
      type: "text",
      role: "combobox",
      autocomplete: "off",
      "aria-autocomplete": "list",
      "aria-expanded": "false",
      "aria-controls": listId,
      "aria-describedby": select.id + "-filter-status",
      placeholder: text.placeholder || ""
    });
    var list = element("ul", { id: listId, role: "listbox", "class": "category-picker-list", hidden: "" });
    list.setAttribute("aria-label", text.labelFilter);
    var status = element("p", { id: select.id + "-filter-status", "class": "helptext", "aria-live": "polite" });
    var suggestions = element("div", { "class": "category-suggestions", "aria-live": "polite" });
    wrapper.appendChild(label);
    wrapper.appendChild(input);
    wrapper.appendChild(list);
    wrapper.appendChild(status);
    box.insertBefore(wrapper, box.firstChild);
    box.appendChild(suggestions);

    var categories = null;
    var loading = null;
    var shown = [];
    var active = -1;

    function load() {
      if (categories) { return Promise.resolve(categories); }
      if (!loading) {
        loading = getJson(box.getAttribute("data-categories-url"))
          .then(function (data) {
            categories = (data && data.categories || []).map(function (c) {
              return { id: String(c.id), path: c.path, haystack: (c.path + " " + c.terms).toLowerCase() };
            });
            return categories;
          })
          .catch(function () { categories = []; return categories; });
      }
      return loading;
    }

    function close() {
      list.hidden = true;
      input.setAttribute("aria-expanded", "false");
      input.removeAttribute("aria-activedescendant");
      active = -1;
    }

    function choose(category) {
      select.value = category.id;
      select.dispatchEvent(new Event("change", { bubbles: true }));
      input.value = "";
      close();
      status.textContent = text.labelChosen.replace("%(path)s", category.path);
    }

    function highlight(index) {
      var items = list.querySelectorAll("[role=option]");
      if (!items.length) { return; }
      active = (index + items.length) % items.length;
      Array.prototype.forEach.call(items, function (item, i) {
        item.setAttribute("aria-selected", i === active ? "true" : "false");
      });
      input.setAttribute("aria-activedescendant", items[active].id);
      items[active].scrollIntoView({ block: "nearest" });
    }

    function render(query) {
      var words = query.toLowerCase().split(/\s+/).filter(Boolean);
      while (list.firstChild) { list.removeChild(list.firstChild); }
      active = -1;
      if (!words.length) { close(); status.textContent = ""; return; }
      var matches = categories.filter(function (c) {
        return words.every(function (word) { return c.haystack.indexOf(word) !== -1; });
      });
      // Leaves named by the words first, then those found by a category above them.
      var leafFirst = function (c) {
        var leaf = c.path.split(" › ").pop().toLowerCase();
        return words.every(function (word) { return leaf.indexOf(word) !== -1; }) ? 0 : 1;
      };
      matches.sort(function (a, b) { return leafFirst(a) - leafFirst(b); });
      shown = matches.slice(0, MAX_SHOWN);
      shown.forEach(function (category, index) {
        var item = element("li", { id: listId + "-" + index, role: "option", "aria-selected": "false", "data-id": category.id }, category.path);
        item.addEventListener("mousedown", function (event) { event.preventDefault(); choose(category); });
        list.appendChild(item);
      });
      list.hidden = !shown.length;
      input.setAttribute("aria-expanded", shown.length ? "true" : "false");
      if (!matches.length) {
        status.textContent = text.labelNone;
      } else if (matches.length > shown.length) {
        status.textContent = text.labelMore.replace("%(count)s", String(matches.length)).replace("%(shown)s", String(shown.length));
      } else {
        status.textContent = text.labelCount.replace("%(count)s", String(matches.length));
      }
    }

    input.addEventListener("focus", load);
    input.addEventListener("input", function () {
      var query = input.value.trim();
      load().then(function () { if (input.value.trim() === query) { render(query); } });
    });
    input.addEventListener("keydown", function (event) {
      if (event.key === "ArrowDown") { event.preventDefault(); if (list.hidden) { render(input.value.trim()); } highlight(active + 1); }
      else if (event.key === "ArrowUp") { event.preventDefault(); highlight(active - 1); }
      else if (event.key === "Enter") {
        if (!list.hidden && shown.length) {
          event.preventDefault();  // choosing, not sending the form
          choose(shown[active >= 0 ? active : 0]);
        }
      } else if (event.key === "Escape") { close(); }
    });
    input.addEventListener("blur", function () { window.setTimeout(close, 150); });

    // Suggestions for the title typed.
    var title = document.getElementById(box.getAttribute("data-title-field"));
    var timer = null;
    var asked = "";
    function showSuggestions(items) {
      while (suggestions.firstChild) { suggestions.removeChild(suggestions.firstChild); }
      if (!items.length) { return; }
      suggestions.appendChild(element("p", { "class": "helptext" }, text.labelSuggested));
      var ul = element("ul", { "class": "category-suggestion-list" });
      items.forEach(function (item) {
        var li = element("li");
        var button = element("button", { type: "button", "class": "secondary small", "data-id": String(item.id) }, item.path);
        button.addEventListener("click", function () { choose({ id: String(item.id), path: item.path }); });
        li.appendChild(button);
        ul.appendChild(li);
      });
      suggestions.appendChild(ul);
    }
    function suggest() {
      var value = title.value.trim().slice(0, 200);
      if (value === asked) { return; }
      asked = value;
      if (value.length < 2) { showSuggestions([]); return; }
      getJson(box.getAttribute("data-suggest-url") + "?title=" + encodeURIComponent(value))
        .then(function (data) { if (title.value.trim().slice(0, 200) === value) { showSuggestions(data && data.suggestions || []); } })
        .catch(function () { /* no suggestions: the picker and the list still work */ });
    }
    if (title) {
      title.addEventListener("input", function () {
        if (timer) { window.clearTimeout(timer); }
        timer = window.setTimeout(suggest, 350);
      });
      if (title.value.trim() && !select.value) { suggest(); }
    }
  }

  // --- repeated rows -----------------------------------------------------------------------

  function setUpRows(fieldset) {
    var prefix = fieldset.getAttribute("data-formset-prefix");
    var total = fieldset.querySelector('input[name="' + prefix + '-TOTAL_FORMS"]');
    var maximum = fieldset.querySelector('input[name="' + prefix + '-MAX_NUM_FORMS"]');
    var rows = fieldset.querySelector("[data-formset-rows]");
    var template = fieldset.querySelector("template[data-formset-template]");
    var add = fieldset.querySelector("[data-formset-add]");
    if (!total || !rows || !template || !add) { return; }

    function enhance(row) {
      var box = row.querySelector("[data-formset-delete]");
      var button = row.querySelector("[data-formset-remove]");
      if (!box || !button) { return; }
      box.hidden = true;
      button.hidden = false;
      button.addEventListener("click", function () {
        var checkbox = box.querySelector("input[type=checkbox]");
        if (checkbox) { checkbox.checked = true; }
        row.hidden = true;
        var next = row.nextElementSibling;
        while (next && next.hidden) { next = next.nextElementSibling; }
        var focusTarget = next ? next.querySelector("input:not([type=hidden]):not([type=checkbox])") : add;
        (focusTarget || add).focus();
        update();
      });
    }

    function update() {
      add.hidden = maximum && Number(total.value) >= Number(maximum.value);
    }

    Array.prototype.forEach.call(rows.querySelectorAll("[data-formset-row]"), enhance);
    add.addEventListener("click", function () {
      var index = Number(total.value);
      var html = template.innerHTML.replace(/__prefix__/g, String(index)).replace(/__number__/g, String(index + 1));
      var holder = document.createElement("tbody");
      holder.innerHTML = html;
      var row = holder.querySelector("[data-formset-row]");
      rows.appendChild(row);
      total.value = String(index + 1);
      enhance(row);
      update();
      var first = row.querySelector("input:not([type=hidden]):not([type=checkbox])");
      if (first) { first.focus(); }
    });
    update();
  }

  function start() {
    setUpErrorSummary();
    Array.prototype.forEach.call(document.querySelectorAll("[data-category-picker]"), setUpPicker);
    Array.prototype.forEach.call(document.querySelectorAll("[data-formset]"), setUpRows);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
