/* The supplier desk's charts, drawn with Chart.js (vendor/chart.umd.js, ADR 0018) from the
   page's data block (<script type="application/json" id="desk-data">, Django's json_script:
   no inline script, the Content-Security-Policy holds). Every chart's numbers are also in a
   table on the page, which is what a reader without scripts or a screen reader uses; the
   charts' box stays hidden until they are drawn. Numbers are formatted for the page's
   language (Intl, from the data block's locale), week labels come formatted from the server. */
(function () {
  "use strict";
  var source = document.getElementById("desk-data");
  var Chart = window.Chart;
  if (!source || !Chart) { return; }
  var data = JSON.parse(source.textContent);
  var root = getComputedStyle(document.documentElement);
  function colour(name, fallback) {
    return root.getPropertyValue(name).trim() || fallback;
  }
  var brand = colour("--brand", "#c2410c");
  var link = colour("--link", "#1d5fa8");
  var ok = colour("--ok", "#237a3b");
  var muted = colour("--muted", "#5f6b7a");
  var number = new Intl.NumberFormat(data.locale, { maximumFractionDigits: 1 });
  var percent = new Intl.NumberFormat(data.locale, { style: "percent", maximumFractionDigits: 0 });

  Chart.defaults.locale = data.locale;
  Chart.defaults.font.family = getComputedStyle(document.body).fontFamily;
  Chart.defaults.color = colour("--ink-soft", "#3a4654");
  Chart.defaults.borderColor = colour("--line", "#e1e6ec");
  Chart.defaults.maintainAspectRatio = false;
  if (window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches) {
    Chart.defaults.animation = false;
  }

  function label(name, value) {
    return data.names.label.replace("%(name)s", name).replace("%(value)s", value);
  }
  function tooltip(format) {
    return { callbacks: { label: function (item) {
      var value = item.parsed[item.chart.options.indexAxis === "y" ? "x" : "y"];
      return label(item.dataset.label, format(item.dataset, value));
    } } };
  }
  function plain(dataset, value) { return number.format(value); }
  var counts = { beginAtZero: true, ticks: { precision: 0 } };

  document.querySelectorAll("[data-desk-charts]").forEach(function (box) { box.hidden = false; });

  function draw(id, config) {
    var canvas = document.getElementById(id);
    if (canvas) { new Chart(canvas, config); }
  }

  draw("chart-views", {
    type: "bar",
    data: { labels: data.weeks, datasets: [
      { label: data.names.views, data: data.views, backgroundColor: brand, maxBarThickness: 40 }
    ] },
    options: { scales: { y: counts }, plugins: { legend: { display: false }, tooltip: tooltip(plain) } }
  });

  draw("chart-trade", {
    type: "bar",
    data: { labels: data.weeks, datasets: [
      { label: data.names.inquiries, data: data.inquiries, backgroundColor: link },
      { label: data.names.sent, data: data.sent, backgroundColor: muted },
      { label: data.names.won, data: data.won, backgroundColor: ok }
    ] },
    options: { scales: { y: counts }, plugins: { tooltip: tooltip(plain) } }
  });

  draw("chart-response", {
    type: "line",
    data: { labels: data.weeks, datasets: [
      { label: data.names.rate, data: data.rate, yAxisID: "rate", borderColor: ok,
        backgroundColor: ok, spanGaps: true },
      { label: data.names.hours, data: data.hours, yAxisID: "hours", borderColor: link,
        backgroundColor: link, borderDash: [6, 4], spanGaps: true }
    ] },
    options: {
      scales: {
        rate: { position: "left", min: 0, max: 1,
          ticks: { callback: function (value) { return percent.format(value); } } },
        hours: { position: "right", beginAtZero: true, grid: { drawOnChartArea: false } }
      },
      plugins: { tooltip: tooltip(function (dataset, value) {
        return dataset.yAxisID === "rate" ? percent.format(value) : number.format(value);
      }) }
    }
  });

  draw("chart-words", {
    type: "bar",
    data: { labels: data.words, datasets: [
      { label: data.names.impressions, data: data.impressions, backgroundColor: brand,
        maxBarThickness: 28 }
    ] },
    options: { indexAxis: "y", scales: { x: counts },
      plugins: { legend: { display: false }, tooltip: tooltip(plain) } }
  });
})();
