// The page talks only to /api on the same server; no CDN.
const $ = (id) => document.getElementById(id);
const fmt = (v) => (Math.abs(v) >= 1e4 || (Math.abs(v) < 1e-3 && v !== 0) ? v.toExponential(3) : +v.toPrecision(4));

async function api(command, args) {
  const res = await fetch(`/api/${command}`, { method: "POST", body: JSON.stringify(args || {}) });
  const body = await res.json();
  if (!res.ok) throw new Error(body.error);
  return body;
}

function args() {
  return { model: $("model").value, hw: $("hw").value, batch: 2 ** +$("batch").value, context: +$("context").value };
}

async function update() {
  $("batch-value").textContent = 2 ** +$("batch").value;
  try {
    const r = await api("roofline", args());
    const rows = [["t_compute_s", "s"], ["t_weights_s", "s"], ["t_kv_s", "s"], ["t_step_s", "s"], ["bound", ""],
                  ["tokens_per_s", "tok/s"], ["usd_per_mtok", "$/Mtok"], ["fits", ""]];
    $("result").innerHTML = rows.map(([k, u]) =>
      `<tr><th>${k}</th><td data-key="${k}">${typeof r[k] === "number" ? fmt(r[k]) : r[k]}</td><td>${u}</td></tr>`).join("");
    $("error").textContent = "";
    const e = await api("roofline", { ...args(), ideal: false });
    $("explain").textContent = JSON.stringify(e, null, 1);
  } catch (err) {
    $("error").textContent = err.message;
  }
}

async function init() {
  const [models, hw] = await Promise.all([api("models"), api("hardware")]);
  $("model").innerHTML = models.map((m) => `<option>${m.name}</option>`).join("");
  $("hw").innerHTML = hw.map((h) => `<option>${h.name}</option>`).join("");
  $("model").value = "llama-3.1-70b";
  $("hw").value = "h100-sxm";
  for (const id of ["model", "hw", "batch", "context"]) $(id).addEventListener("input", update);
  update();
}
init();
