// llmecon's charts, drawn with Chart.js. The web page and the CLI's `--plot FILE.html` both call
// these builders on the JSON the API returns, so a chart looks the same wherever it is drawn.
// Every builder takes (canvas, data, options) and returns the Chart.js instance.
/* global Chart */
(function (root) {
  "use strict";

  const BOUND_COLORS = {
    compute: "rgba(230, 159, 0, 0.13)",
    weights: "rgba(0, 114, 178, 0.13)",
    kv: "rgba(0, 158, 115, 0.13)",
  };
  const LABEL_FONT = "11px sans-serif";
  // Okabe and Ito's colour-blind-safe palette for every series that shares a chart (and the bound
  // regions above): compute orange, weights blue, KV bluish green, markers vermillion.
  const LINE = { cost: "#2c3e50", step: "#2c3e50", compute: "#E69F00", weights: "#0072B2", kv: "#009E73", marker: "#D55E00" };
  const SAFE = { blue: "#0072B2", vermillion: "#D55E00", green: "#009E73", grey: "#7f8c8d" };

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

  // Shades the x-ranges where one term binds the step, behind the data. The labels it writes are
  // kept in chart.$regionLabels so the marker labels stay clear of them.
  const regionsPlugin = {
    id: "boundRegions",
    beforeDatasetsDraw(chart, _args, opts) {
      const regions = (opts && opts.regions) || [];
      chart.$regionLabels = [];
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
        ctx.font = LABEL_FONT;
        const label = r.bound + "-bound";
        const w = ctx.measureText(label).width;
        if (w + 8 < x1 - x0) {
          ctx.fillText(label, x0 + 4, area.top + 12);
          chart.$regionLabels.push({ x: x0 + 4, y: area.top + 2, w, h: 12, label });
        }
      }
      ctx.restore();
    },
  };

  // Whether the segment (x1, y1)-(x2, y2) crosses the box {x, y, w, h} (Liang-Barsky clipping).
  function segmentHitsBox(x1, y1, x2, y2, b) {
    const dx = x2 - x1;
    const dy = y2 - y1;
    const p = [-dx, dx, -dy, dy];
    const q = [x1 - b.x, b.x + b.w - x1, y1 - b.y, b.y + b.h - y1];
    let t0 = 0;
    let t1 = 1;
    for (let i = 0; i < 4; i++) {
      if (p[i] === 0) {
        if (q[i] < 0) return false;
      } else {
        const t = q[i] / p[i];
        if (p[i] < 0) {
          if (t > t1) return false;
          if (t > t0) t0 = t;
        } else {
          if (t < t0) return false;
          if (t < t1) t1 = t;
        }
      }
    }
    return true;
  }
  const boxesOverlap = (a, b) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
  const grow = (b, d) => ({ x: b.x - d, y: b.y - d, w: b.w + 2 * d, h: b.h + 2 * d });

  // What a marker label must not cover, and how much each costs when nothing is clear: a curve
  // (the segments between the points of line datasets, and every point) costs most, a region
  // label less, another marker's line least (the label's background keeps it legible there).
  const COST = { curve: 3, region: 2, line: 1, label: 10 };
  function obstaclesOf(chart, lines) {
    const segments = [];
    const boxes = (chart.$regionLabels || []).map((b) => [b, COST.region]);
    const line = chart.config.type === "line";
    chart.data.datasets.forEach((ds, i) => {
      if (!chart.isDatasetVisible(i)) return;
      const pts = chart.getDatasetMeta(i).data.filter((e) => Number.isFinite(e.x) && Number.isFinite(e.y));
      const r = (ds.pointRadius === undefined ? 3 : ds.pointRadius) + 1;
      for (const e of pts) if (r > 1) boxes.push([{ x: e.x - r, y: e.y - r, w: 2 * r, h: 2 * r }, COST.curve]);
      if (line || ds.showLine) for (let k = 1; k < pts.length; k++) segments.push([[pts[k - 1].x, pts[k - 1].y, pts[k].x, pts[k].y], COST.curve]);
    });
    for (const x of lines) segments.push([[x, chart.chartArea.top, x, chart.chartArea.bottom], COST.line]);
    return { segments, boxes };
  }
  function collisions(box, obstacles, placed) {
    const b = grow(box, 2); // the curves are 2 to 3 px wide
    let n = 0;
    for (const [s, cost] of obstacles.segments) if (segmentHitsBox(s[0], s[1], s[2], s[3], b)) n += cost;
    for (const [o, cost] of obstacles.boxes) if (boxesOverlap(b, o)) n += cost;
    for (const o of placed) if (boxesOverlap(b, o)) n += COST.label;
    return n;
  }

  // Vertical lines at marked x values (the optimum, the current pick, a crossover, a target). Each
  // label goes beside its line, right or left, in the highest row where it covers no curve, no
  // other line and no other label, or upright along its line where the lines stand too close for
  // that; when nothing is clear, where it costs least (see COST), on a light background. The boxes are kept in chart.$markerLabels (the browser test checks them).
  const markersPlugin = {
    id: "xMarkers",
    afterDatasetsDraw(chart, _args, opts) {
      const markers = (opts && opts.markers) || [];
      const { ctx, chartArea: area, scales } = chart;
      chart.$markerLabels = [];
      const shown = markers
        .filter((m) => m.x > 0 || scales.x.type !== "logarithmic")
        .map((m) => ({ m, px: scales.x.getPixelForValue(m.x) }))
        .filter((v) => v.px >= area.left && v.px <= area.right);
      ctx.save();
      for (const { m, px } of shown) {
        ctx.strokeStyle = m.color || LINE.marker;
        ctx.setLineDash(m.dash || [5, 4]);
        ctx.lineWidth = 1.5;
        ctx.beginPath();
        ctx.moveTo(px, area.top);
        ctx.lineTo(px, area.bottom);
        ctx.stroke();
      }
      ctx.setLineDash([]);
      ctx.font = LABEL_FONT;
      const h = 13;
      for (const { m, px } of shown) {
        const others = shown.filter((o) => o.m !== m).map((o) => o.px);
        const obstacles = obstaclesOf(chart, others);
        const w = ctx.measureText(m.label).width + 4;
        // Across, right then left of the line, from the top down; then, where the lines stand too
        // close for that, upright along the line.
        const candidates = [];
        for (let top = area.top + 2; top + h <= area.bottom - 2; top += h + 1) {
          candidates.push({ x: px + 3, y: top, w, h }, { x: px - 3 - w, y: top, w, h });
        }
        for (let top = area.top + 2; top + w <= area.bottom - 2; top += h + 1) {
          candidates.push({ x: px + 2, y: top, w: h, h: w, upright: true }, { x: px - 2 - h, y: top, w: h, h: w, upright: true });
        }
        let best = null;
        for (const box of candidates) {
          if (box.x < area.left || box.x + box.w > area.right) continue;
          const n = collisions(box, obstacles, chart.$markerLabels);
          if (!best || n < best.n) best = { box, n };
          if (n === 0) break;
        }
        if (!best) continue; // wider than the plot
        const b = best.box;
        ctx.fillStyle = "rgba(255, 255, 255, 0.85)";
        ctx.fillRect(b.x, b.y, b.w, b.h);
        ctx.fillStyle = m.color || LINE.marker;
        if (b.upright) {
          ctx.save();
          ctx.translate(b.x + h - 3, b.y + b.h - 2);
          ctx.rotate(-Math.PI / 2);
          ctx.fillText(m.label, 0, 0);
          ctx.restore();
        } else {
          ctx.fillText(m.label, b.x + 2, b.y + h - 3);
        }
        chart.$markerLabels.push(Object.assign({ label: m.label, at: m.x }, b));
      }
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

  // 1, 2 and 5 times a power of ten: the round numbers a log axis is labelled with.
  const STEPS = [1, 2, 5];
  const round12 = (v) => +v.toPrecision(12);
  function niceUp(v) {
    const e = Math.floor(Math.log10(v));
    for (const k of [1, 2, 5, 10]) if (round12(k * Math.pow(10, e)) >= v) return round12(k * Math.pow(10, e));
    return round12(Math.pow(10, e + 1));
  }
  function niceDown(v) {
    const e = Math.floor(Math.log10(v));
    for (const k of [10, 5, 2, 1]) if (round12(k * Math.pow(10, e)) <= v) return round12(k * Math.pow(10, e));
    return round12(Math.pow(10, e - 1));
  }
  // A log axis that ends on labelled round numbers beyond the data, so the top (and bottom) of the
  // data has a tick above (below) it: the ticks are 1, 2, 5 x 10^k from min to max (only the
  // powers of ten and the ends when that makes more than 8), all labelled.
  function niceLogAxis(title, fmt, values) {
    const v = values.filter((x) => x > 0 && Number.isFinite(x));
    if (!v.length) return logAxis(title, fmt);
    const min = niceDown(Math.min(...v) / 1.02);
    const max = niceUp(Math.max(...v) * 1.02);
    let ticks = [];
    for (let e = Math.floor(Math.log10(min)); e <= Math.ceil(Math.log10(max)); e++) {
      for (const k of STEPS) {
        const t = round12(k * Math.pow(10, e));
        if (t >= min && t <= max) ticks.push(t);
      }
    }
    if (ticks.length > 8) ticks = ticks.filter((t, i) => i === 0 || i === ticks.length - 1 || Number.isInteger(round12(Math.log10(t))));
    return {
      type: "logarithmic",
      min,
      max,
      title: { display: true, text: title },
      ticks: { callback: (x) => fmt(x), autoSkip: false },
      afterBuildTicks: (scale) => {
        scale.ticks = ticks.map((value) => ({ value }));
      },
    };
  }

  // Draws the chart on the canvas. A canvas that already holds a chart of the same type keeps that
  // Chart instance: its data and options are replaced and it redraws (no destroy and rebuild, so
  // the page does not flicker and holders of the instance stay valid). canvas.dataset.revision
  // counts the draws (the browser test watches it).
  function drawChart(canvas, config) {
    let chart = Chart.getChart(canvas);
    if (chart && chart.config.type === config.type) {
      chart.data = config.data;
      chart.options = config.options;
      chart.update("none");
    } else {
      if (chart) chart.destroy();
      chart = new Chart(canvas, config);
    }
    canvas.dataset.revision = String(+(canvas.dataset.revision || 0) + 1);
    return chart;
  }

  // onPoint(raw) is called with the clicked data point (the page shows its derivation).
  function base(canvas, type, datasets, scales, plugins, extra, onPoint) {
    return drawChart(canvas, {
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

  // A roofline or sweep row's price (docs/quantities.md): a decode step's is per output token
  // (usd_per_mtok_output), a prefill pass's per input token (usd_per_mtok_input).
  const passPrice = (r) => (r.usd_per_mtok_output !== undefined ? r.usd_per_mtok_output : r.usd_per_mtok_input);

  // rows: [{batch, usd_per_mtok_output | usd_per_mtok_input, bound}] sorted by batch.
  // opts.compare: [{label, rows}] drawn beside the current curve (pinned deployments).
  const COMPARE = ["#CC79A7", "#56B4E9", "#D55E00", "#E69F00", "#7f8c8d", "#009E73"]; // pinned curves, colour-blind-safe
  function costVsBatch(canvas, rows, opts = {}) {
    const ds = [series(opts.label || "$ per million tokens", rows.map((r) => ({ x: r.batch, y: passPrice(r) })), LINE.cost)];
    (opts.compare || []).forEach((c, i) =>
      ds.push(series(c.label, c.rows.map((r) => ({ x: r.batch, y: passPrice(r) })), COMPARE[i % COMPARE.length], { borderDash: [5, 3], pointRadius: 1 }))
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
        tooltip: {
          callbacks: {
            label: (c) => {
              const r = c.datasetIndex === 0 ? rows[c.dataIndex] : null;
              const j = r && r.joules_per_token !== undefined ? `, ${num(r.joules_per_token)} J/token` : "";
              return `${c.dataset.label}: $${num(c.parsed.y)}/Mtok${j} at batch ${num(c.parsed.x)}`;
            },
          },
        },
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

  // rows: [{context, usd_per_mtok_output | usd_per_mtok_input, bound}].
  function costVsContext(canvas, rows, opts = {}) {
    return base(
      canvas,
      "line",
      [series("$ per million tokens", rows.map((r) => ({ x: r.context, y: passPrice(r) })), LINE.cost)],
      { x: logAxis(opts.contextLabel || "context (tokens)", num), y: logAxis(opts.yLabel || "$ per million output tokens", num) },
      {
        title: { display: true, text: opts.title || "Cost per token against context" },
        boundRegions: { regions: regionsOf(rows, "context", true) },
        xMarkers: { markers: markerList(opts) },
        tooltip: {
          callbacks: {
            label: (c) => {
              const r = rows[c.dataIndex];
              const j = r && r.joules_per_token !== undefined ? `, ${num(r.joules_per_token)} J/token` : "";
              return `$${num(c.parsed.y)}/Mtok${j} at context ${num(c.parsed.x)}`;
            },
          },
        },
      },
      undefined,
      opts.onPoint
    );
  }

  function describePoint(p) {
    return [
      `${p.mapping}, batch ${num(p.batch)}, ${p.weight_dtype} weights, ${p.kv_dtype} KV`,
      `${num(p.tokens_per_s_per_user)} tok/s per user, ${num(p.tokens_per_s_per_chip)} tok/s per chip`,
      `TTFT ${seconds(p.ttft_s)}, TPOT ${num(p.tpot_ms)} ms, $${num(p.usd_per_mtok_output)}/Mtok output ($${num(p.usd_per_mtok_blended)} blended), ${num(p.joules_per_token)} J/token`,
      `decode ${p.bound_decode}-bound, ${bytes(p.mem_per_chip_bytes)} per chip`,
    ];
  }

  // plan: the planner's JSON (frontier, top, best, slo). A TPOT target is a vertical line: a
  // layout meets it right of the line (tokens/s per user = tokens per step / TPOT).
  function pareto(canvas, plan, opts = {}) {
    const pt = (p) => ({ x: p.tokens_per_s_per_user, y: p.tokens_per_s_per_chip, point: p });
    const frontier = (plan.frontier || []).map(pt).sort((a, b) => a.x - b.x);
    const ds = [series("Pareto frontier", frontier, LINE.cost, { showLine: true, pointRadius: 4 })];
    // A best layout within 1% of a frontier point (or of the best) would sit under it and take its
    // hover and click: the frontier's point stands for both.
    const close = (a, b) => Math.abs(a.x - b.x) <= 0.01 * Math.abs(b.x) && Math.abs(a.y - b.y) <= 0.01 * Math.abs(b.y);
    const shown = frontier.concat(plan.best ? [pt(plan.best)] : []);
    const top = (plan.top || []).map(pt).filter((t) => !shown.some((f) => close(t, f)));
    if (top.length) ds.push(series("best layouts meeting the SLO", top, "rgba(127,140,141,0.6)", { pointRadius: 3 }));
    if (plan.best) ds.push(series("best", [pt(plan.best)], LINE.marker, { pointRadius: 8, pointStyle: "star", borderWidth: 2 }));
    const markers = [];
    const tpot = plan.slo && plan.slo.tpot_ms;
    const any = (plan.frontier || []).concat(plan.top || []).find((p) => p.tpot_ms > 0);
    if (tpot > 0) {
      const perStep = any ? (any.tokens_per_s_per_user * any.tpot_ms) / 1000 : 1;
      markers.push({ x: (perStep * 1000) / tpot, label: `TPOT ≤ ${num(tpot)} ms`, color: LINE.marker, dash: [6, 3] });
    }
    const all = ds.flatMap((d) => d.data);
    return base(
      canvas,
      "scatter",
      ds,
      {
        x: niceLogAxis("tokens/s per user (interactivity)", num, all.map((p) => p.x).concat(markers.map((m) => m.x))),
        y: niceLogAxis("tokens/s per chip (throughput)", num, all.map((p) => p.y)),
      },
      {
        title: { display: true, text: opts.title || `Pareto frontier: ${plan.model} on ${plan.chips} x ${plan.hardware}` },
        xMarkers: { markers },
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
    return drawChart(canvas, {
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
          title: { display: true, text: opts.title || (r.feasible ? "Memory per chip: fits" : "Memory per chip: does not fit") },
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

  // sim: `llmecon simulate --json`. The CDFs of TTFT, TPOT and end-to-end latency on one log axis
  // in seconds, with each SLO bound as a vertical line.
  function latencyCdf(canvas, sim, opts = {}) {
    const cdf = (d, scale) => d.x.map((x, i) => ({ x: x * scale, y: d.y[i] })).filter((p) => p.x > 0);
    const ch = sim.charts;
    const ds = [
      series("TTFT", cdf(ch.ttft_s, 1), SAFE.blue),
      series("TPOT", cdf(ch.tpot_ms, 1e-3), SAFE.vermillion, { borderDash: [6, 2] }),
      series("end to end", cdf(ch.e2e_s, 1), SAFE.grey),
    ];
    const markers = (sim.slo || []).map((s) => ({ x: s.bound_s, label: `${s.metric.toUpperCase()} p${num(s.percentile)} ≤ ${seconds(s.bound_s)}`, color: s.met ? "#009E73" : "#D55E00", dash: [4, 3] }));
    return base(
      canvas,
      "line",
      ds,
      { x: logAxis("seconds", seconds), y: { type: "linear", min: 0, max: 1, title: { display: true, text: "fraction of requests" } } },
      {
        title: { display: true, text: opts.title || "Latency CDFs" },
        xMarkers: { markers },
        tooltip: { callbacks: { label: (c) => `${c.dataset.label}: ${num(100 * c.parsed.y)}% within ${seconds(c.parsed.x)}` } },
      }
    );
  }

  // rows: the grid's JSON lines ({rate, requests_per_s, goodput_requests_per_s, slo_met}). A rate
  // whose goodput is 0 (no request within the SLO) has no point on the log axis: a gap, and a
  // marker that says so, never a point drawn at the axis floor.
  function goodputVsRate(canvas, rows, opts = {}) {
    const ds = [
      series("throughput", rows.map((r) => ({ x: r.rate, y: r.requests_per_s })), SAFE.blue),
      series("goodput (within the SLO)", rows.map((r) => ({ x: r.rate, y: r.goodput_requests_per_s > 0 ? r.goodput_requests_per_s : null })), SAFE.green, { borderWidth: 3, spanGaps: false }),
      series("offered", rows.map((r) => ({ x: r.rate, y: r.rate })), SAFE.grey, { borderDash: [4, 3], pointRadius: 0 }),
    ];
    const markers = opts.current ? [{ x: opts.current, label: "now " + num(opts.current), color: "#8e44ad", dash: [2, 3] }] : [];
    const none = rows.filter((r) => !(r.goodput_requests_per_s > 0));
    if (none.length) {
      const rates = none.slice(0, 4).map((r) => num(r.rate)).join(", ") + (none.length > 4 ? ", ..." : "");
      markers.push({ x: none[0].rate, label: `goodput 0 at ${rates} req/s (SLO missed)`, color: SAFE.vermillion, dash: [1, 3] });
    }
    return base(
      canvas,
      "line",
      ds,
      { x: logAxis("offered rate (requests/s)", num), y: logAxis("requests/s", num) },
      {
        title: { display: true, text: opts.title || "Goodput against rate" },
        xMarkers: { markers },
        tooltip: { callbacks: { label: (c) => `${c.dataset.label}: ${num(c.parsed.y)} req/s at ${num(c.parsed.x)} offered` } },
      }
    );
  }

  // rows: the grid's JSON lines. p99 TTFT and TPOT against the offered rate, each SLO bound a flat
  // dashed line in its series' colour: where a latency crosses its line, the rate is past capacity.
  function latencyVsRate(canvas, rows, slo, opts = {}) {
    const x = rows.map((r) => r.rate);
    const flat = (y) => [{ x: Math.min(...x), y }, { x: Math.max(...x), y }];
    const ds = [
      series("TTFT p99", rows.map((r) => ({ x: r.rate, y: r.ttft_s_p99 })), SAFE.blue),
      series("TPOT p99", rows.map((r) => ({ x: r.rate, y: r.tpot_ms_p99 / 1000 })), SAFE.vermillion, { borderDash: [6, 2] }),
    ];
    for (const s of slo || []) {
      const color = s.metric === "tpot" ? SAFE.vermillion : s.metric === "ttft" ? SAFE.blue : SAFE.grey;
      ds.push(series(`${s.metric.toUpperCase()} p${num(s.percentile)} ≤ ${seconds(s.bound_s)}`, flat(s.bound_s), color, { borderDash: [2, 4], pointRadius: 0, borderWidth: 1 }));
    }
    return base(
      canvas,
      "line",
      ds,
      { x: logAxis("offered rate (requests/s)", num), y: logAxis("seconds", seconds) },
      {
        title: { display: true, text: opts.title || "p99 latency against rate" },
        tooltip: { callbacks: { label: (c) => `${c.dataset.label}: ${seconds(c.parsed.y)} at ${num(c.parsed.x)} req/s` } },
      }
    );
  }

  // sim: `llmecon simulate --json`. The first replica's batch and KV use over the run (its
  // thinned samples, charts.over_time): batch on the left axis, the KV cache's share on the right.
  function overTime(canvas, sim, opts = {}) {
    const o = sim.charts.over_time;
    const ds = [
      series("batch (sequences)", o.t_s.map((t, i) => ({ x: t, y: o.batch[i] })), SAFE.blue, { pointRadius: 0, yAxisID: "y" }),
      series("KV cache used", o.t_s.map((t, i) => ({ x: t, y: o.kv_used[i] })), SAFE.vermillion, { pointRadius: 0, borderDash: [6, 2], yAxisID: "kv" }),
    ];
    return base(
      canvas,
      "line",
      ds,
      {
        x: { type: "linear", title: { display: true, text: "seconds" } },
        y: { type: "linear", min: 0, title: { display: true, text: "sequences per iteration" } },
        kv: { type: "linear", min: 0, max: 1, position: "right", grid: { drawOnChartArea: false }, title: { display: true, text: "KV cache used" } },
      },
      { title: { display: true, text: opts.title || "Batch and KV cache over the run" } }
    );
  }

  // A horizontal stacked bar of one table's terms (train's "memory" or "time" table): `terms` the
  // rows to stack, `field` the value, `unit` the axis scale (1e9 for GB), `cap` an optional limit.
  const TERM_COLORS = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000", "#7f8c8d", "#bbbbbb"];
  function stackedTerms(canvas, rows, opts) {
    const shown = rows.filter((r) => opts.terms.includes(r.term));
    const datasets = shown.map((r, i) => ({
      label: r.term,
      data: [{ x: r[opts.field] / opts.scale, y: opts.row }],
      backgroundColor: TERM_COLORS[i % TERM_COLORS.length],
      borderColor: TERM_COLORS[i % TERM_COLORS.length],
      parsing: false,
    }));
    const total = shown.reduce((a, r) => a + r[opts.field] / opts.scale, 0);
    return drawChart(canvas, {
      type: "bar",
      data: { labels: [opts.row], datasets },
      options: {
        indexAxis: "y",
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        scales: { x: { stacked: true, max: Math.max(total, opts.cap || 0), title: { display: true, text: opts.axis } }, y: { stacked: true } },
        plugins: {
          title: { display: true, text: opts.title },
          legend: { position: "bottom" },
          tooltip: { callbacks: { label: (c) => `${c.dataset.label}: ${num(c.parsed.x)} ${opts.unit}` } },
        },
      },
    });
  }
  // train's JSON: memory per GPU by term against usable HBM.
  function trainMemory(canvas, t) {
    const usable = t.memory.find((r) => r.term === "usable").bytes / 1e9;
    return stackedTerms(canvas, t.memory, {
      terms: ["weights", "gradients", "optimizer", "activations", "buffers"],
      field: "bytes",
      scale: 1e9,
      cap: usable,
      row: "per GPU",
      unit: "GB",
      axis: `GB per GPU (usable ${num(usable)} GB)`,
      title: `Memory per GPU (${t.layout.text})`,
    });
  }
  // train's JSON: the step's exposed time by term.
  function trainTime(canvas, t) {
    return stackedTerms(canvas, t.time, {
      terms: ["forward", "backward", "recompute", "tp comm", "cp comm", "ep comm", "pp comm", "dp comm", "host", "offload", "bubble", "optimizer"],
      field: "exposed_s",
      scale: 1,
      row: "per step",
      unit: "s",
      axis: "seconds per optimizer step",
      title: `Time per step: ${seconds(t.step_s)}, MFU ${num(100 * t.mfu)}%`,
    });
  }
  // scale's JSON: training, lifetime inference and total dollars against N at the target loss.
  function costVsN(canvas, sc) {
    const rows = sc.cost_vs_n;
    const pts = (k) => rows.map((r) => ({ x: r.params, y: r[k] })).filter((p) => p.y > 0);
    const ds = [
      series("total", pts("total_usd"), LINE.cost, { borderWidth: 3 }),
      series("training", pts("train_usd"), LINE.compute),
      series("lifetime inference", pts("inference_usd"), LINE.kv),
    ];
    const markers = [
      { x: sc.params, label: "cheapest " + num(sc.params), color: "#8e44ad", dash: [2, 3] },
      { x: sc.chinchilla_params, label: "compute-optimal " + num(sc.chinchilla_params), color: "#7f8c8d", dash: [4, 3] },
    ];
    return base(
      canvas,
      "line",
      ds,
      { x: logAxis("parameters N", num), y: logAxis("dollars", (v) => "$" + num(v)) },
      {
        title: { display: true, text: `Cost against N at loss ${num(sc.target_loss)}` },
        xMarkers: { markers },
        tooltip: { callbacks: { label: (c) => `${c.dataset.label}: $${num(c.parsed.y)} at N = ${num(c.parsed.x)}` } },
      }
    );
  }

  // tco's JSON: the owned hour by term against the rented price.
  function gpuHour(canvas, t) {
    const rows = t.per_year.filter((r) => r.term !== "total");
    const datasets = rows.map((r, i) => ({
      label: r.term,
      data: [{ x: r.usd_per_gpu_hour, y: "owned" }],
      backgroundColor: TERM_COLORS[i % TERM_COLORS.length],
      borderColor: TERM_COLORS[i % TERM_COLORS.length],
      parsing: false,
    }));
    datasets.push({ label: "rented", data: [{ x: t.usd_per_gpu_hour_rented, y: "rented" }], backgroundColor: "#7f8c8d", borderColor: "#7f8c8d", parsing: false });
    return drawChart(canvas, {
      type: "bar",
      data: { labels: ["owned", "rented"], datasets },
      options: {
        indexAxis: "y",
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        scales: { x: { stacked: true, title: { display: true, text: "$ per utilized GPU-hour" } }, y: { stacked: true } },
        plugins: {
          title: { display: true, text: `A GPU-hour of ${t.hardware}: $${num(t.usd_per_gpu_hour_owned)} owned, $${num(t.usd_per_gpu_hour_rented)} rented` },
          legend: { position: "bottom" },
          tooltip: { callbacks: { label: (c) => `${c.dataset.label}: $${num(c.parsed.x)} per hour` } },
        },
      },
    });
  }

  // plan --scaleup's JSON: each domain's best $/Mtok, split into the chips' own price and the
  // scale-up fabric that domain adds (by the fabric's share of the chip-hour).
  function scaleupCost(canvas, plan) {
    const rows = plan.scaleup.filter((r) => r.best);
    const labels = rows.map((r) => `${r.domain} chips`);
    const share = (r) => (r.usd_per_chip_hour > 0 ? (r.fabric_usd_per_chip_hour || 0) / r.usd_per_chip_hour : 0);
    const datasets = [
      { label: "chips, rented or owned", data: rows.map((r) => r.best.usd_per_mtok_blended * (1 - share(r))), backgroundColor: "#0072B2" },
      { label: "scale-up fabric beyond the chip's own", data: rows.map((r) => r.best.usd_per_mtok_blended * share(r)), backgroundColor: "#E69F00" },
    ];
    return drawChart(canvas, {
      type: "bar",
      data: { labels, datasets },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        scales: { x: { stacked: true, title: { display: true, text: "scale-up domain" } }, y: { stacked: true, title: { display: true, text: "$ per million tokens (blended)" } } },
        plugins: {
          title: { display: true, text: `What a bigger scale-up domain buys: ${plan.model} on ${plan.hardware}` },
          legend: { position: "bottom" },
          tooltip: {
            callbacks: {
              label: (c) => `${c.dataset.label}: $${num(c.parsed.y)}/Mtok`,
              footer: (items) => {
                const r = rows[items[0].dataIndex];
                return `${r.best.mapping}, ${num(r.best.tokens_per_s_per_chip)} tok/s per chip, ${num(r.best.joules_per_token)} J/token`;
              },
            },
          },
        },
      },
    });
  }

  root.llmeconCharts = { num, seconds, passPrice, bytes, regionsOf, costVsBatch, stepVsBatch, roofline, costVsContext, pareto, memory, renderCommand, describePoint, latencyCdf, overTime, latencyVsRate, goodputVsRate, trainMemory, trainTime, costVsN, gpuHour, scaleupCost };
})(typeof window !== "undefined" ? window : globalThis);
