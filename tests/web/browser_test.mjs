// End-to-end test of the web page in headless Chromium (Debian's chromium, driven by
// playwright-core from web/node_modules). It starts `llmecon serve`, loads the page, changes the
// model, hardware and batch, and checks that the charts redraw with the API's numbers.
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
function check(name, fn) {
  checks.push(name);
  return fn();
}

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
  await waitUpdates(1);
  await waitPlan(1);

  // What the page sent: the controls as the page reads them.
  const pageArgs = () =>
    page.evaluate(() => ({
      model: document.getElementById("model").value,
      hw: document.getElementById("hw").value,
      batch: 2 ** +document.getElementById("batch").value,
      context: 2 ** +document.getElementById("context").value,
    }));

  // The figures and the charts must hold exactly the API's numbers for the same question.
  async function checkAgainstApi(label) {
    const a = await pageArgs();
    const board = { model: a.model, hw: a.hw, kv_dtype: "bf16" };
    const r = (await api("roofline", { ...board, batch: a.batch, context: a.context, explain: true })).body;
    const shown = await page.evaluate(() =>
      Object.fromEntries([...document.querySelectorAll(".figure")].map((f) => [f.dataset.key, { value: f.dataset.value, text: f.querySelector(".value").textContent }])));
    for (const k of ["t_step_s", "t_compute_s", "t_weights_s", "t_kv_s", "tokens_per_s", "usd_per_mtok", "mfu"]) {
      assert.equal(Number(shown[k].value), r[k], `${label}: figure ${k} = API`);
    }
    assert.equal(shown.bound.value, r.bound, `${label}: bound`);
    const formatted = await page.evaluate((v) => llmeconCharts.seconds(v), r.t_step_s);
    assert.equal(shown.t_step_s.text, formatted, `${label}: step time text`);
    assert.equal(shown.usd_per_mtok.text, "$" + (await page.evaluate((v) => llmeconCharts.num(v), r.usd_per_mtok)), `${label}: $/Mtok text`);

    const sweep = (await api("sweep", { ...board, batch: Array.from({ length: 15 }, (_, i) => 2 ** i), context: a.context })).body;
    const costData = await page.evaluate(() => llmecon.charts.costBatch.data.datasets[0].data.map((p) => [p.x, p.y]));
    assert.deepEqual(costData, sweep.rows.map((row) => [row.batch, row.usd_per_mtok]), `${label}: cost chart = API sweep`);
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
    const ctxSweep = (await api("sweep", { ...board, batch: a.batch, context: Array.from({ length: 13 }, (_, i) => 2 ** (i + 8)) })).body;
    assert.deepEqual(ctxData, ctxSweep.rows.map((row) => row.usd_per_mtok), `${label}: context chart = API sweep`);
    const roofPts = await page.evaluate(() => llmecon.charts.roofline.data.datasets[1].data.map((p) => p.x));
    assert.deepEqual(roofPts, sweep.rows.filter((row) => row.flops > 0).map((row) => row.arithmetic_intensity), `${label}: roofline points`);
    return r;
  }

  // Where the first point of a chart's first dataset is drawn on its canvas; the locator
  // scrolls the canvas into view before it hovers or clicks there.
  const firstPoint = async (chart) => {
    const position = await page.evaluate((name) => {
      const el = llmecon.charts[name].getDatasetMeta(0).data[0];
      return { x: el.x, y: el.y };
    }, chart);
    return { canvas: page.locator(await page.evaluate((name) => "#" + llmecon.charts[name].canvas.id, chart)), position };
  };

  const revisions = () =>
    page.evaluate(() => Object.fromEntries([...document.querySelectorAll("canvas")].map((c) => [c.id, +(c.dataset.revision || 0)])));

  await check("initial page equals the API", () => checkAgainstApi("initial"));
  const rev0 = await revisions();
  const pixels0 = await page.evaluate(() => document.getElementById("chart-cost-batch").toDataURL());

  // Change model, hardware and batch; every chart redraws with the new numbers.
  let updates = +(await page.evaluate(() => document.body.dataset.updates));
  let plans = +(await page.evaluate(() => document.body.dataset.planUpdates));
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
  const rev1 = await revisions();
  for (const id of Object.keys(rev0)) assert.ok(rev1[id] > rev0[id], `chart ${id} redrew`);
  const pixels1 = await page.evaluate(() => document.getElementById("chart-cost-batch").toDataURL());
  assert.notEqual(pixels1, pixels0, "the cost chart's pixels changed");

  // Pinned curves stay on the cost chart beside the current one, for comparison.
  await check("pin curves to compare", async () => {
    const before = +(await page.evaluate(() => document.body.dataset.updates));
    await page.click("#pin");
    await page.waitForFunction((k) => +document.body.dataset.updates > k, before, { timeout: 20000 });
    await page.selectOption("#hw", "h200-sxm");
    await page.waitForFunction((k) => +document.body.dataset.updates > k + 1, before, { timeout: 20000 });
    const sets = await page.evaluate(() => llmecon.charts.costBatch.data.datasets.map((d) => ({ label: d.label, y: d.data.map((p) => p.y) })));
    assert.equal(sets.length, 2, "current curve and one pinned");
    assert.ok(sets[0].label.startsWith("qwen3-30b-a3b on 8 x h200-sxm"), sets[0].label);
    assert.ok(sets[1].label.startsWith("qwen3-30b-a3b on 8 x b200"), sets[1].label);
    const pinned = (await api("sweep", { model: "qwen3-30b-a3b", hw: "b200", kv_dtype: "bf16", batch: Array.from({ length: 15 }, (_, i) => 2 ** i), context: 4096 })).body;
    assert.deepEqual(sets[1].y, pinned.rows.map((row) => row.usd_per_mtok), "the pinned curve keeps b200's numbers");
    const mid = +(await page.evaluate(() => document.body.dataset.updates));
    await page.click("#unpin");
    await page.waitForFunction((k) => +document.body.dataset.updates > k, mid, { timeout: 20000 });
    assert.equal(await page.evaluate(() => llmecon.charts.costBatch.data.datasets.length), 1);
    const back = +(await page.evaluate(() => document.body.dataset.updates));
    const plansBack = +(await page.evaluate(() => document.body.dataset.planUpdates));
    await page.selectOption("#hw", "b200");
    await page.waitForFunction((k) => +document.body.dataset.updates > k, back, { timeout: 20000 });
    await waitPlan(plansBack + 1);
  });

  // Prefill: the same charts for a pass over prompts, with the API's numbers.
  await check("prefill phase", async () => {
    const before = +(await page.evaluate(() => document.body.dataset.updates));
    await page.selectOption("#phase", "prefill");
    await page.waitForFunction((k) => +document.body.dataset.updates > k, before, { timeout: 20000 });
    const want = (await api("roofline", { model: "qwen3-30b-a3b", hw: "b200", kv_dtype: "bf16", phase: "prefill", batch: 512, context: 4096, explain: true })).body;
    const shown = await page.evaluate(() => ({ r: llmecon.results.roofline, title: document.getElementById("phase-title").textContent,
                                               x: llmecon.charts.costBatch.options.scales.x.title.text }));
    assert.deepEqual(shown.r, want);
    assert.equal(shown.title, "Prefill pass");
    assert.equal(shown.x, "prompts per pass");
    assert.equal(await page.textContent("#error"), "");
    assert.equal(new URL(page.url()).searchParams.get("phase"), "prefill");
    await page.selectOption("#phase", "decode");
    await page.waitForFunction((k) => +document.body.dataset.updates > k + 1, before, { timeout: 20000 });
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
  await check("planner targets", async () => {
    const plans = +(await page.evaluate(() => document.body.dataset.planUpdates));
    await page.fill("#tpot_ms", "20");
    await page.fill("#isl", "8192");
    await page.dispatchEvent("#isl", "change");
    await page.waitForFunction((k) => +document.body.dataset.planUpdates > k, plans, { timeout: 60000 });
    await page.dispatchEvent("#tpot_ms", "change");
    await page.waitForFunction((k) => +document.body.dataset.planUpdates > k + 1, plans, { timeout: 60000 });
    const want = (await api("plan", { model: "qwen3-30b-a3b", hw: "b200", isl: 8192, osl: 256, tpot_ms: 20 })).body;
    const shown = await page.evaluate(() => llmecon.results.plan);
    assert.deepEqual(shown, want, "plan = API plan with the page's targets");
    if (want.best) assert.ok(want.best.tpot_ms <= 20);
    assert.ok((await page.textContent("#plan-status")).includes("TPOT ≤ 20 ms"));
    assert.equal(new URL(page.url()).searchParams.get("tpot_ms"), "20");
  });

  // Downloads: the batch sweep as CSV and everything shown as JSON, as the API returned them.
  await check("downloads", async () => {
    const [csvFile] = await Promise.all([page.waitForEvent("download"), page.click("#download-csv")]);
    const lines = readFileSync(await csvFile.path(), "utf8").trim().split("\n");
    assert.ok(lines[0].startsWith("model,hardware,chips,phase,batch,context"), lines[0]);
    assert.equal(lines.length, 1 + 15);
    assert.equal(csvFile.suggestedFilename(), "llmecon-qwen3-30b-a3b-b200-batch.csv");
    const [jsonFile] = await Promise.all([page.waitForEvent("download"), page.click("#download-json")]);
    const all = JSON.parse(readFileSync(await jsonFile.path(), "utf8"));
    assert.deepEqual(all.roofline, r);
  });

  // The Pareto frontier equals the planner's, and hovering a point shows its layout.
  await check("pareto frontier and hover", async () => {
    const plan = (await api("plan", { model: "qwen3-30b-a3b", hw: "b200", isl: 8192, osl: 256, tpot_ms: 20 })).body;
    const front = await page.evaluate(() => llmecon.charts.pareto.data.datasets[0].data.map((p) => [p.x, p.y]));
    const want = plan.frontier.map((p) => [p.tokens_per_s_per_user, p.tokens_per_s_per_chip]).sort((a, b) => a[0] - b[0]);
    assert.deepEqual(front, want, "frontier = API plan");
    const { canvas, position } = await firstPoint("pareto");
    await canvas.hover({ position });
    await page.waitForFunction(() => llmecon.charts.pareto.tooltip.opacity > 0, null, { timeout: 5000 });
    const lines = await page.evaluate(() => llmecon.charts.pareto.tooltip.body.flatMap((b) => b.lines));
    assert.ok(lines.some((l) => l.includes("tok/s per chip")), "tooltip shows the point's throughput");
    const first = plan.frontier.slice().sort((a, b) => a.tokens_per_s_per_user - b.tokens_per_s_per_user)[0];
    const hovered = await page.evaluate(() => llmecon.charts.pareto.tooltip.dataPoints.map((d) => d.raw.point.mapping + " " + d.raw.point.batch));
    assert.ok(hovered.includes(`${first.mapping} ${first.batch}`), `tooltip is for the first frontier point: ${hovered}`);
    assert.ok(lines.some((l) => l.startsWith(`${first.mapping}, batch `)), "tooltip names the layout");
  });

  // The explain panel shows the derivation behind a clicked number.
  await check("explain panel", async () => {
    await page.click('.figure[data-key="usd_per_mtok"]');
    const text = await page.textContent("#explain");
    assert.ok(text.includes("$/token = chips"), "cost derivation shown");
    assert.deepEqual(text.trim().split("\n"), r.explain, "explain lines = API explain");
    await page.click('.figure[data-key="b_star_kv"]');
    assert.ok((await page.textContent("#explain")).includes("B* = R x S"), "B* derivation shown");
  });

  // A point on a chart explains itself: the cost chart's first point is batch 1.
  await check("chart point explain", async () => {
    const { canvas, position } = await firstPoint("costBatch");
    await canvas.click({ position });
    await page.waitForFunction(() => document.getElementById("explain-title").textContent.includes("batch 1,"), null, { timeout: 10000 });
    const want = (await api("roofline", { model: "qwen3-30b-a3b", hw: "b200", kv_dtype: "bf16", batch: 1, context: 4096, explain: true })).body;
    assert.deepEqual((await page.textContent("#explain")).trim().split("\n"), want.explain, "point derivation = API explain");
  });

  // The lecture report: every claim, and the count that reproduce.
  await check("lecture report", async () => {
    const claims = (await api("lecture", {})).body;
    const rows = await page.$$eval("#lecture tr", (trs) => trs.length - 1);
    assert.equal(rows, claims.length);
    const passed = claims.filter((c) => c.pass).length;
    assert.ok((await page.textContent("#lecture-summary")).startsWith(`${passed} of ${claims.length}`));
  });

  // Bad input: the page shows the API's own error message.
  await check("error message equals the API's", async () => {
    await page.fill("#chips", "0");
    await page.dispatchEvent("#chips", "change");
    await page.waitForFunction(() => document.getElementById("error").textContent.length > 0, null, { timeout: 10000 });
    const shown = await page.textContent("#error");
    const want = await api("roofline", { model: "qwen3-30b-a3b", hw: "b200", chips: 0, kv_dtype: "bf16", batch: 512, context: 4096 });
    assert.equal(want.status, 400);
    assert.equal(shown, want.body.error);
    await page.fill("#chips", "");
    await page.dispatchEvent("#chips", "change");
    await page.waitForFunction(() => document.getElementById("error").textContent === "", null, { timeout: 10000 });
  });

  // A pasted config.json drives every chart.
  await check("pasted config.json", async () => {
    updates = +(await page.evaluate(() => document.body.dataset.updates));
    await page.click("#paste summary");
    await page.fill("#config", readFileSync(configPath, "utf8"));
    await page.click("#use-config");
    await waitUpdates(updates + 1);
    const title = await page.textContent("#summary-title");
    assert.ok(title.includes("pasted:"), `summary names the pasted model: ${title}`);
    const cfg = JSON.parse(readFileSync(configPath, "utf8"));
    const want = (await api("roofline", { model: cfg, hw: "b200", kv_dtype: "bf16", batch: 512, context: 4096 })).body;
    const shown = await page.$eval('.figure[data-key="t_step_s"]', (f) => Number(f.dataset.value));
    assert.equal(shown, want.t_step_s, "pasted model's step time = API");
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
    assert.deepEqual(charts[0], cli.rows.map((r) => r.usd_per_mtok), "plot data = CLI JSON");
    assert.deepEqual(errs, []);
    await plot.close();
  });

  assert.deepEqual(pageErrors, [], "no script errors");
  assert.deepEqual(offsite, [], "no request leaves the server (no CDN)");
  mkdirSync(outDir, { recursive: true });
  await page.screenshot({ path: join(outDir, "web-page.png"), fullPage: true });
  console.log(`browser test: ${checks.length} checks passed; screenshot ${join(outDir, "web-page.png")}`);
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
