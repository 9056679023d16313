// The llmecon page. It talks only to /api on the server that served it (no CDN) and draws with
// charts.js, the same builders `llmecon <command> --plot FILE.html` uses.
/* global llmeconCharts */
(function () {
  "use strict";
  const $ = (id) => document.getElementById(id);
  const C = llmeconCharts;

  const BATCHES = Array.from({ length: 15 }, (_, i) => 2 ** i); // 1 .. 16384
  const CONTEXTS = Array.from({ length: 13 }, (_, i) => 2 ** (i + 8)); // 256 .. 1M

  // What the page shows, for the browser test and for anyone poking at the console.
  const state = {
    pastedConfig: null, // a config.json object, sent as the model argument
    pinned: [], // cost curves kept for comparison: {label, rows}
    results: {}, // command -> last JSON
    charts: {},
    explainSources: {}, // key -> {title, lines, match}
    updates: 0,
    planUpdates: 0,
  };
  window.llmecon = state;

  async function api(command, args) {
    const res = await fetch(`/api/${command}`, { method: "POST", body: JSON.stringify(args || {}) });
    const body = await res.json();
    if (!res.ok) throw new Error(body.error);
    return body;
  }

  const batch = () => 2 ** +$("batch").value;
  const context = () => 2 ** +$("context").value;

  // The arguments every command shares: the board (model, hardware, chips, formats).
  function board() {
    const a = { model: state.pastedConfig || $("model").value, hw: $("hw").value };
    if ($("chips").value) a.chips = +$("chips").value;
    if ($("weight_dtype").value) a.weight_dtype = $("weight_dtype").value;
    a.kv_dtype = $("kv_dtype").value;
    return a;
  }

  function showError(err) {
    $("error").textContent = err ? err.message || String(err) : "";
  }

  // A figure tile: the label, the value as text, and the raw number in data-value for checks.
  function figure(key, label, value, text, explainKey, extraClass) {
    const div = document.createElement("div");
    div.className = "figure" + (extraClass ? " " + extraClass : "");
    div.dataset.key = key;
    div.dataset.value = typeof value === "number" ? String(value) : value;
    div.dataset.explain = explainKey;
    div.innerHTML = `<div class="label"></div><div class="value"></div>`;
    div.querySelector(".label").textContent = label;
    div.querySelector(".value").textContent = text;
    div.addEventListener("click", () => explain(explainKey, div));
    return div;
  }

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

  // "deepseek-v3 on 72 x gb200, fp8/bf16, context 4096": what a pinned curve is.
  function curveLabel(r) {
    return `${r.model} on ${r.chips} x ${r.hardware}, ${r.weight_dtype}/${r.kv_dtype}, ${r.phase} context ${C.num(r.context)}`;
  }

  function pin() {
    const r = state.results.roofline;
    const rows = state.results.sweepBatch && state.results.sweepBatch.rows;
    if (!r || !rows) return;
    const label = curveLabel(r);
    if (!state.pinned.some((p) => p.label === label)) state.pinned.push({ label, rows });
    update();
  }

  // A clicked chart point: the derivation of the decode step there.
  let pointSeq = 0;
  async function explainAt(b, ctx) {
    const my = ++pointSeq;
    try {
      const phase = $("phase").value;
      const r = await api("roofline", Object.assign(board(), { phase, batch: b, context: ctx, explain: true }));
      if (my !== pointSeq) return; // a later click wins
      state.explainSources.point = { title: `${r.phase} at batch ${r.batch}, context ${r.context} (llmecon roofline --explain)`, lines: r.explain };
      explain("point", null);
    } catch (err) {
      showError(err);
    }
  }

  // A clicked layout on the Pareto chart: what the planner computed for it.
  function explainLayout(p) {
    const lines = C.describePoint(p).concat(
      Object.entries(p)
        .filter(([, v]) => v !== null && typeof v !== "object")
        .map(([k, v]) => `${k} = ${typeof v === "number" ? C.num(v) : v}`)
    );
    state.explainSources.layout = { title: `layout ${p.mapping}, batch ${p.batch} (llmecon plan --json)`, lines };
    explain("layout", null);
  }

  function renderFigures(r, b, rep) {
    const fig = $("figures");
    fig.textContent = "";
    const rk = (match) => {
      const k = "roofline:" + match[0];
      state.explainSources[k] = { title: `${r.phase} (llmecon roofline --explain)`, lines: r.explain || [], match };
      return k;
    };
    const perChip = (r.mem_weights_bytes + r.mem_kv_bytes) / r.chips;
    const items = [
      ["t_step_s", "step time", r.t_step_s, C.seconds(r.t_step_s), rk(["t_step"]), "bound-" + r.bound],
      ["bound", "bound by", r.bound, r.bound, rk(["t_step"]), "bound-" + r.bound],
      ["t_compute_s", "compute", r.t_compute_s, C.seconds(r.t_compute_s), rk(["t_compute"])],
      ["t_weights_s", "weight fetch", r.t_weights_s, C.seconds(r.t_weights_s), rk(["t_weights"])],
      ["t_kv_s", "KV fetch", r.t_kv_s, C.seconds(r.t_kv_s), rk(["t_kv"])],
      ["tokens_per_s", "tokens/s (domain)", r.tokens_per_s, C.num(r.tokens_per_s), rk(["tokens/s"])],
      ["usd_per_mtok", "$ per Mtok", r.usd_per_mtok, "$" + C.num(r.usd_per_mtok), rk(["$/token"])],
      ["mfu", "MFU", r.mfu, C.num(100 * r.mfu) + "%", rk(["MFU", "t_compute"])],
      ["memory_per_chip_bytes", "memory per chip", perChip, C.bytes(perChip) + (r.fits ? "" : " ✗"), rk(["memory"])],
      b.error
        ? ["b_star_kv", "B* with KV (F6)", "null", "-", "batch:b_star"]
        : b.b_star_kv === null
          ? ["b_star_kv", "B* with KV (F6)", "null", "none: KV-bound", "batch:b_star"]
          : ["b_star_kv", "B* with KV (F6)", b.b_star_kv, C.num(b.b_star_kv), "batch:b_star"],
      rep.error || rep.balance_batch === null
        ? ["balance_batch", "compute-bound from", "null", rep.error ? "-" : "never", "report:balance"]
        : ["balance_batch", "compute-bound from", rep.balance_batch, "B = " + C.num(rep.balance_batch), "report:balance"],
      ["max_batch_fits", "largest batch that fits", rep.error ? "null" : rep.max_batch_fits, C.num(rep.max_batch_fits), "report:fits"],
      ["latency_floor_s", "latency floor", b.error ? "null" : b.latency_floor_s, C.seconds(b.latency_floor_s), "batch:latency"],
      ["unbatched_penalty", "unbatched penalty", b.error ? "null" : b.unbatched_penalty, b.error ? "-" : C.num(b.unbatched_penalty) + "x", "batch:penalty"],
    ];
    // The full roofline's balance point (attention FLOPs, efficiency and fixed costs included)
    // can differ from F6's B*, which counts 2 N_active FLOPs per token only.
    const unavailable = (x) => [x.error];
    state.explainSources["report:balance"] = rep.error ? { title: "balance batch (llmecon report)", lines: unavailable(rep) } : {
      title: "balance batch on the full roofline (llmecon report)",
      lines: [
        `the smallest batch whose step max(t_compute, t_weights + t_kv) + t_overhead is compute-bound, by bisection over the roofline (F1, F6) = ${rep.balance_batch === null ? "none below 10^7" : rep.balance_batch}`,
        `B* = R x S (F6) from the blackboard formula = ${C.num(b.b_star)}; with the KV term = ${b.b_star_kv === null ? "infinite (KV fetch per sequence exceeds its compute)" : C.num(b.b_star_kv)}`,
      ],
    };
    state.explainSources["report:fits"] = rep.error ? { title: "memory fit (llmecon report)", lines: unavailable(rep) } : {
      title: "memory fit (llmecon report)",
      lines: [`largest batch = floor((HBM - weights) / KV per sequence) (F21) = ${rep.max_batch_fits}`],
    };
    const blines = b.error ? unavailable(b) : b.explain;
    state.explainSources["batch:b_star"] = { title: "optimal batch (llmecon batch --explain)", lines: blines, match: ["B*"] };
    state.explainSources["batch:latency"] = { title: "latency floor (llmecon batch --explain)", lines: blines, match: ["latency floor"] };
    state.explainSources["batch:penalty"] = { title: "unbatched penalty (llmecon batch --explain)", lines: blines, match: ["unbatched"] };
    for (const it of items) fig.appendChild(figure(...it));
    $("summary-title").textContent = `· ${r.model} on ${r.chips} x ${r.hardware}, batch ${r.batch}, context ${r.context}` +
      (r.fits ? "" : ` · does not fit: ${r.fit_reason}`);
  }

  // The blackboard analyses pool one scale-up domain; with more chips they answer an error that
  // the step, sweep and memory figures do not share, so they are optional here.
  const optional = (promise) => promise.catch((err) => ({ error: err.message }));

  let seq = 0;
  async function update() {
    // The controls as they are now: a slider moved during the requests starts the next update.
    const B = batch();
    const X = context();
    $("batch-value").textContent = B;
    $("context-value").textContent = C.num(X);
    const my = ++seq;
    try {
      // Prefill: a pass over B prompts of X tokens each; the blackboard's B* is about decode.
      const prefill = $("phase").value === "prefill";
      const a = Object.assign(board(), prefill ? { phase: "prefill" } : {});
      const decodeOnly = { error: "B* and the latency floor are decode quantities (llmecon batch)" };
      const [r, byBatch, byContext, b, rep] = await Promise.all([
        api("roofline", Object.assign({}, a, { batch: B, context: X, explain: true })),
        api("sweep", Object.assign({}, a, { batch: BATCHES, context: X })),
        api("sweep", Object.assign({}, a, { batch: B, context: CONTEXTS })),
        prefill ? decodeOnly : optional(api("batch", Object.assign(board(), { context: X }))),
        optional(api("report", Object.assign({}, a, { context: X }))),
      ]);
      if (my !== seq) return; // a newer update is on its way
      Object.assign(state.results, { roofline: r, sweepBatch: byBatch, sweepContext: byContext, batch: b, report: rep });
      showError(b.error && !prefill ? "B* and the blackboard figures: " + b.error : null);
      $("phase-title").textContent = prefill ? "Prefill pass" : "Decode step";
      renderFigures(r, b, rep);
      const bopts = { current: B, markers: [] };
      const labels = prefill
        ? { xLabel: "prompts per pass", yLabel: "$ per million input tokens", contextLabel: "prompt length (tokens)" }
        : {};
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
      const fitting = byBatch.rows.filter((row) => row.fits);
      if (fitting.length && fitting.length < byBatch.rows.length) {
        const last = fitting[fitting.length - 1].batch;
        bopts.markers.push({ x: last, label: "HBM full past " + C.num(last), color: "#7f8c8d", dash: [2, 2] });
      }
      bopts.onPoint = (p) => explainAt(p.x, X);
      state.charts.costBatch = C.costVsBatch($("chart-cost-batch"), byBatch.rows,
        Object.assign({}, bopts, { label: curveLabel(r), compare: state.pinned }));
      state.charts.stepBatch = C.stepVsBatch($("chart-step-batch"), byBatch.rows, bopts);
      state.charts.roofline = C.roofline($("chart-roofline"), byBatch.rows, { current: r, title: `Roofline at context ${C.num(X)}`, onPoint: (p) => explainAt(p.batch, X) });
      state.charts.costContext = C.costVsContext($("chart-cost-context"), byContext.rows, Object.assign({ current: X, title: `Cost per token against ${prefill ? "prompt length" : "context"} at batch ${B}`, onPoint: (p) => explainAt(B, p.x) }, labels));
      state.charts.memory = C.memory($("chart-memory"), r);
      saveToUrl();
      state.updates++;
      document.body.dataset.updates = String(state.updates);
      // Keep the open derivation, now with the new values; a clicked point or layout belongs to
      // the old inputs, so the panel returns to the step time.
      const open = $("explain").dataset.key;
      const keep = open && state.explainSources[open] && open !== "point" && open !== "layout";
      const key = keep ? open : "roofline:t_step";
      explain(key, document.querySelector(`.figure[data-explain="${key}"]`));
    } catch (err) {
      if (my === seq) showError(err);
    }
  }

  // The planner searches the formats itself; it takes the model, hardware, chip count, request
  // shape and latency targets.
  const PLAN_KEYS = ["isl", "osl", "ttft_ms", "tpot_ms"];
  function planArgs() {
    const { model, hw, chips } = board();
    const a = chips ? { model, hw, chips } : { model, hw };
    for (const k of PLAN_KEYS) if ($(k).value !== "") a[k] = +$(k).value;
    return a;
  }

  let planSeq = 0;
  async function updatePlan() {
    const my = ++planSeq;
    $("plan-status").textContent = "planning…";
    try {
      const p = await api("plan", planArgs());
      if (my !== planSeq) return;
      state.results.plan = p;
      state.charts.pareto = C.pareto($("chart-pareto"), p, { onPoint: (pt) => pt.point && explainLayout(pt.point) });
      const best = p.best ? C.describePoint(p.best).join("; ") : p.empty_reason;
      const slo = Object.entries(p.slo || {}).map(([k, v]) => `${k.replace("_ms", "").toUpperCase()} ≤ ${C.num(v)} ms`).join(", ");
      $("plan-status").textContent = `${p.isl} prompt and ${p.osl} output tokens${slo ? ", " + slo : ", no latency target"}: ` +
        `searched ${p.evaluated} configurations, ${p.meeting_slo} meet the targets. Best: ${best}. Hover a point for its layout.`;
    } catch (err) {
      if (my !== planSeq) return;
      $("plan-status").textContent = "plan: " + err.message;
    }
    state.planUpdates++;
    document.body.dataset.planUpdates = String(state.planUpdates);
  }

  async function loadLecture() {
    try {
      const claims = await api("lecture", {});
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
        state.explainSources[key] = { title: `${c.id}: ${c.claim}`, lines: [c.inputs ? "inputs: " + c.inputs : ""].concat(c.explain || []).filter(Boolean) };
        tr.addEventListener("click", () => explain(key, null));
        t.appendChild(tr);
      });
    } catch (err) {
      $("lecture-summary").textContent = "lecture: " + err.message;
    }
  }

  function useConfig() {
    const text = $("config").value.trim();
    if (!text) {
      state.pastedConfig = null;
      $("config-status").textContent = "cleared; using the picker";
    } else {
      try {
        const cfg = JSON.parse(text);
        if (typeof cfg !== "object" || Array.isArray(cfg) || cfg === null) throw new Error("a config.json is one JSON object");
        state.pastedConfig = cfg;
        $("config-status").textContent = "using the pasted config (the model picker is ignored until you clear it)";
      } catch (err) {
        $("config-status").textContent = "not JSON: " + err.message;
        return;
      }
    }
    update();
    updatePlan();
  }

  let timer = null;
  const soon = (fn) => () => {
    clearTimeout(timer);
    timer = setTimeout(fn, 60);
  };

  // The view lives in the address (?model=...&hw=...&batch=512&context=4096), so it can be shared
  // or bookmarked. A pasted config is not put there.
  const URL_KEYS = ["model", "hw", "chips", "phase", "weight_dtype", "kv_dtype", "isl", "osl", "ttft_ms", "tpot_ms"];
  function restoreFromUrl() {
    const q = new URLSearchParams(location.search);
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
  }
  function saveToUrl() {
    const q = new URLSearchParams();
    for (const k of URL_KEYS) if ($(k).value) q.set(k, $(k).value);
    q.set("batch", String(batch()));
    q.set("context", String(context()));
    history.replaceState(null, "", "?" + q.toString());
  }

  // Everything on screen as the API returned it, for notebooks and spreadsheets.
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
  function csv(rows) {
    const keys = Object.keys(rows[0] || {}).filter((k) => typeof rows[0][k] !== "object");
    const cell = (v) => (typeof v === "string" && /[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : String(v));
    return [keys.join(",")].concat(rows.map((r) => keys.map((k) => cell(r[k])).join(","))).join("\n") + "\n";
  }
  function fileStem() {
    const r = state.results.roofline;
    return r ? `llmecon-${r.model}-${r.hardware}`.replace(/[^a-zA-Z0-9._-]/g, "_") : "llmecon";
  }

  async function init() {
    try {
      const [models, hw] = await Promise.all([api("models"), api("hardware")]);
      for (const m of models) $("model").add(new Option(m.name, m.name));
      for (const h of hw) $("hw").add(new Option(h.name, h.name));
      $("model").value = "llama-3.1-70b";
      $("hw").value = "h100-sxm";
      restoreFromUrl();
    } catch (err) {
      showError(err);
      return;
    }
    for (const id of ["model", "hw", "chips", "weight_dtype", "kv_dtype"]) {
      $(id).addEventListener("change", () => {
        if (id === "model") state.pastedConfig = null;
        update();
        updatePlan();
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
    $("unpin").addEventListener("click", () => {
      state.pinned = [];
      update();
    });
    $("download-json").addEventListener("click", () => download(fileStem() + ".json", JSON.stringify(state.results, null, 1), "application/json"));
    $("download-csv").addEventListener("click", () => {
      if (state.results.sweepBatch) download(fileStem() + "-batch.csv", csv(state.results.sweepBatch.rows), "text/csv");
    });
    await Promise.all([update(), updatePlan(), loadLecture()]);
  }
  init();
})();
