// llmecon's charts, drawn with Chart.js. The web page and the CLI's `--plot FILE.html` both call
// these builders on the JSON the API returns, so a chart looks the same wherever it is drawn.
// Every builder takes (canvas, data, options) and returns the Chart.js instance.
/* global Chart */
(function (root) {
  "use strict";

  const BOUND_COLORS = {
    compute: "rgba(230, 126, 34, 0.13)",
    weights: "rgba(52, 152, 219, 0.13)",
    kv: "rgba(39, 174, 96, 0.13)",
  };
  const LINE = { cost: "#2c3e50", step: "#2c3e50", compute: "#e67e22", weights: "#3498db", kv: "#27ae60", marker: "#c0392b" };

  // Numbers as people read them: 4 significant digits, SI prefixes for large counts.
  function num(v) {
    if (typeof v !== "number" || Number.isNaN(v)) return v === null || v === undefined ? "-" : String(v);
    const a = Math.abs(v);
    if (a === 0) return "0";
    if (a >= 1e15) return +(v / 1e15).toPrecision(4) + "P";
    if (a >= 1e12) return +(v / 1e12).toPrecision(4) + "T";
    if (a >= 1e9) return +(v / 1e9).toPrecision(4) + "G";
    if (a >= 1e6) return +(v / 1e6).toPrecision(4) + "M";
    if (a >= 1e4) return +(v / 1e3).toPrecision(4) + "k";
    if (a < 1e-3) return v.toExponential(3);
    return String(+v.toPrecision(4));
  }
  function seconds(v) {
    if (typeof v !== "number" || !Number.isFinite(v)) return "-";
    const a = Math.abs(v);
    if (a === 0) return "0 s";
    if (a < 1e-6) return +(v * 1e9).toPrecision(4) + " ns";
    if (a < 1e-3) return +(v * 1e6).toPrecision(4) + " µs";
    if (a < 1) return +(v * 1e3).toPrecision(4) + " ms";
    return +v.toPrecision(4) + " s";
  }
  // Decimal prefixes (GB = 1e9 B), as the CLI prints them.
  function bytes(v) {
    const t = num(v);
    return /[kMGTP]$/.test(t) ? `${t.slice(0, -1)} ${t.slice(-1)}B` : `${t} B`;
  }

  // Shades the x-ranges where one term binds the step, behind the data.
  const regionsPlugin = {
    id: "boundRegions",
    beforeDatasetsDraw(chart, _args, opts) {
      const regions = (opts && opts.regions) || [];
      if (!regions.length) return;
      const { ctx, chartArea: area, scales } = chart;
      ctx.save();
      for (const r of regions) {
        const x0 = Math.max(area.left, scales.x.getPixelForValue(r.from));
        const x1 = Math.min(area.right, scales.x.getPixelForValue(r.to));
        if (!(x1 > x0)) continue;
        ctx.fillStyle = BOUND_COLORS[r.bound] || "rgba(0,0,0,0.05)";
        ctx.fillRect(x0, area.top, x1 - x0, area.bottom - area.top);
        ctx.fillStyle = "rgba(0,0,0,0.45)";
        ctx.font = "11px sans-serif";
        const label = r.bound + "-bound";
        if (ctx.measureText(label).width + 8 < x1 - x0) ctx.fillText(label, x0 + 4, area.top + 12);
      }
      ctx.restore();
    },
  };

  // Vertical lines at marked x values (the optimum, the current pick, a crossover).
  const markersPlugin = {
    id: "xMarkers",
    afterDatasetsDraw(chart, _args, opts) {
      const markers = (opts && opts.markers) || [];
      const { ctx, chartArea: area, scales } = chart;
      ctx.save();
      markers.forEach((m, i) => {
        if (!(m.x > 0) && scales.x.type === "logarithmic") return;
        const x = scales.x.getPixelForValue(m.x);
        if (x < area.left || x > area.right) return;
        ctx.strokeStyle = m.color || LINE.marker;
        ctx.setLineDash(m.dash || [5, 4]);
        ctx.lineWidth = 1.5;
        ctx.beginPath();
        ctx.moveTo(x, area.top);
        ctx.lineTo(x, area.bottom);
        ctx.stroke();
        ctx.setLineDash([]);
        ctx.fillStyle = m.color || LINE.marker;
        ctx.font = "11px sans-serif";
        // Right of the line, or left of it when the label would leave the plot.
        const w = ctx.measureText(m.label).width;
        ctx.fillText(m.label, x + 4 + w > area.right ? x - 4 - w : x + 4, area.top + 26 + 13 * i);
      });
      ctx.restore();
    },
  };

  // Consecutive rows with the same bound become one shaded region; edges sit halfway between
  // samples (geometrically on log axes).
  function regionsOf(rows, xKey, log) {
    const out = [];
    const mid = (a, b) => (log ? Math.sqrt(a * b) : (a + b) / 2);
    rows.forEach((r, i) => {
      const x = r[xKey];
      const lo = i === 0 ? x : mid(rows[i - 1][xKey], x);
      const hi = i === rows.length - 1 ? x : mid(x, rows[i + 1][xKey]);
      const last = out[out.length - 1];
      if (last && last.bound === r.bound) last.to = hi;
      else out.push({ from: lo, to: hi, bound: r.bound });
    });
    return out;
  }

  function logAxis(title, fmt) {
    return { type: "logarithmic", title: { display: true, text: title }, ticks: { callback: (v) => fmt(v), maxTicksLimit: 8 } };
  }

  // Draws a new chart on the canvas in place of the old one, and counts the redraw in
  // canvas.dataset.revision (the browser test watches it).
  function replaceChart(canvas, config) {
    const existing = Chart.getChart(canvas);
    if (existing) existing.destroy();
    const chart = new Chart(canvas, config);
    canvas.dataset.revision = String(+(canvas.dataset.revision || 0) + 1);
    return chart;
  }

  // onPoint(raw) is called with the clicked data point (the page shows its derivation).
  function base(canvas, type, datasets, scales, plugins, extra, onPoint) {
    return replaceChart(canvas, {
      type,
      data: { datasets },
      options: Object.assign(
        {
          onClick: (_evt, els, ch) => {
            if (onPoint && els.length) onPoint(ch.data.datasets[els[0].datasetIndex].data[els[0].index]);
          },
          animation: false,
          parsing: false,
          responsive: true,
          maintainAspectRatio: false,
          interaction: { mode: "nearest", intersect: false },
          scales,
          plugins: Object.assign({ legend: { position: "bottom" } }, plugins),
        },
        extra || {}
      ),
      plugins: [regionsPlugin, markersPlugin],
    });
  }

  const series = (label, points, color, opts) =>
    Object.assign({ label, data: points, borderColor: color, backgroundColor: color, pointRadius: 2, borderWidth: 2, tension: 0 }, opts || {});

  function markerList(opts) {
    const m = [];
    if (opts.optimum) m.push({ x: opts.optimum, label: opts.optimumLabel || "B* = " + num(opts.optimum) });
    if (opts.current) m.push({ x: opts.current, label: "now " + num(opts.current), color: "#8e44ad", dash: [2, 3] });
    for (const extra of opts.markers || []) m.push(extra);
    return m;
  }

  // rows: [{batch, usd_per_mtok, bound}] sorted by batch.
  // opts.compare: [{label, rows}] drawn beside the current curve (pinned deployments).
  const COMPARE = ["#8e44ad", "#16a085", "#c0392b", "#d35400", "#7f8c8d", "#2980b9"];
  function costVsBatch(canvas, rows, opts = {}) {
    const ds = [series(opts.label || "$ per million tokens", rows.map((r) => ({ x: r.batch, y: r.usd_per_mtok })), LINE.cost)];
    (opts.compare || []).forEach((c, i) =>
      ds.push(series(c.label, c.rows.map((r) => ({ x: r.batch, y: r.usd_per_mtok })), COMPARE[i % COMPARE.length], { borderDash: [5, 3], pointRadius: 1 }))
    );
    return base(
      canvas,
      "line",
      ds,
      { x: logAxis(opts.xLabel || "batch (sequences per step)", num), y: logAxis(opts.yLabel || "$ per million output tokens", num) },
      {
        title: { display: true, text: opts.title || "Cost per token against batch" },
        boundRegions: { regions: regionsOf(rows, "batch", true) },
        xMarkers: { markers: markerList(opts) },
        tooltip: { callbacks: { label: (c) => `${c.dataset.label}: $${num(c.parsed.y)}/Mtok at batch ${num(c.parsed.x)}` } },
      },
      undefined,
      opts.onPoint
    );
  }

  // rows: [{batch, t_step_s, t_compute_s?, t_weights_s?, t_kv_s?, bound}].
  function stepVsBatch(canvas, rows, opts = {}) {
    const pts = (k) => rows.map((r) => ({ x: r.batch, y: r[k] }));
    const ds = [series("step time", pts("t_step_s"), LINE.step, { borderWidth: 3 })];
    if (rows.length && rows[0].t_compute_s !== undefined) {
      ds.push(series("compute", pts("t_compute_s"), LINE.compute, { borderDash: [6, 3], pointRadius: 0 }));
      ds.push(series("weight fetch", pts("t_weights_s"), LINE.weights, { borderDash: [6, 3], pointRadius: 0 }));
      ds.push(series("KV fetch", pts("t_kv_s"), LINE.kv, { borderDash: [6, 3], pointRadius: 0 }));
    }
    return base(
      canvas,
      "line",
      ds.map((d) => Object.assign(d, { data: d.data.filter((p) => p.y > 0) })),
      { x: logAxis(opts.xLabel || "batch (sequences per step)", num), y: logAxis("seconds per step", seconds) },
      {
        title: { display: true, text: opts.title || "Step time against batch: max(compute, weights + KV)" },
        boundRegions: { regions: regionsOf(rows, "batch", true) },
        xMarkers: { markers: markerList(opts) },
        tooltip: { callbacks: { label: (c) => `${c.dataset.label}: ${seconds(c.parsed.y)} at batch ${num(c.parsed.x)}` } },
      },
      undefined,
      opts.onPoint
    );
  }

  // rows: sweep rows (flops, t_step_s, arithmetic_intensity, t_compute_s, bytes_*). The roofs are
  // the best rates the engine granted across the rows (FLOP/s = flops / t_compute, bytes/s =
  // bytes / (t_weights + t_kv)); a point sits below them by the efficiency and fixed overheads.
  function roofline(canvas, rows, opts = {}) {
    const good = rows.filter((r) => r.flops > 0 && r.t_compute_s > 0);
    const empty = () => base(canvas, "scatter", [], { x: logAxis("FLOPs per byte", num), y: logAxis("FLOP/s", num) }, {});
    if (!good.length) return empty();
    const memBytes = (r) => r.bytes_weights + r.bytes_kv_read + r.bytes_kv_write;
    const memTime = (r) => r.t_weights_s + r.t_kv_s;
    const peak = Math.max(...good.map((r) => r.flops / r.t_compute_s));
    const bw = Math.max(0, ...good.filter((r) => memTime(r) > 0).map((r) => memBytes(r) / memTime(r)));
    if (!(bw > 0 && peak > 0)) return empty();
    const ais = good.map((r) => r.arithmetic_intensity);
    const lo = Math.min(...ais, peak / bw) / 4;
    const hi = Math.max(...ais, peak / bw) * 4;
    const roof = [];
    for (let x = lo; x <= hi * 1.0001; x *= Math.pow(hi / lo, 1 / 60)) roof.push({ x, y: Math.min(peak, x * bw) });
    const pts = good.map((r) => ({ x: r.arithmetic_intensity, y: r.flops / r.t_step_s, batch: r.batch }));
    const ds = [
      series("roof: min(peak, intensity x bandwidth)", roof, "#7f8c8d", { pointRadius: 0, borderDash: [4, 3], showLine: true }),
      series(opts.pointsLabel || "this model, batch 1 .. max", pts, LINE.cost, { showLine: true, pointRadius: 3 }),
    ];
    if (opts.current) {
      const c = opts.current;
      ds.push(series("now", [{ x: c.arithmetic_intensity, y: c.flops / c.t_step_s, batch: c.batch }], "#8e44ad", { pointRadius: 7, pointStyle: "rectRot" }));
    }
    return base(
      canvas,
      "scatter",
      ds,
      { x: logAxis("arithmetic intensity (FLOPs per HBM byte)", num), y: logAxis("attained FLOP/s (whole domain)", num) },
      {
        title: { display: true, text: opts.title || "Roofline" },
        xMarkers: { markers: [{ x: peak / bw, label: "ridge " + num(peak / bw) + " FLOP/B", color: "#7f8c8d" }] },
        tooltip: {
          callbacks: {
            label: (c) => (c.raw.batch !== undefined ? `batch ${num(c.raw.batch)}: ` : "") + `${num(c.parsed.x)} FLOP/B, ${num(c.parsed.y)}FLOP/s`,
          },
        },
      },
      undefined,
      opts.onPoint && ((p) => p.batch !== undefined && opts.onPoint(p))
    );
  }

  // rows: [{context, usd_per_mtok, bound}].
  function costVsContext(canvas, rows, opts = {}) {
    return base(
      canvas,
      "line",
      [series("$ per million tokens", rows.map((r) => ({ x: r.context, y: r.usd_per_mtok })), LINE.cost)],
      { x: logAxis(opts.contextLabel || "context (tokens)", num), y: logAxis(opts.yLabel || "$ per million output tokens", num) },
      {
        title: { display: true, text: opts.title || "Cost per token against context" },
        boundRegions: { regions: regionsOf(rows, "context", true) },
        xMarkers: { markers: markerList(opts) },
        tooltip: { callbacks: { label: (c) => `$${num(c.parsed.y)}/Mtok at context ${num(c.parsed.x)}` } },
      },
      undefined,
      opts.onPoint
    );
  }

  function describePoint(p) {
    return [
      `${p.mapping}, batch ${num(p.batch)}, ${p.weight_dtype} weights, ${p.kv_dtype} KV`,
      `${num(p.tokens_per_s_per_user)} tok/s per user, ${num(p.tokens_per_s_per_chip)} tok/s per chip`,
      `TTFT ${seconds(p.ttft_s)}, TPOT ${num(p.tpot_ms)} ms, $${num(p.usd_per_mtok)}/Mtok`,
      `decode ${p.bound_decode}-bound, ${bytes(p.mem_per_chip_bytes)} per chip`,
    ];
  }

  // plan: the planner's JSON (frontier, top, best).
  function pareto(canvas, plan, opts = {}) {
    const pt = (p) => ({ x: p.tokens_per_s_per_user, y: p.tokens_per_s_per_chip, point: p });
    const frontier = (plan.frontier || []).map(pt).sort((a, b) => a.x - b.x);
    const ds = [series("Pareto frontier", frontier, LINE.cost, { showLine: true, pointRadius: 4 })];
    if (plan.top && plan.top.length) ds.push(series("best layouts meeting the SLO", plan.top.map(pt), "rgba(127,140,141,0.6)", { pointRadius: 3 }));
    if (plan.best) ds.push(series("best", [pt(plan.best)], LINE.marker, { pointRadius: 8, pointStyle: "star", borderWidth: 2 }));
    return base(
      canvas,
      "scatter",
      ds,
      { x: logAxis("tokens/s per user (interactivity)", num), y: logAxis("tokens/s per chip (throughput)", num) },
      {
        title: { display: true, text: opts.title || `Pareto frontier: ${plan.model} on ${plan.chips} x ${plan.hardware}` },
        tooltip: { callbacks: { label: (c) => (c.raw.point ? describePoint(c.raw.point) : "") } },
      },
      { interaction: { mode: "nearest", intersect: true } },
      opts.onPoint
    );
  }

  // r: a roofline result. One stacked bar per chip: weights, KV, free.
  function memory(canvas, r, opts = {}) {
    const chips = r.chips || 1;
    const w = r.mem_weights_bytes / chips / 1e9;
    const kv = r.mem_kv_bytes / chips / 1e9;
    const cap = r.mem_capacity_bytes / chips / 1e9;
    const free = Math.max(0, cap - w - kv);
    const bar = (label, v, color) => ({ label, data: [{ x: v, y: "per chip" }], backgroundColor: color, borderColor: color, parsing: false });
    return replaceChart(canvas, {
      type: "bar",
      data: { labels: ["per chip"], datasets: [bar("weights", w, LINE.weights), bar("KV cache", kv, LINE.kv), bar("free", free, "#ecf0f1")] },
      options: {
        indexAxis: "y",
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        scales: {
          x: { stacked: true, max: Math.max(cap, w + kv), title: { display: true, text: `GB per chip (HBM ${num(cap)} GB)` } },
          y: { stacked: true },
        },
        plugins: {
          title: { display: true, text: opts.title || (r.fits ? "Memory per chip: fits" : "Memory per chip: does not fit") },
          legend: { position: "bottom" },
          tooltip: { callbacks: { label: (c) => `${c.dataset.label}: ${num(c.parsed.x)} GB` } },
        },
      },
    });
  }

  // For `llmecon <command> --plot FILE.html`: the charts a command's JSON supports, in `container`.
  function renderCommand(command, result, container) {
    const add = () => {
      const box = document.createElement("div");
      box.className = "chart";
      const c = document.createElement("canvas");
      box.appendChild(c);
      container.appendChild(box);
      return c;
    };
    const charts = [];
    if (command === "sweep") {
      const rows = result.rows;
      const groupBy = (key) => {
        const m = new Map();
        for (const r of rows) (m.get(r[key]) || m.set(r[key], []).get(r[key])).push(r);
        return m;
      };
      const byCtx = groupBy("context");
      const byBatch = groupBy("batch");
      const title = `${result.model} on ${result.chips} x ${result.hardware}`;
      // The longer list is the x axis; one set of charts for each of up to 4 values of the other.
      const pick = (m) => {
        const keys = [...m.keys()];
        if (keys.length <= 4) return keys;
        return [0, 1, 2, 3].map((i) => keys[Math.round((i * (keys.length - 1)) / 3)]);
      };
      if (byBatch.size >= byCtx.size) {
        for (const ctx of pick(byCtx)) {
          const rs = byCtx.get(ctx);
          charts.push(costVsBatch(add(), rs, { title: `${title}, context ${num(ctx)}: cost against batch` }));
          charts.push(stepVsBatch(add(), rs, { title: `${title}, context ${num(ctx)}: step time against batch` }));
          charts.push(roofline(add(), rs, { title: `${title}, context ${num(ctx)}: roofline` }));
        }
      } else {
        for (const b of pick(byBatch)) {
          charts.push(costVsContext(add(), byBatch.get(b), { title: `${title}, batch ${num(b)}: cost against context` }));
        }
      }
    } else if (command === "batch") {
      const opts = { optimum: result.b_star_kv, title: `${result.model} on ${result.chips} x ${result.hardware}: cost against batch` };
      charts.push(costVsBatch(add(), result.curve, opts));
      charts.push(stepVsBatch(add(), result.curve, Object.assign({}, opts, { title: "Step time against batch" })));
    } else if (command === "context") {
      const markers = [];
      if (result.crossover_context) markers.push({ x: result.crossover_context, label: "KV = compute at " + num(result.crossover_context) });
      charts.push(costVsContext(add(), result.curve, { markers, title: `${result.model} on ${result.chips} x ${result.hardware}: cost against context` }));
    } else if (command === "plan") {
      charts.push(pareto(add(), result));
    }
    return charts;
  }

  root.llmeconCharts = { num, seconds, bytes, regionsOf, costVsBatch, stepVsBatch, roofline, costVsContext, pareto, memory, renderCommand, describePoint };
})(typeof window !== "undefined" ? window : globalThis);
