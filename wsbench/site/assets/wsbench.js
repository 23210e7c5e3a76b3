/* wsbench's site script (loaded on every page by the mkdocs hook, wsbench/site/assets.py).

   - Charts: each chart of a page is a static SVG (the fallback without JavaScript) followed
     by its data, <script type="application/json" class="wsbench-chart">, in the format of
     wsbench.site.sweeps.chart_data. Where the page has one, this script loads Apache ECharts
     (bundled in assets/vendor/, never a CDN) and draws the chart from that data: values and
     intervals on hover, series toggled from the legend and highlighted when the legend
     is hovered, a log axis toggle, and with many series the best ten first ("Show all").
   - Tables: every table of the article sorts by any column (tablesort, bundled); a
     leaderboard table followed by <script type="application/json" class="wsbench-rows">
     (each row's protocol, server and event loop, in the table's order) keeps its first
     two columns in view while it scrolls sideways. (An attribute marks them, not a class:
     material styles only tables without a class.)
   - Filters: a page with charts or such tables gets one filter bar (protocol, server, event
     loop, name) that narrows every chart and table of the page at once.
   - Deployment profiles: a page whose sets were measured in several profiles opens each
     profile's block with <div class="wsbench-profile" data-profile=NAME data-title=TITLE>
     (wsbench.site.interactive.profile_marker; a block runs to the next one or to
     <div class="wsbench-profile-end">). The filter bar then has a Profile choice of the
     profiles on the page: the first (tuned) shows by default, the others' blocks are hidden
     until picked; a link to a heading inside a hidden block picks its profile. Without
     JavaScript every block shows, each heading naming its profile.
   - A table of ratios to tuned (its rows element has data-table="costs",
     wsbench.site.deployment_page) keeps its first column in view while it scrolls.
   - CPU per message by where it goes (a chart's data of kind "shares",
     wsbench.site.profiles.shares_chart_data): one stacked bar per configuration, in the
     leaderboard's order, its segments the classes of the CPU (their names and colours from
     the data); the table before it (the same figures) is the fallback without JavaScript.
   - Flame graphs: a link of class "wsbench-flame-data" (wsbench.site.profiles.flame_link)
     points to a flame graph's JSON (wsbench.site.profiles.flame_data); this script loads
     d3 and d3-flame-graph (bundled, only on such a page), fetches the file and draws the
     flame graph above the link, as wide as its column: click a frame to zoom into it, a
     search box highlights frames by name, a button resets the zoom.
*/
(function () {
  "use strict";

  var SCRIPT = document.currentScript;
  var VENDOR = new URL("vendor/", SCRIPT ? SCRIPT.src : location.href).href;
  var TOP = 10; // series shown first when a chart has more than TOP + 2
  var COLORS = [
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
    "#17becf", "#7f7f7f", "#bcbd22", "#393b79", "#637939", "#8c6d31", "#843c39",
    "#7b4173", "#3182bd", "#e6550d", "#31a354", "#756bb1", "#636363",
  ];
  var ALL = "";

  /* ---------- filters shared by every chart and table of the page ---------- */

  var filters = { protocol: ALL, server: ALL, loop: ALL, text: "", profile: ALL };
  var listeners = [];

  function facetsOf(item) {
    return {
      protocol: item.socketio ? "Socket.IO" : "WebSocket",
      server: item.server || "",
      loop: item.event_loop || "",
      label: item.label || "",
      reference: !!item.reference,
    };
  }

  function passes(f) {
    if (filters.protocol && f.protocol !== filters.protocol) return false;
    if (f.reference) return true; // the reference stays as the yardstick
    if (filters.server && f.server !== filters.server) return false;
    if (filters.loop && f.loop !== filters.loop) return false;
    if (filters.text && f.label.toLowerCase().indexOf(filters.text) < 0) return false;
    return true;
  }

  function changed() {
    listeners.forEach(function (fn) { fn(); });
  }

  function select(name, title, values) {
    var label = document.createElement("label");
    label.textContent = title + " ";
    var sel = document.createElement("select");
    sel.name = name;
    sel.setAttribute("aria-label", title);
    [ALL].concat(values).forEach(function (v) {
      var opt = document.createElement("option");
      opt.value = v;
      opt.textContent = v === ALL ? "all" : v;
      sel.appendChild(opt);
    });
    sel.addEventListener("change", function () {
      filters[name] = sel.value;
      changed();
    });
    label.appendChild(sel);
    return label;
  }

  function uniq(values) {
    return Array.from(new Set(values.filter(Boolean))).sort(function (a, b) {
      return a.localeCompare(b);
    });
  }

  /* ---------- deployment profiles: one block of the page each ---------- */

  var profileMarkers = [];

  // The elements of a marker's block: its following siblings up to the next marker or end.
  function blockOf(marker) {
    var out = [];
    for (var el = marker.nextElementSibling; el; el = el.nextElementSibling) {
      if (el.classList.contains("wsbench-profile") ||
          el.classList.contains("wsbench-profile-end")) break;
      if (!el.classList.contains("wsbench-filters")) out.push(el);
    }
    return out;
  }

  function showProfile() {
    if (!filters.profile) return;
    profileMarkers.forEach(function (marker) {
      var hide = marker.getAttribute("data-profile") !== filters.profile;
      blockOf(marker).forEach(function (el) { el.hidden = hide; });
    });
  }

  // The profile of the block holding the element a URL's fragment names, or null.
  function profileOfHash() {
    var id = decodeURIComponent(location.hash.slice(1));
    var target = id && document.getElementById(id);
    if (!target) return null;
    for (var i = 0; i < profileMarkers.length; i++) {
      if (blockOf(profileMarkers[i]).some(function (el) { return el === target || el.contains(target); })) {
        return profileMarkers[i].getAttribute("data-profile");
      }
    }
    return null;
  }

  function profileSelect() {
    var label = document.createElement("label");
    label.textContent = "Profile ";
    var sel = document.createElement("select");
    sel.name = "profile";
    sel.setAttribute("aria-label", "Deployment profile");
    var seen = {};
    profileMarkers.forEach(function (marker) {
      var name = marker.getAttribute("data-profile");
      if (seen[name]) return;
      seen[name] = true;
      var opt = document.createElement("option");
      opt.value = name;
      opt.textContent = marker.getAttribute("data-title") || name;
      sel.appendChild(opt);
    });
    sel.value = filters.profile;
    sel.addEventListener("change", function () {
      filters.profile = sel.value;
      showProfile();
      changed();
    });
    window.addEventListener("hashchange", function () {
      var found = profileOfHash();
      if (found && found !== filters.profile) {
        filters.profile = sel.value = found;
        showProfile();
        changed();
        var target = document.getElementById(decodeURIComponent(location.hash.slice(1)));
        if (target) target.scrollIntoView();
      }
    });
    label.appendChild(sel);
    return label;
  }

  function filterBar(facets, before) {
    var bar = document.createElement("form");
    bar.className = "wsbench-filters";
    bar.setAttribute("role", "search");
    bar.addEventListener("submit", function (e) { e.preventDefault(); });
    var title = document.createElement("strong");
    title.textContent = "Filter every chart and table of this page:";
    bar.appendChild(title);
    if (filters.profile) bar.appendChild(profileSelect());
    var rows = facets.filter(function (f) { return !f.reference; });
    bar.appendChild(select("protocol", "Protocol", uniq(facets.map(function (f) { return f.protocol; }))));
    bar.appendChild(select("server", "Server", uniq(rows.map(function (f) { return f.server; }))));
    bar.appendChild(select("loop", "Event loop", uniq(rows.map(function (f) { return f.loop; }))));
    var label = document.createElement("label");
    label.textContent = "Name ";
    var input = document.createElement("input");
    input.type = "search";
    input.name = "text";
    input.placeholder = "e.g. uvicorn";
    input.setAttribute("aria-label", "Name contains");
    input.addEventListener("input", function () {
      filters.text = input.value.trim().toLowerCase();
      changed();
    });
    label.appendChild(input);
    bar.appendChild(label);
    before.parentNode.insertBefore(bar, before);
  }

  /* ---------- tables ---------- */

  var NUMBER = /^[\s≈⚠]*([-+]?[\d,]*\.?\d+(?:e[-+]?\d+)?)/i;

  function numberIn(text) {
    var m = NUMBER.exec(text);
    return m ? m[1].replace(/,/g, "") : null;
  }

  // Each cell's sort key (data-sort, which tablesort reads): in a column of figures the
  // leading number ("12,345 (12,100–12,600)" sorts as 12345) and "" for a dash or "failed";
  // elsewhere the text.
  function setSortKeys(body) {
    var rows = Array.prototype.slice.call(body.rows);
    var width = rows.reduce(function (n, tr) { return Math.max(n, tr.cells.length); }, 0);
    for (var c = 0; c < width; c++) {
      var cells = rows.map(function (tr) { return tr.cells[c]; }).filter(Boolean);
      var numbers = cells.filter(function (td) { return numberIn(td.textContent) !== null; });
      var figures = numbers.length * 2 >= cells.length && numbers.length > 0;
      cells.forEach(function (td) {
        var n = numberIn(td.textContent);
        td.setAttribute("data-sort", figures ? (n === null ? "" : n) : td.textContent.trim());
      });
    }
  }

  function tableOf(script) {
    var el = script.previousElementSibling;
    if (!el) return null;
    return el.tagName === "TABLE" ? el : el.querySelector("table");
  }

  function setUpTable(table, rows, kind) {
    table.setAttribute("data-wsbench-table", rows ? kind || "leaderboard" : "sortable");
    var body = table.tBodies[0];
    if (!body) return;
    setSortKeys(body);
    Array.prototype.forEach.call(body.rows, function (tr, i) {
      if (rows && rows[i]) tr.wsbenchFacets = facetsOf(rows[i]);
    });
    if (window.Tablesort && table.tHead && !table.wsbenchSort) {
      table.wsbenchSort = new window.Tablesort(table);
    }
    if (rows) {
      var first = table.tHead && table.tHead.rows[0] && table.tHead.rows[0].cells[0];
      var fix = function () {
        if (first) table.style.setProperty("--wsbench-first-width", first.offsetWidth + "px");
      };
      fix();
      window.addEventListener("resize", fix);
      listeners.push(function () {
        Array.prototype.forEach.call(body.rows, function (tr) {
          tr.hidden = tr.wsbenchFacets ? !passes(tr.wsbenchFacets) : false;
        });
      });
    }
  }

  /* ---------- charts ---------- */

  function fmt(v) {
    if (v === null || v === undefined) return "—";
    var a = Math.abs(v);
    if (a >= 100) return Math.round(v).toLocaleString("en-US");
    return Number(v.toPrecision(3)).toLocaleString("en-US");
  }

  // numbers: the chart's "statistics" (the site's confidence level and unstable threshold)
  function pointText(s, p, unit, numbers) {
    var lines = ["<strong>" + escapeHtml(s.label) + "</strong>", escapeHtml(p.at || "")];
    if (p.status !== "ok") {
      lines.push("failed: " + escapeHtml((p.error || p.status).slice(0, 160)));
    } else {
      var v = fmt(p.y) + " " + escapeHtml(unit);
      if (p.interval) {
        v += " (" + numbers.confidence_percent + " % interval " + fmt(p.interval[0]) + "–" +
          fmt(p.interval[1]) + ")";
      }
      lines.push(v);
      if (p.unstable) {
        lines.push("≈ unstable: coefficient of variation above " + numbers.unstable_percent + " %");
      }
      if (p.client_bound) lines.push("⚠ client-bound: the load generator was busy");
    }
    if (p.run_id) lines.push("run " + escapeHtml(p.run_id));
    return lines.join("<br>");
  }

  function escapeHtml(t) {
    return String(t).replace(/[&<>"]/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c];
    });
  }

  function lastValue(s) {
    for (var i = s.points.length - 1; i >= 0; i--) {
      if (s.points[i].status === "ok" && s.points[i].y !== null) return s.points[i].y;
    }
    return null;
  }

  function ranked(series, higher) {
    return series.slice().sort(function (a, b) {
      var va = lastValue(a), vb = lastValue(b);
      if (va === null) return 1;
      if (vb === null) return -1;
      return higher ? vb - va : va - vb;
    });
  }

  function whisker(params, api) {
    var low = api.coord([api.value(0), api.value(1)]);
    var high = api.coord([api.value(0), api.value(2)]);
    var w = 4;
    var style = { stroke: api.visual("color"), lineWidth: 1.2 };
    return {
      type: "group",
      children: [
        { type: "line", shape: { x1: low[0], y1: low[1], x2: high[0], y2: high[1] }, style: style },
        { type: "line", shape: { x1: low[0] - w, y1: low[1], x2: low[0] + w, y2: low[1] }, style: style },
        { type: "line", shape: { x1: high[0] - w, y1: high[1], x2: high[0] + w, y2: high[1] }, style: style },
      ],
    };
  }

  // A bar's interval. Clipped to the plot: an end beyond the axis is drawn as an arrow at the
  // edge (3 server processes can give an interval many times the figure; stretching the axis
  // to it would flatten every bar), and the tooltip gives the interval's numbers.
  function hwhisker(params, api) {
    var box = params.coordSys;
    var left = api.coord([api.value(1), api.value(0)]);
    var right = api.coord([api.value(2), api.value(0)]);
    var y = left[1];
    var x1 = Math.max(left[0], box.x);
    var x2 = Math.min(right[0], box.x + box.width);
    var h = 5;
    var style = { stroke: "#333", lineWidth: 1.2 };
    function end(x, cut, inward) {
      return cut
        ? { type: "polyline", shape: { points: [[x + inward, y - h], [x, y], [x + inward, y + h]] }, style: style }
        : { type: "line", shape: { x1: x, y1: y - h, x2: x, y2: y + h }, style: style };
    }
    return {
      type: "group",
      children: [
        { type: "line", shape: { x1: x1, y1: y, x2: x2, y2: y }, style: style },
        end(x1, left[0] < box.x, h),
        end(x2, right[0] > box.x + box.width, -h),
      ],
    };
  }

  function colorOf(data, s) {
    return COLORS[data.series.indexOf(s) % COLORS.length];
  }

  function rankingOption(data, shown, logAxis, narrow) {
    var unit = data.figure.unit;
    var higher = data.figure.higher_is_better;
    var order = ranked(shown, higher).filter(function (s) { return lastValue(s) !== null; });
    order.reverse(); // ECharts draws the first category at the bottom
    var labels = order.map(function (s) { return s.label; });
    var bars = order.map(function (s) {
      var p = s.points[s.points.length - 1];
      return {
        value: p.y,
        itemStyle: {
          color: s.reference ? "#9e9e9e" : s.socketio ? "#ff7f0e" : "#1f77b4",
          borderColor: p.client_bound ? "#000" : undefined,
          borderType: "dashed",
          borderWidth: p.client_bound ? 1 : 0,
        },
        wsbench: [s, p],
      };
    });
    var whiskers = order.map(function (s, i) {
      var p = s.points[s.points.length - 1];
      return p.interval ? [i, p.interval[0], p.interval[1]] : [i, p.y, p.y];
    });
    return {
      animation: false,
      grid: { left: 8, right: 24, top: 8, bottom: 40, containLabel: true },
      tooltip: {
        trigger: "item",
        formatter: function (it) {
          var d = it.data && it.data.wsbench;
          return d ? pointText(d[0], d[1], unit, data.statistics) : "";
        },
      },
      xAxis: {
        type: logAxis ? "log" : "value",
        name: unit + (higher ? " (higher is better)" : " (lower is better)"),
        nameLocation: "middle",
        nameGap: 26,
        splitNumber: narrow ? 3 : 5,
        axisLabel: { formatter: fmt, hideOverlap: true },
      },
      yAxis: {
        type: "category",
        data: labels,
        axisLabel: { width: narrow ? 130 : 260, overflow: "truncate" },
      },
      series: [
        { type: "bar", data: bars, barMaxWidth: 22 },
        { type: "custom", renderItem: hwhisker, data: whiskers, tooltip: { show: false }, z: 3 },
      ],
    };
  }

  function linesOption(data, shown, logY, narrow) {
    var unit = data.figure.unit;
    var category = data.x.values.some(function (v) { return typeof v === "string"; });
    var series = [];
    shown.forEach(function (s) {
      var color = colorOf(data, s);
      var pts = s.points.filter(function (p) { return p.status === "ok" && p.y !== null && p.x !== null; });
      series.push({
        name: s.label,
        type: "line",
        color: color,
        symbol: "circle",
        symbolSize: 7,
        lineStyle: { type: s.socketio ? "dashed" : "solid", width: s.reference ? 2.5 : 1.6 },
        emphasis: { focus: "series" },
        data: pts.map(function (p) {
          return {
            value: [category ? String(p.x) : p.x, p.y],
            symbol: p.client_bound ? "emptyCircle" : "circle",
            wsbench: [s, p],
          };
        }),
      });
      series.push({
        name: s.label,
        type: "custom",
        color: color,
        renderItem: whisker,
        tooltip: { show: false },
        emphasis: { focus: "series" },
        data: pts.filter(function (p) { return p.interval; }).map(function (p) {
          return [category ? String(p.x) : p.x, p.interval[0], p.interval[1]];
        }),
      });
    });
    return {
      animation: false,
      grid: narrow
        ? { left: 8, right: 16, top: 30, bottom: 200, containLabel: true }
        : { left: 8, right: 300, top: 30, bottom: 30, containLabel: true },
      tooltip: {
        trigger: "item",
        formatter: function (it) {
          var d = it.data && it.data.wsbench;
          return d ? pointText(d[0], d[1], unit, data.statistics) : "";
        },
      },
      legend: narrow
        ? { type: "scroll", orient: "horizontal", left: 0, right: 0, bottom: 0, height: 180,
            textStyle: { width: 300, overflow: "truncate" } }
        : { type: "scroll", orient: "vertical", right: 0, top: 20, bottom: 10, width: 290,
            textStyle: { width: 250, overflow: "truncate" }, tooltip: { show: true } },
      xAxis: category
        ? { type: "category", name: data.x.label, nameLocation: "middle", nameGap: 28,
            data: data.x.values.map(String) }
        : { type: data.x.log ? "log" : "value", name: data.x.label, nameLocation: "middle",
            nameGap: 28, axisLabel: { formatter: fmt, hideOverlap: true },
            min: Math.min.apply(null, data.x.values), max: Math.max.apply(null, data.x.values) },
      yAxis: { type: logY ? "log" : "value", name: unit, axisLabel: { formatter: fmt } },
      series: series,
    };
  }

  function isRanking(data) {
    return data.x.values.length <= 1; // one value on the axis: a ranking reads better
  }

  function sharesOption(data, shown, narrow, width) {
    var order = shown.slice().reverse(); // ECharts draws the first category at the bottom
    var series = data.classes.map(function (c, i) {
      return {
        name: c.name,
        type: "bar",
        stack: "cpu",
        color: c.color,
        barMaxWidth: narrow ? 10 : 18,
        emphasis: { focus: "series" },
        data: order.map(function (s) { return { value: s.values[i], wsbench: s }; }),
      };
    });
    return {
      animation: false,
      legend: { top: 0, left: 0, itemWidth: 14, itemHeight: 10 },
      grid: { left: 8, right: 24, top: narrow ? 58 : 34, bottom: 40, containLabel: true },
      tooltip: {
        trigger: "axis",
        axisPointer: { type: "shadow" },
        formatter: function (items) {
          var s = items.length && items[0].data && items[0].data.wsbench;
          if (!s) return "";
          var lines = ["<strong>" + escapeHtml(s.label) + "</strong>",
            fmt(s.total) + " " + escapeHtml(data.unit) + " of server CPU per message"];
          items.forEach(function (it) {
            var share = s.total ? Math.round(100 * it.value / s.total) : 0;
            lines.push(it.marker + escapeHtml(it.seriesName) + ": " + fmt(it.value) + " " +
              escapeHtml(data.unit) + " (" + share + " %)");
          });
          if (s.run_id) lines.push("profiled in run " + escapeHtml(s.run_id));
          return lines.join("<br>");
        },
      },
      xAxis: {
        type: "value",
        name: data.unit + (narrow ? " of CPU per message" : " of server CPU per message (lower is better)"),
        nameLocation: "middle",
        nameGap: 26,
        splitNumber: narrow ? 3 : 5,
        axisLabel: { formatter: fmt, hideOverlap: true },
      },
      // On a phone each name is written whole above its bar, not cut beside it.
      yAxis: narrow ? {
        type: "category",
        data: order.map(function (s) { return s.label; }),
        axisTick: { show: false },
        z: 10,
        axisLabel: { inside: true, align: "left", verticalAlign: "bottom", padding: [0, 0, 7, 6],
          width: Math.max(120, width - 30), overflow: "truncate", fontSize: 11, color: "#333" },
      } : {
        type: "category",
        data: order.map(function (s) { return s.label; }),
        axisLabel: { width: 300, overflow: "truncate" },
      },
      series: series,
    };
  }

  function setUpShares(echarts, script, data) {
    var fallback = script.previousElementSibling;
    var box = document.createElement("div");
    box.className = "wsbench-chart";
    var canvas = document.createElement("div");
    canvas.className = "wsbench-echart";
    canvas.setAttribute("role", "img");
    canvas.setAttribute("aria-label", data.title || "chart");
    box.appendChild(canvas);
    script.parentNode.insertBefore(box, script);
    if (fallback && (fallback.tagName === "TABLE" || fallback.querySelector("table"))) {
      fallback.classList.add("wsbench-fallback");
    }
    data.series.forEach(function (s) { s.facets = facetsOf(s); });
    var chart = null;
    function draw() {
      var shown = data.series.filter(function (s) { return passes(s.facets); });
      var narrow = canvas.clientWidth < 700;
      var row = narrow ? 34 : 24;
      canvas.style.height = Math.max(160, row * shown.length + (narrow ? 110 : 86)) + "px";
      if (!chart) chart = echarts.init(canvas, null, { renderer: "svg" });
      else chart.resize();
      chart.setOption(sharesOption(data, shown, narrow, canvas.clientWidth), { notMerge: true });
    }
    listeners.push(draw);
    window.addEventListener("resize", function () { if (chart) draw(); });
    draw();
    box.wsbenchChart = function () { return chart; };
  }

  function setUpChart(echarts, script) {
    var data;
    try {
      data = JSON.parse(script.textContent);
    } catch (e) {
      console.warn("wsbench: chart data is not JSON", e);
      return;
    }
    if (data.kind === "shares") {
      setUpShares(echarts, script, data);
      return;
    }
    var fallback = script.previousElementSibling;
    var box = document.createElement("div");
    box.className = "wsbench-chart";
    var tools = document.createElement("div");
    tools.className = "wsbench-chart-tools";
    var canvas = document.createElement("div");
    canvas.className = "wsbench-echart";
    canvas.setAttribute("role", "img");
    canvas.setAttribute("aria-label", data.title || "chart");
    box.appendChild(tools);
    box.appendChild(canvas);
    script.parentNode.insertBefore(box, script);
    if (fallback && fallback.querySelector && fallback.querySelector("img")) {
      fallback.classList.add("wsbench-fallback");
    }
    data.series.forEach(function (s) { s.facets = facetsOf(s); });
    var ranking = isRanking(data);
    var state = { all: false, log: ranking ? false : !!data.figure.log_y };

    var count = document.createElement("span");
    count.className = "wsbench-count";
    tools.appendChild(count);
    var more = document.createElement("button");
    more.type = "button";
    more.className = "md-button wsbench-more";
    tools.appendChild(more);
    var logLabel = document.createElement("label");
    var logBox = document.createElement("input");
    logBox.type = "checkbox";
    logBox.checked = state.log;
    logLabel.appendChild(logBox);
    logLabel.appendChild(document.createTextNode(" log scale"));
    tools.appendChild(logLabel);

    var chart = null;
    function draw() {
      var passing = data.series.filter(function (s) { return passes(s.facets); });
      var plotted = passing.filter(function (s) { return lastValue(s) !== null; });
      var shown = plotted;
      var limit = plotted.length > TOP + 2 && !state.all;
      if (limit) {
        var refs = plotted.filter(function (s) { return s.reference; });
        var best = ranked(plotted.filter(function (s) { return !s.reference; }),
          data.figure.higher_is_better).slice(0, TOP);
        shown = data.series.filter(function (s) { return refs.indexOf(s) >= 0 || best.indexOf(s) >= 0; });
      }
      var measured = data.series.filter(function (s) { return !s.reference && lastValue(s) !== null; });
      count.textContent = "Showing " + shown.filter(function (s) { return !s.reference; }).length +
        " of " + measured.length + " configurations with a figure";
      more.style.display = plotted.length <= TOP + 2 ? "none" : "";
      more.textContent = state.all ? "Show the best " + TOP : "Show all";
      var narrow = canvas.clientWidth < 700;
      var height = ranking ? Math.max(160, 26 * shown.length + 70) : (narrow ? 620 : 440);
      canvas.style.height = height + "px";
      if (!chart) chart = echarts.init(canvas, null, { renderer: "svg" });
      else chart.resize();
      chart.setOption(ranking ? rankingOption(data, shown, state.log, narrow)
        : linesOption(data, shown, state.log, narrow), { notMerge: true });
    }
    more.addEventListener("click", function () { state.all = !state.all; draw(); });
    logBox.addEventListener("change", function () { state.log = logBox.checked; draw(); });
    listeners.push(draw);
    window.addEventListener("resize", function () { if (chart) draw(); });
    draw();
    box.wsbenchChart = function () { return chart; };
  }

  // A bundled library (assets/vendor/NAME), loaded once; resolves to window[global].
  function loadScript(name, global) {
    if (window[global]) return Promise.resolve(window[global]);
    return new Promise(function (resolve, reject) {
      var s = document.createElement("script");
      s.src = VENDOR + name;
      s.onload = function () { resolve(window[global]); };
      s.onerror = function () { reject(new Error("could not load " + s.src)); };
      document.head.appendChild(s);
    });
  }

  function loadECharts() {
    return loadScript("echarts.min.js", "echarts");
  }

  /* ---------- flame graphs ---------- */

  // d3-flame-graph's UMD build expects d3 as a global: d3 first. Its global "flamegraph" is
  // a module object whose default export makes a chart (it adds its own stylesheet).
  function loadFlameGraph() {
    return loadScript("d3.min.js", "d3").then(function () {
      return loadScript("d3-flamegraph.min.js", "flamegraph");
    }).then(function (lib) {
      var make = lib && (lib["default"] || lib.flamegraph || lib);
      if (typeof make !== "function") throw new Error("d3-flame-graph did not load");
      return make;
    });
  }

  // A class's colour made lighter, so that a frame's black label reads on it.
  function tint(hex, amount) {
    var n = parseInt(hex.slice(1), 16);
    var mix = function (c) { return Math.round(c + (255 - c) * amount); };
    var r = mix((n >> 16) & 255), g = mix((n >> 8) & 255), b = mix(n & 255);
    return "rgb(" + r + "," + g + "," + b + ")";
  }

  function setUpFlame(lib, link) {
    var anchor = link.closest("p") || link;
    var box = document.createElement("div");
    box.className = "wsbench-flame";
    var tools = document.createElement("form");
    tools.className = "wsbench-chart-tools";
    tools.setAttribute("role", "search");
    tools.addEventListener("submit", function (e) { e.preventDefault(); });
    var search = document.createElement("input");
    search.type = "search";
    search.placeholder = "Search frames, e.g. send";
    search.setAttribute("aria-label", "Search the flame graph's frames");
    var reset = document.createElement("button");
    reset.type = "button";
    reset.className = "md-button";
    reset.textContent = "Reset zoom";
    var found = document.createElement("span");
    found.className = "wsbench-count";
    tools.appendChild(search);
    tools.appendChild(reset);
    tools.appendChild(found);
    var graph = document.createElement("div");
    graph.className = "wsbench-flame-graph";
    var details = document.createElement("div");
    details.className = "wsbench-flame-details";
    var HINT = "Hover over or tap a frame for its samples; click it to zoom in.";
    details.textContent = HINT;
    box.appendChild(tools);
    box.appendChild(graph);
    box.appendChild(details);
    anchor.parentNode.insertBefore(box, anchor);
    return fetch(link.href).then(function (r) {
      if (!r.ok) throw new Error("HTTP " + r.status + " for " + link.href);
      return r.json();
    }).then(function (data) {
      var colours = data.classes.map(function (c) { return tint(c.color, 0.45); });
      var total = data.tree.value || 1;
      var chart = null;
      var width = 0;
      function mark() {
        var term = search.value.trim();
        if (term) {
          chart.search(term);
        } else {
          chart.clear();
          found.textContent = "";
        }
      }
      function draw() {
        var w = graph.clientWidth;
        if (chart && w === width) return;
        width = w;
        graph.textContent = "";
        chart = lib()
          .width(w)
          .cellHeight(18)
          .minFrameSize(1)
          .transitionDuration(250)
          .sort(true)
          .selfValue(false)
          .tooltip(false)
          .title("")
          .setColorMapper(function (d, original) {
            if (d.highlight) return "#e600e6";
            var c = colours[d.data.k];
            return c || original;
          })
          .setDetailsHandler(function (text) { details.textContent = text || HINT; })
          .setSearchMatch(function (d, term) {
            var name = (d.data.name || "").toLowerCase();
            return !!term && name.indexOf(term.toLowerCase()) >= 0; // text, not a pattern
          })
          .setSearchHandler(function (results, sum, all) {
            found.textContent = results.length +
              (results.length === 1 ? " frame matches: " : " frames match: ") +
              (100 * sum / (all || 1)).toFixed(1) + " % of the samples";
          })
          .label(function (d) {
            return d.data.name + ": " + d.value.toLocaleString("en-US") +
              (d.value === 1 ? " sample, " : " samples, ") +
              (100 * d.value / total).toFixed(1) + " %";
          });
        window.d3.select(graph).datum(data.tree).call(chart);
        if (search.value.trim()) mark();
      }
      search.addEventListener("input", function () { if (chart) mark(); });
      reset.addEventListener("click", function () { if (chart) chart.resetZoom(); });
      var pending = null;
      window.addEventListener("resize", function () {
        clearTimeout(pending);
        pending = setTimeout(draw, 150);
      });
      draw();
      box.wsbenchFlame = function () { return chart; };
    }).catch(function (err) {
      graph.textContent = "The flame graph could not be drawn (" + err.message +
        "); its data is linked below.";
      console.warn("wsbench: " + err.message);
    });
  }

  /* ---------- page set-up ---------- */

  function start() {
    var article = document.querySelector("article.md-content__inner") || document.body;
    var facets = [];
    var rowScripts = article.querySelectorAll("script.wsbench-rows");
    Array.prototype.forEach.call(rowScripts, function (script) {
      var rows = JSON.parse(script.textContent);
      var table = tableOf(script);
      if (table) {
        table.wsbenchRows = rows;
        table.wsbenchKind = script.getAttribute("data-table");
        rows.forEach(function (r) { facets.push(facetsOf(r)); });
      }
    });
    Array.prototype.forEach.call(article.querySelectorAll("table"), function (table) {
      setUpTable(table, table.wsbenchRows || null, table.wsbenchKind);
    });
    profileMarkers = Array.prototype.slice.call(article.querySelectorAll("div.wsbench-profile"));
    var profiles = uniq(profileMarkers.map(function (m) { return m.getAttribute("data-profile"); }));
    if (profiles.length > 1) {
      filters.profile = profileOfHash() || profileMarkers[0].getAttribute("data-profile");
      showProfile();
    }
    var charts = article.querySelectorAll("script.wsbench-chart");
    Array.prototype.forEach.call(charts, function (script) {
      try {
        JSON.parse(script.textContent).series.forEach(function (s) { facets.push(facetsOf(s)); });
      } catch (e) { /* reported when drawn */ }
    });
    // The bar goes before the page's first chart or leaderboard table, whichever comes first.
    var candidates = [charts[0] && charts[0].previousElementSibling,
      rowScripts[0] && rowScripts[0].previousElementSibling].filter(Boolean);
    candidates.sort(function (a, b) {
      return a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1;
    });
    var first = article.querySelector(".wsbench-filter-here") ||
      (filters.profile ? profileMarkers[0] : null) || candidates[0];
    var servers = uniq(facets.map(function (f) { return f.server; }));
    var wanted = servers.length > 1 || facets.length > 6 || !!filters.profile;
    if (first && !article.querySelector(".wsbench-no-filters") && wanted) {
      filterBar(facets, first);
    }
    if (filters.profile && location.hash) {
      var target = document.getElementById(decodeURIComponent(location.hash.slice(1)));
      if (target) target.scrollIntoView();
    }
    var flames = article.querySelectorAll("a." + "wsbench-flame-data");
    if (flames.length) {
      loadFlameGraph().then(function (lib) {
        return Promise.all(Array.prototype.map.call(flames, function (link) {
          return setUpFlame(lib, link);
        }));
      }).then(function () {
        document.documentElement.setAttribute("data-wsbench-flames", String(flames.length));
      }, function (err) {
        console.warn("wsbench: " + err.message + "; the flame graphs' data is linked");
      });
    }
    if (charts.length) {
      loadECharts().then(function (echarts) {
        Array.prototype.forEach.call(charts, function (script) { setUpChart(echarts, script); });
        showProfile(); // the charts' boxes of the hidden profiles' blocks hide with them
        document.documentElement.setAttribute("data-wsbench-charts", String(charts.length));
      }, function (err) {
        console.warn("wsbench: " + err.message + "; the static charts stay");
      });
    }
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
