/* The operator's membership analytics charts, drawn with Chart.js (vendor/chart.umd.js, ADR
   0018) from the page's data block (<script type="application/json" id="analytics-data">,
   Django's json_script: no inline script, the Content-Security-Policy holds). The page's
   tables hold every number (what readers without scripts and screen readers use); the charts'
   box stays hidden until they are drawn. Labels come formatted from the server, numbers are
   formatted for the page's language here (Intl). */
(function () {
  "use strict";
  var block = document.getElementById("analytics-data");
  if (!block || !window.Chart) { return; }
  var Chart = window.Chart;
  var data = JSON.parse(block.textContent);
  var style = getComputedStyle(document.documentElement);
  var palette = [
    ["--brand", "#c2410c"], ["--link", "#1d5fa8"], ["--ok", "#237a3b"], ["--muted", "#5f6b7a"]
  ].map(function (pair) { return style.getPropertyValue(pair[0]).trim() || pair[1]; });
  var ink = style.getPropertyValue("--ink").trim() || "#1c2733";
  var formats = {
    count: new Intl.NumberFormat(data.locale, { maximumFractionDigits: 0 }),
    rate: new Intl.NumberFormat(data.locale, { style: "percent", maximumFractionDigits: 0 }),
    usd: new Intl.NumberFormat(data.locale, { style: "currency", currency: "USD",
      maximumFractionDigits: 0 })
  };

  Chart.defaults.locale = data.locale;
  Chart.defaults.font.family = getComputedStyle(document.body).fontFamily;
  Chart.defaults.color = style.getPropertyValue("--ink-soft").trim() || "#3a4654";
  Chart.defaults.borderColor = style.getPropertyValue("--line").trim() || "#e1e6ec";
  Chart.defaults.maintainAspectRatio = false;
  if (window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches) {
    Chart.defaults.animation = false;
  }

  function series(list, extra) {
    return list.map(function (item, index) {
      var colour = palette[index % palette.length];
      return Object.assign({ label: item.name, data: item.data, borderColor: colour,
        backgroundColor: colour }, extra || {});
    });
  }
  function options(kind, stacked) {
    var format = formats[kind];
    var axis = { beginAtZero: true, stacked: stacked,
      ticks: { callback: function (value) { return format.format(value); } } };
    if (kind === "rate") { axis.max = 1; }
    if (kind === "count") { axis.ticks.precision = 0; }
    return {
      scales: { x: { stacked: stacked }, y: axis },
      plugins: { tooltip: { callbacks: { label: function (item) {
        return data.names.label.replace("%(name)s", item.dataset.label)
          .replace("%(value)s", format.format(item.parsed.y));
      } } } }
    };
  }
  function draw(id, type, labels, datasets, kind, stacked) {
    var canvas = document.getElementById(id);
    if (canvas && labels.length) {
      new Chart(canvas, { type: type, data: { labels: labels, datasets: datasets },
        options: options(kind, stacked) });
    }
  }

  document.querySelectorAll("[data-desk-charts]").forEach(function (box) { box.hidden = false; });

  var everyPlan = { label: data.names.rate, data: data.rate, borderColor: ink,
    backgroundColor: ink, borderWidth: 3 };
  draw("chart-renewals", "line", data.years,
    [everyPlan].concat(series(data.plan_rates, { borderDash: [6, 4], spanGaps: true })), "rate",
    false);
  var total = { label: data.names.total, data: data.members_total, borderColor: ink,
    backgroundColor: ink, borderWidth: 3, pointRadius: 0 };
  draw("chart-members", "line", data.months,
    [total].concat(series(data.members, { pointRadius: 0 })), "count", false);
  draw("chart-revenue", "bar", data.months, series(data.revenue), "usd", true);
})();
