// The llmecon page. It talks only to /api on the server that served it (no CDN) and draws with
// charts.js, the same builders `llmecon <command> --plot FILE.html` uses. What it asks is built
// from the server's own command table (GET /api/): the argument names, choices, defaults and
// limits; what it shows is the API's JSON, its CSV and its derivation lines ("explain").
/* global llmeconCharts, llmeconWorkbench */
(function () {
  "use strict";
  const $ = (id) => document.getElementById(id);
  const C = llmeconCharts;

  // The figure tiles, one row each: the label, where the number comes from (a command's JSON and
  // a field of it, or a function of it), how it is written, the text for a null (the engine's
  // "none"), and which of the command's own derivation lines a click marks. A tile whose command
  // answered an error shows "-" and that error as its derivation.
  const FORMATS = {
    seconds: C.seconds,
    number: C.num,
    usd: (v) => "$" + C.num(v),
    percent: (v) => C.num(100 * v) + "%",
    bytes: C.bytes,
    text: String,
    times: (v) => C.num(v) + "x",
    batch: (v) => "B = " + C.num(v),
  };
  const boundClass = (r) => "bound-" + r.bound;
  const TILES = [
    { key: "t_step_s", label: "step time", from: "roofline", value: "t_step_s", format: "seconds", explain: ["t_step"], cls: boundClass },
    { key: "bound", label: "bound by", from: "roofline", value: "bound", format: "text", explain: ["t_step"], cls: boundClass },
    { key: "t_compute_s", label: "compute", from: "roofline", value: "t_compute_s", format: "seconds", explain: ["t_compute"] },
    { key: "t_weights_s", label: "weight fetch", from: "roofline", value: "t_weights_s", format: "seconds", explain: ["t_weights"] },
    { key: "t_kv_s", label: "KV fetch", from: "roofline", value: "t_kv_s", format: "seconds", explain: ["t_kv"] },
    { key: "tokens_per_s", label: "tokens/s (domain)", from: "roofline", value: "tokens_per_s", format: "number", explain: ["tokens/s"] },
    { key: "usd_per_mtok", label: "$ per Mtok", from: "roofline", value: C.passPrice, format: "usd", explain: ["$/token"], suffix: (r) => (r.phase === "prefill" ? " input" : " output") },
    { key: "joules_per_token", label: "J per token (facility)", from: "roofline", value: "joules_per_token", format: "number", explain: ["power"] },
    { key: "mfu", label: "MFU", from: "roofline", value: "mfu", format: "percent", explain: ["MFU", "t_compute"] },
    {
      key: "memory_per_chip_bytes", label: "memory per chip", from: "roofline", format: "bytes", explain: ["memory"],
      value: (r) => (r.mem_weights_bytes + r.mem_kv_bytes) / r.chips, suffix: (r) => (r.feasible ? "" : " ✗"),
    },
    { key: "b_star_kv", label: "B* with KV (F6)", from: "batch", value: "b_star_kv", format: "number", none: "none: KV-bound", explain: ["B*"] },
    { key: "balance_batch", label: "compute-bound from", from: "report", value: "balance_batch", format: "batch", none: "never", explain: ["balance batch"] },
    { key: "max_batch_fits", label: "largest batch that fits", from: "report", value: "max_batch_fits", format: "number", explain: ["max batch that fits"] },
    { key: "latency_floor_s", label: "latency floor", from: "batch", value: "latency_floor_s", format: "seconds", explain: ["latency floor"] },
    { key: "unbatched_penalty", label: "unbatched penalty", from: "batch", value: "unbatched_penalty", format: "times", explain: ["unbatched"] },
  ];

  // Each control sets the argument of the same name of a command; its choices, default, limits
  // and help come from that command's entry in GET /api/. The sliders step in powers of two over
  // the range given here, within the argument's limits.
  const CONTROLS = [
    { key: "model", command: "roofline" },
    { key: "hw", command: "roofline" },
    { key: "chips", command: "roofline" },
    { key: "phase", command: "roofline" },
    { key: "weight_dtype", command: "roofline" },
    { key: "kv_dtype", command: "roofline" },
    { key: "cost", command: "roofline" },
    { key: "batch", command: "roofline", log2: [0, 14] },
    { key: "context", command: "roofline", log2: [8, 20] },
    { key: "isl", command: "plan" },
    { key: "osl", command: "plan" },
    { key: "ttft_ms", command: "plan" },
    { key: "tpot_ms", command: "plan" },
  ];
  const BOARD = ["model", "hw", "chips", "phase", "weight_dtype", "kv_dtype", "cost"];
  const PLAN_KEYS = ["isl", "osl", "ttft_ms", "tpot_ms"];

  // What the page shows, for the browser test and for anyone poking at the console.
  const state = {
    schema: null, // command name -> its GET /api/ entry, args keyed by name
    pastedConfig: null, // a config.json object the server accepted, sent as the model argument
    pastedName: null,
    pinned: [], // cost curves kept for comparison: {label, phase, rows}
    results: {}, // what the API answered, by name
    requests: {}, // the arguments each of them was asked with
    charts: {},
    explainSources: {}, // key -> {title, lines, match}
    tiles: TILES,
    updates: 0,
    planUpdates: 0,
    aborted: 0, // requests dropped because newer inputs replaced them
    openAtCheapest: false, // the first view moves to the cheapest batch that fits
    openedViews: {}, // the button-run views whose inputs the address held
  };
  window.llmecon = state;

  const isAbort = (err) => err && err.name === "AbortError";
  // One request of a kind at a time: starting one aborts the one before it, so the newest answer
  // wins and an older one never reaches the screen.
  function latestOnly() {
    let current = null;
    return {
      start() {
        if (current) current.abort();
        current = new AbortController();
        return current;
      },
      isCurrent: (ctl) => current === ctl,
    };
  }

  // POST /api/<command>; the JSON answer, or with format "csv" or "text" that text. An error
  // answer throws the API's own message.
  async function api(command, args, signal, format) {
    const body = format ? Object.assign({}, args, { format }) : args || {};
    const res = await fetch(`/api/${command}`, { method: "POST", body: JSON.stringify(body), signal });
    if (format && format !== "json" && res.ok) return res.text();
    const out = await res.json();
    if (!res.ok) throw new Error(out.error);
    return out;
  }

  // A long command as a server job (POST "job": true, then GET /api/jobs/<id> until it ends): its
  // finished snapshot (the answer, and its JSON when the answer is text). `onJob(id)` once it is
  // queued, `onProgress(fraction, snapshot)` as it runs; aborting the signal cancels it on the
  // server (DELETE). A job that fails or is cancelled throws its message, with its state.
  async function apiJob(command, args, signal, onProgress, onJob) {
    const res = await fetch(`/api/${command}`, { method: "POST", body: JSON.stringify(Object.assign({}, args, { job: true })), signal });
    const first = await res.json();
    if (!res.ok) throw new Error(first.error);
    if (onJob) onJob(first.job);
    const cancel = () => fetch(`/api/jobs/${first.job}`, { method: "DELETE" });
    signal.addEventListener("abort", cancel);
    try {
      for (;;) {
        const snap = await (await fetch(`/api/jobs/${first.job}`, { signal })).json();
        if (snap.state === "done") return snap;
        if (snap.state === "failed" || snap.state === "cancelled") throw Object.assign(new Error(snap.error), { state: snap.state });
        onProgress(snap.progress, snap);
        await new Promise((r) => setTimeout(r, 150));
      }
    } finally {
      signal.removeEventListener("abort", cancel);
    }
  }

  // ---- the command table --------------------------------------------------------------------

  function argOf(command, key) {
    const c = state.schema[command];
    if (!c || !c.args[key]) throw new Error(`the server's ${command} command takes no ${key} (GET /api/)`);
    return c.args[key];
  }
  // Choice and dtype arguments list their choices in the schema.
  function choicesOf(arg) {
    return Array.isArray(arg.choices) ? arg.choices : [];
  }
  // The arguments a command takes, picked by name from the page's values: a command that has no
  // such argument (report has no batch, plan no context) is not sent it.
  function argsFor(command, values) {
    const spec = state.schema[command].args;
    const out = {};
    for (const [k, v] of Object.entries(values)) if (spec[k] && v !== undefined && v !== null && v !== "") out[k] = v;
    return out;
  }

  function setupControl(c, lists) {
    const arg = argOf(c.command, c.key);
    const el = $(c.key);
    el.title = arg.help + (arg.unit ? ` (${arg.unit})` : "") + (arg.default_text ? `; default ${arg.default_text}` : "");
    if (arg.type === "model" || arg.type === "hardware") {
      for (const item of lists[arg.type]) el.add(new Option(item.name, item.name));
      el.value = arg.default;
    } else if (el.tagName === "SELECT") {
      if (arg.default === null) el.add(new Option(arg.default_text, ""));
      for (const ch of choicesOf(arg)) el.add(new Option(ch, ch));
      el.value = arg.default === null ? "" : arg.default;
    } else if (c.log2) {
      const lo = Math.max(c.log2[0], Math.ceil(Math.log2(Math.max(arg.min || 1, 1))));
      const hi = Math.min(c.log2[1], Math.floor(Math.log2(arg.max || 2 ** c.log2[1])));
      el.min = String(lo);
      el.max = String(hi);
      el.value = String(Math.min(hi, Math.max(lo, Math.round(Math.log2(arg.default)))));
    } else {
      if (arg.min !== null) el.min = String(arg.min);
      if (arg.max !== null && arg.max < 1e9) el.max = String(arg.max);
      el.step = arg.type === "integer" ? "1" : "any";
      el.value = arg.default === null ? "" : String(arg.default);
      if (arg.default === null) {
        el.placeholder = arg.default_text;
        el.style.width = `${Math.max(9, arg.default_text.length + 4)}ch`;
      }
    }
  }

  // ---- inputs -------------------------------------------------------------------------------

  const batch = () => 2 ** +$("batch").value;
  const context = () => 2 ** +$("context").value;
  const span = (id) => {
    const el = $(id);
    return Array.from({ length: +el.max - +el.min + 1 }, (_, i) => 2 ** (+el.min + i));
  };

  // The board every command shares: model (the picker's or the pasted config), hardware, chip
  // count, phase and formats, by argument name; empty controls mean the argument's default.
  function board() {
    const v = {};
    for (const k of BOARD) {
      const el = $(k);
      if (el.value !== "") v[k] = el.type === "number" ? +el.value : el.value;
    }
    if (state.pastedConfig) v.model = state.pastedConfig;
    return v;
  }
  const modelInUse = () => (state.pastedConfig ? `the pasted config (${state.pastedName})` : `${$("model").value} from the picker`);

  // The API names the argument it refused first ("--chips: must be ..."): that control is marked
  // (aria-invalid, and the message as its description) beside the page's error line.
  function showError(err) {
    const message = err ? err.message || String(err) : "";
    $("error").textContent = message;
    document.querySelectorAll("#controls [aria-invalid], .plan-inputs [aria-invalid]").forEach((el) => {
      el.removeAttribute("aria-invalid");
      el.removeAttribute("aria-describedby");
    });
    const m = /^--([a-z0-9-]+)/.exec(message);
    const el = m && $(m[1].replace(/-/g, "_"));
    if (el && el.closest("#controls, .plan-inputs")) {
      el.setAttribute("aria-invalid", "true");
      el.setAttribute("aria-describedby", "error");
    }
  }

  // ---- derivations --------------------------------------------------------------------------

  // The panel shows the engine's lines as the API returned them; the lines that hold the clicked
  // quantity are marked.
  function explain(key, el) {
    const src = state.explainSources[key];
    if (!src) return;
    document.querySelectorAll(".figure.selected").forEach((e) => e.classList.remove("selected"));
    if (el) el.classList.add("selected");
    $("explain-title").textContent = "· " + src.title;
    const pre = $("explain");
    pre.textContent = "";
    for (const line of src.lines) {
      const hit = src.match && src.match.some((m) => line.includes(m));
      const node = hit ? document.createElement("mark") : document.createTextNode("");
      node.textContent = line;
      pre.appendChild(node);
      pre.appendChild(document.createTextNode("\n"));
    }
    pre.dataset.key = key;
  }
  const linesOf = (res) => (res.error ? [res.error] : res.explain || []);

  // A clicked chart point: the derivation of the step there (llmecon roofline --explain).
  const pointRequest = latestOnly();
  async function explainAt(b, ctx) {
    const ctl = pointRequest.start();
    try {
      const r = await api("roofline", argsFor("roofline", Object.assign(board(), { batch: b, context: ctx, explain: true })), ctl.signal);
      state.explainSources.point = { title: `${r.phase} at batch ${r.batch}, context ${r.context} (llmecon roofline --explain)`, lines: r.explain };
      explain("point", null);
    } catch (err) {
      if (isAbort(err)) state.aborted++;
      else showError(err);
    }
  }

  // A clicked layout on the Pareto chart: the planner's own derivation of that point (plan
  // --explain gives every frontier point its chain).
  function explainLayout(p) {
    const plan = state.results.plan;
    if (!plan) return;
    const isBest = plan.best && ["mapping", "batch", "weight_dtype", "kv_dtype"].every((k) => p[k] === plan.best[k]);
    const title = `layout ${p.mapping}, batch ${p.batch}, ${p.weight_dtype}/${p.kv_dtype}`;
    state.explainSources.layout = {
      title: `${title}${isBest ? ": the best" : ""} (llmecon plan --explain)`,
      lines: p.explain || [],
    };
    explain("layout", null);
  }


  // ---- figures ------------------------------------------------------------------------------

  function tileOf(tile, res) {
    const v = res.error ? null : typeof tile.value === "function" ? tile.value(res) : res[tile.value];
    const text = res.error ? "-" : v === null || v === undefined ? tile.none || "-" : FORMATS[tile.format](v) + (tile.suffix ? tile.suffix(res) : "");
    const div = document.createElement("div");
    div.className = "figure" + (tile.cls && !res.error ? " " + tile.cls(res) : "");
    div.dataset.key = tile.key;
    div.dataset.value = v === null || v === undefined ? "null" : String(v);
    div.dataset.explain = "tile:" + tile.key;
    div.dataset.from = tile.from;
    div.innerHTML = `<div class="label"></div><div class="value"></div>`;
    div.querySelector(".label").textContent = tile.label;
    div.querySelector(".value").textContent = text;
    div.addEventListener("click", () => explain(div.dataset.explain, div));
    state.explainSources["tile:" + tile.key] = {
      title: `${tile.label} (llmecon ${tile.from} --explain)`,
      lines: linesOf(res),
      match: tile.explain,
    };
    return div;
  }

  function renderFigures(results) {
    const fig = $("figures");
    fig.textContent = "";
    for (const tile of TILES) fig.appendChild(tileOf(tile, results[tile.from]));
    const r = results.roofline;
    $("summary-title").textContent = `· ${r.model} on ${r.chips} x ${r.hardware}, batch ${r.batch}, context ${r.context}` +
      (r.feasible ? "" : ` · does not fit: ${r.reason}`);
  }

  // After a failed update the figures and charts still hold the last inputs that worked: dimmed,
  // and the title says which.
  const STEP_CHARTS = ["chart-cost-batch", "chart-step-batch", "chart-roofline", "chart-cost-context", "chart-memory"];
  function markStale(stale) {
    $("summary").classList.toggle("stale", stale);
    for (const id of STEP_CHARTS) $(id).parentNode.classList.toggle("stale", stale);
    const r = state.results.roofline;
    if (stale && r) {
      $("summary-title").textContent = `· not updated (see the error above); still showing ${r.model} on ${r.chips} x ${r.hardware}, batch ${r.batch}, context ${r.context}`;
    }
  }

  // "deepseek-v3 on 72 x gb200, fp8/bf16, decode context 4096": what a pinned curve is.
  function curveLabel(r) {
    const basis = $("cost").value; // rented and owned curves of one deployment are two curves
    return `${r.model} on ${r.chips} x ${r.hardware}, ${r.weight_dtype}/${r.kv_dtype}, ${r.phase} context ${C.num(r.context)}` +
      (basis && basis !== "rented" ? `, ${basis}` : "");
  }

  // A pinned curve belongs to its phase: it is drawn on that phase's chart only.
  function pin() {
    const r = state.results.roofline;
    const rows = state.results.sweepBatch && state.results.sweepBatch.rows;
    if (!r || !rows) return;
    const label = curveLabel(r);
    if (!state.pinned.some((p) => p.label === label)) state.pinned.push({ label, phase: r.phase, rows });
    update();
  }
  function unpin() {
    const phase = $("phase").value;
    state.pinned = state.pinned.filter((p) => p.phase !== phase);
    update();
  }

  // ---- the step, its sweeps and the analyses -------------------------------------------------

  // The blackboard analyses pool one scale-up domain; with more chips they answer an error that
  // the step, sweep and memory figures do not share, so they are optional here.
  const optional = (promise) =>
    promise.catch((err) => {
      if (isAbort(err)) throw err;
      return { error: err.message };
    });

  // Each update cancels the requests of the one before it: a newer slider position wins, and an
  // older answer never reaches the screen.
  const boardRequest = latestOnly();
  async function update() {
    const B = batch();
    const X = context();
    $("batch-value").textContent = B;
    $("context-value").textContent = C.num(X);
    const ctl = boardRequest.start();
    const signal = ctl.signal;
    try {
      const v = board();
      // Prefill: a pass over B prompts of X tokens each; the blackboard's B* is about decode.
      const prefill = v.phase === "prefill";
      const req = {
        roofline: argsFor("roofline", Object.assign({}, v, { batch: B, context: X, explain: true })),
        sweepBatch: argsFor("sweep", Object.assign({}, v, { batch: span("batch"), context: X })),
        sweepContext: argsFor("sweep", Object.assign({}, v, { batch: B, context: span("context") })),
        batch: argsFor("batch", Object.assign({}, v, { context: X, explain: true })),
        report: argsFor("report", Object.assign({}, v, { context: X, explain: true })),
      };
      const [r, byBatch, byContext, b, rep] = await Promise.all([
        api("roofline", req.roofline, signal),
        api("sweep", req.sweepBatch, signal),
        api("sweep", req.sweepContext, signal),
        prefill ? { error: "B* and the latency floor are decode quantities (llmecon batch)" } : optional(api("batch", req.batch, signal)),
        optional(api("report", req.report, signal)),
      ]);
      if (signal.aborted) throw new DOMException("superseded", "AbortError");
      // The first view, unless the address names a batch, is the cheapest batch that fits (the
      // CLI's default report): a batch-1 price reads as the answer when it is the worst case.
      if (state.openAtCheapest) {
        state.openAtCheapest = false;
        const fits = byBatch.rows.filter((row) => row.feasible);
        const best = fits.length ? fits.reduce((a, row) => (C.passPrice(row) < C.passPrice(a) ? row : a)) : null;
        if (best && best.batch !== B) {
          $("batch").value = String(Math.round(Math.log2(best.batch)));
          return update();
        }
      }
      Object.assign(state.results, { roofline: r, sweepBatch: byBatch, sweepContext: byContext, batch: b, report: rep });
      Object.assign(state.requests, req);
      showError(b.error && !prefill ? "B* and the blackboard figures: " + b.error : null);
      markStale(false);
      $("phase-title").textContent = prefill ? "Prefill pass" : "Decode step";
      renderFigures(state.results);
      drawCharts(r, byBatch, byContext, b, rep, prefill);
      saveToUrl();
      state.updates++;
      document.body.dataset.updates = String(state.updates);
      // Keep the open derivation, now with the new values; a clicked point or layout belongs to
      // the old inputs, so the panel returns to the step time.
      const open = $("explain").dataset.key;
      const keep = open && state.explainSources[open] && open !== "point" && open !== "layout";
      const key = keep ? open : "tile:t_step_s";
      explain(key, document.querySelector(`.figure[data-explain="${key}"]`));
    } catch (err) {
      if (isAbort(err)) {
        state.aborted++;
        return;
      }
      if (!boardRequest.isCurrent(ctl)) return;
      showError(err);
      markStale(true);
    }
  }

  function drawCharts(r, byBatch, byContext, b, rep, prefill) {
    const B = r.batch;
    const X = r.context;
    const bopts = { current: B, markers: [] };
    const labels = prefill ? { xLabel: "prompts per pass", yLabel: "$ per million input tokens", contextLabel: "prompt length (tokens)" } : {};
    Object.assign(bopts, labels);
    if (!b.error) {
      // Past the KV crossover F6 has no B* with KV; mark B* without KV then.
      Object.assign(bopts, b.b_star_kv === null
        ? { optimum: b.b_star, optimumLabel: "B* without KV = " + C.num(b.b_star) }
        : { optimum: b.b_star_kv, optimumLabel: "B* = " + C.num(b.b_star_kv) });
    }
    if (!rep.error && rep.balance_batch !== null) {
      bopts.markers.push({ x: rep.balance_batch, label: "compute-bound from " + C.num(rep.balance_batch), color: "#d35400", dash: [1, 3] });
    }
    // Past the last batch whose weights and KV fit, the curve is what it would cost with more HBM.
    const fitting = byBatch.rows.filter((row) => row.feasible);
    if (fitting.length && fitting.length < byBatch.rows.length) {
      const last = fitting[fitting.length - 1].batch;
      bopts.markers.push({ x: last, label: "HBM full past " + C.num(last), color: "#7f8c8d", dash: [2, 2] });
    }
    bopts.onPoint = (p) => explainAt(p.x, X);
    const compare = state.pinned.filter((p) => p.phase === r.phase);
    state.charts.costBatch = C.costVsBatch($("chart-cost-batch"), byBatch.rows, Object.assign({}, bopts, { label: curveLabel(r), compare }));
    state.charts.stepBatch = C.stepVsBatch($("chart-step-batch"), byBatch.rows, bopts);
    state.charts.roofline = C.roofline($("chart-roofline"), byBatch.rows, { current: r, title: `Roofline at context ${C.num(X)}`, onPoint: (p) => explainAt(p.batch, X) });
    // Past the last context whose weights and KV fit at this batch, HBM is full (F21).
    const contextMarkers = [];
    const fitsC = byContext.rows.filter((row) => row.feasible);
    if (fitsC.length < byContext.rows.length) {
      const last = fitsC.length ? fitsC[fitsC.length - 1].context : byContext.rows[0].context;
      contextMarkers.push({ x: last, label: fitsC.length ? "HBM full past " + C.num(last) : "HBM full", color: "#7f8c8d", dash: [2, 2] });
    }
    state.charts.costContext = C.costVsContext($("chart-cost-context"), byContext.rows,
      Object.assign({ current: X, markers: contextMarkers, title: `Cost per token against ${prefill ? "prompt length" : "context"} at batch ${B}`, onPoint: (p) => explainAt(B, p.x) }, labels));
    state.charts.memory = C.memory($("chart-memory"), r);
  }

  // ---- the planner --------------------------------------------------------------------------

  // The planner searches the formats itself; it takes the model, hardware, chip count, request
  // shape and latency targets (argsFor keeps what plan takes).
  function planArgs() {
    const a = board();
    // Lengths are text (2048, or a distribution such as lognormal:200,1.2); targets are numbers.
    for (const k of PLAN_KEYS) if ($(k).value !== "") a[k] = k === "isl" || k === "osl" ? $(k).value.trim() : +$(k).value;
    a.explain = true;
    return argsFor("plan", a);
  }

  const planRequest = latestOnly();
  async function updatePlan() {
    const ctl = planRequest.start();
    $("plan-status").textContent = "planning…";
    try {
      const args = planArgs();
      const p = await api("plan", args, ctl.signal);
      if (ctl.signal.aborted) throw new DOMException("superseded", "AbortError");
      state.results.plan = p;
      state.requests.plan = args;
      state.charts.pareto = C.pareto($("chart-pareto"), p, { onPoint: (pt) => pt.point && explainLayout(pt.point) });
      const best = p.best ? C.describePoint(p.best).join("; ") : p.empty_reason;
      const slo = Object.entries(p.slo || {}).map(([k, v]) => `${k.replace("_ms", "").toUpperCase()} ≤ ${C.num(v)} ms`).join(", ");
      $("plan-status").textContent = `${p.isl} prompt and ${p.osl} output tokens${slo ? ", " + slo : ", no latency target"}: ` +
        `searched ${p.evaluated} configurations, ${p.meeting_slo} meet the targets. Best: ${best}. Hover a point for its layout, click it for its derivation.`;
    } catch (err) {
      if (isAbort(err)) {
        state.aborted++;
        return;
      }
      if (!planRequest.isCurrent(ctl)) return;
      $("plan-status").textContent = "plan: " + err.message;
    }
    state.planUpdates++;
    document.body.dataset.planUpdates = String(state.planUpdates);
  }

  // ---- traffic ------------------------------------------------------------------------------

  // One simulation at the chosen rate (latency CDFs with the SLO lines) and a grid of rates from a
  // quarter to twice it (goodput against rate), both on the model, chip, chips and formats above.
  function trafficArgs() {
    const a = board();
    delete a.phase;
    a.rate = +$("sim-rate").value;
    a.isl = $("sim-isl").value;
    a.osl = $("sim-osl").value;
    a.engine = $("sim-engine").value;
    a.requests = +$("sim-requests").value;
    a.slo = `ttft_p99=${+$("sim-ttft").value}s,tpot_p99=${+$("sim-tpot").value}ms`;
    a.workload = "none";
    return argsFor("simulate", a);
  }

  // ---- training ---------------------------------------------------------------------------

  // The run (train: the searched layout) and the scaling law in dollars (scale), on the model and
  // chip above.
  function trainArgs() {
    const b = board();
    return argsFor("train", { model: b.model, hw: b.hw, cost: b.cost, chips: +$("train-chips").value, tokens: +$("train-tokens").value, seq_len: +$("train-seq").value, train_dtype: $("train-dtype").value });
  }
  function scaleArgs() {
    const b = board();
    return argsFor("scale", { model: b.model, hw: b.hw, cost: b.cost, chips: +$("train-chips").value, seq_len: +$("train-seq").value, inference_tokens: +$("train-dinf").value });
  }
  const trainRequest = latestOnly();
  async function updateTraining() {
    const ctl = trainRequest.start();
    $("train-status").textContent = "searching layouts…";
    try {
      const [ta, sa] = [trainArgs(), scaleArgs()];
      const searching = (f) => ($("train-status").textContent = `searching layouts… ${Math.round(100 * f)}%`);
      const [t, sc] = await Promise.all([apiJob("train", ta, ctl.signal, searching).then((s) => s.answer), api("scale", sa, ctl.signal)]);
      if (ctl.signal.aborted) throw new DOMException("superseded", "AbortError");
      state.results.train = t;
      state.results.scale = sc;
      state.requests.train = ta;
      state.requests.scale = sa;
      state.charts.trainMemory = C.trainMemory($("chart-train-memory"), t);
      state.charts.trainTime = C.trainTime($("chart-train-time"), t);
      state.charts.costN = C.costVsN($("chart-cost-n"), sc);
      $("train-status").textContent =
        `${t.layout.text} on ${t.chips} ${t.hardware}: ${C.num(t.days)} days` +
        // The band the published runs put around it (model.md §24.3); none for the pure roofline.
        (t.days_published_p10 !== undefined
          ? ` (${C.num(t.days_published_p10)}-${C.num(t.days_published_p90)} by the published runs' errors)`
          : "") +
        `, ${C.num(t.gpu_hours)} GPU-hours, $${C.num(t.usd)}, ` +
        `${C.num(t.mwh)} MWh; MFU ${C.num(100 * t.mfu)}%, goodput ${C.num(100 * t.goodput)}% (${C.num(t.failures)} failures). ` +
        `Cheapest size for ${C.num(+sa.inference_tokens)} served tokens: N = ${C.num(sc.params)} on ${C.num(sc.train_tokens)} tokens ` +
        `(${C.num(sc.overtraining)}x Chinchilla's 20 per parameter), $${C.num(sc.total_usd)} in all.`;
    } catch (err) {
      if (isAbort(err)) return;
      if (!trainRequest.isCurrent(ctl)) return;
      $("train-status").textContent = "train: " + err.message;
    }
    state.trainUpdates = (state.trainUpdates || 0) + 1;
    document.body.dataset.trainUpdates = String(state.trainUpdates);
  }

  // ---- cost of a GPU-hour -------------------------------------------------------------------

  function tcoArgs() {
    return argsFor("tco", { hw: board().hw, chips: +$("tco-chips").value, utilization: +$("tco-utilization").value, life_years: +$("tco-life").value });
  }
  const tcoRequest = latestOnly();
  async function updateTco() {
    const ctl = tcoRequest.start();
    try {
      const args = tcoArgs();
      const t = await api("tco", args, ctl.signal);
      if (ctl.signal.aborted) throw new DOMException("superseded", "AbortError");
      state.results.tco = t;
      state.requests.tco = args;
      state.charts.gpuHour = C.gpuHour($("chart-tco"), t);
      const be = t.breakeven_utilization === null ? "owning never pays at this rent" : `owning pays above ${C.num(100 * t.breakeven_utilization)}% utilization`;
      $("tco-status").textContent =
        `${t.chips} ${t.hardware}: capex $${C.num(t.capex_per_gpu_usd)} per GPU (network $${C.num(t.network_capex_per_gpu_usd)}, ` +
        `HBM ${C.num(100 * t.memory_share_of_capex)}%); $${C.num(t.usd_per_gpu_hour_owned)} owned against $${C.num(t.usd_per_gpu_hour_rented)} rented per GPU-hour; ${be}; ` +
        `${C.num(t.kwh_per_gpu_hour)} kWh per busy GPU-hour.`;
    } catch (err) {
      if (isAbort(err)) return;
      if (!tcoRequest.isCurrent(ctl)) return;
      $("tco-status").textContent = "tco: " + err.message;
    }
    state.tcoUpdates = (state.tcoUpdates || 0) + 1;
    document.body.dataset.tcoUpdates = String(state.tcoUpdates);
  }

  // What a bigger scale-up domain buys and costs: a plan on each domain size, each carrying its
  // own scale-up fabric (plan --scaleup; model.md §25.5).
  function scaleupArgs() {
    const a = planArgs();
    delete a.explain;
    a.scaleup = $("scaleup-domains").value;
    return a;
  }
  const scaleupRequest = latestOnly();
  async function updateScaleup() {
    const ctl = scaleupRequest.start();
    $("scaleup-status").textContent = "planning each domain…";
    try {
      const args = scaleupArgs();
      const p = await api("plan", args, ctl.signal);
      if (ctl.signal.aborted) throw new DOMException("superseded", "AbortError");
      state.results.scaleup = p;
      state.requests.scaleup = args;
      state.charts.scaleup = C.scaleupCost($("chart-scaleup"), p);
      $("scaleup-status").textContent = p.scaleup
        .map((r) => (r.best ? `${r.domain}: $${C.num(r.best.usd_per_mtok_blended)}/Mtok blended, ${C.num(r.best.joules_per_token)} J/token (${r.best.mapping}; fabric $${C.num(r.fabric_usd_per_chip_hour || 0)} per chip-hour)` : `${r.domain}: ${r.empty_reason}`))
        .join("; ") + (p.scaleup_fabric ? ` (no fabric costs: ${p.scaleup_fabric})` : "");
    } catch (err) {
      if (isAbort(err)) return;
      if (!scaleupRequest.isCurrent(ctl)) return;
      $("scaleup-status").textContent = "plan: " + err.message;
    }
    state.scaleupUpdates = (state.scaleupUpdates || 0) + 1;
    document.body.dataset.scaleupUpdates = String(state.scaleupUpdates);
  }

  const trafficRequest = latestOnly();
  async function updateTraffic() {
    const ctl = trafficRequest.start();
    $("traffic-status").textContent = "simulating…";
    try {
      const args = trafficArgs();
      const rate = args.rate;
      const rates = [0.25, 0.5, 0.75, 1, 1.25, 1.5, 2].map((f) => +(rate * f).toPrecision(4));
      const simulating = (f) => ($("traffic-status").textContent = `simulating… ${Math.round(100 * f)}%`);
      const [sim, grid] = await Promise.all([
        apiJob("simulate", args, ctl.signal, simulating).then((s) => s.answer),
        api("simulate", Object.assign({}, args, { grid_rates: rates.join(","), requests: Math.min(args.requests || 2000, 2000) }), ctl.signal),
      ]);
      if (ctl.signal.aborted) throw new DOMException("superseded", "AbortError");
      state.results.simulate = sim;
      state.results.simulateGrid = grid;
      state.requests.simulate = args;
      state.charts.latency = C.latencyCdf($("chart-latency-cdf"), sim, { title: `Latency CDFs at ${C.num(rate)} req/s (${sim.mapping}, ${sim.engine})` });
      state.charts.goodput = C.goodputVsRate($("chart-goodput"), grid.grid.rows, { current: rate });
      state.charts.latencyRate = C.latencyVsRate($("chart-latency-rate"), grid.grid.rows, sim.slo);
      const slo = sim.slo.map((x) => `${x.metric.toUpperCase()} p99 ${C.seconds(x.observed_s)} ${x.met ? "≤" : ">"} ${C.seconds(x.bound_s)}`).join(", ");
      $("traffic-status").textContent =
        `${sim.completed} requests at ${C.num(rate)} req/s: ${C.num(sim.output_tokens_per_s)} output tokens/s, ` +
        `TTFT p50 ${C.seconds(sim.ttft_s.p50)} p99 ${C.seconds(sim.ttft_s.p99)}, TPOT p50 ${C.num(sim.tpot_ms.p50)} ms p99 ${C.num(sim.tpot_ms.p99)} ms; ` +
        `${slo}: SLO ${sim.slo_met ? "met" : "missed"}, goodput ${C.num(sim.goodput_requests_per_s)} req/s, $${C.num(sim.usd_per_mtok_output)}/Mtok and ${C.num(sim.joules_per_token_output)} J per output token.`;
    } catch (err) {
      if (isAbort(err)) return;
      if (!trafficRequest.isCurrent(ctl)) return;
      $("traffic-status").textContent = "simulate: " + err.message;
    }
    state.trafficUpdates = (state.trafficUpdates || 0) + 1;
    document.body.dataset.trafficUpdates = String(state.trafficUpdates);
  }

  // ---- the lecture --------------------------------------------------------------------------

  async function loadLecture() {
    try {
      const claims = await api("lecture", argsFor("lecture", { explain: true }));
      state.results.lecture = claims;
      const passed = claims.filter((c) => c.pass).length;
      $("lecture-summary").textContent = `${passed} of ${claims.length} checks reproduce.`;
      const t = $("lecture");
      t.innerHTML = "<tr><th>id</th><th>claim</th><th>expected</th><th>computed</th><th>unit</th><th></th></tr>";
      claims.forEach((c, i) => {
        const tr = document.createElement("tr");
        const show = (v) => (typeof v === "number" ? C.num(v) : String(v));
        const cells = [c.id, c.claim, show(c.expected), show(c.computed), c.unit, c.pass ? "✓" : "✗"];
        cells.forEach((v, j) => {
          const td = document.createElement("td");
          td.textContent = v;
          if (j === 2 || j === 3) td.className = "num";
          if (j === 5) td.className = c.pass ? "pass" : "fail";
          tr.appendChild(td);
        });
        const key = "lecture:" + i;
        state.explainSources[key] = { title: `${c.id}: ${c.claim}` + (c.inputs ? ` (inputs: ${c.inputs})` : ""), lines: c.explain || [] };
        tr.dataset.explain = key;
        tr.addEventListener("click", () => explain(key, null));
        t.appendChild(tr);
      });
    } catch (err) {
      $("lecture-summary").textContent = "lecture: " + err.message;
    }
  }

  // ---- a pasted config.json -----------------------------------------------------------------

  // The server reads the paste first (llmecon model); only a config it accepts replaces the model
  // in use. A paste it rejects changes nothing: the error is shown and the status names the
  // model still in use.
  let pasteSeq = 0;
  async function useConfig() {
    const my = ++pasteSeq;
    const status = (text, how) => {
      $("config-status").textContent = text;
      $("config-status").dataset.state = how;
    };
    const text = $("config").value.trim();
    if (!text) {
      state.pastedConfig = null;
      state.pastedName = null;
      status(`cleared; using ${modelInUse()}`, "cleared");
      refresh();
      return;
    }
    let cfg;
    try {
      cfg = JSON.parse(text);
      if (typeof cfg !== "object" || Array.isArray(cfg) || cfg === null) throw new Error("a config.json is one JSON object");
    } catch (err) {
      showError(new Error("pasted config.json: " + err.message));
      status(`not used: not a JSON object (${err.message}); still using ${modelInUse()}`, "rejected");
      return;
    }
    status("checking the config…", "checking");
    try {
      const m = await api("model", argsFor("model", { model: cfg }));
      if (my !== pasteSeq) return;
      state.pastedConfig = cfg;
      state.pastedName = m.name;
      showError(null);
      status(`using the pasted config (${m.name}); the model picker is ignored until you clear it`, "used");
      refresh();
    } catch (err) {
      if (my !== pasteSeq) return;
      showError(err);
      status(`not used: the server rejected it (the error above); still using ${modelInUse()}`, "rejected");
    }
  }

  // ---- the address --------------------------------------------------------------------------

  // The view lives in the address (?model=...&hw=...&batch=512&context=4096), so it can be shared
  // or bookmarked. A pasted config is not put there.
  const URL_KEYS = BOARD.concat(PLAN_KEYS);
  // The views run on a button: their inputs join the address only where they differ from the
  // page's own values, and a view whose inputs the address holds runs when it opens.
  const VIEW_KEYS = {
    traffic: ["sim-rate", "sim-isl", "sim-osl", "sim-engine", "sim-ttft", "sim-tpot", "sim-requests"],
    training: ["train-chips", "train-tokens", "train-seq", "train-dtype", "train-dinf"],
    ownership: ["tco-chips", "tco-utilization", "tco-life"],
    scaleup: ["scaleup-domains"],
  };
  const initialValues = {};
  function restoreFromUrl() {
    const q = new URLSearchParams(location.search);
    const opened = {};
    for (const [view, keys] of Object.entries(VIEW_KEYS)) {
      for (const k of keys) {
        initialValues[k] = $(k).value;
        const v = q.get(k);
        if (v === null) continue;
        const el = $(k);
        if (el.tagName === "SELECT" && ![...el.options].some((o) => o.value === v)) continue;
        el.value = v;
        opened[view] = true;
      }
    }
    state.openedViews = opened;
    for (const k of URL_KEYS) {
      const v = q.get(k);
      if (v === null) continue;
      const el = $(k);
      if (el.tagName === "SELECT" && ![...el.options].some((o) => o.value === v)) continue;
      el.value = v;
    }
    const log2 = (k, el) => {
      const v = Number(q.get(k));
      if (!(v > 0)) return;
      const p = Math.round(Math.log2(v));
      if (p >= +el.min && p <= +el.max) el.value = String(p);
    };
    log2("batch", $("batch"));
    log2("context", $("context"));
    state.openAtCheapest = !q.has("batch");
  }
  function saveToUrl() {
    const q = new URLSearchParams();
    for (const k of URL_KEYS) if ($(k).value) q.set(k, $(k).value);
    q.set("batch", String(batch()));
    q.set("context", String(context()));
    for (const keys of Object.values(VIEW_KEYS)) for (const k of keys) if (k in initialValues && $(k).value !== initialValues[k]) q.set(k, $(k).value);
    history.replaceState(null, "", "?" + q.toString() + location.hash); // the hash is the workbench's
  }

  // ---- downloads ----------------------------------------------------------------------------

  // Everything on screen as the API returned it (JSON), and the batch sweep as the API writes it
  // as CSV (the same table as `llmecon sweep --csv`).
  function download(name, text, type) {
    const a = document.createElement("a");
    a.href = URL.createObjectURL(new Blob([text], { type }));
    a.download = name;
    document.body.appendChild(a);
    a.click();
    setTimeout(() => {
      URL.revokeObjectURL(a.href);
      a.remove();
    }, 0);
  }
  function fileStem() {
    const r = state.results.roofline;
    return r ? `llmecon-${r.model}-${r.hardware}`.replace(/[^a-zA-Z0-9._-]/g, "_") : "llmecon";
  }
  async function downloadCsv() {
    if (!state.requests.sweepBatch) return;
    try {
      const text = await api("sweep", state.requests.sweepBatch, undefined, "csv");
      download(fileStem() + "-batch.csv", text, "text/csv");
    } catch (err) {
      showError(err);
    }
  }

  // ---- start --------------------------------------------------------------------------------

  let timer = null;
  const soon = (fn) => () => {
    clearTimeout(timer);
    timer = setTimeout(fn, 60);
  };
  const refresh = () => {
    update();
    updatePlan();
  };

  async function init() {
    try {
      const [schema, models, hw] = await Promise.all([
        fetch("/api/").then((res) => res.json()),
        api("models"),
        api("hardware"),
      ]);
      state.schema = Object.fromEntries(schema.commands.map((c) => [c.name, Object.assign({}, c, { args: Object.fromEntries(c.args.map((a) => [a.key, a])) })]));
      for (const c of CONTROLS) setupControl(c, { model: models, hardware: hw });
      for (const name of argOf("simulate", "engine").choices) $("sim-engine").add(new Option(name, name));
      for (const name of argOf("train", "train_dtype").choices) $("train-dtype").add(new Option(name, name));
      restoreFromUrl();
      llmeconWorkbench.init(schema.commands, { model: models, hardware: hw }, { api, apiJob, download }, schema.max_body_bytes);
    } catch (err) {
      showError(err);
      return;
    }
    for (const id of ["model", "hw", "chips", "weight_dtype", "kv_dtype", "cost"]) {
      $(id).addEventListener("change", () => {
        if (id === "model" && state.pastedConfig) {
          state.pastedConfig = null;
          state.pastedName = null;
          $("config-status").textContent = `cleared; using ${modelInUse()}`;
          $("config-status").dataset.state = "cleared";
        }
        refresh();
      });
    }
    $("phase").addEventListener("change", update); // the planner covers both phases already
    for (const id of PLAN_KEYS) {
      $(id).addEventListener("change", () => {
        saveToUrl();
        updatePlan();
      });
    }
    for (const id of ["batch", "context"]) $(id).addEventListener("input", soon(update));
    $("use-config").addEventListener("click", useConfig);
    $("pin").addEventListener("click", pin);
    $("unpin").addEventListener("click", unpin);
    $("download-json").addEventListener("click", () => download(fileStem() + ".json", JSON.stringify(state.results, null, 1), "application/json"));
    $("download-csv").addEventListener("click", downloadCsv);
    $("simulate").addEventListener("click", updateTraffic);
    $("train").addEventListener("click", updateTraining);
    for (const keys of Object.values(VIEW_KEYS)) for (const k of keys) for (const ev of ["input", "change"]) $(k).addEventListener(ev, saveToUrl);
    $("tco").addEventListener("click", updateTco);
    $("scaleup").addEventListener("click", updateScaleup);
    const opened = state.openedViews || {};
    await Promise.all([update(), updatePlan(), loadLecture(), updateTraffic(), opened.training ? updateTraining() : null,
      opened.ownership ? updateTco() : null, opened.scaleup ? updateScaleup() : null]);
  }
  init();
})();
