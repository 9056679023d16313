// End-to-end test of the web page in headless Chromium (Debian's chromium, driven by
// playwright-core from web/node_modules). It starts `llmecon serve`, loads the page, changes the
// model, hardware and batch, and checks that the charts redraw with the API's numbers. The page
// follows the API's rules too: pickers from GET /api/, stale requests aborted, charts updated in
// place, tiles from one table, CSV and derivations as the API writes them; and the bugs a new
// user hit stay fixed (pins per phase, a broken paste, marker labels, the planner's SLO line and
// top tick, a 390 px screen). Screenshots go to SCREENSHOT_DIR; web-page.png is the README's.
//
//   node tests/web/browser_test.mjs LLMECON_BINARY SCREENSHOT_DIR MODEL_CONFIG_JSON
//
// Exit 0 on success, 1 on a failed check, 77 (ctest's skip) when Chromium or playwright-core is
// missing outside CI.
import { execFileSync, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { existsSync, readFileSync, mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import assert from "node:assert/strict";

const [binary, outDir, configPath] = process.argv.slice(2);
const here = dirname(fileURLToPath(import.meta.url));
const webDir = join(here, "..", "..", "web");
const chromiumPath = process.env.CHROMIUM || "/usr/bin/chromium";

function skip(why) {
  if (process.env.CI === "true") {
    console.error(`browser test: ${why} (CI must have it: scripts/bootstrap.sh installs it)`);
    process.exit(1);
  }
  console.error(`browser test: skipped: ${why}`);
  process.exit(77);
}

let chromium;
try {
  chromium = createRequire(join(webDir, "package.json"))("playwright-core").chromium;
} catch {
  skip("playwright-core is not installed (npm ci --prefix web)");
}
if (!existsSync(chromiumPath)) skip(`${chromiumPath} not found (apt install chromium)`);

// The server on a port of its own; the test waits for its "serving on" line.
async function startServer() {
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = 20000 + Math.floor(Math.random() * 20000);
    const proc = spawn(binary, ["serve", "--port", String(port)], { stdio: ["ignore", "ignore", "pipe"] });
    const ok = await new Promise((resolve) => {
      let err = "";
      proc.stderr.on("data", (d) => {
        err += d;
        if (err.includes("serving on")) resolve(true);
      });
      proc.on("exit", () => resolve(false));
      setTimeout(() => resolve(false), 10000);
    });
    if (ok) return { proc, base: `http://127.0.0.1:${port}` };
    proc.kill();
  }
  throw new Error("could not start llmecon serve");
}

const { proc, base } = await startServer();
const api = async (command, args) => {
  const res = await fetch(`${base}/api/${command}`, { method: "POST", body: JSON.stringify(args) });
  return { status: res.status, body: await res.json() };
};

let browser;
let page;
let failed = false;
const checks = [];
const started = Date.now();
function check(name, fn) {
  checks.push(name);
  return fn();
}
// Waits for a condition on this side (requests the test saw): polls it, never sleeps a fixed time.
async function until(cond, what, timeout = 20000) {
  const end = Date.now() + timeout;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
const BATCHES = Array.from({ length: 15 }, (_, i) => 2 ** i);
const CONTEXTS = Array.from({ length: 13 }, (_, i) => 2 ** (i + 8));
// A roofline or sweep row's price: per output token of a decode step, per input token of a prefill.
const price = (r) => (r.usd_per_mtok_output !== undefined ? r.usd_per_mtok_output : r.usd_per_mtok_input);

try {
  browser = await chromium.launch({
    executablePath: chromiumPath,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
      "--disable-component-update", "--disable-sync"],
  });
  page = await browser.newPage({ viewport: { width: 1400, height: 1900 } });
  const offsite = [];
  page.on("request", (r) => {
    if (!r.url().startsWith(base)) offsite.push(r.url());
  });
  const pageErrors = [];
  page.on("pageerror", (e) => pageErrors.push(e.message));
  await page.goto(base + "/");

  const waitUpdates = (n) => page.waitForFunction((k) => +(document.body.dataset.updates || 0) >= k, n, { timeout: 20000 });
  const waitPlan = (n) => page.waitForFunction((k) => +(document.body.dataset.planUpdates || 0) >= k, n, { timeout: 60000 });
  const updatesNow = async () => +(await page.evaluate(() => document.body.dataset.updates));
  const plansNow = async () => +(await page.evaluate(() => document.body.dataset.planUpdates));
  await waitUpdates(1);
  await waitPlan(1);
  // The first traffic view is drawn too before any check counts the page's charts: on a slow
  // machine it lands after the others and would otherwise look like a chart built anew.
  await page.waitForFunction(() => +(document.body.dataset.trafficUpdates || 0) >= 1, null, { timeout: 120000 });
  const schema = Object.fromEntries((await (await fetch(`${base}/api/`)).json()).commands.map((c) => [c.name, Object.fromEntries(c.args.map((a) => [a.key, a]))]));

  // The page's own pickers equal the server's command table (GET /api/): choices and defaults.
  await check("pickers and defaults from the schema", async () => {
    const roof = schema.roofline;
    const plan = schema.plan;
    const sel = (id) => page.$eval(`#${id}`, (el) => ({ value: el.value, options: [...el.options].map((o) => [o.value, o.textContent]) }));
    // A dtype argument's choices: the schema's list.
    const choices = (a) => {
      assert.ok(Array.isArray(a.choices), `${a.key} lists its choices in GET /api/`);
      return a.choices;
    };
    const phase = await sel("phase");
    assert.deepEqual(phase.options.map((o) => o[0]), roof.phase.choices, "phase choices = schema");
    assert.equal(phase.value, roof.phase.default, "phase default = schema");
    for (const k of ["weight_dtype", "kv_dtype"]) {
      const s = await sel(k);
      assert.equal(roof[k].default, null);
      assert.deepEqual(s.options, [["", roof[k].default_text]].concat(choices(roof[k]).map((c) => [c, c])), `${k} choices = schema`);
      assert.equal(s.value, "", `${k}: the default (${roof[k].default_text})`);
    }
    assert.ok((await sel("weight_dtype")).options.some((o) => o[0] === "int8"), "every format the engine reads is offered");
    const models = (await api("models", {})).body.map((m) => m.name);
    const hws = (await api("hardware", {})).body.map((h) => h.name);
    assert.deepEqual((await sel("model")).options.map((o) => o[0]), models);
    assert.deepEqual((await sel("hw")).options.map((o) => o[0]), hws);
    assert.equal((await sel("model")).value, roof.model.default, "model default = schema");
    assert.equal((await sel("hw")).value, roof.hw.default, "hardware default = schema");
    const num = (id) => page.$eval(`#${id}`, (el) => ({ value: el.value, min: el.min, placeholder: el.placeholder }));
    // The first view is the cheapest batch that fits, from the batch sweep the page drew.
    const sweep = await page.evaluate(() => llmecon.results.sweepBatch.rows.filter((r) => r.feasible));
    const cheapest = sweep.reduce((a, r) => (price(r) < price(a) ? r : a));
    assert.equal(2 ** +(await num("batch")).value, cheapest.batch, "opens at the cheapest batch that fits");
    assert.notEqual(cheapest.batch, roof.batch.default, "not the schema's batch-1 default");
    assert.equal(2 ** +(await num("context")).value, roof.context.default, "context default = schema");
    for (const k of ["isl", "osl"]) assert.equal((await num(k)).value, String(plan[k].default), `${k} default = schema`);
    for (const k of ["ttft_ms", "tpot_ms"]) assert.equal((await num(k)).placeholder, plan[k].default_text, `${k}: no target by default`);
    assert.equal((await num("chips")).placeholder, roof.chips.default_text);
    // What the page asked: only arguments each command declares (report has no batch, plan no context).
    const requests = await page.evaluate(() => llmecon.requests);
    const cmd = { roofline: "roofline", sweepBatch: "sweep", sweepContext: "sweep", batch: "batch", report: "report", plan: "plan", simulate: "simulate" };
    for (const [name, args] of Object.entries(requests)) {
      for (const k of Object.keys(args)) assert.ok(schema[cmd[name]][k], `${name} was sent ${k}, which ${cmd[name]} declares`);
    }
    assert.ok(!("batch" in requests.report) && !("context" in requests.plan));
  });

  // What the page sent: the controls as the page reads them.
  const pageArgs = () =>
    page.evaluate(() => ({
      model: document.getElementById("model").value,
      hw: document.getElementById("hw").value,
      kv_dtype: document.getElementById("kv_dtype").value,
      batch: 2 ** +document.getElementById("batch").value,
      context: 2 ** +document.getElementById("context").value,
    }));

  // The figures and the charts must hold exactly the API's numbers for the same question.
  async function checkAgainstApi(label) {
    const a = await pageArgs();
    const board = { model: a.model, hw: a.hw, ...(a.kv_dtype ? { kv_dtype: a.kv_dtype } : {}) };
    const r = (await api("roofline", { ...board, batch: a.batch, context: a.context, explain: true })).body;
    const shown = await page.evaluate(() =>
      Object.fromEntries([...document.querySelectorAll(".figure")].map((f) => [f.dataset.key, { value: f.dataset.value, text: f.querySelector(".value").textContent }])));
    for (const k of ["t_step_s", "t_compute_s", "t_weights_s", "t_kv_s", "tokens_per_s", "mfu"]) {
      assert.equal(Number(shown[k].value), r[k], `${label}: figure ${k} = API`);
    }
    assert.equal(Number(shown.usd_per_mtok.value), price(r), `${label}: figure $/Mtok = API`);
    assert.equal(shown.bound.value, r.bound, `${label}: bound`);
    const formatted = await page.evaluate((v) => llmeconCharts.seconds(v), r.t_step_s);
    assert.equal(shown.t_step_s.text, formatted, `${label}: step time text`);
    assert.equal(shown.usd_per_mtok.text, "$" + (await page.evaluate((v) => llmeconCharts.num(v), price(r))) + (r.phase === "prefill" ? " input" : " output"), `${label}: $/Mtok text`);

    const sweep = (await api("sweep", { ...board, batch: BATCHES, context: a.context })).body;
    const costData = await page.evaluate(() => llmecon.charts.costBatch.data.datasets[0].data.map((p) => [p.x, p.y]));
    assert.deepEqual(costData, sweep.rows.map((row) => [row.batch, price(row)]), `${label}: cost chart = API sweep`);
    const stepData = await page.evaluate(() => llmecon.charts.stepBatch.data.datasets[0].data.map((p) => p.y));
    assert.deepEqual(stepData, sweep.rows.map((row) => row.t_step_s).filter((v) => v > 0), `${label}: step chart = API sweep`);
    const regions = await page.evaluate(() => llmecon.charts.costBatch.options.plugins.boundRegions.regions.map((x) => x.bound));
    const bounds = sweep.rows.map((row) => row.bound).filter((b, i, all) => i === 0 || all[i - 1] !== b);
    assert.deepEqual(regions, bounds, `${label}: shaded regions follow the API's bound`);
    const rep = (await api("report", { ...board, context: a.context })).body;
    assert.equal(shown.balance_batch.value, String(rep.balance_batch), `${label}: balance batch = API report`);
    assert.equal(Number(shown.max_batch_fits.value), rep.max_batch_fits, `${label}: largest fitting batch = API report`);
    const b = (await api("batch", { ...board, context: a.context })).body;
    const markers = await page.evaluate(() => llmecon.charts.costBatch.options.plugins.xMarkers.markers.map((m) => m.x));
    assert.equal(markers[0], b.b_star_kv ?? b.b_star, `${label}: optimum marker at B*`);
    const mem = await page.evaluate(() => llmecon.charts.memory.data.datasets.map((d) => d.data[0].x));
    assert.ok(Math.abs(mem[0] - r.mem_weights_bytes / r.chips / 1e9) < 1e-9, `${label}: memory chart weights per chip`);
    const ctxData = await page.evaluate(() => llmecon.charts.costContext.data.datasets[0].data.map((p) => p.y));
    const ctxSweep = (await api("sweep", { ...board, batch: a.batch, context: CONTEXTS })).body;
    assert.deepEqual(ctxData, ctxSweep.rows.map((row) => price(row)), `${label}: context chart = API sweep`);
    // Contexts whose KV does not fit are marked: HBM full past the last one that does.
    const ctxMarks = await page.evaluate(() => llmecon.charts.costContext.options.plugins.xMarkers.markers.map((m) => m.label));
    const overflow = ctxSweep.rows.some((row) => !row.feasible);
    assert.equal(ctxMarks.some((l) => l.startsWith("HBM full")), overflow, `${label}: HBM-full mark on the context chart iff a context does not fit`);
    const roofPts = await page.evaluate(() => llmecon.charts.roofline.data.datasets[1].data.map((p) => p.x));
    assert.deepEqual(roofPts, sweep.rows.filter((row) => row.flops > 0 && row.feasible).map((row) => row.arithmetic_intensity), `${label}: roofline points`);
    return r;
  }

  // Where a point of a chart is drawn on its canvas; the locator scrolls the canvas into view
  // before it hovers or clicks there.
  const pointOf = async (chart, dataset = 0, index = 0) => {
    const position = await page.evaluate(([name, d, i]) => {
      const el = llmecon.charts[name].getDatasetMeta(d).data[i];
      return { x: el.x, y: el.y };
    }, [chart, dataset, index]);
    return { canvas: page.locator(await page.evaluate((name) => "#" + llmecon.charts[name].canvas.id, chart)), position };
  };
  const firstPoint = (chart) => pointOf(chart, 0, 0);

  const revisions = () =>
    page.evaluate(() => Object.fromEntries([...document.querySelectorAll("canvas")].map((c) => [c.id, +(c.dataset.revision || 0)])));

  await check("initial page equals the API", () => checkAgainstApi("initial"));
  const rev0 = await revisions();
  const pixels0 = await page.evaluate(() => document.getElementById("chart-cost-batch").toDataURL());
  // The Chart instances as they are now: an update must redraw these, not build new ones.
  const instances0 = await page.evaluate(() => {
    window.__chartsBefore = Object.assign({}, llmecon.charts);
    return Object.keys(Chart.instances).length;
  });

  // Change model, hardware and batch; every chart redraws with the new numbers.
  let updates = await updatesNow();
  let plans = await plansNow();
  await page.selectOption("#model", "qwen3-30b-a3b");
  await waitUpdates(++updates);
  await waitPlan(++plans);
  await page.selectOption("#hw", "b200");
  await waitUpdates(++updates);
  await waitPlan(++plans);
  await page.$eval("#batch", (el) => {
    el.value = "9";
    el.dispatchEvent(new Event("input"));
  });
  await waitUpdates(++updates);
  const r = await check("after model, hardware and batch change", () => checkAgainstApi("changed"));
  assert.equal(r.batch, 512);
  assert.equal(r.model, "qwen3-30b-a3b");
  assert.equal(r.hardware, "b200");

  await check("charts are updated in place", async () => {
    const rev1 = await revisions();
    // The traffic and training charts redraw when asked (their own checks), not on every change.
    const traffic = new Set(["chart-latency-cdf", "chart-goodput", "chart-latency-rate", "chart-train-memory", "chart-train-time", "chart-cost-n", "chart-tco", "chart-scaleup"]);
    for (const id of Object.keys(rev0)) if (!traffic.has(id)) assert.ok(rev1[id] > rev0[id], `chart ${id} redrew`);
    const pixels1 = await page.evaluate(() => document.getElementById("chart-cost-batch").toDataURL());
    assert.notEqual(pixels1, pixels0, "the cost chart's pixels changed");
    const same = await page.evaluate(() => Object.keys(window.__chartsBefore).map((k) => [k, llmecon.charts[k] === window.__chartsBefore[k]]));
    assert.ok(same.length >= 6, "every chart was drawn");
    for (const [k, s] of same) assert.ok(s, `chart ${k} is the same Chart instance after the update`);
    assert.equal(await page.evaluate(() => Object.keys(Chart.instances).length), instances0, "no chart was built anew");
  });

  // The tiles are one table: each tile in it is on screen, in order, with the API's number.
  await check("figure tiles come from the table", async () => {
    const table = await page.evaluate(() => llmecon.tiles.map((t) => ({ key: t.key, label: t.label, from: t.from, field: typeof t.value === "string" ? t.value : null })));
    const dom = await page.$$eval(".figure", (fs) => fs.map((f) => ({ key: f.dataset.key, label: f.querySelector(".label").textContent, from: f.dataset.from, value: f.dataset.value })));
    assert.deepEqual(dom.map((d) => [d.key, d.label, d.from]), table.map((t) => [t.key, t.label, t.from]), "tiles = table rows");
    const board = { model: "qwen3-30b-a3b", hw: "b200" };
    const want = {
      roofline: r,
      batch: (await api("batch", { ...board, context: 4096 })).body,
      report: (await api("report", { ...board, context: 4096 })).body,
    };
    let named = 0;
    for (const [i, t] of table.entries()) {
      if (!t.field) continue;
      named++;
      assert.equal(dom[i].value, String(want[t.from][t.field]), `tile ${t.key} = API ${t.from}.${t.field}`);
    }
    assert.ok(named >= 12, "the tiles name their fields");
  });

  // Two quick slider moves: the first move's requests are cancelled (AbortController) and only
  // the second result reaches the screen. The server holds the first roofline request until the
  // second has been answered.
  await check("a newer slider move aborts the older requests", async () => {
    const failedReqs = [];
    const onFailed = (req) => {
      if (req.url().endsWith("/api/roofline")) failedReqs.push({ args: JSON.parse(req.postData()), error: req.failure().errorText });
    };
    page.on("requestfailed", onFailed);
    const held = [];
    let release;
    const gate = new Promise((resolve) => (release = resolve));
    await page.route("**/api/roofline", async (route) => {
      if (JSON.parse(route.request().postData()).batch === 8) {
        held.push(route);
        await gate;
      }
      await route.continue().catch(() => {}); // the page has cancelled it
    });
    const before = await updatesNow();
    const abortedBefore = await page.evaluate(() => llmecon.aborted);
    const slide = (v) => page.$eval("#batch", (el, x) => {
      el.value = String(x);
      el.dispatchEvent(new Event("input"));
    }, v);
    await slide(3); // batch 8
    await until(() => held.length === 1, "the batch-8 request");
    await slide(4); // batch 16
    await page.waitForFunction(() => llmecon.results.roofline.batch === 16, null, { timeout: 20000 });
    release();
    await until(() => failedReqs.some((f) => f.args.batch === 8), "the batch-8 request to fail");
    assert.equal(failedReqs.find((f) => f.args.batch === 8).error, "net::ERR_ABORTED", "the older request was aborted");
    assert.equal(await updatesNow(), before + 1, "one update reached the screen: the newer one");
    assert.ok((await page.evaluate(() => llmecon.aborted)) > abortedBefore, "the page counted the cancelled update");
    const want = (await api("roofline", { model: "qwen3-30b-a3b", hw: "b200", batch: 16, context: 4096 })).body;
    assert.equal(Number(await page.$eval('.figure[data-key="t_step_s"]', (f) => f.dataset.value)), want.t_step_s, "figures are batch 16's");
    assert.ok((await page.textContent("#summary-title")).includes("batch 16,"));
    assert.equal(await page.evaluate(() => llmecon.charts.costBatch.options.plugins.xMarkers.markers.find((m) => m.label.startsWith("now")).x), 16);
    await page.unroute("**/api/roofline");
    page.off("requestfailed", onFailed);
    await slide(9);
    await page.waitForFunction(() => llmecon.results.roofline.batch === 512, null, { timeout: 20000 });
  });

  // Pinned curves stay on the cost chart beside the current one, for comparison, on the chart of
  // their own phase only.
  await check("pin curves to compare, per phase", async () => {
    const before = await updatesNow();
    await page.click("#pin");
    await page.waitForFunction((k) => +document.body.dataset.updates > k, before, { timeout: 20000 });
    await page.selectOption("#hw", "h200-sxm");
    await page.waitForFunction((k) => +document.body.dataset.updates > k + 1, before, { timeout: 20000 });
    const datasets = () => page.evaluate(() => llmecon.charts.costBatch.data.datasets.map((d) => ({ label: d.label, y: d.data.map((p) => p.y) })));
    const sets = await datasets();
    assert.equal(sets.length, 2, "current curve and one pinned");
    assert.ok(sets[0].label.startsWith("qwen3-30b-a3b on 8 x h200-sxm"), sets[0].label);
    assert.ok(sets[1].label.startsWith("qwen3-30b-a3b on 8 x b200"), sets[1].label);
    const pinned = (await api("sweep", { model: "qwen3-30b-a3b", hw: "b200", kv_dtype: "bf16", batch: BATCHES, context: 4096 })).body;
    assert.deepEqual(sets[1].y, pinned.rows.map((row) => price(row)), "the pinned curve keeps b200's numbers");
    // The decode pin is not drawn on the prefill chart, and comes back with decode.
    await page.selectOption("#phase", "prefill");
    await page.waitForFunction(() => llmecon.results.roofline.phase === "prefill", null, { timeout: 20000 });
    const onPrefill = await datasets();
    assert.equal(onPrefill.length, 1, "no decode pin on the prefill chart");
    assert.ok(onPrefill[0].label.includes("prefill"), onPrefill[0].label);
    await page.selectOption("#phase", "decode");
    await page.waitForFunction(() => llmecon.results.roofline.phase === "decode", null, { timeout: 20000 });
    assert.deepEqual((await datasets()).map((d) => d.label), sets.map((d) => d.label), "the decode pin is back on the decode chart");
    const mid = await updatesNow();
    await page.click("#unpin");
    await page.waitForFunction((k) => +document.body.dataset.updates > k, mid, { timeout: 20000 });
    assert.equal(await page.evaluate(() => llmecon.charts.costBatch.data.datasets.length), 1);
    const back = await updatesNow();
    const plansBack = await plansNow();
    await page.selectOption("#hw", "b200");
    await page.waitForFunction((k) => +document.body.dataset.updates > k, back, { timeout: 20000 });
    await waitPlan(plansBack + 1);
  });

  // Prefill: the same charts for a pass over prompts, with the API's numbers.
  await check("prefill phase", async () => {
    await page.selectOption("#phase", "prefill");
    await page.waitForFunction(() => llmecon.results.roofline.phase === "prefill", null, { timeout: 20000 });
    const want = (await api("roofline", { model: "qwen3-30b-a3b", hw: "b200", kv_dtype: "bf16", phase: "prefill", batch: 512, context: 4096, explain: true })).body;
    const shown = await page.evaluate(() => ({ r: llmecon.results.roofline, title: document.getElementById("phase-title").textContent,
                                               x: llmecon.charts.costBatch.options.scales.x.title.text }));
    assert.deepEqual(shown.r, want);
    assert.equal(shown.title, "Prefill pass");
    assert.equal(shown.x, "prompts per pass");
    assert.equal(await page.textContent("#error"), "");
    assert.equal(new URL(page.url()).searchParams.get("phase"), "prefill");
    await page.selectOption("#phase", "decode");
    await page.waitForFunction(() => llmecon.results.roofline.phase === "decode", null, { timeout: 20000 });
  });

  // The view is in the address, and a shared address restores it.
  await check("view in the address", async () => {
    const url = new URL(page.url());
    assert.equal(url.searchParams.get("model"), "qwen3-30b-a3b");
    assert.equal(url.searchParams.get("hw"), "b200");
    assert.equal(url.searchParams.get("batch"), "512");
    const shared = await browser.newPage();
    await shared.goto(`${base}/?model=deepseek-v3&hw=gb200&batch=2048&context=8192&kv_dtype=fp8`);
    await shared.waitForFunction(() => +(document.body.dataset.updates || 0) >= 1, null, { timeout: 20000 });
    const r = await shared.evaluate(() => llmecon.results.roofline);
    assert.deepEqual([r.model, r.hardware, r.batch, r.context, r.kv_dtype], ["deepseek-v3", "gb200", 2048, 8192, "fp8"]);
    await shared.close();
  });

  // Latency targets and request shape reach the planner; the best layout meets them.
  const planWant = { model: "qwen3-30b-a3b", hw: "b200", isl: 8192, osl: 256, tpot_ms: 20, explain: true };
  await check("planner targets", async () => {
    await page.fill("#tpot_ms", "20");
    await page.fill("#isl", "8192");
    await page.dispatchEvent("#isl", "change");
    await page.dispatchEvent("#tpot_ms", "change");
    await page.waitForFunction(() => {
      const p = llmecon.results.plan;
      return p && p.isl === 8192 && p.slo && p.slo.tpot_ms === 20 && !document.getElementById("plan-status").textContent.startsWith("planning");
    }, null, { timeout: 60000 });
    const want = (await api("plan", planWant)).body;
    const shown = await page.evaluate(() => llmecon.results.plan);
    assert.deepEqual(shown, want, "plan = API plan with the page's targets");
    if (want.best) assert.ok(want.best.tpot_ms <= 20);
    assert.ok((await page.textContent("#plan-status")).includes("TPOT ≤ 20 ms"));
    assert.equal(new URL(page.url()).searchParams.get("tpot_ms"), "20");
  });

  // The planner chart draws the TPOT target, and its axes end on a labelled tick beyond the data.
  await check("planner chart: SLO line and top tick", async () => {
    const got = await page.evaluate(() => {
      const ch = llmecon.charts.pareto;
      const pts = ch.data.datasets.flatMap((d) => d.data);
      const axis = (s, k) => ({
        min: s.min, max: s.max, first: s.ticks[0], last: s.ticks[s.ticks.length - 1],
        lo: Math.min(...pts.map((p) => p[k])), hi: Math.max(...pts.map((p) => p[k])),
      });
      return { markers: ch.options.plugins.xMarkers.markers, labels: ch.$markerLabels, x: axis(ch.scales.x, "x"), y: axis(ch.scales.y, "y") };
    });
    const slo = got.markers.find((m) => m.label.includes("TPOT ≤ 20 ms"));
    assert.ok(slo, "a TPOT line is drawn");
    assert.ok(Math.abs(slo.x - 1000 / 20) < 1e-9, `at 1000 / TPOT tokens/s per user: ${slo.x}`);
    assert.ok(slo.x >= got.x.min && slo.x <= got.x.max, "inside the axis");
    assert.ok(got.labels.some((l) => l.label === slo.label), "its label is drawn");
    for (const k of ["x", "y"]) {
      const a = got[k];
      assert.ok(a.last.value >= a.hi && a.last.value === a.max, `${k}: the top tick (${a.last.value}) is at the axis end, above the data (${a.hi})`);
      assert.ok(a.last.label && a.last.label.length > 0, `${k}: the top tick is labelled`);
      assert.ok(a.first.value <= a.lo && a.first.value === a.min && a.first.label, `${k}: the bottom tick is labelled, below the data`);
    }
  });

  // Downloads: the batch sweep as the API's CSV, and everything shown as JSON as the API returned it.
  await check("downloads", async () => {
    const [csvFile, csvRequest] = await Promise.all([
      page.waitForEvent("download"),
      page.waitForRequest((q) => q.url().endsWith("/api/sweep") && JSON.parse(q.postData()).format === "csv"),
      page.click("#download-csv"),
    ]);
    assert.deepEqual(JSON.parse(csvRequest.postData()).batch, BATCHES, "the page asked the API for the batch sweep's CSV");
    const text = readFileSync(await csvFile.path(), "utf8");
    const res = await fetch(`${base}/api/sweep`, { method: "POST", body: JSON.stringify({ model: "qwen3-30b-a3b", hw: "b200", batch: BATCHES, context: 4096, format: "csv" }) });
    assert.equal(res.headers.get("content-type"), "text/csv");
    assert.equal(text, await res.text(), "the CSV file = the API's CSV");
    const lines = text.trim().split("\n");
    assert.ok(lines[0].startsWith("model,hardware,chips,phase,batch,context"), lines[0]);
    assert.equal(lines.length, 1 + 15);
    assert.equal(csvFile.suggestedFilename(), "llmecon-qwen3-30b-a3b-b200-batch.csv");
    const [jsonFile] = await Promise.all([page.waitForEvent("download"), page.click("#download-json")]);
    const all = JSON.parse(readFileSync(await jsonFile.path(), "utf8"));
    assert.deepEqual(all.roofline, r);
  });

  // The Pareto frontier equals the planner's, and hovering a point shows its layout.
  await check("pareto frontier and hover", async () => {
    const plan = (await api("plan", planWant)).body;
    const front = await page.evaluate(() => llmecon.charts.pareto.data.datasets[0].data.map((p) => [p.x, p.y]));
    const want = plan.frontier.map((p) => [p.tokens_per_s_per_user, p.tokens_per_s_per_chip]).sort((a, b) => a[0] - b[0]);
    assert.deepEqual(front, want, "frontier = API plan");
    const { canvas, position } = await firstPoint("pareto");
    await canvas.hover({ position });
    await page.waitForFunction(() => llmecon.charts.pareto.tooltip.opacity > 0, null, { timeout: 5000 });
    const lines = await page.evaluate(() => llmecon.charts.pareto.tooltip.body.flatMap((b) => b.lines));
    assert.ok(lines.some((l) => l.includes("tok/s per chip")), "tooltip shows the point's throughput");
    const first = plan.frontier.slice().sort((a, b) => a.tokens_per_s_per_user - b.tokens_per_s_per_user)[0];
    // The tooltip is for the point under the cursor: the first frontier point, or a layout within a
    // pixel of it (another of the best layouts can perform within 0.1% of it).
    const hovered = await page.evaluate(() => llmecon.charts.pareto.tooltip.dataPoints.map((d) => d.raw.point));
    const near = (a, b) => Math.abs(a - b) <= 0.005 * Math.abs(b);
    const here = hovered.filter((p) => near(p.tokens_per_s_per_user, first.tokens_per_s_per_user) && near(p.tokens_per_s_per_chip, first.tokens_per_s_per_chip));
    assert.ok(here.length > 0, `tooltip is for the first frontier point: ${hovered.map((p) => p.mapping + " " + p.batch)}`);
    assert.ok(lines.some((l) => here.some((p) => l.startsWith(`${p.mapping}, batch `))), "tooltip names the layout");
  });

  const panelLines = async () => (await page.textContent("#explain")).replace(/\n$/, "").split("\n");

  // The explain panel shows the engine's derivation (the API's "explain" lines) behind a clicked
  // number, for every tile.
  await check("explain panel = the API's explain lines", async () => {
    const board = { model: "qwen3-30b-a3b", hw: "b200" };
    const want = {
      roofline: r.explain,
      batch: (await api("batch", { ...board, context: 4096, explain: true })).body.explain,
      report: (await api("report", { ...board, context: 4096, explain: true })).body.explain,
    };
    const tiles = await page.evaluate(() => llmecon.tiles.map((t) => ({ key: t.key, from: t.from, match: t.explain })));
    for (const t of tiles) {
      await page.click(`.figure[data-key="${t.key}"]`);
      assert.deepEqual(await panelLines(), want[t.from], `${t.key}: the panel = API ${t.from} explain`);
      const marked = await page.$$eval("#explain mark", (ms) => ms.map((m) => m.textContent));
      assert.deepEqual(marked, want[t.from].filter((l) => t.match.some((m) => l.includes(m))), `${t.key}: its lines are marked`);
    }
    await page.click('.figure[data-key="usd_per_mtok"]');
    assert.ok((await page.textContent("#explain")).includes("$/token = chips"), "cost derivation shown");
    await page.click('.figure[data-key="b_star_kv"]');
    assert.ok((await page.textContent("#explain")).includes("B* = R x S"), "B* derivation shown");
  });

  // A point on a chart explains itself: the cost chart's first point is batch 1.
  await check("chart point explain", async () => {
    const { canvas, position } = await firstPoint("costBatch");
    await canvas.click({ position });
    await page.waitForFunction(() => document.getElementById("explain-title").textContent.includes("batch 1,"), null, { timeout: 10000 });
    const want = (await api("roofline", { model: "qwen3-30b-a3b", hw: "b200", kv_dtype: "bf16", batch: 1, context: 4096, explain: true })).body;
    assert.deepEqual(await panelLines(), want.explain, "point derivation = API explain");
  });

  // A layout on the Pareto chart: the planner's derivation of the best one, and of any other
  // frontier point (plan --explain gives each its chain).
  await check("layout explain = the planner's explain lines", async () => {
    const plan = (await api("plan", planWant)).body;
    const bestSet = await page.evaluate(() => llmecon.charts.pareto.data.datasets.findIndex((d) => d.label === "best"));
    let { canvas, position } = await pointOf("pareto", bestSet, 0);
    await canvas.click({ position });
    await page.waitForFunction(() => document.getElementById("explain-title").textContent.includes("the best (llmecon plan"), null, { timeout: 10000 });
    assert.deepEqual(await panelLines(), plan.explain, "best layout = API plan explain");
    const front = plan.frontier.slice().sort((a, b) => a.tokens_per_s_per_user - b.tokens_per_s_per_user);
    const i = front.findIndex((p) => !(p.mapping === plan.best.mapping && p.batch === plan.best.batch));
    const p = front[i];
    ({ canvas, position } = await pointOf("pareto", 0, i));
    await canvas.click({ position });
    await page.waitForFunction((t) => document.getElementById("explain-title").textContent.includes(t), `layout ${p.mapping}, batch ${p.batch},`, { timeout: 10000 });
    assert.ok(Array.isArray(p.explain) && p.explain.length >= 8, "the API explains every frontier point");
    assert.deepEqual(await panelLines(), p.explain, "another layout = the API's explain of that frontier point");
  });

  // Marker labels sit beside their lines without covering each other, a region label or a curve;
  // on the cost chart not another marker's line either (the step chart's crossing curves can
  // leave a label no room but across a line, which its background keeps legible).
  await check("marker labels do not collide", async () => {
    for (const name of ["costBatch", "stepBatch", "pareto", "roofline"]) {
      const problems = await page.evaluate(([n, strict]) => {
        const ch = llmecon.charts[n];
        const area = ch.chartArea;
        const xs = ch.options.plugins.xMarkers.markers.map((m) => ch.scales.x.getPixelForValue(m.x)).filter((x) => x >= area.left && x <= area.right);
        const boxes = ch.$markerLabels || [];
        const out = [];
        if (boxes.length !== xs.length) out.push(`${boxes.length} labels for ${xs.length} markers`);
        const inside = (px, py, b) => px > b.x && px < b.x + b.w && py > b.y && py < b.y + b.h;
        const overlap = (a, b) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
        // A segment crosses a box when a point on it, every half pixel, is inside.
        const crosses = (x1, y1, x2, y2, b) => {
          const n = Math.max(1, Math.ceil(Math.hypot(x2 - x1, y2 - y1) * 2));
          for (let k = 0; k <= n; k++) if (inside(x1 + ((x2 - x1) * k) / n, y1 + ((y2 - y1) * k) / n, b)) return true;
          return false;
        };
        boxes.forEach((b, i) => {
          if (b.x < area.left || b.x + b.w > area.right || b.y < area.top || b.y + b.h > area.bottom) out.push(`${b.label} leaves the plot`);
          boxes.forEach((o, j) => j > i && overlap(b, o) && out.push(`${b.label} covers ${o.label}`));
          (ch.$regionLabels || []).forEach((o) => overlap(b, o) && out.push(`${b.label} covers ${o.label}`));
          if (strict) xs.forEach((x) => crosses(x, area.top, x, area.bottom, b) && out.push(`${b.label} crosses a marker line`));
          ch.data.datasets.forEach((d, di) => {
            if (!ch.isDatasetVisible(di)) return;
            const pts = ch.getDatasetMeta(di).data;
            const line = ch.config.type === "line" || d.showLine;
            pts.forEach((p, k) => {
              if (inside(p.x, p.y, b)) out.push(`${b.label} covers a point of ${d.label}`);
              if (line && k > 0 && crosses(pts[k - 1].x, pts[k - 1].y, p.x, p.y, b)) out.push(`${b.label} crosses the curve ${d.label}`);
            });
          });
        });
        return out;
      }, [name, name === "costBatch"]);
      assert.deepEqual(problems, [], `${name}: marker labels`);
    }
    assert.ok((await page.evaluate(() => llmecon.charts.costBatch.$markerLabels.length)) >= 3, "the cost chart has its B*, now and HBM labels");
  });

  // Traffic: the simulator's latency CDFs and goodput against rate, equal to the API's answer for
  // the same question, with each SLO bound drawn.
  await check("traffic view = the API's simulate", async () => {
    await page.waitForFunction(() => +(document.body.dataset.trafficUpdates || 0) >= 1, null, { timeout: 120000 });
    const args = await page.evaluate(() => llmecon.requests.simulate);
    const want = (await api("simulate", args)).body;
    const shown = await page.evaluate(() => llmecon.results.simulate);
    assert.deepEqual(shown, want, "the page's simulation = the API's");
    const status = await page.textContent("#traffic-status");
    assert.ok(status.includes(`${want.completed} requests`) && status.includes("TTFT p50"), status);
    const markers = await page.evaluate(() => llmecon.charts.latency.options.plugins.xMarkers.markers.map((m) => m.x));
    assert.deepEqual(markers, want.slo.map((s) => s.bound_s), "one line per SLO bound");
    const rows = await page.evaluate(() => llmecon.results.simulateGrid.grid.rows.length);
    assert.equal(rows, 7, "goodput at seven rates");
    // TTFT, TPOT and end to end in three colours; no goodput point at or below zero on the log axis.
    const colours = await page.evaluate(() => llmecon.charts.latency.data.datasets.map((d) => d.borderColor));
    assert.equal(new Set(colours).size, 3, String(colours));
    const gp = await page.evaluate(() => llmecon.charts.goodput.data.datasets[1].data.map((p) => p.y));
    assert.ok(gp.every((y) => y === null || y > 0), String(gp));
    // p99 TTFT and TPOT against rate, with each SLO bound as a line, from the grid's rows.
    const gridRows = await page.evaluate(() => llmecon.results.simulateGrid.grid.rows);
    const lat = await page.evaluate(() => llmecon.charts.latencyRate.data.datasets.map((d) => [d.label, d.data.map((p) => p.y)]));
    assert.deepEqual(lat[0][1], gridRows.map((r) => r.ttft_s_p99));
    assert.deepEqual(lat[1][1], gridRows.map((r) => r.tpot_ms_p99 / 1000));
    assert.deepEqual(lat.slice(2).map((d) => d[1][0]), want.slo.map((s) => s.bound_s), "one flat line per SLO bound");
    const zero = await page.evaluate(() => llmecon.results.simulateGrid.grid.rows.filter((r) => !(r.goodput_requests_per_s > 0)).length);
    const said = await page.evaluate(() => llmecon.charts.goodput.options.plugins.xMarkers.markers.filter((m) => m.label.startsWith("goodput 0")).length);
    assert.equal(said, zero ? 1 : 0, "a marker says where goodput is 0");
    const before = +(await page.evaluate(() => document.body.dataset.trafficUpdates));
    await page.fill("#sim-rate", "9");
    await page.click("#simulate");
    await page.waitForFunction((k) => +(document.body.dataset.trafficUpdates || 0) > k, before, { timeout: 120000 });
    assert.equal((await page.evaluate(() => llmecon.results.simulate)).rate, 9);
  });

  // The training view: the searched run and the scaling law equal the API's train and scale; the
  // memory bars stack the API's terms; a smaller run moves the answer.
  await check("training view = the API's train and scale", async () => {
    await page.fill("#train-chips", "64");
    await page.fill("#train-tokens", "1e12");
    await page.click("#train");
    await page.waitForFunction(() => +(document.body.dataset.trainUpdates || 0) >= 1, null, { timeout: 120000 });
    const args = await page.evaluate(() => llmecon.requests.train);
    const want = (await api("train", args)).body;
    assert.deepEqual(await page.evaluate(() => llmecon.results.train), want, "the page's run = the API's");
    const scale = (await api("scale", await page.evaluate(() => llmecon.requests.scale))).body;
    assert.deepEqual(await page.evaluate(() => llmecon.results.scale), scale, "the page's scaling law = the API's");
    const bars = await page.evaluate(() => llmecon.charts.trainMemory.data.datasets.map((d) => [d.label, d.data[0].x]));
    // HBM's terms; host memory (offloaded states and activations) is not stacked into HBM.
    const terms = want.memory.filter((r) => !["total", "usable", "host"].includes(r.term)).map((r) => [r.term, r.bytes / 1e9]);
    assert.deepEqual(bars, terms, "memory bars = the API's terms");
    const status = await page.textContent("#train-status");
    assert.ok(status.startsWith(want.layout.text) && status.includes("GPU-hours"), status);
    // The days carry the band the published runs put around them.
    assert.ok(want.days_published_p10 < want.days && want.days < want.days_published_p90, JSON.stringify(want));
    assert.ok(status.includes("by the published runs' errors"), status);
    const n = await page.evaluate(() => llmecon.charts.costN.data.datasets[0].data.length);
    assert.equal(n, scale.cost_vs_n.length, "cost against N: one point per row");
    const before = +(await page.evaluate(() => document.body.dataset.trainUpdates));
    await page.fill("#train-tokens", "2e12");
    await page.click("#train");
    await page.waitForFunction((k) => +(document.body.dataset.trainUpdates || 0) > k, before, { timeout: 120000 });
    const again = await page.evaluate(() => llmecon.results.train);
    assert.ok(Math.abs(again.days - 2 * want.days) < 0.01 * want.days, `twice the tokens, twice the days: ${again.days} vs ${want.days}`);
  });

  // The cost basis: owned prices the tiles at tco's owned hour, as the API does; under the default
  // owner (the cluster profile, whose PUE is tco's default) the energy of a step is unchanged.
  await check("cost owned = the API's roofline --cost owned", async () => {
    const rented = await page.evaluate(() => llmecon.results.roofline);
    const before = await updatesNow();
    await page.selectOption("#cost", "owned");
    await page.waitForFunction((k) => +document.body.dataset.updates > k, before, { timeout: 20000 });
    const a = await pageArgs();
    const want = (await api("roofline", { model: a.model, hw: a.hw, ...(a.kv_dtype ? { kv_dtype: a.kv_dtype } : {}), batch: a.batch, context: a.context, cost: "owned" })).body;
    const tile = await page.$eval('.figure[data-key="usd_per_mtok"]', (f) => Number(f.dataset.value));
    assert.equal(tile, price(want), "the $/Mtok tile is the owned price");
    assert.notEqual(price(want), price(rented), "owned differs from rented");
    const joules = await page.$eval('.figure[data-key="joules_per_token"]', (f) => Number(f.dataset.value));
    assert.equal(joules, rented.joules_per_token, "J/token is the same under the default owner");
    const back = await updatesNow();
    await page.selectOption("#cost", "rented");
    await page.waitForFunction((k) => +document.body.dataset.updates > k, back, { timeout: 20000 });
  });

  // The cost of a GPU-hour: the owned terms and the rented bar equal the API's tco; a longer life
  // lowers the owned hour and leaves the rented one.
  await check("GPU-hour view = the API's tco", async () => {
    await page.click("#tco");
    await page.waitForFunction(() => +(document.body.dataset.tcoUpdates || 0) >= 1, null, { timeout: 60000 });
    const want = (await api("tco", await page.evaluate(() => llmecon.requests.tco))).body;
    assert.deepEqual(await page.evaluate(() => llmecon.results.tco), want, "the page's tco = the API's");
    const bars = await page.evaluate(() => llmecon.charts.gpuHour.data.datasets.map((d) => [d.label, d.data[0].x]));
    const terms = want.per_year.filter((r) => r.term !== "total").map((r) => [r.term, r.usd_per_gpu_hour]);
    assert.deepEqual(bars, terms.concat([["rented", want.usd_per_gpu_hour_rented]]), "bars = the API's terms and rent");
    const sum = terms.reduce((a, t) => a + t[1], 0);
    assert.ok(Math.abs(sum - want.usd_per_gpu_hour_owned) < 1e-9 * sum, "the terms add up to the owned hour");
    assert.ok((await page.textContent("#tco-status")).includes("owned against"));
    const before = +(await page.evaluate(() => document.body.dataset.tcoUpdates));
    await page.fill("#tco-life", "8");
    await page.click("#tco");
    await page.waitForFunction((k) => +(document.body.dataset.tcoUpdates || 0) > k, before, { timeout: 60000 });
    const longer = await page.evaluate(() => llmecon.results.tco);
    assert.ok(longer.usd_per_gpu_hour_owned < want.usd_per_gpu_hour_owned, "a longer life, a cheaper owned hour");
    assert.equal(longer.usd_per_gpu_hour_rented, want.usd_per_gpu_hour_rented, "renting does not depend on life");
  });

  // The scale-up view: the page's plan --scaleup equals the API's; each bar stack is that domain's
  // best $/Mtok, the fabric's part growing with the domain; energy sits beside every $/Mtok.
  await check("scale-up view = the API's plan --scaleup", async () => {
    await page.fill("#scaleup-domains", "8,72");
    await page.click("#scaleup");
    await page.waitForFunction(() => +(document.body.dataset.scaleupUpdates || 0) >= 1, null, { timeout: 120000 });
    const want = (await api("plan", await page.evaluate(() => llmecon.requests.scaleup))).body;
    assert.deepEqual(await page.evaluate(() => llmecon.results.scaleup), want, "the page's plan = the API's");
    const rows = want.scaleup.filter((r) => r.best);
    assert.ok(rows.length >= 1, "a domain holds the model");
    const stacks = await page.evaluate(() => llmecon.charts.scaleup.data.datasets.map((d) => d.data));
    rows.forEach((r, i) => {
      const sum = stacks[0][i] + stacks[1][i];
      assert.ok(Math.abs(sum - r.best.usd_per_mtok_blended) < 1e-9 * sum, `domain ${r.domain}: the stack is its $/Mtok`);
    });
    const status = await page.textContent("#scaleup-status");
    for (const r of rows) assert.ok(status.includes(`${r.domain}: $`) && status.includes("J/token"), "each domain's $ and J in the status");
  });

  // The lecture report: every claim, the count that reproduce, and each row's derivation.
  await check("lecture report", async () => {
    const claims = (await api("lecture", { explain: true })).body;
    const rows = await page.$$eval("#lecture tr", (trs) => trs.length - 1);
    assert.equal(rows, claims.length);
    const passed = claims.filter((c) => c.pass).length;
    assert.ok((await page.textContent("#lecture-summary")).startsWith(`${passed} of ${claims.length}`));
    await page.click("#lecture tr:nth-child(2)");
    assert.deepEqual(await panelLines(), claims[0].explain, "a claim's derivation = API explain");
  });

  // Bad input: the page shows the API's own error message, and the numbers it still shows are
  // marked as the last inputs that worked.
  await check("error message equals the API's", async () => {
    await page.fill("#chips", "0");
    await page.dispatchEvent("#chips", "change");
    await page.waitForFunction(() => document.getElementById("error").textContent.length > 0, null, { timeout: 10000 });
    const shown = await page.textContent("#error");
    const want = await api("roofline", { model: "qwen3-30b-a3b", hw: "b200", chips: 0, kv_dtype: "bf16", batch: 512, context: 4096 });
    assert.equal(want.status, 400);
    assert.equal(shown, want.body.error);
    assert.equal(await page.getAttribute("#chips", "aria-invalid"), "true", "the refused control is marked");
    assert.ok(await page.$eval("#summary", (s) => s.classList.contains("stale")), "the old figures are marked");
    assert.ok((await page.textContent("#summary-title")).includes("not updated"));
    await page.fill("#chips", "");
    await page.dispatchEvent("#chips", "change");
    await page.waitForFunction(() => document.getElementById("error").textContent === "", null, { timeout: 10000 });
    assert.ok(!(await page.$eval("#summary", (s) => s.classList.contains("stale"))));
    assert.equal(await page.getAttribute("#chips", "aria-invalid"), null, "and unmarked once it is fixed");
  });

  const openPaste = () => page.$eval("#paste", (d) => (d.open = true));
  const pasteState = () => page.$eval("#config-status", (s) => s.dataset.state || "");
  const usePaste = async (text) => {
    await page.$eval("#config-status", (s) => (s.dataset.state = ""));
    await page.fill("#config", text);
    await page.click("#use-config");
    await page.waitForFunction(() => ["used", "rejected", "cleared"].includes(document.getElementById("config-status").dataset.state), null, { timeout: 10000 });
  };

  // A paste the server rejects (or that is not JSON) is not used: the error is shown and the
  // status names the model still on screen, whose numbers stay.
  await check("a broken paste changes nothing and says so", async () => {
    await openPaste();
    const stepNow = () => page.$eval('.figure[data-key="t_step_s"]', (f) => Number(f.dataset.value));
    const before = await updatesNow();
    const bad = { architectures: ["LlamaForCausalLM"], hidden_size: "oops" };
    await usePaste(JSON.stringify(bad));
    assert.equal(await pasteState(), "rejected");
    const want = await api("model", { model: bad });
    assert.equal(want.status, 400);
    assert.equal(await page.textContent("#error"), want.body.error, "the server's reason is shown");
    let status = await page.textContent("#config-status");
    assert.ok(!status.includes("using the pasted"), status);
    assert.ok(status.includes("still using qwen3-30b-a3b"), status);
    assert.equal(await stepNow(), r.t_step_s, "qwen3-30b-a3b's numbers stay");
    assert.ok((await page.textContent("#summary-title")).includes("qwen3-30b-a3b"));
    await usePaste('{"hidden_size": 8192,');
    assert.equal(await pasteState(), "rejected");
    status = await page.textContent("#config-status");
    assert.ok(status.includes("not a JSON object") && status.includes("still using qwen3-30b-a3b"), status);
    assert.ok((await page.textContent("#error")).startsWith("pasted config.json: "));
    assert.equal(await updatesNow(), before, "nothing was recomputed");
    assert.equal(await stepNow(), r.t_step_s);
  });

  // A pasted config.json drives every chart.
  await check("pasted config.json", async () => {
    updates = await updatesNow();
    await openPaste();
    await usePaste(readFileSync(configPath, "utf8"));
    assert.equal(await pasteState(), "used");
    await waitUpdates(updates + 1);
    const title = await page.textContent("#summary-title");
    assert.ok(title.includes("pasted:"), `summary names the pasted model: ${title}`);
    assert.ok((await page.textContent("#config-status")).startsWith("using the pasted config (pasted:"));
    assert.equal(await page.textContent("#error"), "");
    const cfg = JSON.parse(readFileSync(configPath, "utf8"));
    const want = (await api("roofline", { model: cfg, hw: "b200", kv_dtype: "bf16", batch: 512, context: 4096 })).body;
    const shown = await page.$eval('.figure[data-key="t_step_s"]', (f) => Number(f.dataset.value));
    assert.equal(shown, want.t_step_s, "pasted model's step time = API");
  });

  // A phone: the page fits a 390 px wide screen without scrolling sideways.
  await check("fits a 390 px screen", async () => {
    const phone = await browser.newPage({ viewport: { width: 390, height: 844 } });
    const errs = [];
    phone.on("pageerror", (e) => errs.push(e.message));
    await phone.goto(`${base}/?model=qwen3-30b-a3b&hw=b200&batch=512&tpot_ms=20`);
    await phone.waitForFunction(() => +(document.body.dataset.updates || 0) >= 1 && +(document.body.dataset.planUpdates || 0) >= 1 &&
      document.getElementById("lecture").rows.length > 1, null, { timeout: 60000 });
    const width = await phone.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 390, `the page is ${width} px wide at a 390 px viewport`);
    assert.deepEqual(errs, []);
    mkdirSync(outDir, { recursive: true });
    await phone.screenshot({ path: join(outDir, "web-page-390.png") });
    await phone.close();
  });

  // `--plot FILE.html` draws the same charts from the CLI's JSON, offline.
  await check("CLI --plot FILE.html", async () => {
    mkdirSync(outDir, { recursive: true });
    const file = join(outDir, "plot-sweep.html");
    const argv = ["sweep", "-m", "llama-3.1-70b", "--hw", "h100-sxm", "--batch", "1:4096:x2", "--context", "8192"];
    execFileSync(binary, [...argv, "--plot", file], { stdio: "ignore" });
    const cli = JSON.parse(execFileSync(binary, [...argv, "--json"]).toString());
    const plot = await browser.newPage();
    const errs = [];
    plot.on("pageerror", (e) => errs.push(e.message));
    await plot.goto(pathToFileURL(resolve(file)).href);
    const charts = await plot.evaluate(() => Object.values(Chart.instances).map((c) => c.canvas.parentNode && c.data.datasets[0].data.map((p) => p.y)));
    assert.equal(charts.length, 3, "cost, step time and roofline charts");
    assert.deepEqual(charts[0], cli.rows.map((r) => price(r)), "plot data = CLI JSON");
    assert.deepEqual(errs, []);
    await plot.close();
  });

  // Every view's inputs that differ from the page's own join the address; opening it runs each
  // view whose inputs it holds, with the same answers as the API.
  await check("views in the address: a shared address reruns traffic, training and ownership", async () => {
    await page.fill("#tco-chips", "512");
    const url = await page.evaluate(() => location.href);
    for (const kv of ["sim-rate=9", "train-chips=64", "train-tokens=2e12", "tco-chips=512", "tco-life=8", "scaleup-domains=8%2C72"]) {
      assert.ok(url.includes(kv), `${kv} in ${url}`);
    }
    assert.ok(!url.includes("train-seq=") && !url.includes("sim-isl="), "unchanged inputs stay out: " + url);
    const again = await browser.newPage({ viewport: { width: 1400, height: 1900 } });
    const errs = [];
    again.on("pageerror", (e) => errs.push(e.message));
    await again.goto(url);
    await again.waitForFunction(() => +(document.body.dataset.trainUpdates || 0) >= 1 && +(document.body.dataset.tcoUpdates || 0) >= 1 &&
      +(document.body.dataset.trafficUpdates || 0) >= 1, null, { timeout: 120000 });
    assert.equal(await again.inputValue("#train-chips"), "64");
    assert.equal(await again.inputValue("#tco-chips"), "512");
    assert.equal((await again.evaluate(() => llmecon.results.simulate)).rate, 9);
    const train = (await api("train", await again.evaluate(() => llmecon.requests.train))).body;
    assert.deepEqual(await again.evaluate(() => llmecon.results.train), train);
    await again.waitForFunction(() => +(document.body.dataset.scaleupUpdates || 0) >= 1, null, { timeout: 120000 });
    assert.equal(await again.inputValue("#scaleup-domains"), "8,72");
    assert.deepEqual(errs, []);
    await again.close();
  });

  await check("workbench: every command from the table, its text = the API's, the address reopens it", async () => {
    assert.deepEqual(await page.$$eval("#wb-command option", (os) => os.map((o) => o.value)), Object.keys(schema));
    await page.evaluate(() => {
      document.getElementById("workbench").open = true;
    });
    await page.selectOption("#wb-command", "plan");
    assert.deepEqual(await page.$$eval("#wb-form [data-key]", (es) => es.map((e) => e.dataset.key)), Object.keys(schema.plan));
    // Limits and units from the table: --threads takes 1..64.
    assert.equal(await page.getAttribute("#wb-arg-threads", "max"), String(schema.plan.threads.max));
    await page.selectOption("#wb-arg-model", "llama-3.1-8b");
    await page.selectOption("#wb-arg-hw", "h100-sxm");
    await page.selectOption("#wb-arg-emit", "vllm");
    const runs = async () => +(await page.evaluate(() => document.body.dataset.workbenchRuns || 0));
    let before = await runs();
    await page.click("#wb-run");
    await page.waitForFunction((k) => +(document.body.dataset.workbenchRuns || 0) > k, before, { timeout: 60000 });
    const want = await (await fetch(`${base}/api/plan`, { method: "POST", body: JSON.stringify({ model: "llama-3.1-8b", hw: "h100-sxm", emit: "vllm", format: "text" }) })).text();
    assert.equal(await page.textContent("#wb-output"), want);
    assert.ok(want.includes("vllm serve"), "the launch command is in the answer");
    // plan's chart (the Pareto frontier), from the same answer's JSON.
    const planJson = (await api("plan", { model: "llama-3.1-8b", hw: "h100-sxm", emit: "vllm" })).body;
    const drawn = await page.evaluate(() => llmeconWorkbench.state.charts.map((c) => c.data.datasets.map((d) => d.data.length)));
    assert.equal(drawn.length, 1, "one chart for plan");
    assert.ok(drawn[0].includes(planJson.frontier.length), `the frontier's ${planJson.frontier.length} points: ${drawn}`);
    const url = await page.evaluate(() => location.href);
    assert.ok(url.endsWith("#wb=plan&model=llama-3.1-8b&hw=h100-sxm&emit=vllm"), url);
    const again = await browser.newPage();
    const againErrors = [];
    again.on("pageerror", (e) => againErrors.push(e.message));
    await again.goto(url);
    await again.waitForFunction(() => +(document.body.dataset.workbenchRuns || 0) >= 1, null, { timeout: 60000 });
    assert.equal(await again.textContent("#wb-output"), want, "the shared address reruns the same question");
    assert.equal(await again.inputValue("#wb-arg-emit"), "vllm");
    assert.deepEqual(againErrors, []);
    await again.close();
    // A refused input: the API's message beside the field it names.
    await page.selectOption("#wb-command", "roofline");
    await page.fill("#wb-arg-batch", "0");
    before = await runs();
    await page.click("#wb-run");
    await page.waitForFunction((k) => +(document.body.dataset.workbenchRuns || 0) > k, before, { timeout: 60000 });
    const refused = await api("roofline", { batch: 0 });
    assert.equal(refused.status, 400);
    assert.equal(await page.textContent("#wb-err-batch"), refused.body.error);
    assert.ok(await page.$eval("#wb-arg-batch", (e) => e.classList.contains("invalid")));
    assert.equal(await page.textContent("#wb-output"), "");
    // tco's chart in the workbench: the owned hour's terms per year, as the API's JSON gives them.
    await page.selectOption("#wb-command", "tco");
    before = await runs();
    await page.click("#wb-run");
    await page.waitForFunction((k) => +(document.body.dataset.workbenchRuns || 0) > k, before, { timeout: 60000 });
    const tco = (await api("tco", {})).body;
    const tcoCharts = await page.evaluate(() => llmeconWorkbench.state.charts.map((c) => c.data.datasets.map((d) => d.label)));
    assert.deepEqual(tcoCharts, [tco.per_year.filter((r) => r.term !== "total").map((r) => r.term).concat(["rented"])]);
    // A trace uploaded from a file: read by the page, sent as simulate's trace_text, answered as the
    // API answers that text; a file past the server's body limit is refused beside the field.
    const csv = "timestamp_s,input_tokens,output_tokens\n" + Array.from({ length: 40 }, (_, i) => `${(0.2 * i).toFixed(1)},${300 + 10 * i},${50 + i}`).join("\n") + "\n";
    await page.selectOption("#wb-command", "simulate");
    await page.selectOption("#wb-arg-model", "llama-3.1-8b");
    await page.selectOption("#wb-arg-hw", "h100-sxm");
    await page.setInputFiles("#wb-file-trace_text", { name: "small.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
    await page.waitForFunction(() => document.getElementById("wb-arg-trace_text").value.length > 0);
    before = await runs();
    await page.click("#wb-run");
    await page.waitForFunction((k) => +(document.body.dataset.workbenchRuns || 0) > k, before, { timeout: 60000 });
    const traced = await (await fetch(`${base}/api/simulate`, { method: "POST", body: JSON.stringify({ model: "llama-3.1-8b", hw: "h100-sxm", trace_text: csv, format: "text" }) })).text();
    assert.equal(await page.textContent("#wb-output"), traced);
    assert.ok(traced.includes("completed 40 of 40"), traced.slice(0, 400));
    // simulate's charts: the latency CDFs and the batch and KV use over the run, from its JSON.
    const simJson = (await api("simulate", { model: "llama-3.1-8b", hw: "h100-sxm", trace_text: csv })).body;
    const simCharts = await page.evaluate(() => llmeconWorkbench.state.charts.map((c) => c.data.datasets.map((d) => d.data.length)));
    assert.equal(simCharts.length, 2, String(simCharts));
    assert.deepEqual(simCharts[1], [simJson.charts.over_time.t_s.length, simJson.charts.over_time.t_s.length]);
    assert.ok(!(await page.evaluate(() => location.hash)).includes("trace_text"), "the trace stays out of the address");
    const maxBody = (await (await fetch(`${base}/api/`)).json()).max_body_bytes;
    await page.setInputFiles("#wb-file-trace_text", { name: "big.csv", mimeType: "text/csv", buffer: Buffer.alloc(maxBody + 1, 49) });
    assert.match(await page.textContent("#wb-err-trace_text"), /big\.csv is .* at most/);
    await page.fill("#wb-arg-trace_text", "");
    // A long command runs as a server job: its progress shows, and cancel stops it on the server.
    await page.selectOption("#wb-command", "simulate");
    await page.selectOption("#wb-arg-model", "llama-3.1-70b");
    await page.selectOption("#wb-arg-hw", "h100-sxm");
    await page.fill("#wb-arg-rate", "50");
    await page.fill("#wb-arg-requests", "1000000");
    await page.click("#wb-run");
    await page.waitForFunction(() => {
      const p = document.getElementById("wb-progress");
      return !p.hidden && p.value > 0;
    }, null, { timeout: 60000 });
    const job = await page.evaluate(() => llmeconWorkbench.state.job);
    assert.ok(job, "a job id");
    await page.click("#wb-cancel");
    await page.waitForFunction(() => document.getElementById("wb-status").textContent === "cancelled", null, { timeout: 20000 });
    let snap;
    for (let i = 0; i < 200; i++) {
      snap = await (await fetch(`${base}/api/jobs/${job}`)).json();
      if (snap.state !== "running" && snap.state !== "queued") break;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(snap.state, "cancelled", JSON.stringify(snap));
    assert.ok(await page.$eval("#wb-progress", (p) => p.hidden) && await page.$eval("#wb-cancel", (b) => b.hidden));
  });

  assert.deepEqual(pageErrors, [], "no script errors");
  assert.deepEqual(offsite, [], "no request leaves the server (no CDN)");
  mkdirSync(outDir, { recursive: true });
  await page.screenshot({ path: join(outDir, "web-page-full.png"), fullPage: true });
  // The README's picture (docs/img/web-page.png): the schema's defaults, DeepSeek-V3 on a GB200
  // NVL72 rack, at batch 1024 with the cost tile's derivation open.
  const shot = await browser.newPage({ viewport: { width: 1280, height: 1330 } });
  await shot.goto(`${base}/?batch=1024`);
  await shot.waitForFunction(() => +(document.body.dataset.updates || 0) >= 1 && +(document.body.dataset.planUpdates || 0) >= 1, null, { timeout: 60000 });
  await shot.click('.figure[data-key="usd_per_mtok"]');
  await shot.screenshot({ path: join(outDir, "web-page.png") });
  await shot.close();
  console.log(`browser test: ${checks.length} checks passed in ${((Date.now() - started) / 1000).toFixed(1)} s; screenshot ${join(outDir, "web-page.png")}`);
} catch (err) {
  failed = true;
  console.error(`browser test FAILED during "${checks[checks.length - 1] || "start"}": ${err.stack || err}`);
  if (page) {
    // What the page showed, for the log and a picture of the failure.
    const diag = await page
      .evaluate(() => ["error", "plan-status", "summary-title"].map((id) => `#${id}: ${document.getElementById(id).textContent}`).join("\n"))
      .catch(() => "");
    console.error(diag);
    mkdirSync(outDir, { recursive: true });
    await page.screenshot({ path: join(outDir, "web-page-failed.png"), fullPage: true }).catch(() => {});
  }
} finally {
  if (browser) await browser.close();
  proc.kill();
}
process.exit(failed ? 1 : 0);
