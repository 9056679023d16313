// Times the web page's first view on this machine: from navigation to the first drawn update
// (body.dataset.updates), over four loads, and the bytes the first view fetches (assets and the
// first answers). Headless Debian chromium through web/node_modules' playwright-core.
//
//   node bench/page_first_view.mjs build/release/apps/cli/llmecon
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const binary = process.argv[2] || "build/release/apps/cli/llmecon";
const web = join(dirname(fileURLToPath(import.meta.url)), "..", "web");
const { chromium } = createRequire(join(web, "package.json"))("playwright-core");
const port = 20000 + Math.floor(Math.random() * 20000);
const server = spawn(binary, ["serve", "--port", String(port)], { stdio: ["ignore", "ignore", "pipe"] });
await new Promise((resolve) => server.stderr.on("data", (d) => String(d).includes("serving on") && resolve()));
const base = `http://127.0.0.1:${port}/`;
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || "/usr/bin/chromium", args: ["--no-sandbox"] });
const firstView = (p) => p.waitForFunction(() => +(document.body.dataset.updates || 0) >= 1, null, { timeout: 60000 });
try {
  const ms = [];
  for (let i = 0; i < 4; i++) {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    const t0 = Date.now();
    await page.goto(base);
    await firstView(page);
    ms.push(Date.now() - t0);
    await page.close();
  }
  let bytes = 0;
  const page = await browser.newPage();
  page.on("response", async (r) => {
    try {
      bytes += (await r.body()).length;
    } catch {
      // a response without a body (a redirect) adds nothing
    }
  });
  await page.goto(base);
  await firstView(page);
  console.log(`page first view: ${ms.join(" ")} ms over ${ms.length} loads; ${bytes} bytes fetched`);
} finally {
  await browser.close();
  server.kill();
}
