// The workbench: every command of the server's command table (GET /api/) as a form, generated
// from its arguments (names, types, units, limits, choices, defaults, help), so an argument the
// engine gains appears here with no page code. Its answer is the CLI's own text (format "text"),
// with a copy button for launch commands (plan --emit) and a JSON download; the command and every
// argument set live in the address (#wb=plan&rate=20), so a view can be shared and reopened.
/* exported llmeconWorkbench */
/* global llmeconCharts */
const llmeconWorkbench = (function () {
  "use strict";
  const $ = (id) => document.getElementById(id);
  const state = { commands: {}, lists: {}, helpers: null, runs: 0, controller: null, job: null, last: null, charts: [] };

  // One input per argument, by type: pickers for models, chips and choices, a box for flags,
  // number fields with the argument's limits, text for strings and lists.
  function inputFor(arg) {
    let el;
    const choices = arg.type === "model" ? state.lists.model : arg.type === "hardware" ? state.lists.hardware : arg.choices;
    if (arg.key.endsWith("_text")) {
      // Text sent inline (a trace): typed or pasted, or read from a file picked here.
      el = document.createElement("textarea");
      el.rows = 3;
      el.spellcheck = false;
      el.placeholder = arg.default_text;
    } else if (arg.type === "boolean") {
      el = document.createElement("input");
      el.type = "checkbox";
      el.checked = arg.default === true;
    } else if (Array.isArray(choices) && !arg.type.endsWith("_list")) {
      el = document.createElement("select");
      if (arg.default === null) el.add(new Option(arg.default_text, ""));
      for (const c of choices) el.add(new Option(c, c));
      el.value = arg.default === null ? "" : String(arg.default);
    } else {
      el = document.createElement("input");
      const numeric = arg.type === "integer" || arg.type === "number";
      el.type = numeric ? "number" : "text";
      if (numeric) {
        el.step = arg.type === "integer" ? "1" : "any";
        if (arg.min !== null) el.min = String(arg.min);
        if (arg.max !== null && arg.max < 1e15) el.max = String(arg.max);
      }
      el.value = arg.default === null ? "" : String(arg.default);
      el.placeholder = arg.default_text;
    }
    el.id = "wb-arg-" + arg.key;
    el.dataset.key = arg.key;
    el.dataset.flag = arg.flag;
    el.title = arg.help + (arg.unit ? ` (${arg.unit})` : "") + `; default ${arg.default_text}`;
    return el;
  }

  // A file picker that fills a text argument: the file is read here and sent as text, at most what
  // the server takes in one request body (GET /api/: max_body_bytes).
  function uploader(arg) {
    const file = document.createElement("input");
    file.type = "file";
    file.id = "wb-file-" + arg.key;
    file.accept = ".csv,.jsonl,.json,.txt";
    const cap = state.maxBody;
    file.title = `upload a file (at most ${(cap / 1048576).toFixed(1)} MiB, this server's request limit)`;
    file.setAttribute("aria-label", `${arg.key}: upload a file`);
    file.addEventListener("change", async () => {
      const f = file.files[0];
      if (!f) return;
      $("wb-err-" + arg.key).textContent = "";
      if (f.size > cap) {
        $("wb-err-" + arg.key).textContent = `${f.name} is ${(f.size / 1048576).toFixed(1)} MiB: this server takes at most ${(cap / 1048576).toFixed(1)} MiB per request (use the CLI's --trace for larger files)`;
        file.value = "";
        return;
      }
      $("wb-arg-" + arg.key).value = await f.text();
      $("wb-status").textContent = `${f.name}: ${f.size} bytes read`;
    });
    return file;
  }

  function buildForm(name) {
    const form = $("wb-form");
    form.textContent = "";
    const cmd = state.commands[name];
    $("wb-help").textContent = cmd.help;
    for (const arg of cmd.args) {
      if (arg.positional && arg.type === "string" && cmd.reads_files) continue; // a file on the server's disk
      const label = document.createElement("label");
      label.className = "wb-arg";
      const text = document.createElement("span");
      text.textContent = arg.key + (arg.unit ? ` [${arg.unit}]` : "");
      const err = document.createElement("span");
      err.className = "wb-field-error";
      err.id = "wb-err-" + arg.key;
      err.setAttribute("role", "alert");
      label.append(text, inputFor(arg));
      if (arg.key.endsWith("_text")) label.append(uploader(arg));
      label.append(err);
      form.appendChild(label);
    }
  }

  // The arguments that differ from their defaults, typed as the API takes them.
  function values() {
    const out = {};
    for (const arg of state.commands[$("wb-command").value].args) {
      const el = $("wb-arg-" + arg.key);
      if (!el) continue;
      if (arg.type === "boolean") {
        if (el.checked !== (arg.default === true)) out[arg.key] = el.checked;
        continue;
      }
      const v = el.value.trim();
      if (v === "" || v === String(arg.default)) continue;
      // Lists go as the CLI's text ("1,2,4", "1:4096:x2"), which the API reads as the CLI does.
      if (arg.type === "integer" || arg.type === "number") out[arg.key] = Number(v);
      else out[arg.key] = v;
    }
    return out;
  }

  function setValues(args) {
    for (const [k, v] of Object.entries(args)) {
      const el = $("wb-arg-" + k);
      if (!el) continue;
      if (el.type === "checkbox") el.checked = v === true || v === "true";
      else el.value = Array.isArray(v) ? v.join(",") : String(v);
    }
  }

  // #wb=COMMAND&key=value...: the address of this view.
  function saveToHash(name, args) {
    const q = new URLSearchParams({ wb: name });
    // Inline text (an uploaded trace) is no address's to hold.
    for (const [k, v] of Object.entries(args)) if (!k.endsWith("_text")) q.set(k, Array.isArray(v) ? v.join(",") : String(v));
    history.replaceState(null, "", location.pathname + location.search + "#" + q.toString());
  }
  function fromHash() {
    const q = new URLSearchParams(location.hash.slice(1));
    const name = q.get("wb");
    if (!name || !state.commands[name]) return null;
    const args = {};
    for (const [k, v] of q.entries()) if (k !== "wb") args[k] = v;
    return { name, args };
  }

  function clearErrors() {
    document.querySelectorAll("#wb-form .wb-field-error").forEach((e) => (e.textContent = ""));
    document.querySelectorAll("#wb-form .invalid").forEach((e) => e.classList.remove("invalid"));
    $("wb-error").textContent = "";
  }
  // An API error names its argument first ("--batch: must be at least 1"): shown beside that field.
  function showError(message) {
    const m = /^(--[a-z0-9-]+)/.exec(message);
    const el = m && document.querySelector(`#wb-form [data-flag="${m[1]}"]`);
    if (el) {
      el.classList.add("invalid");
      $("wb-err-" + el.dataset.key).textContent = message;
      el.focus();
    }
    $("wb-error").textContent = message;
  }

  // A long command runs as a server job (the page's apiJob): its progress shows while it runs, and
  // cancel stops it on the server, not just here. A refusal is an answer, not an exception.
  async function asJob(name, args, ctl, started) {
    const progress = (f, snap) => {
      $("wb-status").textContent = `llmecon ${state.commands[name].cli}: ${snap.state}, ${Math.round(100 * f)}% after ${((performance.now() - started) / 1000).toFixed(1)} s`;
      $("wb-progress").value = f;
    };
    try {
      const snap = await state.helpers.apiJob(name, Object.assign({}, args, { format: "text" }), ctl.signal, progress, (id) => (state.job = id));
      return { ok: true, text: snap.answer, json: snap.json };
    } catch (err) {
      if (err.name === "AbortError") throw err;
      return { ok: false, error: err.message, cancelled: err.state === "cancelled" };
    }
  }
  // A quick command: its text, and its JSON for the charts (both cheap, both cached).
  async function once(name, args, ctl) {
    const { api } = state.helpers;
    try {
      const [text, json] = await Promise.all([api(name, args, ctl.signal, "text"), chartsOf(name) ? api(name, args, ctl.signal).catch(() => null) : null]);
      return { ok: true, text, json };
    } catch (err) {
      if (err.name === "AbortError") throw err;
      return { ok: false, error: err.message };
    }
  }

  // The charts a command's JSON supports, as `llmecon COMMAND --plot FILE.html` draws them, and the
  // simulator's latency CDFs.
  const chartsOf = (name) => ["sweep", "batch", "context", "plan", "simulate", "train", "scale", "tco"].includes(name);
  function drawCharts(name, json) {
    for (const c of state.charts) c.destroy();
    state.charts = [];
    const box = $("wb-charts");
    box.textContent = "";
    if (!json || !chartsOf(name)) return;
    const C = llmeconCharts;
    const canvas = (cls) => {
      const div = document.createElement("div");
      div.className = cls || "chart";
      const c = document.createElement("canvas");
      div.appendChild(c);
      box.appendChild(div);
      return c;
    };
    const builders = {
      simulate: (j) => (j.charts ? [C.latencyCdf(canvas(), j), C.overTime(canvas(), j)] : []),
      train: (j) => (j.memory && j.time ? [C.trainMemory(canvas("chart short"), j), C.trainTime(canvas("chart short"), j)] : []),
      scale: (j) => (j.cost_vs_n ? [C.costVsN(canvas(), j)] : []),
      tco: (j) => (j.per_year ? [C.gpuHour(canvas("chart short"), j)] : []),
    };
    state.charts = builders[name] ? builders[name](json) : C.renderCommand(name, json, box);
    if (name === "plan" && json.scaleup) state.charts.push(C.scaleupCost(canvas(), json));
  }
  // Aborting the run cancels its job on the server too (apiJob).
  function cancel() {
    state.job = null;
    if (state.controller) state.controller.abort();
  }

  async function run() {
    const name = $("wb-command").value;
    const args = values();
    saveToHash(name, args);
    clearErrors();
    cancel();
    const ctl = new AbortController();
    state.controller = ctl;
    const started = performance.now();
    const long = state.commands[name].long_running;
    $("wb-status").textContent = `running llmecon ${state.commands[name].cli} ...`;
    $("wb-cancel").hidden = false;
    $("wb-progress").hidden = !long;
    $("wb-progress").value = 0;
    try {
      const r = long ? await asJob(name, args, ctl, started) : await once(name, args, ctl);
      if (!r.ok) {
        $("wb-output").textContent = "";
        drawCharts(name, null);
        if (r.cancelled) $("wb-status").textContent = r.error;
        else {
          showError(r.error);
          $("wb-status").textContent = "refused";
        }
      } else {
        $("wb-output").textContent = r.text;
        drawCharts(name, r.json);
        $("wb-status").textContent = `llmecon ${state.commands[name].cli}: ${((performance.now() - started) / 1000).toFixed(2)} s`;
      }
      state.last = { name, args, ok: r.ok };
      state.runs++;
      document.body.dataset.workbenchRuns = String(state.runs);
    } catch (err) {
      $("wb-status").textContent = err.name === "AbortError" ? "cancelled" : String(err.message || err);
    } finally {
      if (state.controller === ctl) {
        state.controller = null;
        state.job = null;
        $("wb-cancel").hidden = true;
        $("wb-progress").hidden = true;
      }
    }
  }

  async function downloadJson() {
    if (!state.last) return;
    const r = await fetch(`/api/${state.last.name}`, { method: "POST", body: JSON.stringify(state.last.args) });
    state.helpers.download(`llmecon-${state.last.name}.json`, await r.text(), "application/json");
  }

  // navigator.clipboard needs a secure context (loopback is one); elsewhere the text is selected.
  async function copy(text, what) {
    try {
      await navigator.clipboard.writeText(text);
      $("wb-status").textContent = `${what} copied`;
    } catch {
      $("wb-status").textContent = `${what}: copy it from the address bar or the output (the clipboard is not available here)`;
    }
  }

  // helpers: the page's api, apiJob and download (app.js).
  function init(commands, lists, helpers, maxBody) {
    state.helpers = helpers;
    state.maxBody = maxBody || 1 << 20;
    state.lists = { model: lists.model.map((m) => m.name), hardware: lists.hardware.map((h) => h.name) };
    for (const c of commands) state.commands[c.name] = c;
    const picker = $("wb-command");
    for (const c of commands) picker.add(new Option(`${c.cli}: ${c.help}`, c.name));
    picker.addEventListener("change", () => {
      buildForm(picker.value);
      clearErrors();
      $("wb-output").textContent = "";
      saveToHash(picker.value, {});
    });
    $("wb-run").addEventListener("click", run);
    $("wb-cancel").addEventListener("click", cancel);
    $("wb-share").addEventListener("click", () => copy(location.href, "the view's address"));
    $("wb-copy").addEventListener("click", () => copy($("wb-output").textContent, "the output"));
    $("wb-json").addEventListener("click", downloadJson);
    $("wb-form").addEventListener("keydown", (e) => {
      if (e.key === "Enter") {
        e.preventDefault();
        run();
      }
    });
    const saved = fromHash();
    picker.value = saved ? saved.name : state.commands.plan ? "plan" : commands[0].name;
    buildForm(picker.value);
    if (saved) {
      setValues(saved.args);
      $("workbench").open = true;
      run();
    }
  }

  return { init, state };
})();
